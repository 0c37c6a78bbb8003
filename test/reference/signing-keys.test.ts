// The keys the service signs its tokens with live in its database: a token stays valid across a
// restart and on every replica of the same database, a rotation on one replica is honoured by the
// others at once, and replicas that start together make one first key.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CallContext } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService, type ReferenceService } from "../../reference/service.js";
import { openStorage } from "../../reference/store/open.js";
import type { Storage } from "../../reference/storage.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const dir = mkdtempSync(join(tmpdir(), "signing-keys-"));
const opened: Storage[] = [];
afterAll(async () => {
  for (const storage of opened) await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(name: string): Promise<Storage> {
  const { storage } = await openStorage(`sqlite:${join(dir, name)}`);
  opened.push(storage);
  return storage;
}

const service = async (file: string): Promise<ReferenceService> =>
  createReferenceService({ storage: await open(file), passwordHashCost: TEST_PASSWORD_HASH_COST, features: { is_email_verification_enabled: false } });

/** What a call from a client looks like to an operation that only sets a cookie. */
const context = {
  operation: schema.operations.signup,
  protocol: "rest",
  principal: { kind: "anonymous" },
  remoteAddress: "127.0.0.1",
  headers: {},
  cookies: {},
  setCookie: () => undefined,
} as unknown as CallContext;

async function signUp(on: ReferenceService, email: string): Promise<string> {
  const answer = await on.implementation.signup({ email, password: "signing-keys-password", confirm_password: "signing-keys-password" }, context);
  return (answer as { access_token: string }).access_token;
}

const kids = async (on: ReferenceService) => (await on.state.jwks()).keys.map((key) => key.kid);

describe("signing keys kept in the database", () => {
  it("are the same after a restart, with the next key published from the first start", async () => {
    const first = await service("restart.sqlite");
    const token = await signUp(first, "ada@example.com");
    const before = await kids(first);
    expect(before).toHaveLength(2);
    await opened.pop()!.close();
    const again = await service("restart.sqlite");
    expect(await kids(again)).toEqual(before);
    expect(await again.state.verifyAccessToken(token)).toMatchObject({ token_type: "access_token" });
  });

  it("are shared by replicas: a token of one verifies on the other, and a rotation on one is honoured by the other at once", async () => {
    const storage = await open("replicas.sqlite");
    const [a, b] = [storage, storage].map((shared) => createReferenceService({ storage: shared, passwordHashCost: TEST_PASSWORD_HASH_COST, features: { is_email_verification_enabled: false } }));
    // Started together: one first key between them.
    const [keysOfA, keysOfB] = await Promise.all([kids(a!), kids(b!)]);
    expect(keysOfA).toEqual(keysOfB);
    const before = await signUp(a!, "ann@example.com");
    expect(await b!.state.verifyAccessToken(before)).not.toBeNull();
    await a!.state.rotateSigningKey();
    const after = await signUp(a!, "bob@example.com");
    // B read its ring before the rotation: the promoted key was its next one, published ahead.
    expect(await b!.state.verifyAccessToken(after)).not.toBeNull();
    expect(await b!.state.verifyAccessToken(before)).not.toBeNull();
    const [current, retired, next] = await kids(a!);
    expect([retired, current]).toEqual(keysOfA);
    // A second rotation on A: B has never seen its new current key, reads again and honours it.
    await a!.state.rotateSigningKey();
    const later = await signUp(a!, "cy@example.com");
    expect(JSON.parse(Buffer.from(later.split(".")[0]!, "base64url").toString()).kid).toBe(next);
    expect(await b!.state.verifyAccessToken(later)).not.toBeNull();
  });

  it("keys given to the service are its own, and nothing is stored", async () => {
    const storage = await open("given.sqlite");
    const { generateKeyPairSync } = await import("node:crypto");
    const given = createReferenceService({ storage, signingKey: { privateKey: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey, alg: "ES256", kid: "given-1" } });
    expect(await kids(given)).toEqual(["given-1"]);
    expect(await storage.signingKeys.list({})).toEqual([]);
  });
});
