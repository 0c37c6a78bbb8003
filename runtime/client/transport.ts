// The transport interface: one call of one operation, answered in the flat shape or with an ApiError.
import { codeOfHttpStatus } from "../error-codes.js";
import { answerMismatch, flatMessage, type CanonicalText } from "../flat.js";
import type { DescService } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import type { ClientSchema, ClientServiceFacts, OperationSpec, Protocol } from "../schema.js";
import { ApiError, FAULT_CODES, waitAsked } from "./errors.js";
import { connectionFailureReason, type TlsClientOptions } from "./tls.js";

export type Plain = Record<string, unknown>;

export interface TransportCall {
  operation: OperationSpec;
  /** The messages and enums the operation reaches (at least). */
  schema: ClientSchema;
  /** How the values of text kinds are read (wire-values' canonicalText): loaded with an operation whose messages hold one. */
  canonical?: CanonicalText;
  /** The input, with the call's extraBody. */
  input: Plain;
  /** Fields this SDK does not know, sent beside the typed input (CallOptions.extraBody): over REST and GraphQL, never over gRPC. */
  extraBody?: Record<string, unknown> | undefined;
  /** Headers of this call: the credentials, extra headers, per-call headers. */
  headers: Record<string, string>;
  /** Absent when the caller set neither a signal nor a deadline (no listener per call then). */
  signal: AbortSignal | undefined;
  /** Told of the answer's status (HTTP) and headers (gRPC: metadata) as soon as they arrive. */
  onResponse?: (status: number | undefined, headers: Headers) => void;
}

export interface Transport {
  readonly protocol: Protocol;
  call(call: TransportCall): Promise<Plain>;
  close(): Promise<void>;
}

/** A fetch of the client's own, and its close (which ends the connections it opened). */
export interface OwnFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * What differs between the runtimes a client runs on, chosen by the package's "#client-platform"
 * import (conditions node, or browser / deno / bun / worker / default): Node's pooled fetch with TLS
 * options and gRPC over HTTP/2, or the platform's fetch and Connect over it.
 */
export interface ClientPlatform {
  readonly name: "node" | "web";
  /** The client's fetch when it is given none; throws a TypeError for TLS options the platform cannot take. */
  ownFetch(tls: TlsClientOptions | undefined): OwnFetch;
  /**
   * Where RPCs go: on Node, gRPC over HTTP/2 to grpcEndpoint (a malformed one is a TypeError) with
   * grpcTls; elsewhere Connect over fetch to serviceUrl, refused in clear as serviceUrl is (`overHttp`).
   */
  rpcTarget(options: RpcOptions, grpcPort: number, url: URL, overHttp: string | undefined): RpcTarget;
  /** Loads the RPC transport, on the first call over grpc. */
  loadRpc(): Promise<{ createGrpcTransport(settings: TransportSettings, services: readonly DescService[]): Transport }>;
}

/** The options of a client that say where its RPCs go (those of ClientConfig). */
export interface RpcOptions {
  grpcEndpoint?: string | undefined;
  grpcTls?: boolean | TlsClientOptions | undefined;
  tls?: TlsClientOptions | undefined;
  allowInsecure?: boolean | undefined;
}

/** Where a client's RPCs go, and why one may not be sent (in clear to a host that is not loopback). */
export interface RpcTarget {
  grpcEndpoint: string;
  grpcEndpointIsDefault: boolean;
  grpcTls: false | TlsClientOptions;
  inClear: string | undefined;
}

export interface TransportSettings {
  service: ClientServiceFacts;
  serviceUrl: string;
  grpcEndpoint: string;
  /** True when grpcEndpoint was not configured: a refused connection then names the option. */
  grpcEndpointIsDefault: boolean;
  fetch: typeof fetch;
  /** gRPC over TLS with these options, or plaintext (false). */
  grpcTls: false | TlsClientOptions;
  /** The largest answer read, in bytes. */
  maxResponseBytes: number;
  /** Connect interceptors of gRPC calls. */
  grpcInterceptors: readonly Interceptor[];
  /** Where a warning about an answer goes (the client's logger). */
  warn: (message: string) => void;
}

/** An answer over the size cap (CLIENT_ERROR_TEXTS.answerTooLarge). */
export function answerTooLarge(operation: OperationSpec, protocol: Protocol, limit: number, status?: number): ApiError {
  return new ApiError(FAULT_CODES.tooLarge, `${operation.name}: the answer is larger than ${limit} bytes (maxResponseBytes)`, operation.name, protocol, status === undefined ? {} : { status });
}

/** The body of `response` as text, read no further than `limit` bytes: a larger one is refused as soon as it is known. */
export async function readText(response: Response, limit: number, operation: OperationSpec, protocol: "rest" | "graphql"): Promise<string> {
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) > limit) {
    await response.body?.cancel();
    throw answerTooLarge(operation, protocol, limit, response.status);
  }
  // A declared length within the cap (every answer of the service's): read at once, no chunk loop per call.
  if (length !== null || !response.body) return response.text();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw answerTooLarge(operation, protocol, limit, response.status);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(whole);
}

/** An ApiError for a failed fetch: timeout, cancellation, or no answer at all. */
export function fetchFailure(error: unknown, call: Pick<TransportCall, "operation" | "signal">, protocol: Protocol): ApiError {
  if (error instanceof ApiError) return error;
  const reason = call.signal?.reason as { name?: string } | undefined;
  if (call.signal?.aborted && reason?.name === "TimeoutError") {
    return new ApiError(FAULT_CODES.timedOut, `${call.operation.name} timed out`, call.operation.name, protocol, { cause: error });
  }
  if (call.signal?.aborted) return new ApiError(FAULT_CODES.cancelled, `${call.operation.name} was cancelled`, call.operation.name, protocol, { cause: error });
  return noAnswer(call.operation, protocol, connectionFailureReason(error), { cause: error });
}

/** No answer from the service (CLIENT_ERROR_TEXTS.noAnswer): refused, reset, dropped. */
export function noAnswer(operation: OperationSpec, protocol: Protocol, reason: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}): ApiError {
  return new ApiError(FAULT_CODES.noAnswer, `${operation.name}: no answer from the service (${reason})`, operation.name, protocol, options);
}

/** The code of an answer that could not be read: a write's may have happened. */
export function unreadableCode(operation: OperationSpec) {
  return operation.kind === "read" ? FAULT_CODES.unreadableRead : FAULT_CODES.unreadableWrite;
}
export const writeOutcome = (operation: OperationSpec) => (operation.kind === "read" ? "" : "; the write may have happened");

/**
 * A 2xx answer whose body is not the answer (not JSON, null, GraphQL without its data): never
 * retried; to a write OUTCOME_UNKNOWN, saying it may have happened (CLIENT_ERROR_TEXTS.malformedAnswer).
 */
export function malformedAnswer(operation: OperationSpec, protocol: "rest" | "graphql", status: number, cause?: unknown): ApiError {
  return new ApiError(unreadableCode(operation), `${operation.name}: the service answered HTTP ${status} with a body that is not its answer${writeOutcome(operation)}`, operation.name, protocol, {
    status,
    cause,
  });
}

/**
 * The flat shape of a 2xx JSON answer. A field whose JSON type is not its own (a newer service
 * changed it) is kept as it came, with a warning, rather than failing the whole call.
 */
export function readAnswer(call: Pick<TransportCall, "schema" | "operation" | "canonical">, status: number, body: Plain, warn: (message: string) => void): Plain {
  const { schema, operation } = call;
  const mismatch = answerMismatch(schema, operation.output, body);
  if (mismatch !== undefined) warn(`${operation.name}: the answer does not fit ${operation.output} (${mismatch}); the value is kept as it came (HTTP ${status})`);
  return flatMessage(schema, operation.output, body, call.canonical, "name", true);
}

/**
 * A non-2xx answer whose body is not the error model (a proxy's HTML page): the code of its status
 * (any 5xx UNAVAILABLE: the service did not answer), with the status and Retry-After.
 */
export function bareStatus(operation: OperationSpec, protocol: "rest" | "graphql", response: Response): ApiError {
  const status = response.status;
  return new ApiError(status >= 500 ? FAULT_CODES.noAnswer : codeOfHttpStatus(status), `HTTP ${status}`, operation.name, protocol, {
    status,
    retryAfterSeconds: waitAsked((name) => response.headers.get(name)),
  });
}

/** A JSON object, or undefined for any other text (not JSON, null, an array, a scalar). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
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
