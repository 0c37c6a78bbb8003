// The server of the generated stubs: GraphQL and REST on one HTTP port, gRPC (with gRPC-Web and
// Connect) on an HTTP/2 port, all three running the same call pipeline.
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import type { ApiSchema } from "../schema.js";
import type { ValidationRules } from "../validate.js";
import { Explorer, type ExplorerContracts } from "./explorer.js";
import { GraphqlEndpoint } from "./graphql.js";
import { grpcHandler } from "./grpc.js";
import { sendJson } from "./http-body.js";
import { CallPipeline, type ServerOptions } from "./invoke.js";
import { RestRoutes, sendError } from "./rest.js";
import { ServiceError } from "../errors.js";

export type { ServerOptions, LogEntry } from "./invoke.js";
export type { CallContext, Principal, Reply } from "./context.js";

/** Path and query of a request target, without the cost of a full URL parse per request. */
export interface RequestTarget {
  pathname: string;
  query: string;
}

function requestTarget(target: string): RequestTarget {
  const index = target.indexOf("?");
  return index < 0 ? { pathname: target, query: "" } : { pathname: target.slice(0, index), query: target.slice(index + 1) };
}

export interface ServiceDefinition {
  schema: ApiSchema;
  rules: ValidationRules;
  graphqlSchemaText: string;
  grpcServices: readonly DescService[];
  explorer: ExplorerContracts;
}

export interface ListeningAddresses {
  /** Base URL of GraphQL (/graphql) and REST (/v1/..., /oauth/...). */
  httpUrl: string;
  /** host:port of gRPC. */
  grpcEndpoint: string;
}

export interface ServiceServer {
  readonly pipeline: CallPipeline;
  listen(): Promise<ListeningAddresses>;
  close(): Promise<void>;
}

export function createServiceServer(definition: ServiceDefinition, implementation: Record<string, unknown>, options: ServerOptions): ServiceServer {
  const pipeline = new CallPipeline(definition.schema, implementation, options, definition.rules);
  const bodyLimit = options.bodyLimitBytes ?? definition.rules.limits.requestBytes;
  const graphql = new GraphqlEndpoint(definition.graphqlSchemaText, pipeline, bodyLimit);
  const rest = new RestRoutes(pipeline, bodyLimit);
  const host = options.host ?? "127.0.0.1";
  const explorer = options.explorer ? new Explorer(definition.schema, definition.graphqlSchemaText, definition.explorer) : undefined;

  const http: Server = createHttpServer((request, response) => {
    const url = requestTarget(request.url ?? "/");
    const done = (error?: unknown) => {
      if (error && !response.headersSent) sendJson(response, 500, { code: "INTERNAL", message: "internal error" });
    };
    if (explorer?.handle(request, response, url.pathname)) return;
    if (url.pathname === "/graphql") {
      if (request.method !== "POST") sendError(response, new ServiceError("METHOD_NOT_ALLOWED", "/graphql takes POST"), [], { allow: "POST" });
      else graphql.handle(request, response).then(() => done(), done);
    } else if (rest.owns(url.pathname)) {
      rest.handle(request, response, url).then(() => done(), done);
    } else {
      sendError(response, new ServiceError("NOT_FOUND", "no such route"));
    }
  });
  http.keepAliveTimeout = 65_000;
  const grpc: Http2Server = createHttp2Server(grpcHandler(pipeline, definition.grpcServices));
  // Open HTTP/2 sessions keep a server from closing; remember them to end them on close().
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const listen = (server: Server | Http2Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });

  return {
    pipeline,
    async listen() {
      const httpPort = await listen(http, options.port ?? 8080);
      const grpcPort = await listen(grpc, options.grpcPort ?? definition.schema.grpcPort);
      return { httpUrl: `http://${host}:${httpPort}`, grpcEndpoint: `${host}:${grpcPort}` };
    },
    async close() {
      http.closeAllConnections();
      for (const session of sessions) session.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}
