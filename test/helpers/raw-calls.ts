// A read without input (admin_meta, meta) sent by hand over each protocol, answering what the wire
// said: the code, and the retry hint where each protocol carries it (REST Retry-After, GraphQL
// extensions.retryAfter and the Retry-After header, gRPC retry-after trailer).
import { createClient, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ApiError } from "../../generated/client/index.js";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { UserService } from "../../generated/proto/identity/v1/user_service_pb.js";
import { schema } from "../../generated/schema.js";
import { graphqlDocument } from "../../runtime/client/graphql.js";
import { codeOfGrpcStatus, ERROR_CODE_METADATA } from "../../runtime/errors.js";

export const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
export type WireProtocol = (typeof PROTOCOLS)[number];

export interface WireAnswer {
  code: string;
  /** Seconds, as the protocol carried them; undefined when absent. */
  retryAfter: number | undefined;
}

export interface Endpoints {
  httpUrl: string;
  grpcEndpoint: string;
}

/** Calls admin_meta with `headers` over `protocol`. */
export function rawAdminMeta(endpoints: Endpoints, protocol: WireProtocol): (headers: Record<string, string>) => Promise<WireAnswer> {
  return rawRead(endpoints, protocol, "admin_meta");
}

/** Calls `operationName`, a read that takes no input, with `headers` over `protocol`. */
export function rawRead(endpoints: Endpoints, protocol: WireProtocol, operationName: "admin_meta" | "meta"): (headers: Record<string, string>) => Promise<WireAnswer> {
  const operation = schema.operations[operationName]!;
  if (protocol === "rest") {
    return async (headers) => {
      const { method, path } = operation.rest!;
      const response = await fetch(`${endpoints.httpUrl}${path}`, method === "GET" ? { headers } : { method, headers: { "content-type": "application/json", ...headers }, body: "{}" });
      const body = (await response.json()) as { code?: string };
      const retryAfter = response.headers.get("retry-after");
      return { code: response.status === 200 ? "OK" : body.code!, retryAfter: retryAfter === null ? undefined : Number(retryAfter) };
    };
  }
  if (protocol === "graphql") {
    const query = graphqlDocument(schema, operation);
    return async (headers) => {
      const response = await fetch(`${endpoints.httpUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query }) });
      const body = (await response.json()) as { errors?: { extensions: { code: string; retryAfter?: number } }[] };
      const error = body.errors?.[0];
      // The wait is in the error's extensions and, for HTTP clients and proxies, in the Retry-After header too.
      const header = response.headers.get("retry-after");
      if ((header === null ? undefined : Number(header)) !== error?.extensions.retryAfter) {
        throw new Error(`GraphQL answer: extensions.retryAfter ${error?.extensions.retryAfter} but Retry-After header ${header}`);
      }
      return { code: error ? error.extensions.code : "OK", retryAfter: error?.extensions.retryAfter };
    };
  }
  const transport = createGrpcTransport({ baseUrl: `http://${endpoints.grpcEndpoint}` });
  const call = operationName === "admin_meta" ? createClient(AdminService, transport).adminMeta : createClient(UserService, transport).meta;
  return async (headers) => {
    try {
      await call({}, { headers });
      return { code: "OK", retryAfter: undefined };
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const retryAfter = error.metadata.get("retry-after");
      return { code: error.metadata.get(ERROR_CODE_METADATA) ?? codeOfGrpcStatus(error.code), retryAfter: retryAfter === null ? undefined : Number(retryAfter) };
    }
  };
}

/** "OK", or the code of the ApiError a client call failed with. */
export async function codeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "OK";
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return error.code;
  }
}
