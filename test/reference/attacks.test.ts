// The security review's attacks on the user surface, run over every protocol that reaches them
// (GraphQL, REST, gRPC) with the generated TypeScript clients against a listening service: each
// shows the attack failing, and that the service still answers. The same findings are tested in
// depth, in process, in account.test.ts, outbound.test.ts and test/server/redos.test.ts.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, UserClient, type Protocol } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys, type World } from "../helpers/reference-server.js";

const PROTOCOLS: Protocol[] = ["graphql", "rest", "grpc"];
const PASSWORD = "attack-password-1";

let keys: TestKeys;
let server: SwappableServer;
let world: World;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  keys = await makeTestKeys(1);
  // No rate limit: these attacks must be stopped by the service's own rules, not by the pace limit.
  server = await startSwappableServer(createWorld(keys, "attacks").service, { rateLimit: false });
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()));
  await server?.close();
});

/** A fresh service (its own database) behind the one server, and clients of it over `protocol`. */
function freshWorld(protocol: Protocol, options: Parameters<typeof createWorld>[2] = {}) {
  world = createWorld(keys, `attacks-${protocol}`, options);
  server.use(world.service);
  const common = { serviceUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint, serverVersion: schema.version, retry: false as const, protocol };
  const user = (accessToken?: string) => {
    const client = new UserClient({ ...common, clientId: "reference", ...(accessToken ? { accessToken } : {}) });
    opened.push(client);
    return client;
  };
  const admin = new AdminClient({ ...common, adminSecret: ADMIN_SECRET });
  opened.push(admin);
  return { user, admin };
}

async function failure(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${error === undefined ? "an answer" : String(error)}`);
  return error;
}

async function signUp(client: UserClient, email: string) {
  const answer = await client.signup({ email, password: PASSWORD, confirm_password: PASSWORD });
  return { userId: answer.user!.id, accessToken: answer.access_token!, idToken: answer.id_token! };
}

describe.each(PROTOCOLS)("over %s", (protocol) => {
  it("a 900 KB redirect_uri is refused at once while the service keeps answering", async () => {
    const { user, admin } = freshWorld(protocol);
    const started = performance.now();
    const refused = failure(user().magicLinkLogin({ email: "alice@example.com", redirect_uri: `https://${"a".repeat(900_000)} ` }));
    expect((await admin.adminMeta({})).version).toBe(schema.version);
    const error = await refused;
    expect([error.code, error.message]).toEqual(["INVALID_ARGUMENT", "redirect_uri: must be an http or https URL"]);
    // Quadratic matching took 17.7 s for 150 KB; a linear check takes milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(world.service.state.outbox).toEqual([]);
  });

  it("a 900 KB users query is refused as the contract says (INVALID_ARGUMENT), not INTERNAL, and the service keeps answering", async () => {
    const { admin } = freshWorld(protocol);
    const error = await failure(admin.users({ query: "a".repeat(900_000) }));
    expect([error.code, error.message]).toEqual(["INVALID_ARGUMENT", "query: must be at most 256 characters"]);
    expect((await admin.users({ query: "a".repeat(256) })).users).toEqual([]);
  });

  it("guessing a password stops after 10 wrong ones: the right one is refused too until the window ends, and an unknown account answers alike", async () => {
    const { user } = freshWorld(protocol);
    const client = user();
    await signUp(client, "alice@example.com");
    for (const email of ["alice@example.com", "nobody@example.com"]) {
      const wrong = new Set<string>();
      for (let attempt = 0; attempt < 10; attempt++) {
        const error = await failure(client.login({ email, password: `wrong-password-${attempt}` }));
        wrong.add(`${error.code}: ${error.message}`);
      }
      expect([...wrong]).toEqual(["UNAUTHENTICATED: wrong email, phone number or password"]);
      const locked = await failure(client.login({ email, password: PASSWORD }));
      expect(locked.code).toBe("TOO_MANY_REQUESTS");
      expect(locked.retryAfterSeconds).toBeGreaterThan(0);
    }
    world.advance(15 * 60);
    expect((await client.login({ email: "alice@example.com", password: PASSWORD })).access_token).toBeTruthy();
  });

  it("codes asked for again and again: at most 5 sent an hour, with the same answer as for an unknown account", async () => {
    const { user } = freshWorld(protocol, { features: { is_email_verification_enabled: true } });
    const client = user();
    await client.signup({ email: "alice@example.com", password: PASSWORD, confirm_password: PASSWORD });
    const sentBefore = world.service.state.outbox.length;
    const answers = new Set<string>();
    for (let ask = 0; ask < 7; ask++) answers.add((await client.forgotPassword({ email: "alice@example.com" })).message);
    answers.add((await client.forgotPassword({ email: "nobody@example.com" })).message);
    expect(answers.size).toBe(1);
    expect(world.service.state.outbox.slice(sentBefore).filter((message) => message.purpose === "forgot_password")).toHaveLength(5);
  });

  it("tokens other than this service's access tokens are refused: an ID token, a token of an ended session, a forged one", async () => {
    const { user } = freshWorld(protocol);
    const { accessToken, idToken } = await signUp(user(), "alice@example.com");
    expect((await user(accessToken).profile({})).email).toBe("alice@example.com");
    const forged = `${accessToken.slice(0, accessToken.lastIndexOf(".") + 1)}${"A".repeat(86)}`;
    for (const token of [idToken, forged]) expect((await failure(user(token).profile({}))).code).toBe("UNAUTHENTICATED");
    await user(accessToken).logout({});
    expect((await failure(user(accessToken).profile({}))).code).toBe("UNAUTHENTICATED");
  });

  it("claims stay true: email_verified is false until proven, and a bearer token alone cannot move the email", async () => {
    const { user } = freshWorld(protocol);
    const { accessToken, idToken } = await signUp(user(), "alice@example.com");
    expect(decodeJwt(idToken)).toMatchObject({ email: "alice@example.com", email_verified: false });
    const taken = await failure(user(accessToken).updateProfile({ email: "mallory@example.com" }));
    expect([taken.code, taken.message]).toEqual(["INVALID_ARGUMENT", expect.stringContaining("old_password")]);
    expect((await user(accessToken).profile({})).email).toBe("alice@example.com");
  });

  it("what another user may do is not every user's to learn", async () => {
    const { user } = freshWorld(protocol);
    const { userId, accessToken } = await signUp(user(), "alice@example.com");
    const checks = [{ relation: "viewer", object: "doc:roadmap" }];
    expect((await user(accessToken).checkPermissions({ checks, user: `user:${userId}` })).results).toHaveLength(1);
    const refused = await failure(user(accessToken).checkPermissions({ checks, user: "user:bob" }));
    expect([refused.code, refused.message]).toEqual(["PERMISSION_DENIED", expect.stringContaining("needs the admin role")]);
  });

  it("test_endpoint does not call into the service's own network", async () => {
    // The real outbound sender, refusing private addresses (the worlds of other tests record instead).
    const { admin } = freshWorld(protocol, { webhookSender: undefined });
    for (const endpoint of [`${server.httpUrl}/healthz`, "http://169.254.169.254/latest/meta-data/"]) {
      const refused = await failure(admin.testEndpoint({ endpoint, event_name: "user.signup" }));
      expect([refused.code, refused.message]).toEqual(["FAILED_PRECONDITION", expect.stringContaining("resolves to a loopback, private or link-local address")]);
    }
  });
});
