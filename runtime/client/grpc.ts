// gRPC transport through connect-node over HTTP/2. Its own entry point: clients load it only when
// the protocol is grpc, so users of graphql or rest never load connect or HTTP/2.
import type { DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { createGrpcTransport as createConnectTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { codeOfGrpcStatus, ERROR_CODE_METADATA, isErrorCode, type ServiceError } from "../errors.js";
import { checkWireTypes } from "../validate.js";
import { normalizeMessage, toProtoInit } from "../shape.js";
import { ApiError, GRPC_NO_ANSWER_STATUSES, GRPC_UNREADABLE_STATUSES, waitAsked } from "./errors.js";
import { connectionFailureReason, connectionRefused, isConnectionFailure } from "./tls.js";
import { fetchFailure, noAnswer, unreadableMessage, type Plain, type Transport, type TransportCall, type TransportSettings } from "./transport.js";

export function createGrpcTransport(settings: TransportSettings, services: readonly DescService[]): Transport {
  const tls = settings.grpcTls;
  const baseUrl = `${tls ? "https" : "http"}://${settings.grpcEndpoint}`;
  // Node's HTTP/2 session refuses to buffer more than maxSessionMemory (10 MB by default) and resets
  // the stream (ENHANCE_YOUR_CALM) before the server can answer; a large message must reach the
  // server, which answers it RESOURCE_EXHAUSTED when it is over its limit. (grpc-js lifts it the same way.)
  const sessionManager = new Http2SessionManager(baseUrl, undefined, {
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    ...(tls ? { ca: tls.ca, cert: tls.cert, key: tls.key, servername: tls.serverName } : {}),
  });
  const transport = createConnectTransport({ baseUrl, sessionManager, readMaxBytes: settings.maxResponseBytes, interceptors: [...settings.grpcInterceptors] });
  const methods = new Map<string, DescMethodUnary>();
  for (const service of services) {
    for (const method of service.methods) {
      if (method.methodKind === "unary") methods.set(`${service.typeName}/${method.name}`, method as DescMethodUnary);
    }
  }
  return {
    protocol: "grpc",
    async call(call: TransportCall): Promise<Plain> {
      const { operation } = call;
      const method = methods.get(`${operation.grpc!.service}/${operation.grpc!.rpc}`);
      if (!method) throw new ApiError("INTERNAL", `no gRPC method for ${operation.name}`, operation.name, "grpc");
      // Protobuf would coerce or drop a bad value without a word; refuse it as the server does.
      try {
        checkWireTypes(settings.schema, operation, call.input);
      } catch (error) {
        const invalid = error as ServiceError;
        throw new ApiError(invalid.code, invalid.message, operation.name, "grpc", { refused: true });
      }
      try {
        const response = await transport.unary(method, call.signal, undefined, call.headers, toProtoInit(settings.schema, operation.input, call.input) as never);
        call.onResponse?.(undefined, metadataOf(response.header, response.trailer));
        return normalizeMessage(settings.schema, operation.output, response.message, "protoName");
      } catch (error) {
        // Ended by the caller, or no connection (or none the client trusts: a certificate of another
        // CA, name or time): the same errors as a fetch that failed so.
        if (!call.signal?.aborted && settings.grpcEndpointIsDefault && connectionRefused(error)) {
          throw noAnswer(operation, "grpc", defaultEndpointRefused(connectionFailureReason(error), settings), { cause: error });
        }
        if (call.signal?.aborted || isConnectionFailure(error)) throw fetchFailure(error, call, "grpc");
        const connectError = ConnectError.from(error);
        call.onResponse?.(undefined, connectError.metadata);
        const wait = waitAsked((name) => connectError.metadata.get(name));
        // The server names the code beside the status, which two codes may share; a status without
        // it comes from the gRPC library or a proxy: a dropped stream (the caller cancelled nothing)
        // is no answer, a stream without a readable message or status an unreadable answer, and
        // the rest reads as codeOfGrpcStatus says (8: PAYLOAD_TOO_LARGE).
        const named = connectError.metadata.get(ERROR_CODE_METADATA);
        if (!isErrorCode(named)) {
          if (GRPC_NO_ANSWER_STATUSES.includes(connectError.code)) throw noAnswer(operation, "grpc", connectError.rawMessage, { cause: error, retryAfterSeconds: wait });
          if (GRPC_UNREADABLE_STATUSES.includes(connectError.code)) throw unreadableMessage(operation, connectError.rawMessage, error);
        }
        const code = isErrorCode(named) ? named : codeOfGrpcStatus(connectError.code);
        throw new ApiError(code, connectError.rawMessage, operation.name, "grpc", { cause: error, retryAfterSeconds: wait });
      }
    },
    async close() {
      sessionManager.abort();
    },
  };
}

/** A refused connection to the endpoint the client chose itself names the option that changes it (CLIENT_ERROR_TEXTS.defaultGrpcEndpoint). */
function defaultEndpointRefused(reason: string, settings: TransportSettings): string {
  return `${reason}; ${settings.grpcEndpoint} is the default gRPC endpoint (the host of the service URL, port ${settings.schema.grpcPort}): if the service serves gRPC elsewhere, set grpcEndpoint to its host:port`;
}

/** A gRPC answer's header and trailer metadata as one Headers (the trailer's last). */
function metadataOf(header: Headers, trailer: Headers): Headers {
  const all = new Headers(header);
  for (const [name, value] of trailer) all.append(name, value);
  return all;
}
