// Validation from the manifest before the implementation runs: INVALID_ARGUMENT naming the field,
// the same on every protocol, never a 500; and what the wire itself can get wrong.
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import type { LogEntry } from "../../runtime/server/index.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
const SECRET = "s3cret-value-that-must-never-leak";

let service: RecordingService;
const log: LogEntry[] = [];
beforeAll(async () => {
  service = await startRecordingService(SECRET, { logger: (entry) => log.push(entry), bodyLimitBytes: 64 * 1024 });
});
afterAll(async () => {
  await service.close();
});

async function failure(call: () => Promise<unknown>): Promise<ApiError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const admin = (protocol: (typeof PROTOCOLS)[number]) =>
  new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });

describe.each(PROTOCOLS)("bad input over %s", (protocol) => {
  // Each case: the call, and the message every protocol must give.
  const cases: [string, (client: AdminClient) => Promise<unknown>, string][] = [
    ["a required string left out", (c) => c.deleteUser({} as never), "id: is required"],
    ["a required string left empty", (c) => c.deleteUser({ id: "" }), "id: must not be empty"],
    ["a required list left empty", (c) => c.fgaWriteTuples({ tuples: [] }), "tuples: is required"],
    ["a required field of a list item", (c) => c.fgaWriteTuples({ tuples: [{ user: "user:1", relation: "", object: "doc:1" }] }), "tuples[0].relation: must not be empty"],
    ["an organization name that is not a slug", (c) => c.createOrganization({ name: "Not A Slug" }), "name: must be a URL-safe slug (lower-case letters, digits and single dashes)"],
    ["a page limit above the bound", (c) => c.users({ pagination: { limit: 5000, page: 1 } }), "pagination.limit: must be between 1 and 1000"],
    ["a page below 1", (c) => c.clients({ pagination: { limit: 10, page: 0 } }), "pagination.page: must be 1 or more"],
    ["neither id nor org_id", (c) => c.getOrgOIDCConnection({}), "give exactly one of id, org_id (got none)"],
    ["both id and org_id", (c) => c.getOrgSAMLConnection({ id: "c1", org_id: "o1" }), "give exactly one of id, org_id (got id and org_id)"],
    ["a malformed URL", (c) => c.addWebhook({ event_name: "user.created", endpoint: "not a url", enabled: true }), "endpoint: must be an http or https URL"],
  ];

  it.each(cases)("%s is INVALID_ARGUMENT naming the field", async (_name, call, message) => {
    const client = admin(protocol);
    const before = service.calls.length;
    const error = await failure(() => call(client));
    expect({ code: error.code, message: error.message }).toEqual({ code: "INVALID_ARGUMENT", message });
    expect(service.calls.length).toBe(before);
    await client.close();
  });
});

describe("bad input only JSON can carry (GraphQL and REST)", () => {
  const rest = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${service.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET, ...headers }, body });

  it.each([
    ["a number for a string", '{"id": 42}', "id: must be a string"],
    ["a string for a boolean", '{"id":"w1","enabled":"yes"}', "enabled: must be true or false"],
    ["a fraction for an integer", '{"pagination":{"limit":2.5}}', "pagination.limit: must be an integer"],
    ["an unknown enum value", '{"token_type":"cookie","token":"t"}', "token_type: must be one of access_token, id_token, refresh_token"],
    ["an unknown field", '{"id":"u1","is_admin":true}', "is_admin: is not a field of this request"],
    ["a list for a map", '{"id":"w1","headers":["a"]}', "headers: must be an object of strings"],
  ])("REST: %s", async (_name, body, message) => {
    const path = message.startsWith("token_type")
      ? "/v1/validate_jwt_token"
      : message.startsWith("enabled") || message.startsWith("headers")
        ? "/v1/admin/update_webhook"
        : message.startsWith("pagination")
          ? "/v1/admin/users"
          : "/v1/admin/delete_user";
    const response = await rest(path, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: "INVALID_ARGUMENT", message });
  });

  it("REST: malformed JSON and a non-object body are INVALID_ARGUMENT, an oversized body PAYLOAD_TOO_LARGE, never 500", async () => {
    for (const body of ["{not json", "[1,2]"]) {
      const response = await rest("/v1/admin/delete_user", body);
      expect(response.status).toBe(400);
      expect((await response.json()).code).toBe("INVALID_ARGUMENT");
    }
    const oversized = await rest("/v1/admin/delete_user", JSON.stringify({ id: "x".repeat(100 * 1024) }));
    expect(oversized.status).toBe(413);
    expect(await oversized.json()).toEqual({ code: "PAYLOAD_TOO_LARGE", message: `the request body is larger than ${64 * 1024} bytes` });
  });

  it("REST: an unknown route is NOT_FOUND and a wrong method is METHOD_NOT_ALLOWED with Allow, neither echoing the path", async () => {
    const missing = await rest("/v1/admin/no_such_operation", "{}");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: "NOT_FOUND", message: "no such route" });
    const wrongMethod = await fetch(`${service.httpUrl}/v1/admin/users`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toEqual({ code: "METHOD_NOT_ALLOWED", message: "this route takes POST" });
  });

  it("REST and GraphQL take JSON only: another or no Content-Type is UNSUPPORTED_MEDIA_TYPE naming the header; the token routes take forms too", async () => {
    const post = (path: string, headers: Record<string, string>, body: string) =>
      fetch(`${service.httpUrl}${path}`, { method: "POST", headers: { "x-service-admin-secret": SECRET, ...headers }, body });
    const plain = await post("/v1/admin/delete_user", { "content-type": "text/plain" }, '{"id":"u1"}');
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual({ code: "UNSUPPORTED_MEDIA_TYPE", message: "the body must be sent with Content-Type: application/json, not text/plain" });
    const form = await post("/v1/admin/delete_user", { "content-type": "application/x-www-form-urlencoded" }, "id=u1");
    expect(form.status).toBe(415);
    // A body without any Content-Type (curl -d without -H) names the header it needs.
    const none = await fetch(`${service.httpUrl}/v1/admin/delete_user`, { method: "POST", headers: { "x-service-admin-secret": SECRET }, body: new Blob(['{"id":"u1"}']) });
    expect(none.status).toBe(415);
    expect((await none.json()).message).toBe("the body must be sent with Content-Type: application/json; the request has no Content-Type header");
    const graphql = await post("/graphql", { "content-type": "text/plain" }, JSON.stringify({ query: "{ admin_meta { version } }" }));
    expect(graphql.status).toBe(415);
    expect((await graphql.json()).errors[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const token = await post("/oauth/revoke", { "content-type": "application/x-www-form-urlencoded" }, "token=t");
    expect(token.status).toBe(200);
    const tokenPlain = await post("/oauth/revoke", { "content-type": "text/plain" }, "token=t");
    expect(tokenPlain.status).toBe(415);
    expect((await tokenPlain.json()).error_description).toBe("the body must be sent with Content-Type: application/json or Content-Type: application/x-www-form-urlencoded, not text/plain");
    // No body at all is an empty input, whatever the headers say.
    expect((await post("/v1/admin/admin_meta", {}, "")).status).toBe(200);
    // A Content-Type that is not a media type is not repeated.
    const odd = await post("/v1/admin/delete_user", { "content-type": "text/<b>hunter2</b>" }, '{"id":"u1"}');
    expect(odd.status).toBe(415);
    expect((await odd.json()).message).toBe("the body must be sent with Content-Type: application/json; the request's Content-Type is not one");
  });

  it("GraphQL: a literal of the wrong type in the document is INVALID_ARGUMENT naming where, never repeating the value", async () => {
    const graphql = async (query: string) =>
      (await (
        await fetch(`${service.httpUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: JSON.stringify({ query }) })
      ).json()) as {
        errors: { message: string; extensions: { code: string } }[];
      };
    const secret = "hunter2-secret-1234";
    const documents = [
      `{ users(params: { query: 12345678 }) { users { id } } }`,
      `{ users(params: { pagination: { limit: "${secret}" } }) { users { id } } }`,
      `{ validate_jwt_token(params: { token_type: ${secret.replace(/-/g, "_")}, token: "t" }) { is_valid } }`,
      `{ users(params: { query: ["${secret}"] }) { users { id } } }`,
      `{ "${secret}" }`,
    ];
    for (const document of documents) {
      const answer = await graphql(document);
      expect(answer.errors.length, document).toBeGreaterThan(0);
      for (const error of answer.errors) {
        expect(error.extensions.code, document).toBe("INVALID_ARGUMENT");
        expect(error.message, document).not.toMatch(/hunter2|12345678/);
      }
    }
    // What is not a value is still named: the field, the type.
    expect(
      (
        await graphql(`
          {
            users(params: { query: 12345678 }) {
              users {
                id
              }
            }
          }
        `)
      ).errors[0]!.message,
    ).toBe("String cannot represent a non string value: (the value sent)");
  });

  it("REST checks who is calling before it reads the body: a malformed body from a caller without the secret is UNAUTHENTICATED", async () => {
    const response = await fetch(`${service.httpUrl}/v1/admin/delete_user`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe("UNAUTHENTICATED");
  });

  it("GraphQL: malformed JSON, a bad query and a wrongly typed variable are INVALID_ARGUMENT", async () => {
    const graphql = (body: string) => fetch(`${service.httpUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body });
    const malformed = await graphql("{oops");
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).errors[0].extensions.code).toBe("INVALID_ARGUMENT");
    const badQuery = await (await graphql(JSON.stringify({ query: "{ no_such_field }" }))).json();
    expect(badQuery.errors[0]).toMatchObject({ message: 'Cannot query field "no_such_field" on type "Query".', extensions: { code: "INVALID_ARGUMENT" } });
    const badVariable = await (await graphql(JSON.stringify({ query: "mutation($p: DeleteUserInput!) { delete_user(params: $p) { message } }", variables: { p: { id: 42 } } }))).json();
    expect(badVariable.errors[0].extensions.code).toBe("INVALID_ARGUMENT");
  });
});

describe("malformed protobuf", () => {
  const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff]);
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, garbage.length]), garbage]);

  /** A gRPC call over HTTP/2 to `origin`, answering its grpc-status and the error code the server named. */
  async function grpcStatusOf(origin: string, body: Buffer): Promise<{ status: unknown; code: unknown }> {
    const session = connect(origin);
    const stream = session.request({ ":method": "POST", ":path": "/identity.v1.AdminService/DeleteUser", "content-type": "application/grpc+proto", te: "trailers", "x-service-admin-secret": SECRET });
    const status = new Promise<Record<string, unknown>>((resolve) => {
      stream.on("trailers", (t) => resolve(t));
      stream.on("response", (h) => {
        if (h["grpc-status"] !== undefined) resolve(h);
      });
    });
    stream.end(body);
    stream.resume();
    const answer = await status;
    session.close();
    return { status: answer["grpc-status"], code: answer["x-error-code"] };
  }

  it("is INVALID_ARGUMENT over gRPC on the HTTP port (HTTP/2), and nothing runs", async () => {
    const before = service.calls.length;
    expect(await grpcStatusOf(service.httpUrl, framed)).toEqual({ status: "3", code: "INVALID_ARGUMENT" });
    expect(service.calls.length).toBe(before);
  });

  it("is INVALID_ARGUMENT over Connect and gRPC-Web (HTTP/1.1), and nothing runs; a well-formed message is served", async () => {
    const before = service.calls.length;
    const url = `${service.httpUrl}/identity.v1.AdminService/DeleteUser`;
    const connectAnswer = await fetch(url, { method: "POST", headers: { "content-type": "application/proto", "x-service-admin-secret": SECRET }, body: garbage });
    expect(connectAnswer.status).toBe(400);
    expect(connectAnswer.headers.get("x-error-code")).toBe("INVALID_ARGUMENT");
    expect(await connectAnswer.json()).toEqual({ code: "invalid_argument", message: "the request is not a valid protobuf message" });
    const grpcWeb = await fetch(url, { method: "POST", headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-service-admin-secret": SECRET }, body: framed });
    expect(grpcWeb.status).toBe(200);
    expect(grpcWeb.headers.get("grpc-status")).toBe("3");
    expect(service.calls.length).toBe(before);
    // The same route with a message that decodes: read again by connect-node, and served.
    const valid = await fetch(`${service.httpUrl}/identity.v1.AdminService/AdminMeta`, {
      method: "POST",
      headers: { "content-type": "application/proto", "x-service-admin-secret": SECRET },
      body: new Uint8Array(),
    });
    expect(valid.status).toBe(200);
    expect(service.calls.length).toBe(before + 1);
  });

  it("still leaves a streamed body over the limit to the limit's own refusal (RESOURCE_EXHAUSTED)", async () => {
    // No content-length: the body is read up to the limit before the refusal.
    const chunk = Buffer.alloc(16 * 1024, 0x41);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(Buffer.from([0, 0, 0x10, 0, 0])); // one 1 MiB frame announced
        if (sent >= 256 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const answer = await fetch(`${service.httpUrl}/identity.v1.AdminService/AddWebhook`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-service-admin-secret": SECRET },
      body,
      duplex: "half",
    } as RequestInit);
    // gRPC-Web carries the status in a trailer frame of the body when the answer has begun.
    const text = Buffer.from(await answer.arrayBuffer()).toString("latin1");
    expect(text).toContain("grpc-status: 8\r\n");
    expect((await fetch(`${service.httpUrl}/v1/meta`)).status).toBe(200);
  });

  it("is INVALID_ARGUMENT over gRPC, and nothing runs", async () => {
    const before = service.calls.length;
    expect((await grpcStatusOf(`http://${service.grpcEndpoint}`, framed)).status).toBe("3");
    expect(service.calls.length).toBe(before);
  });
});

describe("secrets", () => {
  it("never appear in error messages or in the log", async () => {
    const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "wrong-guess-123", protocol: "rest", retry: false });
    const wrong = await failure(() => client.adminMeta());
    expect(wrong.message).not.toContain("wrong-guess-123");
    const login = await failure(() => admin("rest").adminLogin({ admin_secret: "" }));
    expect(login.message).toBe("admin_secret: must not be empty");
    const everything = JSON.stringify(log);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("wrong-guess-123");
    expect(log.length).toBeGreaterThan(10);
    expect(Object.keys(log[0]!).sort()).toEqual(["durationMs", "operation", "outcome", "protocol"]);
  });
});
