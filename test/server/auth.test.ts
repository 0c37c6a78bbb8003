// Auth of the generated server stubs on every protocol: the admin secret on every admin operation,
// lockout of repeated wrong secrets, and the super-admin / org-admin split.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { AdminClient, operations } from "../../generated/client/index.js";
import { codeOf } from "../helpers/raw-calls.js";
import { authorize } from "../../runtime/server/auth.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
type Method = (input: object, options?: object) => Promise<unknown>;

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService("s3cret-admin-key");
});
afterAll(async () => {
  await service.close();
});

const clientFor = (protocol: (typeof PROTOCOLS)[number], adminSecret: string, extra: object = {}) =>
  new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret, protocol, serverVersion: schema.version, retry: false, ...extra });

const adminOperations = Object.values(operations).filter((op) => op.surface === "admin");
const guarded = adminOperations.filter((op) => op.auth !== "public");

const CREDENTIALS = { secret: "the admin secret in header x-service-admin-secret", apiKey: "an API key in header x-api-key" };

describe("the admin secret", () => {
  it("guards every admin operation but admin_login and admin_signup", () => {
    expect(adminOperations.length).toBeGreaterThan(0);
    expect(
      adminOperations
        .filter((op) => op.auth === "public")
        .map((op) => op.name)
        .sort(),
    ).toEqual(["admin_login", "admin_signup"]);
  });

  it.each(PROTOCOLS)("is required on every admin operation carried over %s: none and a wrong one are UNAUTHENTICATED", async (protocol) => {
    const wrong = clientFor(protocol, "not-the-secret");
    const missing = clientFor(protocol, "unused");
    const before = service.calls.length;
    const carried = guarded.filter((op) => op[protocol] !== null);
    for (const op of carried) {
      const withWrong = await codeOf(() => (wrong as unknown as Record<string, Method>)[op.method]!({}));
      const withNone = await codeOf(() => (missing as unknown as Record<string, Method>)[op.method]!({}, { headers: { "x-service-admin-secret": "" } }));
      expect([op.name, withWrong, withNone]).toEqual([op.name, "UNAUTHENTICATED", "UNAUTHENTICATED"]);
    }
    // Not one of them reached the implementation.
    expect(service.calls.length).toBe(before);
    expect(carried.length).toBeGreaterThan(protocol === "graphql" ? 78 : 74);
    await wrong.close();
    await missing.close();
  });

  it.each(PROTOCOLS)("lets the right secret through over %s", async (protocol) => {
    const client = clientFor(protocol, "s3cret-admin-key");
    expect(await codeOf(() => client.users())).toBe("OK");
    expect(await codeOf(() => client.deleteOrgDomain({ domain: "example.com" }))).toBe("OK");
    await client.close();
  });
});

describe("lockout of repeated wrong secrets", () => {
  it.each(PROTOCOLS)("locks an address out after the configured failures, over %s, until the window passes", async (protocol) => {
    let now = 1_000_000;
    const locked = await startRecordingService("s3cret-admin-key", { lockout: { maxFailures: 3, windowMs: 60_000 }, now: () => now });
    const make = (secret: string) => new AdminClient({ serviceUrl: locked.httpUrl, grpcEndpoint: locked.grpcEndpoint, adminSecret: secret, protocol, retry: false });
    const wrong = make("guess");
    const right = make("s3cret-admin-key");
    for (let i = 0; i < 3; i++) expect(await codeOf(() => wrong.adminMeta())).toBe("UNAUTHENTICATED");
    expect(await codeOf(() => wrong.adminMeta())).toBe("TOO_MANY_REQUESTS");
    // Even the right secret waits: the address is locked, not the guess.
    expect(await codeOf(() => right.adminMeta())).toBe("TOO_MANY_REQUESTS");
    now += 60_001;
    expect(await codeOf(() => right.adminMeta())).toBe("OK");
    await wrong.close();
    await right.close();
    await locked.close();
  });
});

describe("super-admin and org-admin", () => {
  // The recording service treats bearer token "user-token" as an org-admin of org-a only.
  const asUser = (protocol: (typeof PROTOCOLS)[number]) => clientFor(protocol, "unused");
  const userHeaders = { headers: { "x-service-admin-secret": "", authorization: "Bearer user-token" } };

  it.each(PROTOCOLS)("over %s, an org-admin may act on their own organization only", async (protocol) => {
    const client = asUser(protocol);
    expect(await codeOf(() => client.orgMembers({ org_id: "org-a" }, userHeaders))).toBe("OK");
    expect(await codeOf(() => client.createSCIMEndpoint({ org_id: "org-a" }, userHeaders))).toBe("OK");
    expect(await codeOf(() => client.orgMembers({ org_id: "org-b" }, userHeaders))).toBe("PERMISSION_DENIED");
    expect(await codeOf(() => client.deleteSCIMEndpoint({ org_id: "org-b" }, userHeaders))).toBe("PERMISSION_DENIED");
    await client.close();
  });

  it.each(PROTOCOLS)("over %s, super-admin-only operations are refused to an org-admin", async (protocol) => {
    const client = asUser(protocol);
    expect(await codeOf(() => client.organizations({}, userHeaders))).toBe("PERMISSION_DENIED");
    expect(await codeOf(() => client.createOrganization({ name: "acme" }, userHeaders))).toBe("PERMISSION_DENIED");
    expect(await codeOf(() => client.deleteOrganization({ id: "org-a" }, userHeaders))).toBe("PERMISSION_DENIED");
    expect(await codeOf(() => client.addVerifiedOrgDomain({ org_id: "org-a", domain: "a.example" }, userHeaders))).toBe("PERMISSION_DENIED");
    // ... and the admin-secret operations outside organizations too.
    expect(await codeOf(() => client.users({}, userHeaders))).toBe("PERMISSION_DENIED");
    await client.close();
  });

  it.each(PROTOCOLS)("over %s, the super-admin may call them all", async (protocol) => {
    const client = clientFor(protocol, "s3cret-admin-key");
    for (const call of [() => client.organizations(), () => client.createOrganization({ name: "acme" }), () => client.orgMembers({ org_id: "org-b" })]) {
      expect(await codeOf(call)).toBe("OK");
    }
    await client.close();
  });

  it.each(PROTOCOLS)("over %s, an invalid bearer token is UNAUTHENTICATED", async (protocol) => {
    const client = asUser(protocol);
    expect(await codeOf(() => client.orgMembers({ org_id: "org-a" }, { headers: { "x-service-admin-secret": "", authorization: "Bearer forged" } }))).toBe("UNAUTHENTICATED");
    await client.close();
  });
});

describe("auth schemes, one by one", () => {
  const never = async () => false;
  const always = async () => true;
  const user = { kind: "user", userId: "u1", roles: [] } as const;
  const scim = { kind: "token", token: "scim", holder: "org-a" } as const;
  const admin = { kind: "secret" } as const;
  const anonymous = { kind: "anonymous" } as const;
  const accessToken = { kind: "bearer", token: "access" } as const;
  const scimToken = { kind: "bearer", token: "scim" } as const;

  it("keeps user tokens and SCIM endpoint tokens apart", () => {
    expect(() => authorize(scimToken, user, "ProvisionUser", CREDENTIALS, never)).toThrow("needs a bearer token of kind scim");
    expect(authorize(scimToken, scim, "ProvisionUser", CREDENTIALS, never)).toBeUndefined();
    expect(() => authorize(accessToken, scim, "Profile", CREDENTIALS, never)).toThrow("needs a signed-in user");
    expect(authorize(accessToken, user, "Profile", CREDENTIALS, never)).toBeUndefined();
  });

  it("refuses a signed-in user a secret scheme in the words of its callers, and lets one in only by the org role a rule adds", async () => {
    expect(() => authorize({ kind: "secret", callers: "the store's managers" }, user, "CloseStore", CREDENTIALS, always)).toThrow("CloseStore is for the store's managers only");
    expect(() => authorize({ kind: "secret" }, user, "CloseStore", CREDENTIALS, always)).toThrow("CloseStore is for the secret's holders only");
    expect(() => authorize({ kind: "secret" }, anonymous, "CloseStore", CREDENTIALS, always)).toThrow(`CloseStore needs ${CREDENTIALS.secret}`);
    expect(authorize({ kind: "secret" }, admin, "CloseStore", CREDENTIALS, never)).toBeUndefined();
    await expect(authorize({ kind: "secret", orgRole: true, callers: "org managers" }, user, "RenameOrg", CREDENTIALS, always)).resolves.toBeUndefined();
    await expect(authorize({ kind: "secret", orgRole: true, callers: "org managers" }, user, "RenameOrg", CREDENTIALS, never)).rejects.toThrow("RenameOrg is for org managers only");
    expect(authorize({ kind: "none" }, anonymous, "Meta", CREDENTIALS, never)).toBeUndefined();
    expect(() => authorize({ kind: "api_key" }, user, "AddBook", CREDENTIALS, never)).toThrow(`AddBook needs ${CREDENTIALS.apiKey}`);
  });
});
