// The auth pass: which auth levels each surface takes, and the error codes an auth level lets a
// call answer before any implementation runs.
import { ERROR_CODES, type ErrorCode } from "../../runtime/errors.js";
import { ADMIN_SESSION_COOKIE } from "../../runtime/server/auth.js";
import type { RawOperation } from "../load.js";
import type { ApiFeatures, AuthLevel, IrOperation } from "../ir.js";
import type { Report } from "./report.js";

const ADMIN_AUTH: readonly AuthLevel[] = ["public", "admin_secret", "org_admin", "super_admin"];
const USER_AUTH: readonly AuthLevel[] = ["public", "user", "api_key", "scim_token"];

/** Reports an auth level the operation's surface does not take. */
export function checkAuth(rawOp: RawOperation, opPath: readonly (string | number)[], subject: string, report: Report): void {
  const auth = rawOp.auth as AuthLevel;
  const allowedAuth = rawOp.surface === "admin" ? ADMIN_AUTH : USER_AUTH;
  if (!allowedAuth.includes(auth)) {
    report("auth-not-allowed", [...opPath, "auth"], subject, `${rawOp.surface === "admin" ? "an" : "a"} ${rawOp.surface} operation cannot require '${auth}'; use one of ${allowedAuth.join(", ")}`);
  }
}

/** Codes of the auth levels, raised by the server before any implementation runs. */
const AUTH_ERRORS: Record<AuthLevel, readonly ErrorCode[]> = {
  public: [],
  user: ["UNAUTHENTICATED"],
  api_key: ["UNAUTHENTICATED"],
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

/** Auth levels a caller meets with the admin secret (or an admin session). */
const ADMIN_SECRET_LEVELS: readonly AuthLevel[] = ["admin_secret", "org_admin", "super_admin"];

/** What of the auth machinery the API's operations use: the outputs mention nothing else. */
export function apiFeatures(operations: readonly IrOperation[]): ApiFeatures {
  const tokenOperations = operations.filter((op) => op.surface === "oauth");
  return {
    adminSecret: operations.some((op) => ADMIN_SECRET_LEVELS.includes(op.auth)),
    adminSession: operations.some((op) => op.setsCookies.includes(ADMIN_SESSION_COOKIE)),
    tokenRoutes: tokenOperations.length > 0,
    clientId: tokenOperations.some((op) => op.input.fields.some((f) => f.name === "client_id")),
    apiKey: operations.some((op) => op.auth === "api_key"),
  };
}
