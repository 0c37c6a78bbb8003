// The server of the generated stubs: GraphQL, REST, Connect and gRPC-Web on one HTTP port (HTTP/1.1
// and HTTP/2), gRPC on another, all running the same call pipeline.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { ServiceError } from "../errors.js";
import type { ApiSchema } from "../schema.js";
import type { SecretWords } from "./auth.js";
import type { ValidationRules } from "../validate.js";
import { ConnectRoutes } from "./connect.js";
import { Explorer, type ExplorerContracts } from "./explorer.js";
import { GraphqlEndpoint } from "./graphql.js";
import { GrpcPort } from "./grpc.js";
import { answerHealthCheck, isHealthCheck, type ServingStatus } from "./health.js";
import { readBody, sendJson } from "./http-body.js";
import {
  acceptHttp2,
  capConnectionsPerAddress,
  CONNECTIONS_CHECKING_INTERVAL_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from "./http-port.js";
import { CallPipeline, type MountContext, type ServerOptions } from "./invoke.js";
import { DEFAULT_GRACE_MS, HttpShutdown } from "./lifecycle.js";
import type { ToolDefinition } from "../mcp/tools.js";
import { mcpMount } from "./mcp.js";
import { DEFAULT_METRICS_PATH, sendMetrics } from "./metrics.js";
import { requestTarget } from "./request-target.js";
import { RestRoutes, sendError } from "./rest.js";
import { CorsPolicy } from "./cors.js";
import { TlsCredentials } from "./tls.js";

/**
 * A port the server could not listen on, naming which (`listener`: the HTTP port, the gRPC port,
 * the metrics port), the address and the system's reason (`code`: EADDRINUSE, EACCES, ...).
 */
export class ListenError extends Error {
  override name = "ListenError";
  readonly code: string | undefined;
  constructor(
    readonly listener: "http" | "grpc" | "metrics",
    readonly host: string,
    readonly port: number,
    cause: Error,
  ) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "EADDRINUSE" ? "the port is in use by another program" : code === "EACCES" ? "this user may not listen on that port" : cause.message;
    super(`could not listen on ${host}:${port} (the ${listener === "http" ? "HTTP" : listener === "grpc" ? "gRPC" : "metrics"} port): ${reason}${code ? ` (${code})` : ""}`, { cause });
    this.code = code;
  }
}

/** HSTS of every answer over TLS: a year, subdomains not included (they may be other services). */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

export type { ServerOptions, LogEntry, HttpMount, MountContext } from "./invoke.js";
export { parseCookies, serializeCookie } from "./invoke.js";
export type { CallContext, Principal, Reply } from "./context.js";
export { SecretError, MIN_SECRET_LENGTH, NO_SECRET_MESSAGE, type SecretBootstrap, type SecretWords } from "./auth.js";
export { memoryStore, type Store, type LockoutPolicy, type MemoryStoreOptions } from "./store.js";
export { redisStore, type RedisStoreOptions } from "./store-redis.js";
export { MemoryIdempotencyStore, DEFAULT_IDEMPOTENCY_WINDOW_MS, type IdempotencyStore, type IdempotencyOptions, type IdempotencyRequest, type IdempotencyClaim } from "./idempotency.js";
export type { TrustProxy, TrustProxyOptions, ProxyTrust } from "./client-address.js";
export { MissingPackageError } from "./optional-packages.js";
export type { Dependency, HealthState, ServingStatus } from "./health.js";
export type { RateLimitOptions, RateLimitRule, OperationClass } from "./rate-limit.js";
export type { MetricsOptions } from "./metrics.js";
export type { McpOptions } from "./mcp-options.js";
export type { TracingOptions } from "./tracing.js";
export { TlsConfigError, type TlsOptions } from "./tls.js";
export type { CorsOptions } from "./cors.js";
export type { RequestTarget } from "./request-target.js";

export interface ServiceDefinition {
  schema: ApiSchema;
  rules: ValidationRules;
  graphqlSchemaText: string;
  grpcServices: readonly DescService[];
  /** FileDescriptorSet of the services, base64, for gRPC server reflection. */
  descriptorSet: string;
  explorer: ExplorerContracts;
  /** Loads the MCP tool catalogue (generated/mcp/tools.ts); called only when the option mcp is on. */
  mcpTools?: () => Promise<readonly ToolDefinition[]>;
  /** How refusals name the API's secret and its session, after the secret scheme's name (default "secret", "session"). */
  secretWords?: SecretWords;
}

export interface ListeningAddresses {
  /** Base URL (https:// with the option tls) of GraphQL (/graphql), REST (/v1/..., /oauth/...), Connect and gRPC-Web (/<package>.<Service>/<Method>). */
  httpUrl: string;
  /** host:port of gRPC (with server reflection and grpc.health.v1; over TLS with the option tls). */
  grpcEndpoint: string;
  /** URL of the Prometheus metrics, when the option metrics is on. */
  metricsUrl?: string;
}

export interface CloseOptions {
  /** How long calls in flight may take to finish before their connections are cut (default 10 000 ms). */
  graceMs?: number;
}

export interface ServiceServer {
  readonly pipeline: CallPipeline;
  /** SERVING while the store is reachable and the server is not shutting down: /readyz, and grpc.health.v1. */
  readonly health: { status(): ServingStatus; onChange(listener: (status: ServingStatus) => void): () => void };
  /** Starts the store, loads the packages of the options that are on, and listens. */
  listen(): Promise<ListeningAddresses>;
  /**
   * Graceful shutdown: reports NOT_SERVING, stops accepting, lets the calls in flight finish (each
   * HTTP/1.1 connection closed after its answer, HTTP/2 sessions sent GOAWAY), cuts what is left
   * after `graceMs`, then closes the store.
   */
  close(options?: CloseOptions): Promise<void>;
  /**
   * With the option tls: reads the certificate, key and client CA files again and serves them to
   * the next connections on every port (as a change of the files does by itself); throws a
   * TlsConfigError, and keeps serving the previous ones, when they do not fit. Without it, nothing.
   */
  reloadTls(): void;
}

export function createServiceServer(definition: ServiceDefinition, implementation: Record<string, unknown>, options: ServerOptions): ServiceServer {
  const pipeline = new CallPipeline(definition.schema, implementation, options, definition.rules, definition.secretWords);
  const bodyLimit = options.bodyLimitBytes ?? definition.rules.limits.requestBytes;
  const graphql = new GraphqlEndpoint(definition.graphqlSchemaText, pipeline, bodyLimit);
  const rest = new RestRoutes(pipeline, bodyLimit);
  const host = options.host ?? "127.0.0.1";
  const explorer = options.explorer
    ? new Explorer(definition.schema, definition.graphqlSchemaText, { ...definition.explorer, ...(definition.secretWords ? { secretWords: definition.secretWords.secret } : {}) })
    : undefined;
  const health = options.health ?? true;
  const metricsPath = options.metrics ? ((options.metrics === true ? undefined : options.metrics.path) ?? DEFAULT_METRICS_PATH) : undefined;
  const metricsPort = options.metrics && options.metrics !== true ? options.metrics.port : undefined;
  /** Serves the metrics; answers whether `pathname` was their path. */
  const answerMetrics = (pathname: string, response: ServerResponse) => pathname === metricsPath && sendMetrics(pipeline.metrics, response);
  // The pipeline resolves the caller's address from the socket's and the headers, with the trusted
  // proxies of the port the call came in on; the gRPC health service follows the pipeline's readiness.
  const rpc = new ConnectRoutes(pipeline, definition.grpcServices, { bodyLimit });
  const grpc = new GrpcPort(pipeline, definition.grpcServices, { bodyLimit, descriptorSet: definition.descriptorSet, servingState: pipeline.health });
  const mcp = options.mcp ? mcpMount(pipeline, definition.schema, definition.mcpTools ?? (async () => []), options.mcp === true ? {} : options.mcp) : undefined;
  const mounts = [...(mcp ? [mcp] : []), ...(options.mounts ?? [])];
  const mountOf = (pathname: string) => mounts.find(({ prefix }) => pathname.startsWith(prefix) && (pathname.length === prefix.length || pathname[prefix.length] === "/"));
  const mountContext = (request: IncomingMessage): MountContext => {
    // Mounts are served on the HTTP port: its trust of proxies (trustProxy) applies.
    const clientAddress = pipeline.clientAddress(request.socket.remoteAddress ?? "", request.headers as Record<string, string | undefined>);
    return {
      clientAddress,
      bodyLimit,
      readBody: (body) => readBody(body, bodyLimit),
      admit: async (operationClass) => pipeline.rateLimiter?.admitClass(operationClass, clientAddress),
    };
  };

  const cors = options.cors ? new CorsPolicy(options.cors, definition.schema) : undefined;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    httpShutdown.admit(response);
    // Under TLS every answer tells browsers to come back over HTTPS only (the port serves no plaintext).
    if (tls) response.setHeader("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    // A preflight is answered here; any other call of a listed origin gets its CORS headers and goes on.
    if (cors?.handle(request, response)) return;
    const url = requestTarget(request.url ?? "/");
    if (health && isHealthCheck(request.method, url.pathname)) {
      settleAnswer(answerHealthCheck(pipeline.health, url.pathname, response), response);
      return;
    }
    if (metricsPort === undefined && answerMetrics(url.pathname, response)) return;
    if (explorer?.handle(request, response, url.pathname)) return;
    if (rpc.owns(url.pathname)) {
      rpc.handle(request, response);
    } else if (url.pathname === "/graphql") {
      if (request.method !== "POST") sendError(response, new ServiceError("METHOD_NOT_ALLOWED", "/graphql takes POST"), [], { allow: "POST" });
      else settleAnswer(graphql.handle(request, response), response);
    } else if (rest.owns(url.pathname)) {
      rest.handle(request, response, url);
    } else {
      const mount = mounts.length > 0 ? mountOf(url.pathname) : undefined;
      if (mount) settleAnswer(mount.handle(request, response, mountContext(request)), response);
      else sendError(response, new ServiceError("NOT_FOUND", "no such route"));
    }
  };
  // Read before anything listens: a certificate that cannot be used stops createServer, not a connection.
  const tls = options.tls ? new TlsCredentials(options.tls, options.onWarning ?? ((message) => console.warn(message))) : undefined;
  const httpShutdown = new HttpShutdown();
  const deadlines = {
    headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
  };
  const http: Server = tls ? tls.attach(createHttpsServer({ ...deadlines, ...tls.serverOptions(["h2", "http/1.1"]) }, handle)) : createHttpServer(deadlines, handle);
  http.keepAliveTimeout = 65_000;
  http.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const http2 = acceptHttp2(http, handle);
  const perAddress = options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
  capConnectionsPerAddress(http, perAddress);
  httpShutdown.attach(http);
  const metricsHandler = (request: IncomingMessage, response: ServerResponse) => {
    if (!answerMetrics(requestTarget(request.url ?? "/").pathname, response)) sendJson(response, 404, { code: "NOT_FOUND", message: `the metrics are at ${metricsPath}` });
  };
  const metricsServer: Server | undefined =
    metricsPort === undefined ? undefined : tls ? tls.attach(createHttpsServer(tls.serverOptions(["http/1.1"]), metricsHandler)) : createHttpServer(metricsHandler);

  const listen = (server: Server, port: number, listener: ListenError["listener"]) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", (error) => reject(new ListenError(listener, host, port, error)));
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });

  return {
    pipeline,
    health: pipeline.health,
    async listen() {
      await pipeline.start();
      await mcp?.ready();
      const httpPort = await listen(http, options.port ?? definition.schema.httpPort, "http");
      const wantedGrpcPort = options.grpcPort ?? definition.schema.grpcPort;
      const grpcPort = await grpc.listen(host, wantedGrpcPort, tls, perAddress).catch((error: Error) => {
        throw new ListenError("grpc", host, wantedGrpcPort, error);
      });
      tls?.watch();
      const scheme = tls ? "https" : "http";
      const addresses: ListeningAddresses = { httpUrl: `${scheme}://${host}:${httpPort}`, grpcEndpoint: `${host}:${grpcPort}` };
      if (metricsServer) addresses.metricsUrl = `${scheme}://${host}:${await listen(metricsServer, metricsPort!, "metrics")}${metricsPath}`;
      else if (metricsPath) addresses.metricsUrl = `${addresses.httpUrl}${metricsPath}`;
      return addresses;
    },
    async close({ graceMs = DEFAULT_GRACE_MS }: CloseOptions = {}) {
      pipeline.health.shutDown();
      tls?.close();
      await Promise.all([
        httpShutdown.close(graceMs),
        http2.close(graceMs),
        grpc.close(graceMs),
        metricsServer ? new Promise<void>((resolve) => (metricsServer.closeAllConnections(), metricsServer.close(() => resolve()))) : undefined,
      ]);
      await pipeline.store.close();
    },
    reloadTls() {
      tls?.reload();
    },
  };
}

/** Waits for an answer written by a promise's handler: one that failed before its head went out is answered 500. */
function settleAnswer(answered: Promise<unknown>, response: ServerResponse): void {
  answered.then(undefined, () => {
    if (!response.headersSent) sendJson(response, 500, { code: "INTERNAL", message: "internal error" });
  });
}
