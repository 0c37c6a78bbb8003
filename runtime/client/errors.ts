// The one error class of every client, whatever protocol carried the call.
import type { ErrorCode } from "../error-codes.js";
import type { Protocol } from "../schema.js";

/**
 * What only a client can tell: too late, cancelled, and an answer to a write that could not be read
 * (the write may have happened). UNAVAILABLE is the server's code, and also the client's when no
 * answer came.
 */
export const CLIENT_ERROR_CODES = ["DEADLINE_EXCEEDED", "CANCELLED", "OUTCOME_UNKNOWN"] as const;
/** The server's code set, plus the client's own. */
export type ClientErrorCode = ErrorCode | (typeof CLIENT_ERROR_CODES)[number];

/**
 * The code of each failure a client names itself, one table for every language and protocol (the
 * Python and Go SDKs are generated from it through sdk-facts), so that one fault is one error.
 */
export const FAULT_CODES = {
  /** The caller's deadline passed. */
  timedOut: "DEADLINE_EXCEEDED",
  /** The caller cancelled, or closed the client during the call. */
  cancelled: "CANCELLED",
  /** No answer: refused, reset, a TLS failure, a gRPC stream the peer dropped, a 5xx page that is not the error model. */
  noAnswer: "UNAVAILABLE",
  /** An answer that could not be read (a 2xx that is not the answer, a gRPC stream without a readable message or status), to a read. */
  unreadableRead: "INTERNAL",
  /** The same, to a write: it may have happened, so it is never retried and says so. */
  unreadableWrite: "OUTCOME_UNKNOWN",
  /** An answer over the client's size cap. */
  tooLarge: "PAYLOAD_TOO_LARGE",
} as const satisfies Record<string, ClientErrorCode>;

/** Failures worth another try for a read: no answer, or an overloaded server. */
export const TRANSIENT_CODES: readonly ClientErrorCode[] = ["UNAVAILABLE", "TOO_MANY_REQUESTS"];
export const TRANSIENT_HTTP_STATUSES: readonly number[] = [502, 503, 504];

/** What came with an answer: `.withResponse()` of any call, and `error.response` of a failed one. */
export interface RawResponse {
  /** HTTP status; undefined over gRPC. */
  status: number | undefined;
  /** The answer's headers (gRPC: header and trailer metadata). */
  headers: Headers;
  protocol: Protocol;
  /** Attempts the call took, retries included. */
  attempts: number;
}

/**
 * The error of every failed call, whatever protocol carried it. Its class is the one of its code
 * (`NotFoundError`, `UnavailableError`, ...: `instanceof` tells them apart, as Python's classes
 * and Go's sentinels do), whichever way it was made.
 */
export class ApiError extends Error {
  /** The name of the class of a code (NotFoundError), which its errors take. */
  declare static readonly errorName?: string;
  override name = "ApiError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    /** snake_case operation name; empty when the module of the operation called did not load (its cause names the module). */
    readonly operation: string,
    readonly protocol: Protocol,
    options: {
      /** True when the client refused the call before sending anything. */
      refused?: boolean;
      /** HTTP status of the answer, over GraphQL and REST. */
      status?: number;
      /** RFC 6749 error of the token routes. */
      oauthError?: string;
      /** Seconds the server asked to wait before another try (Retry-After; gRPC: retry-after metadata). */
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    // Made as ApiError (as the transports do): it becomes the class of its code.
    const byCode = new.target === ApiError ? ERROR_CLASSES[code] : undefined;
    if (byCode) Object.setPrototypeOf(this, byCode.prototype);
    this.name = (Object.getPrototypeOf(this) as { constructor: typeof ApiError }).constructor.errorName ?? "ApiError";
    this.refused = options.refused ?? false;
    this.status = options.status;
    this.oauthError = options.oauthError;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  readonly refused: boolean;
  readonly status: number | undefined;
  readonly oauthError: string | undefined;
  /** Seconds the server asked to wait before another try, when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** What came with the failed call's last answer (status, headers or metadata, attempts), when one came. */
  declare readonly response?: RawResponse;

  /** Failures worth another try for a read: no answer, or an overloaded server. */
  get transient(): boolean {
    return TRANSIENT_CODES.includes(this.code) || (this.status !== undefined && TRANSIENT_HTTP_STATUSES.includes(this.status));
  }
}

// One class per code, named by it (errorName, set below: minifiers rename the classes themselves).
/** INVALID_ARGUMENT: HTTP 400, gRPC 3. */
export class InvalidArgumentError extends ApiError {}
/** UNAUTHENTICATED: HTTP 401, gRPC 16. */
export class UnauthenticatedError extends ApiError {}
/** PERMISSION_DENIED: HTTP 403, gRPC 7. */
export class PermissionDeniedError extends ApiError {}
/** NOT_FOUND: HTTP 404, gRPC 5. */
export class NotFoundError extends ApiError {}
/** FAILED_PRECONDITION: HTTP 412, gRPC 9; also every refusal before anything is sent. */
export class FailedPreconditionError extends ApiError {}
/** ALREADY_EXISTS: HTTP 409, gRPC 6. */
export class AlreadyExistsError extends ApiError {}
/** TOO_MANY_REQUESTS: HTTP 429, gRPC 8 (see retryAfterSeconds). */
export class TooManyRequestsError extends ApiError {}
/** INTERNAL: HTTP 500, gRPC 13; also an answer to a read that could not be read. */
export class InternalError extends ApiError {}
/** UNIMPLEMENTED: HTTP 501, gRPC 12. */
export class UnimplementedError extends ApiError {}
/** UNAVAILABLE: HTTP 503, gRPC 14; also no answer at all (refused, reset, dropped). */
export class UnavailableError extends ApiError {}
/** PAYLOAD_TOO_LARGE: HTTP 413, gRPC 8; also an answer over maxResponseBytes. */
export class PayloadTooLargeError extends ApiError {}
/** METHOD_NOT_ALLOWED: HTTP 405 (HTTP only). */
export class MethodNotAllowedError extends ApiError {}
/** UNSUPPORTED_MEDIA_TYPE: HTTP 415 (HTTP only). */
export class UnsupportedMediaTypeError extends ApiError {}
/** DEADLINE_EXCEEDED: the call's deadline passed (told by the client). */
export class DeadlineExceededError extends ApiError {}
/** CANCELLED: the caller's signal aborted, or the client was closed (told by the client). */
export class CancelledError extends ApiError {}
/** OUTCOME_UNKNOWN: the answer to a write could not be read; the write may have happened (told by the client). */
export class OutcomeUnknownError extends ApiError {}

/** The class of each code: an ApiError of that code is one. */
export const ERROR_CLASSES: Readonly<Record<ClientErrorCode, typeof ApiError>> = {
  INVALID_ARGUMENT: InvalidArgumentError,
  UNAUTHENTICATED: UnauthenticatedError,
  PERMISSION_DENIED: PermissionDeniedError,
  NOT_FOUND: NotFoundError,
  FAILED_PRECONDITION: FailedPreconditionError,
  ALREADY_EXISTS: AlreadyExistsError,
  TOO_MANY_REQUESTS: TooManyRequestsError,
  INTERNAL: InternalError,
  UNIMPLEMENTED: UnimplementedError,
  UNAVAILABLE: UnavailableError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  DEADLINE_EXCEEDED: DeadlineExceededError,
  CANCELLED: CancelledError,
  OUTCOME_UNKNOWN: OutcomeUnknownError,
};
for (const [code, errorClass] of Object.entries(ERROR_CLASSES)) {
  // NOT_FOUND: NotFoundError.
  const errorName = `${code.toLowerCase().replace(/(?:^|_)(.)/g, (_, letter: string) => letter.toUpperCase())}Error`;
  Object.defineProperty(errorClass, "errorName", { value: errorName });
}

/**
 * The seconds a Retry-After value asks to wait: delta-seconds or an HTTP date; undefined when
 * absent, unreadable or past.
 */
/**
 * The wait an answer asks for, in seconds: `retry-after-ms` (milliseconds, as OpenAI's and
 * Anthropic's APIs send it) before `Retry-After`; `header` reads a header or metadata value.
 */
export function waitAsked(header: (name: string) => string | null | undefined, nowMs = Date.now()): number | undefined {
  const ms = header("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  return retryAfterSeconds(header("retry-after"), nowMs);
}

export function retryAfterSeconds(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const when = Date.parse(text);
  return Number.isNaN(when) || when <= nowMs ? undefined : (when - nowMs) / 1000;
}
