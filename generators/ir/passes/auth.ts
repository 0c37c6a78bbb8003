// The auth pass: the auth schemes a manifest declares (api.auth_schemes) or the built-in ones,
// which schemes each surface takes, and the error codes a scheme lets a call answer before any
// implementation runs.
import { ERROR_CODES, type ErrorCode } from "../../../runtime/errors.js";
import type { RawAuthRequirement, RawAuthScheme, RawManifest, RawOperation } from "../../load/load.js";
import { camelCase, didYouMean } from "../naming.js";
import type { ApiFeatures, AuthKind, IrAuthRequirement, IrAuthScheme, IrOperation, SecretNames } from "../ir.js";
import type { Report } from "./report.js";

const DEFAULT_SECRET_HEADER = "x-service-admin-secret";
/** The cookie of the secret's session in a manifest without auth_schemes: an operation that sets it opens the session. */
const BUILTIN_SESSION_COOKIE = "service_admin_session";
const DEFAULT_API_KEY_HEADER = "x-api-key";
const DEFAULT_ORG_ROLE = "service:org_admin";
/** The settings of a manifest without auth_schemes; a manifest with them declares these on its schemes. */
const FLAT_SETTINGS = ["admin_secret_header", "api_key_header", "org_admin_role"] as const;

/**
 * The schemes of a manifest that declares none: those the toolchain always had, with the flat
 * settings' headers and role, and the admin session of the operation that sets its cookie.
 */
function builtinSchemes(raw: RawManifest): Record<string, RawAuthScheme> {
  const opener = Object.entries(raw.operations).find(([, op]) => op.sets_cookies?.includes(BUILTIN_SESSION_COOKIE))?.[0];
  const secret = { header: raw.api.admin_secret_header ?? DEFAULT_SECRET_HEADER, ...(opener ? { session: { cookie: BUILTIN_SESSION_COOKIE, opened_by: opener } } : {}) };
  const adminCredentials = opener ? "admin secret header or admin session" : "admin secret header";
  return {
    public: { kind: "none" },
    user: { kind: "bearer", token: "access" },
    api_key: { kind: "api_key", header: raw.api.api_key_header ?? DEFAULT_API_KEY_HEADER },
    admin_secret: { kind: "secret", ...secret },
    org_admin: {
      kind: "rule",
      of: "admin_secret",
      org_role: raw.api.org_admin_role ?? DEFAULT_ORG_ROLE,
      callers: "super-admins and the organization's own org-admins",
      description: "the admin, or a user who is an org-admin of the organization concerned",
    },
    super_admin: { kind: "rule", of: "admin_secret", callers: "super-admins", description: `the super-admin (${adminCredentials})` },
    scim_token: { kind: "bearer", token: "scim" },
  };
}

/** The word a security name of each kind ends in (the credential it is). */
const CREDENTIAL_WORD: Record<AuthKind, string> = { none: "", bearer: "Token", api_key: "Key", secret: "Secret" };

/**
 * The name of a scheme's credential in the contracts: its declared name in camelCase, ending in
 * the kind's word where it does not already (user -> userToken, api_key -> apiKey, admin_secret ->
 * adminSecret, staff_key -> staffKey); empty for none.
 */
function securityNameOf(name: string, kind: AuthKind): string {
  if (kind === "none") return "";
  const camel = camelCase(name.toLowerCase(), new Set());
  const word = CREDENTIAL_WORD[kind];
  return camel.endsWith(word) || camel === word.toLowerCase() ? camel : `${camel}${word}`;
}

/**
 * How the outputs name the API's secret: after the first secret scheme the operations use that is
 * not a rule (a rule's own, from the scheme it extends).
 */
export function secretNamesOf(raw: RawManifest, schemes: readonly IrAuthScheme[], operations: readonly Pick<IrOperation, "authAnyOf">[]): { secretNames?: SecretNames } {
  const rawSchemes = raw.api.auth_schemes ?? builtinSchemes(raw);
  const used = usedSchemes(schemes, operations).find((s) => s.kind === "secret");
  if (!used) return {};
  const declared = rawSchemes[used.name];
  const scheme = declared?.kind === "rule" && declared.of !== undefined ? declared.of : used.name;
  // What the secret is of: admin_secret and admin both name the admin's ("admin secret", "admin session").
  const of = scheme.toLowerCase().replace(/_?secret$/, "");
  const words = of.replace(/_/g, " ");
  const secretNames: SecretNames = {
    scheme,
    words: `${words} secret`.trim(),
    sessionWords: `${words} session`.trim(),
    option: securityNameOf(of ? `${of}_secret` : "secret", "secret"),
    variable: of ? `${of.toUpperCase()}_SECRET` : "SECRET",
  };
  return { secretNames };
}

/** The keys each declared kind takes besides kind and description. */
const KEYS_OF_KIND: Record<RawAuthScheme["kind"], readonly (keyof RawAuthScheme)[]> = {
  none: [],
  bearer: ["token"],
  api_key: ["header"],
  secret: ["header", "session", "callers"],
  rule: ["of", "org_role", "callers"],
};

/** Who may call, in words, where the scheme does not say it. */
function defaultDescription(scheme: Omit<IrAuthScheme, "description">): string {
  switch (scheme.kind) {
    case "none":
      return "anyone; no credentials";
    case "bearer":
      return scheme.token === "scim" ? "a SCIM provisioning client (bearer SCIM token)" : "a signed-in user (bearer access token)";
    case "api_key":
      return `a caller with an API key (header ${scheme.header})`;
    case "secret":
      if (scheme.orgRole) return `the admin, or a user who holds the role ${scheme.orgRole} for the organization concerned`;
      return `the admin (${scheme.session ? "admin secret header or admin session" : "admin secret header"})`;
  }
}

/**
 * The auth schemes of the manifest, checked: each key fits its kind, a rule extends a secret
 * scheme, an opening operation exists, and the API has one admin secret header, one API key
 * header, one session and one org role (the server checks each with one setting).
 */
export function resolveAuthSchemes(raw: RawManifest, report: Report): IrAuthScheme[] {
  const declared = raw.api.auth_schemes;
  if (declared) {
    for (const setting of FLAT_SETTINGS) {
      if (raw.api[setting] !== undefined) {
        report("invalid-auth-scheme", ["api", setting], "api", `api.${setting} is for manifests without auth_schemes; declare it on the scheme under api.auth_schemes instead`, "key");
      }
    }
  }
  const rawSchemes = declared ?? builtinSchemes(raw);
  const path = (name: string, ...rest: string[]) => ["api", "auth_schemes", name, ...rest];
  const schemes: IrAuthScheme[] = [];
  for (const [name, scheme] of Object.entries(rawSchemes)) {
    const subject = `auth scheme '${name}'`;
    for (const key of Object.keys(scheme) as (keyof RawAuthScheme)[]) {
      if (key !== "kind" && key !== "description" && !KEYS_OF_KIND[scheme.kind].includes(key)) {
        report(
          "invalid-auth-scheme",
          path(name, key),
          subject,
          `'${key}' does not apply to a scheme of kind ${scheme.kind}; it takes ${["description", ...KEYS_OF_KIND[scheme.kind]].join(", ")}`,
          "key",
        );
      }
    }
    let base: RawAuthScheme = scheme;
    if (scheme.kind === "rule") {
      const of = scheme.of === undefined ? undefined : rawSchemes[scheme.of];
      if (scheme.of === undefined) {
        report("invalid-auth-scheme", path(name), subject, "a rule names the secret scheme it extends in 'of'");
      } else if (of?.kind !== "secret") {
        const secrets = Object.keys(rawSchemes).filter((n) => rawSchemes[n]!.kind === "secret");
        const hint = of ? "" : didYouMean(scheme.of, secrets);
        report(
          "invalid-auth-scheme",
          path(name, "of"),
          subject,
          `a rule extends a secret scheme, and '${scheme.of}' is not one${hint || ` (secret schemes: ${secrets.join(", ") || "none declared"})`}`,
        );
      } else {
        base = of;
      }
    }
    const kind: AuthKind = scheme.kind === "rule" ? "secret" : scheme.kind;
    // A rule's credentials are those of the secret scheme it extends, under that scheme's names.
    const credentialName = securityNameOf(base === scheme ? name : scheme.of!, kind);
    const resolved: Omit<IrAuthScheme, "description"> = {
      name,
      kind,
      securityName: credentialName,
      ...(kind === "bearer" ? { token: scheme.token ?? "access" } : {}),
      ...(kind === "api_key" ? { header: scheme.header ?? DEFAULT_API_KEY_HEADER } : {}),
      ...(kind === "secret" ? { header: base.header ?? DEFAULT_SECRET_HEADER, callers: scheme.callers ?? base.callers ?? "admins" } : {}),
      ...(kind === "secret" && base.session
        ? { session: { cookie: base.session.cookie, openedBy: base.session.opened_by, securityName: `${credentialName.replace(/(?<=.)Secret$/, "")}Session` } }
        : {}),
      ...(scheme.kind === "rule" && scheme.org_role ? { orgRole: scheme.org_role } : {}),
    };
    schemes.push({ ...resolved, description: scheme.description ?? defaultDescription(resolved) });
  }
  // A role holder calls with a signed-in user's access token: that of the API's bearer scheme of access tokens where it declares one.
  const accessTokens = schemes.find((s) => s.kind === "bearer" && s.token === "access");
  for (const scheme of schemes) {
    if (scheme.orgRole) scheme.roleTokenName = accessTokens?.securityName ?? securityNameOf(scheme.name, "bearer");
  }
  for (const scheme of schemes) {
    const opener = scheme.session?.openedBy;
    if (opener !== undefined && !(opener in raw.operations) && rawSchemes[scheme.name]!.session) {
      report(
        "invalid-auth-scheme",
        path(scheme.name, "session", "opened_by"),
        `auth scheme '${scheme.name}'`,
        `no operation '${opener}' opens the session${didYouMean(opener, Object.keys(raw.operations))}`,
      );
    }
  }
  // One setting of each per server: the admin secret's header, the API key's, the session's cookie, the org role.
  const oneOf = (what: string, key: string, values: [string, string | undefined][]) => {
    const distinct = [...new Set(values.map(([, v]) => v).filter((v) => v !== undefined))];
    if (distinct.length > 1) {
      const [name] = values.find(([, v]) => v === distinct[1])!;
      report("invalid-auth-scheme", path(name, key), `auth scheme '${name}'`, `an API has one ${what}, and these schemes declare ${distinct.join(" and ")}`);
    }
  };
  const declaredSchemes = Object.entries(rawSchemes);
  oneOf(
    "admin secret header",
    "header",
    declaredSchemes.filter(([, s]) => s.kind === "secret").map(([n, s]) => [n, s.header ?? DEFAULT_SECRET_HEADER]),
  );
  oneOf(
    "API key header",
    "header",
    declaredSchemes.filter(([, s]) => s.kind === "api_key").map(([n, s]) => [n, s.header ?? DEFAULT_API_KEY_HEADER]),
  );
  oneOf(
    "admin session",
    "session",
    declaredSchemes.filter(([, s]) => s.kind === "secret").map(([n, s]) => [n, s.session?.cookie]),
  );
  oneOf(
    "org role",
    "org_role",
    declaredSchemes.filter(([, s]) => s.kind === "rule").map(([n, s]) => [n, s.org_role]),
  );
  return schemes;
}

/**
 * The settings the server takes once per API, from the schemes the operations name: empty where
 * none of them has one (an API without the admin secret names no admin secret header anywhere).
 */
export function authSettings(schemes: readonly IrAuthScheme[], operations: readonly Pick<IrOperation, "authAnyOf">[]) {
  const used = usedSchemes(schemes, operations);
  return {
    adminSecretHeader: used.find((s) => s.kind === "secret")?.header ?? "",
    apiKeyHeader: used.find((s) => s.kind === "api_key")?.header ?? "",
    orgAdminRole: used.find((s) => s.orgRole)?.orgRole ?? "",
    adminSessionCookie: used.find((s) => s.session)?.session?.cookie ?? "",
  };
}

/** The kinds of scheme each surface takes: admin calls carry the admin secret, user and token calls a token or key. */
const KINDS_OF_SURFACE: Record<RawOperation["surface"], readonly AuthKind[]> = {
  admin: ["none", "secret"],
  user: ["none", "bearer", "api_key"],
  oauth: ["none", "bearer", "api_key"],
};

/** The schemes an operation's `auth` names, in its order: one name, one { scheme, scopes }, or a list of them. */
export function authRequirementsOf(rawOp: Pick<RawOperation, "auth">): IrAuthRequirement[] {
  const list: RawAuthRequirement[] = Array.isArray(rawOp.auth) ? rawOp.auth : [rawOp.auth];
  return list.map((entry) => (typeof entry === "string" ? { scheme: entry, scopes: [] } : { scheme: entry.scheme, scopes: entry.scopes ?? [] }));
}

/**
 * Reports a scheme of the operation's `auth` that is not declared, that the operation's surface
 * does not take, that is named twice, or that is given scopes without being a bearer scheme.
 */
export function checkAuth(rawOp: RawOperation, schemes: readonly IrAuthScheme[], opPath: readonly (string | number)[], subject: string, report: Report): void {
  const allowed = schemes.filter((s) => KINDS_OF_SURFACE[rawOp.surface].includes(s.kind)).map((s) => s.name);
  const listed = Array.isArray(rawOp.auth);
  const seen = new Set<string>();
  authRequirementsOf(rawOp).forEach((requirement, index) => {
    const name = requirement.scheme;
    const at = [...opPath, "auth", ...(listed ? [index] : [])];
    const nameAt = typeof (listed ? (rawOp.auth as RawAuthRequirement[])[index] : rawOp.auth) === "string" ? at : [...at, "scheme"];
    const scheme = schemes.find((s) => s.name === name);
    if (!scheme) {
      report(
        "unknown-auth-scheme",
        nameAt,
        subject,
        `auth '${name}' is not an auth scheme of this API${didYouMean(
          name,
          schemes.map((s) => s.name),
        )}; declare it under api.auth_schemes or use one of ${allowed.join(", ") || "(none a " + rawOp.surface + " operation takes)"}`,
      );
    } else if (!KINDS_OF_SURFACE[rawOp.surface].includes(scheme.kind)) {
      report(
        "auth-not-allowed",
        nameAt,
        subject,
        `${rawOp.surface === "admin" ? "an" : "a"} ${rawOp.surface} operation cannot require '${name}' (a ${scheme.kind} scheme); use one of ${allowed.join(", ") || "(none declared)"}`,
      );
    } else if (requirement.scopes.length > 0 && scheme.kind !== "bearer") {
      report(
        "invalid-operation-auth",
        [...at, "scopes"],
        subject,
        `scopes are granted to bearer tokens, and '${name}' is ${scheme.kind === "api_key" ? "an" : "a"} ${scheme.kind} scheme; name the scopes on a bearer scheme, or drop them`,
      );
    }
    if (seen.has(name)) report("invalid-operation-auth", nameAt, subject, `auth names '${name}' twice; name each scheme once (with all its scopes)`);
    seen.add(name);
  });
}

/** Codes of the schemes' kinds, raised by the server before any implementation runs. */
const AUTH_ERRORS: Record<AuthKind, readonly ErrorCode[]> = {
  none: [],
  bearer: ["UNAUTHENTICATED"],
  api_key: ["UNAUTHENTICATED"],
  // A bearer token on an admin operation is PERMISSION_DENIED; wrong secrets are locked out (TOO_MANY_REQUESTS, always listed).
  secret: ["UNAUTHENTICATED", "PERMISSION_DENIED"],
};

/**
 * The codes a call may answer: INVALID_ARGUMENT and TOO_MANY_REQUESTS, those of each scheme's kind,
 * PERMISSION_DENIED where a scheme asks for scopes (a token without one is refused), and the declared ones.
 */
export function errorCodesOf(kinds: readonly AuthKind[], declared: readonly string[], scoped = false): string[] {
  const codes = new Set<string>(["INVALID_ARGUMENT", "TOO_MANY_REQUESTS", ...kinds.flatMap((kind) => AUTH_ERRORS[kind]), ...(scoped ? ["PERMISSION_DENIED"] : []), ...declared]);
  return ERROR_CODES.filter((code) => codes.has(code));
}

/** What of the auth machinery the API's operations use: the outputs mention nothing else. */
export function apiFeatures(operations: readonly IrOperation[], schemes: readonly IrAuthScheme[]): ApiFeatures {
  const used = usedSchemes(schemes, operations);
  const tokenOperations = operations.filter((op) => op.surface === "oauth");
  return {
    adminSecret: used.some((s) => s.kind === "secret"),
    adminSession: used.some((s) => s.session !== undefined),
    tokenRoutes: tokenOperations.length > 0,
    clientId: tokenOperations.some((op) => op.input.fields.some((f) => f.name === "client_id")),
    apiKey: used.some((s) => s.kind === "api_key"),
    orgAdmin: used.some((s) => s.orgRole !== undefined),
  };
}

/** The schemes the operations name, in declaration order: the outputs list no other. */
export const usedSchemes = (schemes: readonly IrAuthScheme[], operations: readonly Pick<IrOperation, "authAnyOf">[]): IrAuthScheme[] =>
  schemes.filter((s) => operations.some((op) => op.authAnyOf.some((r) => r.scheme === s.name)));
