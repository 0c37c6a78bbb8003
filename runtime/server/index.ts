// The server of the generated stubs: GraphQL, REST, Connect and gRPC-Web on one HTTP port (HTTP/1.1
// and HTTP/2), gRPC on another, all running the same call pipeline.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import type { ApiSchema } from "../schema.js";
import { ConnectRoutes } from "./connect.js";
import { Explorer, type ExplorerContracts } from "./explorer.js";
import { GraphqlEndpoint } from "./graphql.js";
import { GrpcPort } from "./grpc.js";
import { DEFAULT_BODY_LIMIT, sendJson } from "./http-body.js";
import { acceptHttp2 } from "./http-port.js";
import { CallPipeline, type ServerOptions } from "./invoke.js";
import { RestRoutes } from "./rest.js";

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
  graphqlSchemaText: string;
  grpcServices: readonly DescService[];
  /** FileDescriptorSet of the services, base64, for gRPC server reflection. */
  descriptorSet: string;
  explorer: ExplorerContracts;
}

export interface ListeningAddresses {
  /** Base URL of GraphQL (/graphql), REST (/v1/..., /oauth/...), Connect and gRPC-Web (/<package>.<Service>/<Method>). */
  httpUrl: string;
  /** host:port of gRPC (with server reflection and grpc.health.v1). */
  grpcEndpoint: string;
}

export interface ServiceServer {
  readonly pipeline: CallPipeline;
  listen(): Promise<ListeningAddresses>;
  close(): Promise<void>;
}

export function createServiceServer(definition: ServiceDefinition, implementation: Record<string, unknown>, options: ServerOptions): ServiceServer {
  const pipeline = new CallPipeline(definition.schema, implementation, options);
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const graphql = new GraphqlEndpoint(definition.graphqlSchemaText, pipeline, bodyLimit);
  const rest = new RestRoutes(pipeline, bodyLimit);
  const host = options.host ?? "127.0.0.1";
  const explorer = options.explorer ? new Explorer(definition.schema, definition.graphqlSchemaText, definition.explorer) : undefined;

  // The seams for the caller's address (trusted proxies) and readiness: GrpcPortOptions.callerAddress
  // and servingState, ConnectRoutes' callerAddress. Their defaults: the socket's address; SERVING while listening.
  const rpc = new ConnectRoutes(pipeline, definition.grpcServices, { bodyLimit });
  const grpc = new GrpcPort(pipeline, definition.grpcServices, { bodyLimit, descriptorSet: definition.descriptorSet });

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = requestTarget(request.url ?? "/");
    const done = (error?: unknown) => {
      if (error && !response.headersSent) sendJson(response, 500, { code: "INTERNAL", message: "internal error" });
    };
    if (explorer?.handle(request, response, url.pathname)) return;
    if (rpc.owns(url.pathname)) {
      rpc.handle(request, response);
    } else if (url.pathname === "/graphql") {
      if (request.method !== "POST") sendJson(response, 405, { code: "INVALID_ARGUMENT", message: "/graphql takes POST" });
      else graphql.handle(request, response).then(() => done(), done);
    } else if (rest.owns(url.pathname)) {
      rest.handle(request, response, url).then(() => done(), done);
    } else {
      sendJson(response, 404, { code: "NOT_FOUND", message: `no route ${request.method} ${url.pathname}` });
    }
  };
  const http: Server = createHttpServer(handle);
  http.keepAliveTimeout = 65_000;
  const http2 = acceptHttp2(http, handle);

  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });

  return {
    pipeline,
    async listen() {
      const httpPort = await listen(http, options.port ?? 8080);
      const grpcPort = await grpc.listen(host, options.grpcPort ?? definition.schema.grpcPort);
      return { httpUrl: `http://${host}:${httpPort}`, grpcEndpoint: `${host}:${grpcPort}` };
    },
    async close() {
      http.closeAllConnections();
      http2.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.close(() => resolve())), grpc.close()]);
    },
  };
}
