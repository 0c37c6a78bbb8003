// The RPC protocols: gRPC on the gRPC port (grpc-js), Connect and gRPC-Web on the HTTP port over
// HTTP/1.1 and HTTP/2, all answering the same call the same way: answers, errors with their code,
// the body limit, unknown methods, cookies, and required scalars that proto3 alone could not see.
import { createClient, Code, ConnectError, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, UserClient } from "../../generated/client/index.js";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { createServer, type Implementation, type ServiceServer } from "../../generated/server/index.js";
import { codeOfGrpcStatus, ERROR_CODE_METADATA } from "../../runtime/errors.js";
import { schema } from "../../generated/schema.js";
import { sampleMessage, startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "rpc-test-secret";
const MiB = 1024 * 1024;

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET); // the default body limit, 1 MiB
});
afterAll(async () => {
  await service.close();
});

/** A webhook whose description alone is `size` bytes. */
const webhook = (size: number) => ({ event_name: "user.created", event_description: "d".repeat(size), endpoint: "https://hooks.example.com/in", enabled: true });

async function failure(call: () => Promise<unknown>): Promise<ConnectError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

// Node's HTTP/2 client session buffers at most 10 MB unless told otherwise (as the generated client does).
const nodeOptions = { maxSessionMemory: Number.MAX_SAFE_INTEGER };
const transports: [string, () => Transport][] = [
  ["gRPC on the gRPC port", () => createGrpcTransport({ baseUrl: `http://${service.grpcEndpoint}`, nodeOptions })],
  ["Connect on the HTTP port over HTTP/1.1", () => createConnectTransport({ baseUrl: service.httpUrl, httpVersion: "1.1" })],
  ["gRPC-Web on the HTTP port over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: service.httpUrl, httpVersion: "1.1" })],
  ["Connect on the HTTP port over HTTP/2", () => createConnectTransport({ baseUrl: service.httpUrl, httpVersion: "2", nodeOptions })],
  ["gRPC-Web on the HTTP port over HTTP/2", () => createGrpcWebTransport({ baseUrl: service.httpUrl, httpVersion: "2", nodeOptions })],
];

describe.each(transports)("%s", (_name, transport) => {
  const admin = () => createClient(AdminService, transport());
  const headers = { "x-service-admin-secret": SECRET };

  it("answers admin_meta as the gRPC port does, and runs the pipeline once", async () => {
    const reference = await createClient(AdminService, createGrpcTransport({ baseUrl: `http://${service.grpcEndpoint}` })).adminMeta({}, { headers });
    const before = service.calls.length;
    const answer = await admin().adminMeta({}, { headers });
    expect(answer).toEqual(reference);
    expect(answer.version).toBe("version-value");
    expect(service.calls.slice(before).map((call) => [call.method, call.protocol])).toEqual([["adminMeta", "grpc"]]);
  });

  it("answers errors with the status and the code in x-error-code", async () => {
    const wrong = await failure(() => admin().adminMeta({}, { headers: { "x-service-admin-secret": "wrong" } }));
    expect([wrong.code, wrong.rawMessage, wrong.metadata.get(ERROR_CODE_METADATA)]).toEqual([Code.Unauthenticated, "wrong admin secret in header x-service-admin-secret", "UNAUTHENTICATED"]);
    const invalid = await failure(() => admin().addWebhook({ eventName: "user.created", endpoint: "not a url", enabled: true }, { headers }));
    expect([invalid.code, invalid.rawMessage, invalid.metadata.get(ERROR_CODE_METADATA)]).toEqual([Code.InvalidArgument, "endpoint: must be an http or https URL", "INVALID_ARGUMENT"]);
  });

  it("answers UNIMPLEMENTED for a method or service it does not serve", async () => {
    const method = AdminService.method.adminMeta;
    const retired = { ...method, name: "RetiredMethod" };
    const unknownService = { ...method, parent: { ...method.parent, typeName: "identity.v1.RetiredService" } };
    for (const unknown of [retired, unknownService]) {
      const error = await failure(() => transport().unary(unknown, undefined, undefined, headers, {}));
      expect(error.code).toBe(Code.Unimplemented);
    }
  });

  it("takes a message up to the body limit and refuses a larger one with RESOURCE_EXHAUSTED, storing nothing", async () => {
    const client = admin(); // one client: a refusal leaves its connection fit for the next call
    const before = service.calls.length;
    const within = webhook(MiB - 1024);
    await client.addWebhook({ eventName: within.event_name, eventDescription: within.event_description, endpoint: within.endpoint, enabled: true }, { headers });
    expect(service.calls.length).toBe(before + 1);
    expect((service.calls.at(-1)!.input.event_description as string).length).toBe(MiB - 1024);
    for (const size of [2 * MiB, 20 * MiB]) {
      const large = webhook(size);
      const error = await failure(() => client.addWebhook({ eventName: large.event_name, eventDescription: large.event_description, endpoint: large.endpoint, enabled: true }, { headers }));
      expect(error.code).toBe(Code.ResourceExhausted);
      expect(error.rawMessage).toMatch(/larger than/);
      // The library's own refusal names no code: every client reads a bare RESOURCE_EXHAUSTED so.
      expect(error.metadata.get(ERROR_CODE_METADATA)).toBeNull();
      expect(codeOfGrpcStatus(error.code)).toBe("PAYLOAD_TOO_LARGE");
      expect((await client.adminMeta({}, { headers })).version).toBe("version-value");
    }
    expect(service.calls.length).toBe(before + 3);
  });
});

describe("the generated client over gRPC", () => {
  const admin = () => new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol: "grpc", serverVersion: schema.version, retry: false });

  it("reads a message over the limit as PAYLOAD_TOO_LARGE, however large, and nothing is stored", async () => {
    const client = admin();
    const before = service.calls.length;
    for (const size of [2 * MiB, 20 * MiB]) {
      const error = await client.addWebhook(webhook(size)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("PAYLOAD_TOO_LARGE");
    }
    expect(service.calls.length).toBe(before);
    await client.close();
  });
});

describe("required scalars left out", () => {
  // proto3 cannot tell an unset bool or enum from false or the zero value; the request messages
  // declare them with explicit presence, so every protocol reports the same missing field.
  const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
  const settings = (protocol: (typeof PROTOCOLS)[number]) => ({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, protocol, serverVersion: schema.version, retry: false as const });

  it.each(PROTOCOLS)("are INVALID_ARGUMENT naming the field over %s, and the implementation is not called", async (protocol) => {
    const admin = new AdminClient({ ...settings(protocol), adminSecret: SECRET });
    const user = new UserClient({ ...settings(protocol), clientId: "app" });
    const before = service.calls.length;
    const cases: [() => Promise<unknown>, string][] = [
      [() => admin.addWebhook({ event_name: "user.created", endpoint: "https://hooks.example.com/in" } as never), "enabled: is required"],
      [() => user.validateJWTToken({ token: "t" } as never), "token_type: is required"],
    ];
    for (const [call, message] of cases) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect({ code: (error as ApiError).code, message: (error as ApiError).message }).toEqual({ code: "INVALID_ARGUMENT", message });
    }
    // false is a value, not a missing one.
    await admin.addWebhook({ event_name: "user.created", endpoint: "https://hooks.example.com/in", enabled: false });
    expect(service.calls.slice(before).map((call) => [call.method, call.input.enabled])).toEqual([["addWebhook", false]]);
    await admin.close();
    await user.close();
  });
});

describe("cookies", () => {
  let server: ServiceServer;
  let addresses: { httpUrl: string; grpcEndpoint: string };
  beforeAll(async () => {
    const implementation: Partial<Implementation> = {
      async adminLogin(_input, context) {
        context.setCookie(context.sessions.cookieName, "session-1", { maxAgeSeconds: 60 });
        return sampleMessage(schema, schema.operations.admin_login.output) as never;
      },
    };
    server = createServer(implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, partial: true, onWarning: () => {} });
    addresses = await server.listen();
  });
  afterAll(() => server.close());

  it.each([
    ["gRPC (initial metadata)", () => createGrpcTransport({ baseUrl: `http://${addresses.grpcEndpoint}` })],
    ["Connect (response headers)", () => createConnectTransport({ baseUrl: addresses.httpUrl, httpVersion: "1.1" })],
  ])("are set over %s", async (_name, transport) => {
    let setCookie: string | null = null;
    await createClient(AdminService, transport()).adminLogin({ adminSecret: SECRET }, { onHeader: (header) => (setCookie = header.get("set-cookie")) });
    expect(setCookie).toBe("service_admin_session=session-1; Path=/; HttpOnly; SameSite=Strict; Max-Age=60");
  });
});

describe("RPC paths the HTTP port does not serve", () => {
  // Clients read a bare 404 as unimplemented too; the answer itself says it in each protocol's terms.
  const post = (path: string, contentType: string) =>
    fetch(`${service.httpUrl}${path}`, { method: "POST", headers: { "content-type": contentType, "x-service-admin-secret": SECRET }, body: contentType.includes("json") ? "{}" : new Uint8Array(5) });

  it.each(["/identity.v1.AdminService/RetiredMethod", "/identity.v1.RetiredService/AdminMeta", "/grpc.health.v1.Health/Check"])("%s is UNIMPLEMENTED", async (path) => {
    const connect = await post(path, "application/json");
    expect([connect.status, connect.headers.get(ERROR_CODE_METADATA), (await connect.json()).code]).toEqual([501, "UNIMPLEMENTED", "unimplemented"]);
    const grpcWeb = await post(path, "application/grpc-web+proto");
    expect([grpcWeb.status, grpcWeb.headers.get("grpc-status"), grpcWeb.headers.get(ERROR_CODE_METADATA)]).toEqual([200, "12", "UNIMPLEMENTED"]);
  });

  it("leaves other paths to REST: NOT_FOUND", async () => {
    const response = await post("/v1/admin/retired_operation", "application/json");
    expect([response.status, (await response.json()).code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("the HTTP port over HTTP/2", () => {
  it("serves REST there too, with the same answer as over HTTP/1.1", async () => {
    const { connect } = await import("node:http2");
    const session = connect(service.httpUrl);
    const stream = session.request({ ":method": "POST", ":path": "/v1/admin/admin_meta", "content-type": "application/json", "x-service-admin-secret": SECRET });
    stream.end("{}");
    let body = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    const status = await new Promise((resolve) => stream.on("response", (headers) => resolve(headers[":status"])));
    await new Promise((resolve) => stream.on("end", resolve));
    session.close();
    const overHttp1 = await fetch(`${service.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: "{}" });
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual(await overHttp1.json());
  });
});
