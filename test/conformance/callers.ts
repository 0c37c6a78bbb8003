// Who makes a scenario's call and with which credentials: shared by the conformance matrix and the
// compatibility run's replay of it (test/compat/matrix-host.ts), which applies it to a release's
// operations as well as to today's.
import type { OperationSpec } from "../../runtime/schema.js";
import type { Caller, Values } from "./scenarios.js";

/** The caller of a scenario that names none: the admin on the admin surface, a signed-in user for user-auth operations, nobody otherwise. */
export function defaultCaller(operation: Pick<OperationSpec, "surface" | "auth">): Caller {
  if (operation.surface === "admin") return "admin";
  return operation.auth === "user" ? "user" : "anonymous";
}

/** What a call carries for its caller, in the form every client column takes. */
export interface CallCredentials {
  /** Per-call headers: a nobody on the admin surface sends an empty admin secret (an empty header is "none"). */
  headers: Record<string, string>;
  /** The user's access token, for a user client. */
  accessToken: string | undefined;
  /** An org-admin's access token, carried by the admin client instead of the secret (accessToken, access_token, WithAdminAccessToken). */
  adminAccessToken: string | undefined;
}

export function credentialsOf(operation: Pick<OperationSpec, "surface">, caller: Caller, values: Values, adminSecretHeader: string): CallCredentials {
  const orgAdmin = operation.surface === "admin" && caller === "org_admin";
  return {
    headers: operation.surface !== "admin" || caller === "admin" || orgAdmin ? {} : { [adminSecretHeader]: "" },
    accessToken: operation.surface !== "admin" && caller === "user" ? values.accessToken : undefined,
    adminAccessToken: orgAdmin ? values.accessToken : undefined,
  };
}
