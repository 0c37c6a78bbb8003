// The fixed code set of the one error model and the table that maps each code to its HTTP status
// and gRPC status; GraphQL carries the code in `extensions.code`. A module of its own: a client
// that calls over REST or GraphQL reads these and none of the rest of errors.ts.

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

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** The code of an HTTP status, for answers that carry no body of the error model. */
export function codeOfHttpStatus(status: number): ErrorCode {
  return ERROR_CODES.find((code) => ERROR_WIRE[code].http === status) ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/**
 * Whether a token route's HTTP status says more than its RFC 6749 error: a server fault, an
 * overload, a size or a type refused. The server keeps those statuses (oauthStatus), and clients
 * take the code of such a status before the code of the OAuth error.
 */
export const statusSaysMore = (status: number): boolean => status >= 500 || status === 413 || status === 415 || status === 429;
