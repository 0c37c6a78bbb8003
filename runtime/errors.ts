// One error model for every protocol: the codes and their wire forms (error-codes.ts), what a
// gRPC status without a code means, the error a service raises, and the RFC 6749 errors of the
// token routes.
import { ERROR_CODES, ERROR_WIRE, statusSaysMore, type ErrorCode } from "./error-codes.js";
export { codeOfHttpStatus, ERROR_CODES, ERROR_WIRE, isErrorCode, statusSaysMore, type ErrorCode } from "./error-codes.js";

/** The metadata key (gRPC trailer, Connect error metadata) that carries the code beside the status. */
export const ERROR_CODE_METADATA = "x-error-code";

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
