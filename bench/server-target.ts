// A server for bench/server.bench.ts and bench/grpc.bench.ts, each in its own process (placed on a
// core by bench/targets.ts):
//   stubs [json]  the generated stubs (GraphQL, REST, gRPC) answering admin_meta, update_user and
//                 admin_login;
//                 json picks a variant: {"redis": url} keeps their state in Redis, {"metrics": true}
//                 and {"tracing": true} turn those on (tracing with an SDK whose exporter drops spans;
//                 {"tracing": {"sampleRatio": r}} with that sampling);
//                 {"sdk": true} registers that SDK with the stubs' tracing off; {"tls": {cert, key}}
//                 serves every port over TLS with these files; {"asyncContext": true} (any mode)
//                 turns Node's async-context hooks on as the first traced call would
//   bare-http [json]  plain node:http answering the same JSON for the REST requests ({"tls": {cert, key}}: node:https;
//                 {"tracing": true}: a span around a request's handling at the stubs' default sampling;
//                 {"busyMicros": n}: n µs of CPU per request before answering, a handler's own work;
//                 {"endPerTurn": true}: the answers of a turn of the event loop ended together, as the stubs do)
//   fastify       fastify 5 serving the same two REST routes as a careful team would write them by
//                 hand: the OpenAPI document's request and response schemas (ajv validation,
//                 fast-json-stringify serialization) and an onRequest hook checking the admin
//                 secret header in constant time
//   mercurius     fastify with mercurius and graphql-jit (jit from the first call), serving the
//                 generated SDL with resolvers answering the same admin_meta and update_user
//   bare-connect  a bare connect-node handler of AdminService answering the same message
//   bare-grpc-js  a bare @grpc/grpc-js server of AdminService (@grpc/proto-loader, from proto/)
//                 answering the same message
//   reference json  the reference service on the stubs, its data in {"database": url} (memory:,
//                 sqlite:<file>, postgres://...), with one user (id "user-1") to read and update
// It prints {"http": port, "grpc": port} once it listens.
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createHttp2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { createServer, redisStore, ServiceError, type CallContext } from "../generated/server/index.js";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { sampleMessage } from "../test/helpers/recording-service.js";
import { REPO_ROOT } from "../test/helpers/project.js";
import { schema } from "../generated/schema.js";
import { toProtoInit } from "../runtime/shape.js";
import { createReferenceService } from "../reference/service.js";
import { DEFAULT_SAMPLE_RATIO } from "../runtime/server/tracing.js";
import { openStorage } from "../reference/store/open.js";

import { BENCH_ADMIN_SECRET as ADMIN_SECRET } from "./targets.js";
const meta = sampleMessage(schema, "AdminMeta");
const user = sampleMessage(schema, "User");
const mode = process.argv[2];
// {"asyncContext": true}, in the variant of any mode: an AsyncLocalStorage made active once, as the
// first traced call does through OpenTelemetry's context manager, which on Node 20 turns its hooks
// on for every promise and callback of the process for good. What that costs alone: server.bench.ts.
if ((JSON.parse(process.argv[3] ?? "{}") as { asyncContext?: boolean }).asyncContext) new AsyncLocalStorage().run(true, () => {});

process.on("SIGINT", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));

const report = (ports: { http?: number; grpc?: number }) => process.stdout.write(JSON.stringify(ports) + "\n");

/**
 * What a traced service registers: W3C propagation, async context, spans batched to an exporter
 * (here one that drops them, so the figure is the server's cost, not a collector's).
 */
async function registerTracingSdk() {
  const api = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
  const { BasicTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const discard = { export: (_spans: unknown, done: (result: { code: 0 }) => void) => done({ code: 0 }), shutdown: async () => {} };
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discard as never)] }));
  return api;
}

if (mode === "stubs") {
  // Variants of the stubs: {"redis": url} keeps their state in Redis.
  const variant = JSON.parse(process.argv[3] ?? "{}") as {
    redis?: string;
    metrics?: boolean;
    tracing?: boolean | { sampleRatio: number };
    sdk?: boolean;
    mcp?: boolean;
    tls?: { cert: string; key: string };
    idempotency?: false;
  };
  if (variant.tracing || variant.sdk) await registerTracingSdk();
  const methods = {
    adminMeta: async () => meta,
    updateUser: async () => user,
    // As the reference service does it: the session is opened in the server's store.
    adminLogin: async (input: { admin_secret: string }, context: CallContext) => {
      if (!(await context.sessions.verifySecret(input.admin_secret))) throw new ServiceError("UNAUTHENTICATED", "wrong admin secret");
      const session = await context.sessions.open();
      context.setCookie(context.sessions.cookieName, session.id, { maxAgeSeconds: session.expiresAt - session.createdAt });
      return { message: "admin session opened", created_at: session.createdAt, expires_at: session.expiresAt };
    },
  };
  const implementation = new Proxy(methods, { get: (target, name) => (target as Record<string | symbol, unknown>)[name] ?? (async () => ({})) });
  const server = createServer(implementation as never, {
    adminSecret: ADMIN_SECRET,
    port: 0,
    grpcPort: 0,
    lockout: { maxFailures: 1e9, windowMs: 1 },
    ...(variant.redis ? { store: redisStore({ url: variant.redis, keyPrefix: `bench-${process.pid}:` }) } : {}),
    metrics: variant.metrics ?? false,
    tracing: variant.tracing ?? false,
    mcp: variant.mcp ?? false,
    ...(variant.tls ? { tls: variant.tls } : {}),
    ...(variant.idempotency === false ? { idempotency: false as const } : {}),
  });
  const { httpUrl, grpcEndpoint } = await server.listen();
  report({ http: Number(new URL(httpUrl).port), grpc: Number(grpcEndpoint.split(":")[1]) });
} else if (mode === "bare-http") {
  // What any hand-written JSON handler does per request, and nothing more: read and parse the
  // body, serialize the answer. No auth, no validation, no routing table. {"tls": {cert, key}}: node:https.
  // {"tracing": true}: the SDK the stubs' tracing rows register, and a span made active around the
  // handling of one request in DEFAULT_SAMPLE_RATIO, as a hand-written traced server would.
  const variant = JSON.parse(process.argv[3] ?? "{}") as { tls?: { cert: string; key: string }; tracing?: boolean; busyMicros?: number; endPerTurn?: boolean };
  const busyMs = (variant.busyMicros ?? 0) / 1000;
  // {"endPerTurn": true}: the answers of a turn of the event loop ended together, as the stubs end theirs (endThisTurn).
  let endings: [ServerResponse, string][] = [];
  const endAll = () => {
    const batch = endings;
    endings = [];
    for (const [response, body] of batch) response.end(body);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString() || "{}");
      // The CPU a handler of this weight spends per request, spun on the event loop as its work would be.
      if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until;);
      const body = JSON.stringify(request.url === "/v1/admin/update_user" ? user : meta);
      response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
      if (!variant.endPerTurn) response.end(body);
      else if (endings.push([response, body]) === 1) setImmediate(endAll);
    });
  };
  let handler = handle;
  if (variant.tracing) {
    const api = await registerTracingSdk();
    const tracer = api.trace.getTracer("bare-http");
    handler = (request, response) => {
      if (!(Math.random() < DEFAULT_SAMPLE_RATIO)) return handle(request, response);
      const span = tracer.startSpan(request.url ?? "", { kind: api.SpanKind.SERVER, attributes: { "http.route": request.url } });
      response.on("finish", () => span.end());
      api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, span), () => handle(request, response));
    };
  }
  const server = variant.tls ? createHttpsServer({ cert: readFileSync(variant.tls.cert), key: readFileSync(variant.tls.key) }, handler) : createHttpServer(handler);
  server.listen(0, "127.0.0.1", () => report({ http: (server.address() as AddressInfo).port }));
} else if (mode === "fastify") {
  const { default: fastify } = await import("fastify");
  const { parse } = await import("yaml");
  const { timingSafeEqual } = await import("node:crypto");
  type OpenApi = {
    paths: Record<string, { post: { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    components: { schemas: Record<string, unknown> };
  };
  const document = parse(readFileSync(join(REPO_ROOT, "generated", "openapi", "openapi.yaml"), "utf8")) as OpenApi;
  // The document's schemas by $id, so that fastify resolves the $refs the routes use.
  const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"'));
  const app = fastify({ logger: false });
  for (const [name, definition] of Object.entries(document.components.schemas)) app.addSchema({ $id: name, ...local(definition) });
  const expected = Buffer.from(ADMIN_SECRET);
  app.addHook("onRequest", async (request, reply) => {
    const presented = Buffer.from(String(request.headers["x-service-admin-secret"] ?? ""));
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return reply.code(401).send({ code: "UNAUTHENTICATED", message: "wrong admin secret" });
  });
  const route = (path: string, answer: unknown) => {
    const operation = document.paths[path]!.post;
    app.post(path, {
      schema: {
        ...(operation.requestBody ? { body: local(operation.requestBody.content["application/json"]!.schema) } : {}),
        response: { 200: local(operation.responses["200"]!.content["application/json"]!.schema) },
      },
      handler: async () => answer,
    });
  };
  route("/v1/admin/admin_meta", meta);
  route("/v1/admin/update_user", user);
  await app.listen({ port: 0, host: "127.0.0.1" });
  report({ http: (app.server.address() as AddressInfo).port });
} else if (mode === "mercurius") {
  // The GraphQL server a Node user would pick for speed: fastify + mercurius, graphql-jit compiling
  // each query on its first call, the same SDL the stubs serve.
  const { default: fastify } = await import("fastify");
  const { default: mercurius } = await import("mercurius");
  const app = fastify({ logger: false });
  await app.register(mercurius, {
    schema: readFileSync(join(REPO_ROOT, "generated", "graphql", "schema.graphql"), "utf8"),
    resolvers: { Query: { admin_meta: () => meta }, Mutation: { update_user: () => user } },
    jit: 1,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  report({ http: (app.server.address() as AddressInfo).port });
} else if (mode === "bare-connect") {
  const answer = toProtoInit(schema, "AdminMeta", meta);
  const handler = connectNodeAdapter({ routes: (router) => router.service(AdminService, { adminMeta: () => answer } as never) });
  const server = createHttp2Server(handler);
  server.listen(0, "127.0.0.1", () => report({ grpc: (server.address() as AddressInfo).port }));
} else if (mode === "bare-grpc-js") {
  // What a Node gRPC user writes by hand: proto-loader's definition, an object as the answer.
  const definition = loadSync("identity/v1/admin_service.proto", { includeDirs: [join(REPO_ROOT, "proto")] })["identity.v1.AdminService"] as ServiceDefinition;
  const method = definition.AdminMeta!;
  const output = AdminService.method.adminMeta.output;
  const answer = method.responseDeserialize(Buffer.from(toBinary(output, create(output, toProtoInit(schema, "AdminMeta", meta) as never))));
  const server = new Server();
  server.addService(definition, { AdminMeta: (_call: unknown, callback: (error: null, value: unknown) => void) => callback(null, answer) });
  server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    report({ grpc: port });
  });
} else if (mode === "reference") {
  const { database } = JSON.parse(process.argv[3] ?? "{}") as { database: string };
  const { storage } = await openStorage(database);
  const service = createReferenceService({ storage });
  const now = Math.floor(Date.now() / 1000);
  await storage.users.put({ ...user, id: "user-1", email: "bench@example.com", phone_number: null, created_at: now, updated_at: now, revoked_timestamp: null, password_hash: null } as never);
  const server = createServer(service.implementation, {
    adminSecret: ADMIN_SECRET,
    port: 0,
    grpcPort: 0,
    lockout: { maxFailures: 1e9, windowMs: 1 },
    dependencies: [storage],
    ...service.serverOptions,
  });
  const { httpUrl, grpcEndpoint } = await server.listen();
  report({ http: Number(new URL(httpUrl).port), grpc: Number(grpcEndpoint.split(":")[1]) });
} else {
  process.stderr.write("usage: server-target.ts stubs|bare-http|fastify|mercurius|bare-connect|bare-grpc-js|reference\n");
  process.exit(2);
}
