// The storage the reference service runs on: one table per resource, described once below (the
// columns that are looked up, filtered, unique or ordered; the rest of a record travels as JSON),
// behind a small typed interface that the SQL store (SQLite, PostgreSQL) and the in-memory store
// both implement. Queries name columns and conditions, never JavaScript callbacks, so that every
// lookup is an indexed query in SQL. Records are copies: changing one changes nothing stored.
import type {
  AuditLog,
  Client,
  EmailTemplate,
  FGATuple,
  Organization,
  OrgDomain,
  OrgMember,
  OrgOIDCConnection,
  OrgSAMLConnection,
  SAMLIDPKey,
  SAMLServiceProvider,
  ScimEndpoint,
  TrustedIssuer,
  User,
  VerificationRequest,
  Webhook,
  WebhookLog,
} from "../generated/types.js";

// ---- queries ----

/** Comparisons of one column; every one given holds. */
export interface Comparison<V> {
  readonly ne?: V;
  readonly gt?: V;
  readonly gte?: V;
  readonly lt?: V;
  readonly lte?: V;
  readonly in?: readonly V[];
  /** Case-insensitive substring (ASCII case in SQLite). */
  readonly contains?: string;
}

/** A condition on one column: a value (equality; null means IS NULL) or comparisons. */
export type Condition<V> = V | Comparison<V>;

/** Every condition holds; `anyOf`, when given, also needs one of its alternatives to hold. */
export type Where<Q> = { readonly [K in keyof Q]?: Condition<Q[K]> } & { readonly anyOf?: readonly Where<Q>[] };

export interface ListOptions {
  /** Newest first instead of oldest first (insertion order either way). */
  newestFirst?: boolean;
  limit?: number;
  offset?: number;
}

export interface Page<T> {
  items: T[];
  /** How many records match, whatever the page. */
  total: number;
}

/** The records of one table. `Q` is the part of a record the table has columns for. */
export interface Collection<T, Q = T> {
  get(key: string): Promise<T | undefined>;
  /** The first match, in insertion order. */
  find(where: Where<Q>): Promise<T | undefined>;
  /** The matches, in insertion order (or newest first). */
  list(where?: Where<Q>, options?: ListOptions): Promise<T[]>;
  /** One page of the matches and how many match in all: two queries, never every row. */
  page(where: Where<Q>, options: ListOptions & { limit: number; offset: number }): Promise<Page<T>>;
  count(where?: Where<Q>): Promise<number>;
  /** Adds a record; ALREADY_EXISTS when its key or a unique column is taken. */
  insert(record: T): Promise<void>;
  /** Adds records in one commit, all or none; ALREADY_EXISTS as insert. */
  insertMany(records: readonly T[]): Promise<void>;
  /** Inserts or replaces the record under its key; ALREADY_EXISTS when a unique column is taken by another. */
  put(record: T): Promise<void>;
  /**
   * Replaces the record under its key when it is still there: false when it went since it was read,
   * so that a change racing a delete never brings the record back (put would). ALREADY_EXISTS as put.
   * `previous`, the record as it was read, lets a store write only what changed (the same outcome).
   */
  update(record: T, previous?: T): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  /** Deletes every match; answers how many went. */
  deleteWhere(where: Where<Q>): Promise<number>;
}

// ---- tables ----

export type ColumnType = "text" | "integer" | "boolean";

export interface UniqueRule<C extends string> {
  /** The index name (ux_<table>_<what>), also how a violation is recognised. */
  name: string;
  columns: readonly C[];
  /** Only rows whose column has this value take part (a partial index). */
  where?: { column: C; equals: string };
  /** The ALREADY_EXISTS message a violation answers. */
  message: string;
}

export interface TableSpec<T, C extends keyof T & string> {
  /** SQL table name. */
  table: string;
  /** What a record is called in messages ("user"). */
  kind: string;
  /** The primary key of a record. */
  key(record: T): string;
  /** The ALREADY_EXISTS message of an insert whose key is taken (default "the <kind> already exists"). */
  keyTaken?: string;
  columns: { readonly [K in C]: ColumnType };
  unique?: readonly UniqueRule<NoInfer<C>>[];
  /** Indexes of lookups that are not unique. */
  indexes?: readonly (readonly NoInfer<C>[])[];
}

const spec =
  <T>() =>
  <C extends keyof T & string>(table: TableSpec<T, C>): TableSpec<T, C> =>
    table;
const byId = (record: { id: string }) => record.id;

// ---- records: the public shape of a resource plus what the service keeps to itself ----

export interface UserRecord extends User {
  /** scrypt hash of the password, or null for users without one (magic link, invited). */
  password_hash: string | null;
}

/** A salted SHA-256 of a client secret; `expires_at` is set once the secret was rotated away. */
export interface ClientSecretHash {
  salt: string;
  hash: string;
  created_at: number;
  expires_at: number | null;
}

export interface ClientRecord extends Client {
  secrets: ClientSecretHash[];
}

export type VerificationPurpose = "basic_auth_signup" | "magic_link_login" | "forgot_password" | "invite_member" | "update_email";

export interface VerificationRecord extends Omit<VerificationRequest, "token"> {
  /** SHA-256 of the token sent to the user; the token itself is not kept. */
  token_hash: string;
  purpose: VerificationPurpose;
  user_id: string;
}

export type OtpPurpose = "login" | "reset_password" | "verify_phone";

export interface OtpRecord {
  id: string;
  user_id: string;
  purpose: OtpPurpose;
  otp_hash: string;
  attempts: number;
  expires_at: number;
  created_at: number;
}

export interface FGAModelRecord {
  id: string;
  dsl: string;
  created_at: number;
}

export interface FGATupleRecord extends FGATuple {
  key: string;
}

export interface SAMLIDPKeyRecord extends SAMLIDPKey {
  /** PKCS#8 PEM; never leaves the service. */
  private_key_pem: string;
}

export interface OrgDomainRecord extends OrgDomain {
  /** Value of the TXT record the tenant must publish. */
  challenge: string;
}

export interface OrgOIDCConnectionRecord extends OrgOIDCConnection {
  /** Kept as given: the service presents it to the upstream provider. Never returned. */
  client_secret: string;
  client_secret_updated_at: number;
}

export interface OrgSAMLConnectionRecord extends OrgSAMLConnection {
  /** PEM certificate of the upstream IdP, used to check its assertions. Never returned. */
  idp_certificate: string;
}

export interface ScimEndpointRecord extends ScimEndpoint {
  /** SHA-256 of the bearer token. */
  token_hash: string;
}

/**
 * A user an organization's SCIM endpoint provisioned: the SCIM attributes as the identity provider
 * last wrote them, beside the service user they map to (the SCIM id is the user's id).
 */
export interface ScimUserRecord {
  /** `<org_id>/<user_id>`: a user is provisioned at most once per organization. */
  key: string;
  org_id: string;
  user_id: string;
  user_name: string;
  /** userName in lower case: unique per organization, as SCIM compares it (caseExact false). */
  user_name_key: string;
  external_id: string | null;
  /** The rest of the resource (name, emails, …), without id, meta, active, groups and password. */
  attributes: Record<string, unknown>;
  /** Whether provisioning made the service user (then deprovisioning may delete it). */
  created_user: boolean;
  /** Whether the identity provider's last write stated `active` (answered then, and whenever access is revoked). */
  active_stated: boolean;
  /** Whether provisioning revoked the user's access (`active: false`); an `active` left out later gives it back. */
  deactivated: boolean;
  /** Counts the writes: the ETag. */
  version: number;
  /** Milliseconds since the epoch. */
  created: number;
  last_modified: number;
}

/** A SCIM group of an organization: its members are provisioned users of the same organization. */
export interface ScimGroupRecord {
  id: string;
  org_id: string;
  display_name: string;
  /** displayName in lower case: unique per organization. */
  display_name_key: string;
  external_id: string | null;
  /** Users of the organization, in the order they were added, with the display name the identity provider gave. */
  members: { user_id: string; display: string | null }[];
  /** The rest of the resource, without id, meta, displayName, externalId and members. */
  attributes: Record<string, unknown>;
  version: number;
  created: number;
  last_modified: number;
}

/** A signed-in user's session; access tokens name it (`sid`) and die with it. */
export interface SessionRecord {
  id: string;
  user_id: string;
  /** SHA-256 of the session cookie value. */
  cookie_hash: string;
  roles: string[];
  scope: string[];
  created_at: number;
  expires_at: number;
}

export interface RefreshTokenRecord {
  /** SHA-256 of the refresh token; the key. */
  token_hash: string;
  session_id: string;
  user_id: string;
  /** The registered client the token was issued to, if any. */
  client_id: string | null;
  scope: string[];
  created_at: number;
  expires_at: number;
  /** When the refresh_token grant used it up (rotation); a second use ends the session. */
  used_at?: number | null;
}

export interface AuthorizationCodeRecord {
  code_hash: string;
  user_id: string;
  client_id: string;
  redirect_uri: string | null;
  scope: string[];
  code_challenge: string | null;
  nonce: string | null;
  expires_at: number;
}

/** A key the service signs its tokens with, kept so that a restart and every replica use the same ones. */
export interface SigningKeyRecord {
  kid: string;
  alg: "ES256" | "RS256";
  /** PKCS#8 PEM; never leaves the service. */
  private_key_pem: string;
  /** current: signs; next: published ahead of the next rotation; retired: published until the tokens it signed expire. */
  status: "current" | "next" | "retired";
  retired_at: number | null;
  created_at: number;
}

/**
 * A sign-in at an organization's upstream IdP in flight: the authorization request it finishes,
 * and the PKCE verifier and nonce of the upstream request. Keyed by the SHA-256 of its state.
 */
export interface SsoTransactionRecord {
  state_hash: string;
  connection_id: string;
  org_id: string;
  code_verifier: string;
  nonce: string;
  /** The query string of the original /oauth/authorize request. */
  authorize_query: string;
  expires_at: number;
}

/** The admin secret admin_signup stored (a service started without --admin-secret); one at most. */
export interface AdminSecretRecord {
  id: "admin";
  /** scrypt hash of the secret. */
  secret_hash: string;
  created_at: number;
}

/**
 * Wrong guesses at one account's secrets within a window: passwords by the name signed in with
 * (known or not), one-time passwords by account across every code re-issued. Keys `sends:…`
 * count codes sent instead (forgot_password and the resends, per account and phone number):
 * `failures` is then the number sent in the window.
 */
export interface GuessCounterRecord {
  key: string;
  failures: number;
  window_started: number;
}

/** An assertion already used (its issuer and jti, or its hash without one), kept until it expires. */
export interface UsedAssertionRecord {
  key: string;
  expires_at: number;
}

/**
 * A write's Idempotency-Key (reference/idempotency-keys.ts): claimed by the first request, then its
 * answer. `key` is the SHA-256 of the caller and the key; times in milliseconds.
 */
export interface IdempotencyKeyRecord {
  key: string;
  operation: string;
  input_hash: string;
  claimed_at: number;
  /** The lease's end while the first request runs; the window's end once it answered. */
  expires_at: number;
  answer: Record<string, unknown> | null;
}

/** A revoked JWT, kept until it would have expired anyway. */
export interface RevokedTokenRecord {
  jti: string;
  expires_at: number;
}

// ---- the tables (the schema of migration 1 is built from these; a change to one is a new migration) ----

export const TABLES = {
  users: spec<UserRecord>()({
    table: "users",
    kind: "user",
    key: byId,
    columns: {
      id: "text",
      email: "text",
      phone_number: "text",
      given_name: "text",
      family_name: "text",
      nickname: "text",
      preferred_username: "text",
      created_at: "integer",
    },
    unique: [
      { name: "ux_users_email", columns: ["email"], message: "a user with this email already exists" },
      { name: "ux_users_phone_number", columns: ["phone_number"], message: "a user with this phone number already exists" },
    ],
  }),
  verificationRequests: spec<VerificationRecord>()({
    table: "verification_requests",
    kind: "verification request",
    key: byId,
    columns: { id: "text", token_hash: "text", user_id: "text", purpose: "text", email: "text", expires: "integer" },
    unique: [{ name: "ux_verification_requests_token_hash", columns: ["token_hash"], message: "the verification token is taken" }],
    indexes: [["user_id"], ["email"], ["expires"]],
  }),
  otps: spec<OtpRecord>()({
    table: "otps",
    kind: "one-time password",
    key: byId,
    columns: { id: "text", user_id: "text", purpose: "text" },
    indexes: [["user_id"]],
  }),
  webhooks: spec<Webhook>()({
    table: "webhooks",
    kind: "webhook",
    key: byId,
    columns: { id: "text", event_name: "text", enabled: "boolean" },
    indexes: [["event_name"]],
  }),
  webhookLogs: spec<WebhookLog>()({
    table: "webhook_logs",
    kind: "webhook log",
    key: byId,
    columns: { id: "text", webhook_id: "text" },
    indexes: [["webhook_id"]],
  }),
  emailTemplates: spec<EmailTemplate>()({
    table: "email_templates",
    kind: "email template",
    key: byId,
    columns: { id: "text", event_name: "text" },
    unique: [{ name: "ux_email_templates_event_name", columns: ["event_name"], message: "an email template for this event already exists" }],
  }),
  auditLogs: spec<AuditLog>()({
    table: "audit_logs",
    kind: "audit log",
    key: byId,
    columns: { id: "text", action: "text", actor_id: "text", resource_type: "text", resource_id: "text", created_at: "integer" },
    indexes: [["actor_id"], ["resource_id"], ["created_at"]],
  }),
  /** Holds at most one record, under the key "current". */
  fgaModels: spec<FGAModelRecord>()({ table: "fga_models", kind: "FGA model", key: () => "current", columns: { id: "text" } }),
  fgaTuples: spec<FGATupleRecord>()({
    table: "fga_tuples",
    kind: "FGA tuple",
    key: (tuple) => tuple.key,
    columns: { key: "text", user: "text", relation: "text", object: "text" },
    unique: [{ name: "ux_fga_tuples_tuple", columns: ["object", "relation", "user"], message: "the tuple is already written" }],
    indexes: [["user"]],
  }),
  clients: spec<ClientRecord>()({
    table: "clients",
    kind: "client",
    key: byId,
    columns: { id: "text", client_id: "text" },
    unique: [{ name: "ux_clients_client_id", columns: ["client_id"], message: "a client with this client_id already exists" }],
  }),
  trustedIssuers: spec<TrustedIssuer>()({
    table: "trusted_issuers",
    kind: "trusted issuer",
    key: byId,
    columns: { id: "text", issuer_url: "text", expected_aud: "text", service_account_id: "text", is_active: "boolean" },
    unique: [
      {
        name: "ux_trusted_issuers_mapping",
        columns: ["issuer_url", "expected_aud", "service_account_id"],
        message: "a trusted issuer already maps this issuer and audience to this service account",
      },
    ],
    indexes: [["service_account_id"]],
  }),
  samlServiceProviders: spec<SAMLServiceProvider>()({
    table: "saml_service_providers",
    kind: "SAML service provider",
    key: byId,
    columns: { id: "text", org_id: "text", entity_id: "text", is_active: "boolean" },
    unique: [{ name: "ux_saml_service_providers_entity", columns: ["org_id", "entity_id"], message: "a service provider of the organization already has this entity_id" }],
  }),
  samlIdpKeys: spec<SAMLIDPKeyRecord>()({
    table: "saml_idp_keys",
    kind: "SAML IdP key",
    key: byId,
    columns: { id: "text", org_id: "text", status: "text" },
    unique: [
      {
        name: "ux_saml_idp_keys_current",
        columns: ["org_id"],
        where: { column: "status", equals: "current" },
        message: "the organization's signing key was rotated by another call at the same time",
      },
    ],
    indexes: [["org_id"]],
  }),
  organizations: spec<Organization>()({
    table: "organizations",
    kind: "organization",
    key: byId,
    columns: { id: "text", name: "text" },
    unique: [{ name: "ux_organizations_name", columns: ["name"], message: "an organization with this name already exists" }],
  }),
  orgMembers: spec<OrgMember>()({
    table: "org_members",
    kind: "membership",
    key: byId,
    columns: { id: "text", org_id: "text", user_id: "text" },
    unique: [{ name: "ux_org_members_member", columns: ["org_id", "user_id"], message: "the user is already a member of the organization" }],
    indexes: [["user_id"]],
  }),
  /** Keyed by the (lower-case) domain: a domain belongs to at most one organization. */
  orgDomains: spec<OrgDomainRecord>()({
    table: "org_domains",
    kind: "domain",
    key: (domain) => domain.domain,
    keyTaken: "the domain already belongs to another organization",
    columns: { domain: "text", org_id: "text", status: "text" },
    indexes: [["org_id"]],
  }),
  orgOidcConnections: spec<OrgOIDCConnectionRecord>()({
    table: "org_oidc_connections",
    kind: "OIDC connection",
    key: byId,
    columns: { id: "text", org_id: "text" },
    unique: [{ name: "ux_org_oidc_connections_org", columns: ["org_id"], message: "the organization already has an OIDC connection" }],
  }),
  orgSamlConnections: spec<OrgSAMLConnectionRecord>()({
    table: "org_saml_connections",
    kind: "SAML connection",
    key: byId,
    columns: { id: "text", org_id: "text" },
    unique: [{ name: "ux_org_saml_connections_org", columns: ["org_id"], message: "the organization already has a SAML connection" }],
  }),
  scimEndpoints: spec<ScimEndpointRecord>()({
    table: "scim_endpoints",
    kind: "SCIM endpoint",
    key: byId,
    columns: { id: "text", org_id: "text", token_hash: "text" },
    unique: [
      { name: "ux_scim_endpoints_org", columns: ["org_id"], message: "the organization already has a SCIM endpoint; rotate its token instead" },
      { name: "ux_scim_endpoints_token_hash", columns: ["token_hash"], message: "the SCIM token is taken" },
    ],
  }),
  scimUsers: spec<ScimUserRecord>()({
    table: "scim_users",
    kind: "SCIM user",
    key: (user) => user.key,
    keyTaken: "the user is already provisioned in the organization",
    columns: { key: "text", org_id: "text", user_id: "text", user_name_key: "text", external_id: "text" },
    unique: [{ name: "ux_scim_users_user_name", columns: ["org_id", "user_name_key"], message: "the userName is already taken in the organization" }],
    indexes: [["user_id"], ["org_id", "external_id"]],
  }),
  scimGroups: spec<ScimGroupRecord>()({
    table: "scim_groups",
    kind: "SCIM group",
    key: byId,
    columns: { id: "text", org_id: "text", display_name_key: "text", external_id: "text" },
    unique: [{ name: "ux_scim_groups_display_name", columns: ["org_id", "display_name_key"], message: "the displayName is already taken in the organization" }],
    indexes: [["org_id", "external_id"]],
  }),
  sessions: spec<SessionRecord>()({
    table: "sessions",
    kind: "session",
    key: byId,
    columns: { id: "text", user_id: "text", cookie_hash: "text" },
    unique: [{ name: "ux_sessions_cookie_hash", columns: ["cookie_hash"], message: "the session cookie is taken" }],
    indexes: [["user_id"]],
  }),
  refreshTokens: spec<RefreshTokenRecord>()({
    table: "refresh_tokens",
    kind: "refresh token",
    key: (token) => token.token_hash,
    columns: { token_hash: "text", session_id: "text", user_id: "text", client_id: "text" },
    indexes: [["session_id"], ["user_id"], ["client_id"]],
  }),
  authorizationCodes: spec<AuthorizationCodeRecord>()({
    table: "authorization_codes",
    kind: "authorization code",
    key: (code) => code.code_hash,
    columns: { code_hash: "text", user_id: "text", client_id: "text" },
    indexes: [["user_id"], ["client_id"]],
  }),
  revokedTokens: spec<RevokedTokenRecord>()({
    table: "revoked_tokens",
    kind: "revoked token",
    key: (token) => token.jti,
    columns: { jti: "text", expires_at: "integer" },
    indexes: [["expires_at"]],
  }),
  /** Shared by every replica on the database, so guesses (and code sends) spread over them count together. */
  guessCounters: spec<GuessCounterRecord>()({ table: "guess_counters", kind: "guess counter", key: (counter) => counter.key, columns: { key: "text" } }),
  /** Replays of an assertion find its key taken, on every replica. */
  signingKeys: spec<SigningKeyRecord>()({
    table: "signing_keys",
    kind: "signing key",
    key: (key) => key.kid,
    columns: { kid: "text", status: "text" },
    unique: [{ name: "ux_signing_keys_current", columns: ["status"], where: { column: "status", equals: "current" }, message: "the signing key was rotated by another call at the same time" }],
  }),
  ssoTransactions: spec<SsoTransactionRecord>()({
    table: "sso_transactions",
    kind: "sign-in",
    key: (transaction) => transaction.state_hash,
    columns: { state_hash: "text", expires_at: "integer" },
    indexes: [["expires_at"]],
  }),
  usedAssertions: spec<UsedAssertionRecord>()({
    table: "used_assertions",
    kind: "assertion",
    key: (used) => used.key,
    keyTaken: "the assertion was used already",
    columns: { key: "text", expires_at: "integer" },
    indexes: [["expires_at"]],
  }),
  /** Shared by every replica on the database: a write's key is claimed once across all of them. */
  idempotencyKeys: spec<IdempotencyKeyRecord>()({
    table: "idempotency_keys",
    kind: "idempotency key",
    key: (record) => record.key,
    columns: { key: "text", expires_at: "integer" },
    indexes: [["expires_at"]],
  }),
  /** Holds at most one record, under the key "admin": two admin_signup calls at once make one. */
  adminSecrets: spec<AdminSecretRecord>()({ table: "admin_secrets", kind: "admin", key: () => "admin", keyTaken: "an admin is configured already; use admin_login", columns: { id: "text" } }),
} as const;

export type Tables = typeof TABLES;
export type TableName = keyof Tables;
export type RecordOf<N extends TableName> = Tables[N] extends TableSpec<infer T, infer _C> ? T : never;
export type ColumnsOf<N extends TableName> = Tables[N] extends TableSpec<infer _T, infer C> ? C : never;
/** The part of a record of table N that has columns, what Where conditions name. */
export type QueryOf<N extends TableName> = Pick<RecordOf<N>, ColumnsOf<N>>;

export type Collections = { readonly [N in TableName]: Collection<RecordOf<N>, QueryOf<N>> };

/** Whether the store answers; /readyz and the gRPC health service follow it. */
export interface Reachability {
  readonly kind: string;
  reachable(): boolean;
  onReachableChange(listener: (reachable: boolean) => void): void;
  /** Resolves when the store answers a trivial query now. */
  ping(): Promise<void>;
}

export interface Storage extends Collections, Reachability {
  /**
   * Runs `work` in one transaction: every call of a collection inside it, from any helper, joins
   * it; a failure undoes all of it. A transaction inside another joins the outer one.
   */
  transaction<R>(work: () => Promise<R>): Promise<R>;
  close(): Promise<void>;
}
