// One error model for every protocol: a fixed code set and the one table that maps each code to
// its HTTP status and gRPC status. GraphQL carries the code in `extensions.code`.

export const ERROR_CODES = [
  "INVALID_ARGUMENT",
  "UNAUTHENTICATED",
  "PERMISSION_DENIED",
  "NOT_FOUND",
  "FAILED_PRECONDITION",
  "ALREADY_EXISTS",
  "TOO_MANY_REQUESTS",
  "INTERNAL",
  "UNIMPLEMENTED",
  "UNAVAILABLE",
  "PAYLOAD_TOO_LARGE",
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The wire form of each code. gRPC codes are the numbers of google.rpc.Code. Two codes share
 * RESOURCE_EXHAUSTED (8): a rate limit (TOO_MANY_REQUESTS) and a message too large
 * (PAYLOAD_TOO_LARGE); the server sends the code itself in the `x-error-code` trailer with every
 * error it raises, and codeOfGrpcStatus says what a status without it means.
 * METHOD_NOT_ALLOWED and UNSUPPORTED_MEDIA_TYPE only ever occur over HTTP.
 */
export const ERROR_WIRE: Readonly<Record<ErrorCode, { readonly http: number; readonly grpc: number }>> = {
  INVALID_ARGUMENT: { http: 400, grpc: 3 },
  UNAUTHENTICATED: { http: 401, grpc: 16 },
  PERMISSION_DENIED: { http: 403, grpc: 7 },
  NOT_FOUND: { http: 404, grpc: 5 },
  FAILED_PRECONDITION: { http: 412, grpc: 9 },
  ALREADY_EXISTS: { http: 409, grpc: 6 },
  TOO_MANY_REQUESTS: { http: 429, grpc: 8 },
  INTERNAL: { http: 500, grpc: 13 },
  UNIMPLEMENTED: { http: 501, grpc: 12 },
  UNAVAILABLE: { http: 503, grpc: 14 },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: 8 },
  METHOD_NOT_ALLOWED: { http: 405, grpc: 12 },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: 3 },
};

/** The metadata key (gRPC trailer, Connect error metadata) that carries the code beside the status. */
export const ERROR_CODE_METADATA = "x-error-code";

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * What a gRPC status means when no `x-error-code` names the code. Only the gRPC library itself
 * answers without it: its RESOURCE_EXHAUSTED is a message over the size limit (the server's rate
 * limits always name TOO_MANY_REQUESTS), its UNIMPLEMENTED an unknown service or method. Every
 * client (TypeScript, Python, Go) applies this rule: the trailer when present, else this table,
 * else the first code of ERROR_CODES with that status.
 */
export const BARE_GRPC_STATUS: Readonly<Partial<Record<number, ErrorCode>>> = { 8: "PAYLOAD_TOO_LARGE" };

/** The code of a gRPC status that came without `x-error-code`, or INTERNAL for statuses outside the code set. */
export function codeOfGrpcStatus(status: number): ErrorCode {
  return BARE_GRPC_STATUS[status] ?? ERROR_CODES.find((code) => ERROR_WIRE[code].grpc === status) ?? "INTERNAL";
}

/** The code of an HTTP status, for answers that carry no body of the error model. */
export function codeOfHttpStatus(status: number): ErrorCode {
  return ERROR_CODES.find((code) => ERROR_WIRE[code].http === status) ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/**
 * An error a service implementation (or the runtime) raises on purpose. Its message reaches the
 * caller, so it must never hold a secret; `field` names the input field at fault, if any.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** The RFC 6749 error of the token routes, when the code alone does not say it. */
    readonly oauthError?: OAuthErrorCode,
    /** Seconds after which a retry may succeed (rate limits, lockouts, an unreachable store): Retry-After on every protocol. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** RFC 6749 (and RFC 8693) errors of the token routes. */
export const OAUTH_ERROR_CODES = ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "invalid_target"] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** RFC 6749 error of the token routes for a code, when the raiser named none. */
export const OAUTH_ERROR_OF: Readonly<Record<ErrorCode, OAuthErrorCode>> = {
  INVALID_ARGUMENT: "invalid_request",
  UNAUTHENTICATED: "invalid_client",
  PERMISSION_DENIED: "unauthorized_client",
  NOT_FOUND: "invalid_grant",
  FAILED_PRECONDITION: "invalid_grant",
  ALREADY_EXISTS: "invalid_request",
  TOO_MANY_REQUESTS: "invalid_request",
  INTERNAL: "invalid_request",
  UNIMPLEMENTED: "invalid_request",
  UNAVAILABLE: "invalid_request",
  PAYLOAD_TOO_LARGE: "invalid_request",
  METHOD_NOT_ALLOWED: "invalid_request",
  UNSUPPORTED_MEDIA_TYPE: "invalid_request",
};

/**
 * The RFC 6749 error a token route answers for `error`: the raiser's, or a refused grant_type's
 * (unsupported_grant_type, §5.2), or the one of its code.
 */
export function oauthErrorOf(error: ServiceError): OAuthErrorCode {
  if (error.oauthError) return error.oauthError;
  if (error.code === "INVALID_ARGUMENT" && error.field === "grant_type") return "unsupported_grant_type";
  return OAUTH_ERROR_OF[error.code];
}

/**
 * HTTP status of a token-route error (RFC 6749 §5.2): 400, or 401 for invalid_client; statuses
 * that say something other than "bad request" (rate limits, sizes, server faults) keep their own.
 */
export function oauthStatus(code: ErrorCode, oauthError: OAuthErrorCode): number {
  if (oauthError === "invalid_client") return 401;
  const http = ERROR_WIRE[code].http;
  return statusSaysMore(http) ? http : 400;
}

/**
 * Whether a token route's HTTP status says more than its RFC 6749 error: a server fault, an
 * overload, a size or a type refused. The server keeps those statuses (oauthStatus), and clients
 * take the code of such a status before the code of the OAuth error.
 */
export const statusSaysMore = (status: number): boolean => status >= 500 || status === 413 || status === 415 || status === 429;
