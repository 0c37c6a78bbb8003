// The codes of the RFC 6749 errors the token routes answer. A module of its own, loaded by the first
// such answer: an app whose calls never meet one never loads it. It imports nothing, so that a
// bundle keeps it a chunk of its own.
import type { ErrorCode } from "../error-codes.js";

/** The code of an RFC 6749 error. */
export const OAUTH_CODES: Readonly<Record<string, ErrorCode>> = {
  invalid_request: "INVALID_ARGUMENT",
  invalid_client: "UNAUTHENTICATED",
  invalid_grant: "FAILED_PRECONDITION",
  unauthorized_client: "PERMISSION_DENIED",
  unsupported_grant_type: "INVALID_ARGUMENT",
  invalid_scope: "INVALID_ARGUMENT",
  invalid_target: "INVALID_ARGUMENT",
};
