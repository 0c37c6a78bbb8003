// The auth pass: which auth levels each surface takes, and the error codes an auth level lets a
// call answer before any implementation runs.
import { ERROR_CODES, type ErrorCode } from "../../runtime/errors.js";
import type { RawOperation } from "../load.js";
import type { AuthLevel } from "../ir.js";
import type { Report } from "./report.js";

const ADMIN_AUTH: readonly AuthLevel[] = ["public", "admin_secret", "org_admin", "super_admin"];
const USER_AUTH: readonly AuthLevel[] = ["public", "user", "scim_token"];

/** Reports an auth level the operation's surface does not take. */
export function checkAuth(rawOp: RawOperation, opPath: readonly (string | number)[], subject: string, report: Report): void {
  const auth = rawOp.auth as AuthLevel;
  const allowedAuth = rawOp.surface === "admin" ? ADMIN_AUTH : USER_AUTH;
  if (!allowedAuth.includes(auth)) {
    report("auth-not-allowed", [...opPath, "auth"], subject,
      `${rawOp.surface === "admin" ? "an" : "a"} ${rawOp.surface} operation cannot require '${auth}'; use one of ${allowedAuth.join(", ")}`);
  }
}

/** Codes of the auth levels, raised by the server before any implementation runs. */
const AUTH_ERRORS: Record<AuthLevel, readonly ErrorCode[]> = {
  public: [],
  user: ["UNAUTHENTICATED"],
  scim_token: ["UNAUTHENTICATED"],
  // A bearer token on an admin operation is PERMISSION_DENIED; wrong secrets are locked out (TOO_MANY_REQUESTS, always listed).
  admin_secret: ["UNAUTHENTICATED", "PERMISSION_DENIED"],
  super_admin: ["UNAUTHENTICATED", "PERMISSION_DENIED"],
  org_admin: ["UNAUTHENTICATED", "PERMISSION_DENIED"],
};

export function errorCodesOf(auth: AuthLevel, declared: readonly string[]): string[] {
  const codes = new Set<string>(["INVALID_ARGUMENT", "TOO_MANY_REQUESTS", ...AUTH_ERRORS[auth], ...declared]);
  return ERROR_CODES.filter((code) => codes.has(code));
}
