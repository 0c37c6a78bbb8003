// The generated clients: configuration, headers, refusals before any byte is sent, retries,
// deadlines, pagination and the one error class, over every protocol.
import { createServer as createTcpServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, FailedPreconditionError, NotFoundError, OutcomeUnknownError, operations, UnavailableError, UserClient } from "../../generated/client/index.js";
import { retryAfterSeconds } from "../../runtime/client/errors.js";
import { schema } from "../../generated/schema.js";
import { loadIr } from "../../generators/generate.js";
import { REPO_ROOT } from "../helpers/project.js";
import { startRecordingService, sampleMessage, type RecordingService } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;

/** A fetch that records every request and never reaches the network. */
function recordingFetch(answer: () => Response = () => new Response("{}", { status: 200 })) {
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = (async (url: string, init?: RequestInit) => {
    requests.push({ url: String(url), init });
    return answer();
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

/** A TCP listener that counts connections: a gRPC client that sends nothing opens none. */
async function connectionCounter(): Promise<{ endpoint: string; count: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function refusalOf(call: () => Promise<unknown>): Promise<ApiError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService();
});
afterAll(async () => {
  await service.close();
});

describe("configuration", () => {
  it("derives the gRPC endpoint from the host of serviceUrl and port 9091, unless given", () => {
    expect(new AdminClient({ serviceUrl: "https://id.example.com:8443", adminSecret: "s" }).grpcEndpoint).toBe("id.example.com:9091");
    expect(new AdminClient({ serviceUrl: "http://localhost:8080/", adminSecret: "s" }).grpcEndpoint).toBe("localhost:9091");
    expect(new AdminClient({ serviceUrl: "http://localhost:8080", adminSecret: "s", grpcEndpoint: "grpc.internal:443" }).grpcEndpoint).toBe("grpc.internal:443");
    expect(new UserClient({ serviceUrl: "http://10.0.0.5", clientId: "app" }).grpcEndpoint).toBe("10.0.0.5:9091");
  });

  it("refuses a missing admin secret or client id, and an unknown protocol", () => {
    expect(() => new AdminClient({ serviceUrl: "http://x", adminSecret: "" })).toThrow("adminSecret is required");
    expect(() => new UserClient({ serviceUrl: "http://x", clientId: "" })).toThrow("clientId is required");
    expect(() => new AdminClient({ serviceUrl: "http://x", adminSecret: "s", protocol: "soap" as never })).toThrow("protocol must be one of graphql, rest, grpc, not 'soap'");
  });

  it("refuses a gRPC endpoint that is not host:port, naming the option and the form it takes", () => {
    for (const endpoint of ["http://localhost:28418", "localhost", "localhost:9091/grpc"]) {
      expect(() => new AdminClient({ serviceUrl: "http://x", adminSecret: "s", grpcEndpoint: endpoint })).toThrow(`grpcEndpoint must be host:port, such as localhost:9091, not '${endpoint}'`);
    }
    for (const endpoint of ["localhost:28418", "10.0.0.5:443", "[::1]:9091", "grpc.example.com:9091"]) {
      expect(new AdminClient({ serviceUrl: "http://x", adminSecret: "s", grpcEndpoint: endpoint }).grpcEndpoint).toBe(endpoint);
    }
  });

  it("names grpcEndpoint when nothing answers gRPC at the endpoint it chose itself, and only then", async () => {
    // 127.0.0.2 is loopback where no test listens: the default endpoint 127.0.0.2:9091 refuses.
    const chosen = new AdminClient({ serviceUrl: "http://127.0.0.2:1", adminSecret: "s", protocol: "grpc", retry: false });
    const failure = await chosen.adminMeta({}).then(
      () => expect.fail("nothing listens"),
      (error: unknown) => error as ApiError,
    );
    await chosen.close();
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure.code).toBe("UNAVAILABLE");
    expect(failure.message).toContain("127.0.0.2:9091 is the default gRPC endpoint (the host of the service URL, port 9091): if the service serves gRPC elsewhere, set grpcEndpoint to its host:port");
    const given = new AdminClient({ serviceUrl: "http://127.0.0.2:1", adminSecret: "s", protocol: "grpc", retry: false, grpcEndpoint: "127.0.0.2:9091" });
    const plain = await given.adminMeta({}).then(
      () => expect.fail("nothing listens"),
      (error: unknown) => error as ApiError,
    );
    await given.close();
    expect(plain.code).toBe("UNAVAILABLE");
    expect(plain.message).not.toContain("default gRPC endpoint");
  });

  it("exports metadata per operation that code can read", () => {
    expect(operations.delete_org_domain).toMatchObject({ destructive: true, auth: "org_admin", rest: { since: "2.4.0" }, grpc: { since: "2.4.0" } });
    expect(operations.admin_signup.rest).toBeNull();
    expect(Object.keys(operations)).toEqual(loadIr(REPO_ROOT).operations.map((op) => op.name));
  });
});

describe.each(PROTOCOLS)("over %s", (protocol) => {
  const admin = () => new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "s3cret-admin-key", protocol, extraHeaders: { "x-tenant": "t1" } });

  it("sends the admin secret and the extra headers on every admin call", async () => {
    const client = admin();
    const before = service.calls.length;
    await client.adminMeta();
    await client.deleteUser({ id: "u1" });
    await client.close();
    const calls = service.calls.slice(before);
    expect(calls.map((c) => [c.method, c.protocol])).toEqual([
      ["adminMeta", protocol],
      ["deleteUser", protocol],
    ]);
    for (const call of calls) expect(call.headers).toMatchObject({ "x-service-admin-secret": "s3cret-admin-key", "x-tenant": "t1" });
  });

  it("lets a call's own headers override the admin secret and the extra headers, for that call only", async () => {
    const client = admin();
    const before = service.calls.length;
    await client.adminMeta({}, { headers: { "x-tenant": "t2" } });
    // The server refuses the overriding secret: it was sent instead of the client's.
    await expect(client.adminMeta({}, { headers: { "x-service-admin-secret": "another-secret" } })).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    await client.adminMeta();
    await client.close();
    const [overridden, plain] = service.calls.slice(before);
    expect(overridden!.headers).toMatchObject({ "x-service-admin-secret": "s3cret-admin-key", "x-tenant": "t2" });
    expect(plain!.headers).toMatchObject({ "x-service-admin-secret": "s3cret-admin-key", "x-tenant": "t1" });
  });

  it("answers the flat shape: every field present, as the sample the service returned", async () => {
    const client = admin();
    expect(await client.getWebhook({ id: "w1" })).toEqual(sampleMessage(schema, "Webhook"));
    await client.close();
  });

  it("raises one error class carrying code, operation and protocol", async () => {
    const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "wrong", protocol, retry: false });
    const error = await refusalOf(() => client.adminMeta());
    expect(error).toMatchObject({ code: "UNAUTHENTICATED", operation: "admin_meta", protocol, refused: false });
    const invalid = await refusalOf(() => admin().deleteUser({ id: "" }));
    expect(invalid).toMatchObject({ code: "INVALID_ARGUMENT", operation: "delete_user", protocol, message: "id: must not be empty" });
    await client.close();
  });

  it("fetches and revokes user tokens over REST whatever the protocol", async () => {
    const user = new UserClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, clientId: "app-1", protocol });
    const before = service.calls.length;
    await user.oauthToken({ grant_type: "client_credentials" });
    await user.oauthRevoke({ token: "t" });
    await user.meta();
    const calls = service.calls.slice(before);
    expect(calls.map((c) => [c.method, c.protocol])).toEqual([
      ["oauthToken", "rest"],
      ["oauthRevoke", "rest"],
      ["meta", protocol],
    ]);
    expect(calls[0]!.input).toMatchObject({ grant_type: "client_credentials", client_id: "app-1" });
    await user.close();
  });

  it("walks every page of a paginated list exactly once", async () => {
    const all = Array.from({ length: 23 }, (_, i) => ({ ...sampleMessage(schema, "Client"), id: `c${i}` }));
    service.answers.set("clients", (input) => {
      const { limit, page } = input.pagination as { limit: number; page: number };
      const offset = (page - 1) * limit;
      return { pagination: { limit, page, offset, total: all.length }, clients: all.slice(offset, offset + limit) };
    });
    const before = service.calls.length;
    const client = admin();
    const seen: string[] = [];
    for await (const item of client.iterateClients({ pagination: { limit: 10 } })) seen.push(item.id);
    await client.close();
    service.answers.delete("clients");
    expect(seen).toEqual(all.map((c) => c.id));
    expect(service.calls.slice(before).map((c) => (c.input.pagination as { page: number }).page)).toEqual([1, 2, 3]);
  });

  it("stops at the deadline of timeoutMs", async () => {
    service.answers.set("getClient", () => new Promise((resolve) => setTimeout(() => resolve(sampleMessage(schema, "Client")), 500)));
    const client = admin();
    const error = await refusalOf(() => client.getClient({ id: "c1" }, { timeoutMs: 50 }));
    service.answers.delete("getClient");
    await client.close();
    expect(error).toMatchObject({ code: "DEADLINE_EXCEEDED", operation: "get_client", protocol });
  });
});

describe("refusals before any byte is sent", () => {
  it("warns once per process that a deprecated operation is deprecated, through the client's logger", async () => {
    const { fetch } = recordingFetch();
    const warnings: string[] = [];
    const logger = { debug: () => {}, warn: (message: string) => void warnings.push(message) };
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, logger });
    for (let i = 0; i < 3; i++) await refusalOf(() => client.updateEnv({}));
    await refusalOf(() => new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, logger }).updateEnv({}));
    expect(warnings.filter((line) => line.includes("deprecated"))).toEqual([`UpdateEnv is deprecated: ${schema.operations.update_env.deprecated}`]);
  });

  it("refuses an operation the protocol does not carry, in the spec's words", async () => {
    const { fetch, requests } = recordingFetch();
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch });
    const error = await refusalOf(() => client.adminSignup({ admin_secret: "s" }));
    expect(error.message).toBe("AdminSignup not available over rest; use graphql");
    expect(error).toMatchObject({ refused: true, operation: "admin_signup", protocol: "rest" });
    expect(requests).toHaveLength(0);
  });

  it("refuses over grpc without opening a connection", async () => {
    const counter = await connectionCounter();
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "grpc", grpcEndpoint: counter.endpoint, serverVersion: "2.3.0", readOnly: true });
    expect((await refusalOf(() => client.generateJWTKeys({ type: "RS256" }))).message).toBe("GenerateJWTKeys not available over grpc; use graphql");
    expect((await refusalOf(() => client.deleteOrganization({ id: "o1" }))).message).toBe("DeleteOrganization is destructive and this client is read-only");
    expect((await refusalOf(() => client.getOrganization({ id: "o1" }))).message).toBe(
      "GetOrganization not available over grpc; use graphql (needs server 2.4.0 or later on grpc; the server is 2.3.0)",
    );
    await client.close();
    expect(counter.count()).toBe(0);
    await counter.close();
  });

  it("refuses every destructive operation in read-only mode, and nothing else", async () => {
    const { fetch, requests } = recordingFetch(() => new Response(JSON.stringify({ message: "ok" })));
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", readOnly: true, serverVersion: schema.version, fetch });
    const destructive = Object.values(operations).filter((op) => op.destructive);
    expect(destructive.length).toBeGreaterThan(0);
    for (const op of destructive) {
      const error = await refusalOf(() => (client as unknown as Record<string, (input: object) => Promise<unknown>>)[op.method]!({}));
      expect(error.message).toBe(`${op.pascalName} is destructive and this client is read-only`);
    }
    expect(requests).toHaveLength(0);
    await client.listSAMLIDPKeys({ org_id: "o1" }).catch(() => undefined);
    expect(requests).toHaveLength(1);
  });

  it("learns the server version once from admin_meta, then refuses what that version does not carry", async () => {
    const meta = { ...sampleMessage(schema, "AdminMeta"), version: "2.3.0-rc.9" };
    const { fetch, requests } = recordingFetch(() => new Response(JSON.stringify(meta)));
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch });
    const first = await refusalOf(() => client.createOrganization({ name: "acme" }));
    expect(first.message).toBe("CreateOrganization not available over rest; use graphql (needs server 2.4.0 or later on rest; the server is 2.3.0-rc.9)");
    await refusalOf(() => client.orgDomains({ org_id: "o1" }));
    expect(requests.map((r) => r.url)).toEqual(["http://127.0.0.1:9/v1/admin/admin_meta"]);
    // An operation every server version carries needs no version at all.
    await client.users();
    expect(requests).toHaveLength(2);
  });
});

describe("retries", () => {
  const unavailable = () => new Response(JSON.stringify({ code: "INTERNAL", message: "busy" }), { status: 503 });

  it("retry reads on transient failures with backoff", async () => {
    const { fetch, requests } = recordingFetch(unavailable);
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, retry: { attempts: 3, baseDelayMs: 1 } });
    await refusalOf(() => client.users());
    expect(requests).toHaveLength(3);
  });

  it("repeat a write with its Idempotency-Key, the same on every attempt, and a caller's key as given", async () => {
    const { fetch, requests } = recordingFetch(unavailable);
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", serverVersion: schema.version, fetch, retry: { attempts: 3, baseDelayMs: 1 } });
    const keysOf = (from: number) => requests.slice(from).map((r) => new Headers(r.init?.headers).get("idempotency-key"));
    for (const call of [() => client.deleteUser({ id: "u1" }), () => client.rotateClientSecret({ id: "c1" }), () => client.createOrganization({ name: "acme" })]) {
      const before = requests.length;
      expect((await refusalOf(call)).status).toBe(503);
      const keys = keysOf(before);
      expect(keys).toHaveLength(3);
      expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(keys).size).toBe(1);
    }
    const before = requests.length;
    await refusalOf(() => client.createOrganization({ name: "acme" }, { idempotencyKey: "order-7f3a", maxRetries: 1 }));
    expect(keysOf(before)).toEqual(["order-7f3a", "order-7f3a"]);
    // Each call its own key.
    await refusalOf(() => client.createOrganization({ name: "acme" }, { maxRetries: 0 }));
    await refusalOf(() => client.createOrganization({ name: "acme" }, { maxRetries: 0 }));
    const [first, second] = keysOf(requests.length - 2);
    expect(first).not.toBe(second);
    // A read carries no key.
    await refusalOf(() => client.users({}, { maxRetries: 0 }));
    expect(keysOf(requests.length - 1)).toEqual([null]);
  });

  it("never repeat a write that takes no key (it sets a cookie), unless nothing was sent", async () => {
    const { fetch, requests } = recordingFetch(unavailable);
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", serverVersion: schema.version, fetch, retry: { attempts: 5, baseDelayMs: 1 } });
    expect((await refusalOf(() => client.adminLogin({ admin_secret: "s" }))).status).toBe(503);
    expect(requests).toHaveLength(1);
    expect(new Headers(requests[0]!.init?.headers).get("idempotency-key")).toBeNull();
    // A refused connection: nothing reached a server, so even this write goes again.
    let attempts = 0;
    const refusing = new AdminClient({
      serviceUrl: "http://127.0.0.1:9",
      adminSecret: "s",
      protocol: "rest",
      retry: { attempts: 3, baseDelayMs: 1 },
      fetch: (async () => {
        attempts++;
        throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) });
      }) as typeof globalThis.fetch,
    });
    expect(await refusalOf(() => refusing.adminLogin({ admin_secret: "s" }))).toMatchObject({ code: "UNAVAILABLE" });
    expect(attempts).toBe(3);
  });

  it("take maxRetries per call, and refuse a bad key or count before sending", async () => {
    const { fetch, requests } = recordingFetch(unavailable);
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", serverVersion: schema.version, fetch, retry: { attempts: 2, baseDelayMs: 1 } });
    await refusalOf(() => client.users({}, { maxRetries: 3 }));
    expect(requests).toHaveLength(4);
    await refusalOf(() => client.users({}, { maxRetries: 0 }));
    expect(requests).toHaveLength(5);
    for (const [options, message] of [
      [{ idempotencyKey: "has space" }, 'create_organization: idempotencyKey must be 1 to 255 printable ASCII characters without spaces, not "has space"'],
      [{ idempotencyKey: "" }, 'create_organization: idempotencyKey must be 1 to 255 printable ASCII characters without spaces, not ""'],
      [{ idempotencyKey: "k".repeat(256) }, "create_organization: idempotencyKey must be 1 to 255"],
      [{ maxRetries: -1 }, "create_organization: maxRetries must be a whole number of retries, 0 or more, not -1"],
    ] as const) {
      const error = await refusalOf(() => client.createOrganization({ name: "acme" }, options));
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT", refused: true });
      expect(error.message).toContain(message);
    }
    expect(requests).toHaveLength(5);
  });

  it("wait as long as retry-after-ms asks, before Retry-After", async () => {
    const times: number[] = [];
    const { fetch } = recordingFetch(() => {
      times.push(performance.now());
      return new Response(JSON.stringify({ code: "UNAVAILABLE", message: "busy" }), { status: 503, headers: { "retry-after-ms": "250", "retry-after": "30" } });
    });
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, retry: { attempts: 2, baseDelayMs: 1 } });
    expect(await refusalOf(() => client.users())).toMatchObject({ retryAfterSeconds: 0.25 });
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(240);
    expect(times[1]! - times[0]!).toBeLessThan(5_000);
  });

  it("throw the class of the error's code, an ApiError too: NotFoundError, UnavailableError, FailedPreconditionError", async () => {
    const { fetch } = recordingFetch(() => new Response(JSON.stringify({ code: "NOT_FOUND", message: "no user u9" }), { status: 404 }));
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, serverVersion: schema.version });
    const notFound = await refusalOf(() => client.user({ id: "u9" }));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).not.toBeInstanceOf(UnavailableError);
    expect(notFound.name).toBe("NotFoundError");
    expect(String(notFound)).toBe("NotFoundError: no user u9");
    const refused = await refusalOf(() => client.adminSignup({ admin_secret: "x" }));
    expect(refused).toBeInstanceOf(FailedPreconditionError);
    const nobody = new AdminClient({ serviceUrl: "http://127.0.0.1:1", adminSecret: "s", protocol: "rest", retry: false, serverVersion: schema.version });
    const unanswered = await refusalOf(() => nobody.users());
    expect(unanswered).toBeInstanceOf(UnavailableError);
    expect(unanswered.code).toBe("UNAVAILABLE");
    await nobody.close();
    const made = new OutcomeUnknownError("OUTCOME_UNKNOWN", "lost", "create_organization", "rest");
    expect([made instanceof ApiError, made.name]).toEqual([true, "OutcomeUnknownError"]);
  });

  it("do not retry a definite answer such as NOT_FOUND", async () => {
    const { fetch, requests } = recordingFetch(() => new Response(JSON.stringify({ code: "NOT_FOUND", message: "no user u9" }), { status: 404 }));
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch });
    expect(await refusalOf(() => client.user({ id: "u9" }))).toMatchObject({ code: "NOT_FOUND", message: "no user u9", status: 404 });
    expect(requests).toHaveLength(1);
  });

  it("wait as long as Retry-After asks, and expose it on the error", async () => {
    const times: number[] = [];
    const { fetch } = recordingFetch(() => {
      times.push(performance.now());
      return new Response(JSON.stringify({ code: "TOO_MANY_REQUESTS", message: "slow down" }), { status: 429, headers: { "retry-after": "0.3" } });
    });
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, retry: { attempts: 2, baseDelayMs: 1 } });
    expect(await refusalOf(() => client.users())).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 0.3 });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(290);
  });

  it("fall back to the backoff when Retry-After asks for more than a minute", async () => {
    const times: number[] = [];
    const { fetch } = recordingFetch(() => {
      times.push(performance.now());
      return new Response(JSON.stringify({ code: "UNAVAILABLE", message: "down" }), { status: 503, headers: { "retry-after": "3600" } });
    });
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, retry: { attempts: 2, baseDelayMs: 1 } });
    expect(await refusalOf(() => client.users())).toMatchObject({ retryAfterSeconds: 3600 });
    expect(times[1]! - times[0]!).toBeLessThan(1_000);
  });

  it("read Retry-After as seconds or an HTTP date, and ignore what is unreadable or past", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(retryAfterSeconds("7", now)).toBe(7);
    expect(retryAfterSeconds(" 1.5 ", now)).toBe(1.5);
    expect(retryAfterSeconds("Mon, 23 Nov 2026 12:00:30 GMT", now)).toBe(30);
    expect(retryAfterSeconds("Mon, 23 Nov 2026 11:00:00 GMT", now)).toBeUndefined();
    expect(retryAfterSeconds("-3", now)).toBeUndefined();
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });

  it("stop when the caller's signal aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    const { fetch } = recordingFetch();
    const client = new AdminClient({
      serviceUrl: "http://127.0.0.1:9",
      adminSecret: "s",
      protocol: "rest",
      fetch: ((url: string, init?: RequestInit) => {
        init?.signal?.throwIfAborted();
        return fetch(url, init);
      }) as typeof globalThis.fetch,
    });
    expect(await refusalOf(() => client.users({}, { signal: controller.signal }))).toMatchObject({ code: "CANCELLED" });
  });
});

describe("Idempotency-Key on the wire", () => {
  it.each(PROTOCOLS)("over %s, a write carries its key to the service, a read none", async (protocol) => {
    const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "s3cret-admin-key", protocol, serverVersion: schema.version });
    try {
      const before = service.calls.length;
      await client.createOrganization({ name: "acme" }, { idempotencyKey: `key-over-${protocol}` });
      await client.updateUser({ id: "u1" });
      await client.users();
      const [created, updated, listed] = service.calls.slice(before).map((call) => call.headers["idempotency-key"]);
      expect(created).toBe(`key-over-${protocol}`);
      expect(updated).toMatch(/^[0-9a-f-]{36}$/);
      expect(listed).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe("who calls, and configuration from the environment", () => {
  it.each(PROTOCOLS)("over %s, every call names the SDK: User-Agent and x-api-client (language, version, runtime)", async (protocol) => {
    const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "s3cret-admin-key", protocol, serverVersion: schema.version });
    try {
      const before = service.calls.length;
      await client.users();
      const { headers } = service.calls[before]!;
      expect(headers["x-api-client"]).toBe(`typescript/${schema.version} node/${process.versions.node}`);
      expect(headers["user-agent"]).toContain(`@identity-interface/sdk/${schema.version}`);
    } finally {
      await client.close();
    }
  });

  it("takes the service URL, the admin secret or an access token from IDENTITY_* when the code gives none", async () => {
    const saved = { ...process.env };
    try {
      process.env.IDENTITY_SERVICE_URL = service.httpUrl;
      process.env.IDENTITY_ADMIN_SECRET = "s3cret-admin-key";
      const client = new AdminClient({ protocol: "rest", serverVersion: schema.version });
      const before = service.calls.length;
      await client.users();
      expect(service.calls[before]!.headers["x-service-admin-secret"]).toBe("s3cret-admin-key");
      await client.close();
      // What the code gives wins over the environment.
      expect(() => new AdminClient({ serviceUrl: "http://127.0.0.1:1", accessToken: "t" })).not.toThrow();
      process.env.IDENTITY_ACCESS_TOKEN = "user-token";
      const user = new UserClient({ clientId: "app", protocol: "rest", serverVersion: schema.version });
      const userBefore = service.calls.length;
      await user.profile();
      expect(service.calls[userBefore]!.headers.authorization).toBe("Bearer user-token");
      await user.close();
      delete process.env.IDENTITY_SERVICE_URL;
      delete process.env.IDENTITY_ADMIN_SECRET;
      delete process.env.IDENTITY_ACCESS_TOKEN;
      expect(() => new AdminClient({ adminSecret: "s" })).toThrow("serviceUrl is required, or the environment variable IDENTITY_SERVICE_URL");
      expect(() => new AdminClient({ serviceUrl: "http://127.0.0.1:1" })).toThrow("adminSecret is required (or the environment variable IDENTITY_ADMIN_SECRET)");
    } finally {
      process.env = saved;
    }
  });
});

describe("Retry-After from the service", () => {
  it.each(PROTOCOLS)("over %s, a rate-limited read carries the wait the server asked for", async (protocol) => {
    const limited = await startRecordingService("s3cret-admin-key", { rateLimit: { read: { perSecond: 1, burst: 0 }, write: false, token: false } });
    try {
      const client = new AdminClient({ serviceUrl: limited.httpUrl, grpcEndpoint: limited.grpcEndpoint, adminSecret: "s3cret-admin-key", protocol, serverVersion: schema.version, retry: false });
      await client.users();
      const error = await refusalOf(() => client.users());
      expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS" });
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await client.close();
    } finally {
      await limited.close();
    }
  });
});

describe("edge cases", () => {
  it("a deadline that passes during a retry backoff is DEADLINE_EXCEEDED, not a raw abort", async () => {
    const { fetch } = recordingFetch(() => new Response(JSON.stringify({ code: "INTERNAL", message: "busy" }), { status: 503 }));
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, retry: { attempts: 5, baseDelayMs: 200 } });
    const error = await refusalOf(() => client.users({}, { timeoutMs: 50 }));
    expect(error).toMatchObject({ code: "DEADLINE_EXCEEDED", operation: "users", protocol: "rest" });
  });

  it("a token-paginated list ends when the server hands out a token twice", async () => {
    let calls = 0;
    const { fetch } = recordingFetch(() => {
      calls++;
      return new Response(JSON.stringify({ tuples: [{ user: `user:${calls}`, relation: "viewer", object: "doc:1" }], continuation_token: "same" }));
    });
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch });
    const users: string[] = [];
    for await (const tuple of client.iterateFGAReadTuples({})) users.push(tuple.user);
    expect(users).toEqual(["user:1", "user:2"]);
  });
});
