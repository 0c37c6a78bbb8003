// The transport interface: one call of one operation, answered in the flat shape or with an ApiError.
import type { ApiSchema, OperationSpec, Protocol } from "../schema.js";
import { ApiError } from "./errors.js";
import { connectionFailureReason, type TlsClientOptions } from "./tls.js";

export type Plain = Record<string, unknown>;

export interface TransportCall {
  operation: OperationSpec;
  input: Plain;
  /** Headers of this call: the admin secret, extra headers, per-call headers. */
  headers: Record<string, string>;
  /** Absent when the caller set neither a signal nor a deadline (no listener per call then). */
  signal: AbortSignal | undefined;
}

export interface Transport {
  readonly protocol: Protocol;
  call(call: TransportCall): Promise<Plain>;
  close(): Promise<void>;
}

export interface TransportSettings {
  schema: ApiSchema;
  serviceUrl: string;
  grpcEndpoint: string;
  fetch: typeof fetch;
  /** gRPC over TLS with these options, or plaintext (false). */
  grpcTls: false | TlsClientOptions;
}

/** An ApiError for a failed fetch: timeout, cancellation, or no answer at all. */
export function fetchFailure(error: unknown, call: TransportCall, protocol: Protocol): ApiError {
  if (error instanceof ApiError) return error;
  const reason = call.signal?.reason as { name?: string } | undefined;
  if (call.signal?.aborted && reason?.name === "TimeoutError") {
    return new ApiError("DEADLINE_EXCEEDED", `${call.operation.name} timed out`, call.operation.name, protocol, { cause: error });
  }
  if (call.signal?.aborted) return new ApiError("CANCELLED", `${call.operation.name} was cancelled`, call.operation.name, protocol, { cause: error });
  return new ApiError("UNAVAILABLE", `${call.operation.name}: no answer from the service (${connectionFailureReason(error)})`, call.operation.name, protocol, { cause: error });
}

/** A redirect answered by the service: an error, since following it would hand the call's credentials to another address. */
export function redirected(response: Response, operation: string, protocol: "rest" | "graphql"): ApiError {
  return new ApiError(
    "FAILED_PRECONDITION",
    `the service answered a redirect (HTTP ${response.status}); the client does not follow redirects, so that credentials never go to another address`,
    operation,
    protocol,
    { status: response.status },
  );
}
