// The storage the reference service runs on: one typed collection per resource behind a small
// async interface, so a database-backed store can replace the in-memory one without touching the
// operations. Records are copied on the way in and out, as a real store would hand out new objects.
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

export interface Collection<T> {
  get(key: string): Promise<T | undefined>;
  /** Inserts or replaces the record under its key. */
  put(record: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Records in insertion order, optionally only those `filter` keeps. */
  list(filter?: (record: T) => boolean): Promise<T[]>;
  /** The first record `filter` keeps. */
  find(filter: (record: T) => boolean): Promise<T | undefined>;
  /** Deletes every record `filter` keeps; answers how many went. */
  deleteWhere(filter: (record: T) => boolean): Promise<number>;
}

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

/** A revoked JWT, kept until it would have expired anyway. */
export interface RevokedTokenRecord {
  jti: string;
  expires_at: number;
}

export interface Storage {
  users: Collection<UserRecord>;
  verificationRequests: Collection<VerificationRecord>;
  otps: Collection<OtpRecord>;
  webhooks: Collection<Webhook>;
  webhookLogs: Collection<WebhookLog>;
  emailTemplates: Collection<EmailTemplate>;
  auditLogs: Collection<AuditLog>;
  /** Holds at most one record, under the key "current". */
  fgaModels: Collection<FGAModelRecord>;
  fgaTuples: Collection<FGATupleRecord>;
  clients: Collection<ClientRecord>;
  trustedIssuers: Collection<TrustedIssuer>;
  samlServiceProviders: Collection<SAMLServiceProvider>;
  samlIdpKeys: Collection<SAMLIDPKeyRecord>;
  organizations: Collection<Organization>;
  orgMembers: Collection<OrgMember>;
  /** Keyed by the (lower-case) domain: a domain belongs to at most one organization. */
  orgDomains: Collection<OrgDomainRecord>;
  orgOidcConnections: Collection<OrgOIDCConnectionRecord>;
  orgSamlConnections: Collection<OrgSAMLConnectionRecord>;
  scimEndpoints: Collection<ScimEndpointRecord>;
  sessions: Collection<SessionRecord>;
  refreshTokens: Collection<RefreshTokenRecord>;
  authorizationCodes: Collection<AuthorizationCodeRecord>;
  revokedTokens: Collection<RevokedTokenRecord>;
}

class MemoryCollection<T> implements Collection<T> {
  private readonly records = new Map<string, T>();
  constructor(private readonly keyOf: (record: T) => string) {}

  async get(key: string) {
    const record = this.records.get(key);
    return record === undefined ? undefined : structuredClone(record);
  }
  async put(record: T) {
    this.records.set(this.keyOf(record), structuredClone(record));
  }
  async delete(key: string) {
    return this.records.delete(key);
  }
  async list(filter?: (record: T) => boolean) {
    const all = [...this.records.values()];
    return (filter ? all.filter(filter) : all).map((record) => structuredClone(record));
  }
  async find(filter: (record: T) => boolean) {
    for (const record of this.records.values()) if (filter(record)) return structuredClone(record);
    return undefined;
  }
  async deleteWhere(filter: (record: T) => boolean) {
    let count = 0;
    for (const [key, record] of this.records) {
      if (filter(record)) {
        this.records.delete(key);
        count++;
      }
    }
    return count;
  }
}

const byId = <T extends { id: string }>(record: T) => record.id;

export function createMemoryStorage(): Storage {
  return {
    users: new MemoryCollection(byId),
    verificationRequests: new MemoryCollection(byId),
    otps: new MemoryCollection(byId),
    webhooks: new MemoryCollection(byId),
    webhookLogs: new MemoryCollection(byId),
    emailTemplates: new MemoryCollection(byId),
    auditLogs: new MemoryCollection(byId),
    fgaModels: new MemoryCollection(() => "current"),
    fgaTuples: new MemoryCollection((tuple) => tuple.key),
    clients: new MemoryCollection(byId),
    trustedIssuers: new MemoryCollection(byId),
    samlServiceProviders: new MemoryCollection(byId),
    samlIdpKeys: new MemoryCollection(byId),
    organizations: new MemoryCollection(byId),
    orgMembers: new MemoryCollection(byId),
    orgDomains: new MemoryCollection((domain) => domain.domain),
    orgOidcConnections: new MemoryCollection(byId),
    orgSamlConnections: new MemoryCollection(byId),
    scimEndpoints: new MemoryCollection(byId),
    sessions: new MemoryCollection(byId),
    refreshTokens: new MemoryCollection((token) => token.token_hash),
    authorizationCodes: new MemoryCollection((code) => code.code_hash),
    revokedTokens: new MemoryCollection((token) => token.jti),
  };
}
