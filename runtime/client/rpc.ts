// The RPC transport of the clients over a Connect transport: the message checks, the answer's
// reading and the errors are the same whether the calls go as gRPC over HTTP/2 (Node: grpc.ts) or
// as Connect over fetch (browsers, Deno, Bun, edge runtimes: grpc-web.ts). Imports no node: module.
import type { DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { ConnectError, type Transport as ConnectTransport } from "@connectrpc/connect";
import { codeOfGrpcStatus, ERROR_CODE_METADATA, isErrorCode, type ServiceError } from "../errors.js";
import type { OperationSpec } from "../schema.js";
import { checkWireTypes } from "../validate.js";
import { normalizeMessage, toProtoInit } from "../shape.js";
import { ApiError, waitAsked } from "./errors.js";
import { GRPC_NO_ANSWER_STATUSES, GRPC_UNREADABLE_STATUSES } from "./grpc-statuses.js";
import { causeCodes, connectionFailureReason, connectionRefused } from "./tls.js";
import { answerTooLarge, fetchFailure, noAnswer, unreadableCode, writeOutcome, type Plain, type Transport, type TransportCall, type TransportSettings } from "./transport.js";

/** Codes of Node errors that mean no connection (or no trusted one) was made: the call never reached the service. */
const CONNECTION_FAILURE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_|ECONNREFUSED|ECONNRESET|EPIPE|EHOSTUNREACH|ENETUNREACH)/;

/** Whether `error` (or one of its causes) is a failed connection, such as a certificate the client does not trust. */
function isConnectionFailure(error: unknown): boolean {
  return causeCodes(error).some((code) => CONNECTION_FAILURE.test(code));
}

/**
 * A gRPC answer that could not be read (CLIENT_ERROR_TEXTS.unreadableMessage): a message that does
 * not decode, a stream reset or ended without a status.
 */
function unreadableMessage(operation: OperationSpec, reason: string, cause?: unknown): ApiError {
  return new ApiError(unreadableCode(operation), `${operation.name}: the gRPC answer could not be read (${reason})${writeOutcome(operation)}`, operation.name, "grpc", { cause });
}

export interface RpcChannel {
  /** The Connect transport the calls go through. */
  transport: ConnectTransport;
  /** Whether the call never reached the service (beside the connection failures every platform reports alike). */
  reachedNothing?(error: unknown): boolean;
  /** An answer larger than maxResponseBytes, when the transport cannot refuse it itself. */
  tooLarge?(error: unknown): boolean;
  /** Whether a refused connection names the default endpoint (grpcEndpoint) as the likely cause. */
  endpointIsDefault: boolean;
  close(): void;
}

export function createRpcTransport(settings: TransportSettings, services: readonly DescService[], channel: RpcChannel): Transport {
  const { transport } = channel;
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
      if (call.extraBody) {
        const refusal = "extraBody cannot travel over grpc, whose messages carry only the fields this SDK knows; use rest or graphql";
        throw new ApiError("INVALID_ARGUMENT", `${operation.name}: ${refusal}`, operation.name, "grpc", { refused: true });
      }
      // Protobuf would coerce or drop a bad value without a word; refuse it as the server does.
      try {
        checkWireTypes(call.schema, operation, call.input);
      } catch (error) {
        const invalid = error as ServiceError;
        throw new ApiError(invalid.code, invalid.message, operation.name, "grpc", { refused: true });
      }
      try {
        const response = await transport.unary(method, call.signal, undefined, call.headers, toProtoInit(call.schema, operation.input, call.input) as never);
        call.onResponse?.(undefined, metadataOf(response.header, response.trailer));
        return normalizeMessage(call.schema, operation.output, response.message, "protoName");
      } catch (error) {
        // Ended by the caller, or no connection (or none the client trusts: a certificate of another
        // CA, name or time): the same errors as a fetch that failed so.
        if (!call.signal?.aborted && channel.endpointIsDefault && connectionRefused(error)) {
          throw noAnswer(operation, "grpc", defaultEndpointRefused(connectionFailureReason(error), settings), { cause: error });
        }
        if (call.signal?.aborted || isConnectionFailure(error) || channel.reachedNothing?.(error)) throw fetchFailure(error, call, "grpc");
        if (channel.tooLarge?.(error)) throw answerTooLarge(operation, "grpc", settings.maxResponseBytes);
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
      channel.close();
    },
  };
}

/** A refused connection to the endpoint the client chose itself names the option that changes it (CLIENT_ERROR_TEXTS.defaultGrpcEndpoint). */
function defaultEndpointRefused(reason: string, settings: TransportSettings): string {
  return `${reason}; ${settings.grpcEndpoint} is the default gRPC endpoint (the host of the service URL, port ${settings.service.grpcPort}): if the service serves gRPC elsewhere, set grpcEndpoint to its host:port`;
}

/** A gRPC answer's header and trailer metadata as one Headers (the trailer's last). */
function metadataOf(header: Headers, trailer: Headers): Headers {
  const all = new Headers(header);
  for (const [name, value] of trailer) all.append(name, value);
  return all;
}
