// The reference identity service: every operation of the generated `Implementation`, in memory,
// with the state rules of the spec (§3). `createReferenceService` answers the implementation, the
// hooks the server stubs need (user tokens, org-admin checks, clock) and a view of the state that
// tests and tools can inspect.
// The namespace as well: randomUUIDv7 is read from it, as a named import of a Node without it would not link.
import * as nodeCrypto from "node:crypto";
import { randomBytes, randomUUID } from "node:crypto";
import { resolveTxt } from "node:dns/promises";
import type { JSONWebKeySet } from "jose";
import { ServiceError, type CallContext, type Implementation, type SecretBootstrap, type ServerOptions } from "../generated/server/index.js";
import { schema } from "../generated/schema.js";
import type { OperationSpec } from "../runtime/schema.js";
import { issuerJwksFetcher, TrustedIssuers } from "./assertions.js";
import {
  DEFAULT_FEATURES,
  nowSeconds,
  type Core,
  type DnsResolver,
  type FeatureFlags,
  type JwksResolver,
  type MessageSender,
  type OutgoingMessage,
  type ReferenceConfig,
  type RsaKeyPairSource,
  type WebhookSender,
} from "./core.js";
import type { Deps } from "./deps.js";
import { Events, webhookPoster } from "./events.js";
import { accountOperations } from "./ops/account.js";
import { authOperations } from "./ops/auth.js";
import { clientOperations, isServiceAudience } from "./ops/clients.js";
import { fgaOperations } from "./ops/fga.js";
import { issueAuthorizationCode, oauthOperations, type AuthorizationCodeRequest } from "./ops/oauth.js";
import { continueAuthorization, oidcOperations } from "./ops/oidc.js";
import { orgDomainOperations, orgForEmailDomain } from "./ops/org-domains.js";
import { organizationOperations } from "./ops/organizations.js";
import { orgSsoOperations, ssoConnectionsFor } from "./ops/org-sso.js";
import { newRsaKeyPair, samlIdpOperations } from "./ops/saml-idp.js";
import { scimOperations, verifyScimToken } from "./ops/scim.js";
import { ScimProvisioning } from "./scim/provisioning.js";
import { scimRoutes } from "./scim/routes.js";
import { trustedIssuerOperations } from "./ops/trusted-issuers.js";
import { userOperations } from "./ops/users.js";
import { webhookOperations } from "./ops/webhooks.js";
import { organizationIdpMetadata, samlRoutes, UpstreamSaml } from "./saml.js";
import { DEFAULT_PASSWORD_HASH_COST, passwordHashCostProblem, sha256, verifyPassword, type PasswordHashCost, type RandomSource } from "./secrets.js";
import { DatabaseIdempotencyStore } from "./idempotency-keys.js";
import { groupCommit } from "./group-commit.js";
import { Sessions } from "./sessions.js";
import { signinRoutes } from "./signin.js";
import { UpstreamSso } from "./upstream-sso.js";
import type { AuditLog } from "../generated/types.js";
import type { Storage } from "./storage.js";
import { createMemoryStorage } from "./store/memory.js";
import { keysInDatabase, keysInMemory, loadSigningKey, TokenService, type ServiceClaims, type SigningKeyOption } from "./tokens.js";

/** Documented default: a rotated-away client secret keeps working for 5 minutes. */
export const DEFAULT_CLIENT_SECRET_GRACE_SECONDS = 300;
export const DEFAULT_ISSUER = "http://127.0.0.1:8080";
/** Documented default: forgot_password and the resends send at most 5 codes an hour to one account. */
export const DEFAULT_CODE_SEND_LIMIT = 5;
export const DEFAULT_CODE_SEND_WINDOW_SECONDS = 3600;
const OUTBOX_LIMIT = 1000;

export interface ReferenceServiceOptions {
  /** Milliseconds since the epoch (default Date.now). */
  clock?: () => number;
  /** New record ids (default random UUIDs; tests pass a counter for deterministic ids). */
  ids?: () => string;
  /**
   * Random bytes of generated secrets and tokens (client secrets, SCIM tokens, refresh tokens,
   * session cookies, verification tokens, one-time passwords), domain challenges, generated HS
   * keys and certificate serials (default node:crypto randomBytes). Tests pass a seeded source so
   * that the same calls answer the same values; never do that in production.
   */
  random?: RandomSource;
  /** RSA key pairs of the SAML IdP signing keys (default: a new RSA-2048 key pair each rotation; tests pass pre-made ones). */
  rsaKeyPairs?: RsaKeyPairSource;
  /** TXT lookup for domain verification (default node:dns resolveTxt). */
  dnsResolver?: DnsResolver;
  /** Signing keys of a trusted issuer (default: fetch its jwks_url, or its OIDC discovery document). */
  jwksResolver?: JwksResolver;
  /**
   * Let webhook deliveries, test_endpoint and key fetches reach loopback and private addresses
   * (default false: refused after DNS resolution, see outbound.ts). For development only.
   */
  allowPrivateOutbound?: boolean;
  /** Webhook deliveries and test_endpoint (default: an HTTP POST with a 5 s timeout, to public addresses only). */
  webhookSender?: WebhookSender;
  /** Emails and SMS of the user flows (default: kept in `state.outbox`). */
  sendMessage?: MessageSender;
  /**
   * How long the previous client secret keeps working after rotate_client_secret, in seconds.
   * Default 300 (5 minutes); 0 invalidates it at once.
   */
  clientSecretGraceSeconds?: number;
  /**
   * Codes forgot_password, resend_otp and resend_verify_email send to one account (and to one
   * phone number) per codeSendWindowSeconds. Default 5 per 3600 s; beyond it they answer as
   * usual and send nothing, so the cap does not tell whether an account exists.
   */
  codeSendLimit?: number;
  codeSendWindowSeconds?: number;
  /**
   * scrypt cost of password and stored admin secret hashes (default DEFAULT_PASSWORD_HASH_COST,
   * OWASP's N=2^14, r=8, p=5). Hashes made at another cost still verify, and a password's is made
   * again at this cost at its next sign-in. Lower it only for tests.
   */
  passwordHashCost?: PasswordHashCost;
  /** Base URL of the service, the `iss` of its tokens (default http://127.0.0.1:8080). */
  issuer?: string;
  /** The JWT signing key (default: keys kept in `storage`, made at the first start: EC P-256, ES256). */
  signingKey?: SigningKeyOption;
  /** With signingKey: keys rotated out before this start, published in the JWKS and honoured for one token lifetime (accessTokenSeconds) from start. */
  previousSigningKeys?: SigningKeyOption[];
  /** With signingKey: the key the next rotation signs with, published from start so that relying parties that cache the JWKS know it before it signs. */
  nextSigningKey?: SigningKeyOption;
  storage?: Storage;
  features?: Partial<FeatureFlags>;
  /**
   * Started without an admin secret: admin_signup stores the first admin's (hashed, in `storage`);
   * pass `adminBootstrap` as the server's `adminSecret`. Default false: admin_signup refuses.
   */
  bootstrapAdmin?: boolean;
  /** The gRPC port admin_meta reports (default the manifest's, 9091). */
  grpcPort?: number;
  /** The service's own client id, reported by meta (default "reference"). */
  clientId?: string;
  accessTokenSeconds?: number;
  /** Roles a user may ask for at sign-up (default ["user"]), and those given when none are asked for (default ["user"]). */
  allowedRoles?: string[];
  defaultRoles?: string[];
  /**
   * Told about failures that are not ServiceErrors (bugs); the runtime answers them as INTERNAL
   * and logs nothing, so this is where they can be seen.
   */
  onInternalError?: (operation: string, error: unknown) => void;
}

export type { AuthorizationCodeRequest } from "./ops/oauth.js";

/** What tests and tools may inspect or drive beyond the operations. */
export interface ReferenceState {
  readonly storage: Storage;
  readonly config: ReferenceConfig;
  /** Messages sent with the default sender, oldest first. */
  readonly outbox: OutgoingMessage[];
  /** Public keys of the service's tokens. */
  jwks(): Promise<JSONWebKeySet>;
  /** Signs with the pre-published next key (or a new one) from now on and publishes a new next key; the current one stays published until the tokens it signed expire. */
  rotateSigningKey(): Promise<void>;
  /** Claims of a token the service signed and still honours, or null. */
  verifyAccessToken(token: string): Promise<ServiceClaims | null>;
  verifyScimToken(token: string): Promise<{ org_id: string; endpoint_id: string } | null>;
  /** Home-realm discovery: the organization a verified domain (or an email's domain) belongs to. */
  orgForEmailDomain(domainOrEmail: string): Promise<string | null>;
  /** The SSO connections a login with this email would use, through its verified domain. */
  ssoConnectionsForEmail(email: string): Promise<{ org_id: string; oidc_connection_id: string | null; saml_connection_id: string | null } | null>;
  /** Whether `candidate` is the stored client secret of an org OIDC connection (the secret itself is never answered). */
  oidcClientSecretMatches(connectionId: string, candidate: string): Promise<boolean>;
  /** The stored IdP certificate of an org SAML connection. */
  samlConnectionCertificate(connectionId: string): Promise<string | null>;
  /** IdP metadata of an organization: current and published keys, not retired ones. Null before the first rotation. */
  samlIdpMetadata(orgId: string): Promise<string | null>;
  /** The active service provider assertions may be issued to, or null. */
  samlServiceProviderFor(orgId: string, entityId: string): Promise<{ id: string; acs_url: string } | null>;
  /**
   * Stands in for the interactive authorization endpoint, which the interface does not carry.
   * Refuses (invalid_request) a public client's request without an S256 code challenge.
   */
  issueAuthorizationCode(request: AuthorizationCodeRequest): Promise<string>;
  /** Waits for webhook deliveries in flight. */
  settled(): Promise<void>;
}

export interface ReferenceService {
  implementation: Implementation;
  /** The server's `adminSecret` when the service bootstraps its admin (option bootstrapAdmin). */
  adminBootstrap: SecretBootstrap;
  /** Spread into the options of `createServer`; `mounts` serves SCIM provisioning at /scim/v2. */
  serverOptions: Required<Pick<ServerOptions, "verifyUserToken" | "hasRole" | "now" | "mounts" | "idempotency">>;
  state: ReferenceState;
  /** Once the server listens: the base URL tokens are issued under and the real gRPC port. */
  setAddresses(addresses: { issuer?: string; grpcPort?: number }): void;
}

type Plain = Record<string, unknown>;

/** The organization an org-scoped call concerns, from the resource its input names; null when none is known. */
async function orgsOfCall(core: Core, operation: OperationSpec, input: Plain): Promise<Set<string | null>> {
  const { storage } = core;
  const orgs = new Set<string | null>();
  const id = typeof input.id === "string" ? input.id : undefined;
  if (id !== undefined) {
    const name = operation.name;
    if (name.endsWith("_organization")) orgs.add(id);
    else if (name.endsWith("_org_oidc_connection")) orgs.add((await storage.orgOidcConnections.get(id))?.org_id ?? null);
    else if (name.endsWith("_org_saml_connection")) orgs.add((await storage.orgSamlConnections.get(id))?.org_id ?? null);
    else if (name.endsWith("_saml_service_provider")) orgs.add((await storage.samlServiceProviders.get(id))?.org_id ?? null);
    else if (name === "retire_saml_idp_key") orgs.add((await storage.samlIdpKeys.get(id))?.org_id ?? null);
    else orgs.add(null);
  }
  if (typeof input.org_id === "string") orgs.add(input.org_id);
  if (typeof input.domain === "string" && input.org_id === undefined) {
    orgs.add((await storage.orgDomains.get(input.domain.trim().toLowerCase().replace(/\.$/, "")))?.org_id ?? null);
  }
  return orgs;
}

const AUDITED_USER_OPERATIONS = new Set(["signup", "login", "logout", "verify_email", "verify_otp", "reset_password", "update_profile"]);
const VERB = /^(add|create|update|delete|rotate|retire|remove|request|verify|revoke|enable|invite|import|test|reset|write|generate)_/;

function resourceIdOf(input: Plain, output: unknown): string | null {
  for (const key of ["id", "user_id", "domain"]) if (typeof input[key] === "string") return input[key] as string;
  const answer = (output ?? {}) as Plain;
  if (typeof answer.id === "string") return answer.id;
  for (const nested of Object.values(answer)) {
    if (nested && typeof nested === "object" && typeof (nested as Plain).id === "string") return (nested as Plain).id as string;
  }
  return typeof input.org_id === "string" ? input.org_id : null;
}

/**
 * Records successful admin writes and sign-in events in the audit log (inputs, which may hold
 * secrets, are never copied), and reports failures that are not ServiceErrors.
 */
function instrument(core: Core, implementation: Implementation, onInternalError: ReferenceServiceOptions["onInternalError"]): Implementation {
  const audited: Record<string, unknown> = {};
  const recordAudit = groupCommit((rows: readonly AuditLog[]) => core.storage.auditLogs.insertMany(rows));
  for (const [method, handler] of Object.entries(implementation) as [string, (input: Plain, context: CallContext) => Promise<unknown>][]) {
    audited[method] = async (input: Plain, context: CallContext) => {
      let output: unknown;
      try {
        output = await handler(input, context);
      } catch (error) {
        if (!(error instanceof ServiceError)) onInternalError?.(context.operation.name, error);
        throw error;
      }
      const operation = context.operation;
      if ((operation.surface === "admin" && operation.kind === "write") || AUDITED_USER_OPERATIONS.has(operation.name)) {
        const principal = context.principal;
        // admin_login is called without credentials; succeeding proves the caller is the admin.
        const admin = principal.kind === "secret" || operation.name === "admin_login";
        const userOfAnswer = ((output ?? {}) as { user?: { id?: string; email?: string | null } | null }).user;
        const userId = principal.kind === "user" ? principal.userId : userOfAnswer?.id;
        await recordAudit({
          id: core.newId(),
          actor_id: admin ? "admin" : (userId ?? "anonymous"),
          actor_type: admin ? "admin" : userId ? "user" : "anonymous",
          actor_email: !admin && principal.kind === "anonymous" ? (userOfAnswer?.email ?? null) : null,
          action: operation.name,
          resource_type: operation.name.replace(VERB, ""),
          resource_id: resourceIdOf(input, output),
          ip_address: context.remoteAddress || null,
          user_agent: context.headers["user-agent"] ?? null,
          metadata: { protocol: context.protocol },
          created_at: nowSeconds(core),
        });
      }
      return output;
    };
  }
  return audited as unknown as Implementation;
}

/**
 * A new record's id: a UUID of version 7 (RFC 9562: its first 48 bits the time in milliseconds,
 * the rest random), where Node has it (version 4 on a Node without randomUUIDv7). Ids made in
 * time order land at the right edge of the key indexes, one page for a batch of inserts, where
 * random ones touched a page each (on SQLite, most of the cost of an audit row's commit).
 */
const timeOrderedId: () => string = (nodeCrypto as { randomUUIDv7?: () => string }).randomUUIDv7 ?? randomUUID;

/** The one answer of an admin call while no admin exists (bootstrapAdmin), whatever it carries. */
export const NO_ADMIN_MESSAGE = "no admin is configured: call admin_signup first";

/**
 * The stored admin secret's check. scrypt takes tens of milliseconds, so a secret once found right
 * is remembered (as its SHA-256, in this process only) and later calls with it cost a hash.
 */
function adminSecretBootstrap(core: Core): SecretBootstrap {
  const known = new Set<string>();
  return {
    missing: NO_ADMIN_MESSAGE,
    async verifier() {
      const record = await core.storage.adminSecrets.get("admin");
      if (!record) return undefined;
      return async (candidate) => {
        const digest = sha256(candidate);
        if (known.has(digest)) return true;
        const ok = await verifyPassword(candidate, record.secret_hash);
        if (ok) known.add(digest);
        return ok;
      };
    },
  };
}

function passwordHashCostOf(cost: PasswordHashCost | undefined): PasswordHashCost {
  if (!cost) return DEFAULT_PASSWORD_HASH_COST;
  const problem = passwordHashCostProblem(cost);
  if (problem) throw new RangeError(`passwordHashCost: ${problem}`);
  return cost;
}

export function createReferenceService(options: ReferenceServiceOptions = {}): ReferenceService {
  const outbox: OutgoingMessage[] = [];
  const config: ReferenceConfig = {
    version: schema.version,
    clientId: options.clientId ?? "reference",
    issuer: options.issuer ?? DEFAULT_ISSUER,
    grpcPort: options.grpcPort ?? schema.grpcPort,
    orgAdminRole: schema.orgAdminRole,
    features: { ...DEFAULT_FEATURES, ...options.features },
    clientSecretGraceSeconds: options.clientSecretGraceSeconds ?? DEFAULT_CLIENT_SECRET_GRACE_SECONDS,
    accessTokenSeconds: options.accessTokenSeconds ?? 1800,
    refreshTokenSeconds: 30 * 24 * 3600,
    sessionSeconds: 30 * 24 * 3600,
    verificationSeconds: 24 * 3600,
    otpSeconds: 10 * 60,
    codeSendLimit: options.codeSendLimit ?? DEFAULT_CODE_SEND_LIMIT,
    codeSendWindowSeconds: options.codeSendWindowSeconds ?? DEFAULT_CODE_SEND_WINDOW_SECONDS,
    passwordHashCost: passwordHashCostOf(options.passwordHashCost),
    adminBootstrap: options.bootstrapAdmin ?? false,
    allowedRoles: options.allowedRoles ?? ["user"],
    defaultRoles: options.defaultRoles ?? ["user"],
  };
  const core: Core = {
    storage: options.storage ?? createMemoryStorage(),
    config,
    clock: options.clock ?? Date.now,
    newId: options.ids ?? timeOrderedId,
    random: options.random ?? randomBytes,
    newRsaKeyPair: options.rsaKeyPairs ?? newRsaKeyPair,
    dnsResolver: options.dnsResolver ?? resolveTxt,
    jwksResolver: options.jwksResolver ?? issuerJwksFetcher({ allowPrivate: options.allowPrivateOutbound ?? false }),
    webhookSender: options.webhookSender ?? webhookPoster({ allowPrivate: options.allowPrivateOutbound ?? false }),
    sendMessage:
      options.sendMessage ??
      (async (message) => {
        outbox.push(message);
        if (outbox.length > OUTBOX_LIMIT) outbox.shift();
      }),
  };
  // Keys given are the service's; otherwise its database keeps them (the same after a restart and on every replica).
  const tokens = new TokenService(
    core,
    options.signingKey
      ? keysInMemory(core, loadSigningKey(options.signingKey), (options.previousSigningKeys ?? []).map(loadSigningKey), options.nextSigningKey ? loadSigningKey(options.nextSigningKey) : undefined)
      : keysInDatabase(core),
  );
  const deps: Deps = { core, tokens, sessions: new Sessions(core, tokens), events: new Events(core), trustedIssuers: new TrustedIssuers(core) };
  const { storage } = core;

  const upstreamSaml = new UpstreamSaml(core);
  const implementation: Implementation = instrument(
    core,
    {
      ...authOperations(deps),
      ...userOperations(deps),
      ...webhookOperations(deps),
      ...fgaOperations(deps),
      ...clientOperations(deps),
      ...trustedIssuerOperations(deps),
      ...samlIdpOperations(deps),
      ...organizationOperations(deps),
      ...orgDomainOperations(deps),
      ...orgSsoOperations(deps),
      ...scimOperations(deps),
      ...accountOperations(deps),
      ...oauthOperations(deps),
      ...oidcOperations(deps, new UpstreamSso(core, { allowPrivate: options.allowPrivateOutbound ?? false }), [upstreamSaml]),
    },
    options.onInternalError,
  );

  const serverOptions: ReferenceService["serverOptions"] = {
    now: core.clock,
    // In the database: a key holds across restarts and across the replicas sharing it.
    idempotency: { store: new DatabaseIdempotencyStore(core.storage) },
    mounts: [
      scimRoutes({
        provisioning: new ScimProvisioning(deps),
        verifyToken: (token) => verifyScimToken(core, token),
        baseUrl: () => config.issuer,
        ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
      }),
      signinRoutes({ core, implementation: () => implementation, ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}) }),
      samlRoutes({ deps, upstream: upstreamSaml, finish: continueAuthorization(core), ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}) }),
    ],
    async verifyUserToken(token) {
      const claims = await tokens.verify(token);
      if (!claims || claims.token_type !== "access_token" || claims.sid === undefined) return null;
      // Only tokens meant for this service: its issuer URL or own client id, or a registered client
      // acting for the user here. A token exchanged for another audience is that audience's.
      if (!(await isServiceAudience(core, claims.aud))) return null;
      return { userId: claims.sub, roles: claims.roles ?? [] };
    },
    // The org-admins of the organization a call concerns hold the API's role (auth org_admin).
    async hasRole(user, operation, input) {
      const adminOf = async (orgId: string) => {
        const member = await storage.orgMembers.find({ org_id: orgId, user_id: user.userId });
        return member?.roles.includes(config.orgAdminRole) ?? false;
      };
      if (operation.name === "user_organizations" && typeof input.user_id === "string") {
        // Allowed when the user belongs to an organization the caller administers; the answer is filtered to those.
        for (const member of await storage.orgMembers.list({ user_id: input.user_id })) if (await adminOf(member.org_id)) return true;
        return false;
      }
      const orgs = await orgsOfCall(core, operation, input);
      if (orgs.size !== 1) return false;
      const [orgId] = orgs;
      if (!orgId) return false;
      if (await adminOf(orgId)) return true;
      // The refusal names what was needed: the role, in which organization.
      throw new ServiceError(
        "PERMISSION_DENIED",
        `${operation.pascalName} is for super-admins and the organization's own org-admins only: the caller is not ${config.orgAdminRole} of organization ${orgId}`,
      );
    },
  };

  const state: ReferenceState = {
    storage,
    config,
    outbox,
    jwks: () => tokens.jwks(),
    rotateSigningKey: () => tokens.rotate(),
    verifyAccessToken: (token) => tokens.verify(token),
    verifyScimToken: (token) => verifyScimToken(core, token),
    orgForEmailDomain: (domain) => orgForEmailDomain(core, domain),
    async ssoConnectionsForEmail(email) {
      const orgId = await orgForEmailDomain(core, email);
      if (!orgId) return null;
      const { oidc, saml } = await ssoConnectionsFor(core, orgId);
      return { org_id: orgId, oidc_connection_id: oidc?.id ?? null, saml_connection_id: saml?.id ?? null };
    },
    async oidcClientSecretMatches(connectionId, candidate) {
      const connection = await storage.orgOidcConnections.get(connectionId);
      return connection !== undefined && sha256(connection.client_secret) === sha256(candidate);
    },
    async samlConnectionCertificate(connectionId) {
      return (await storage.orgSamlConnections.get(connectionId))?.idp_certificate ?? null;
    },
    samlIdpMetadata: (orgId) => organizationIdpMetadata(core, orgId),
    async samlServiceProviderFor(orgId, entityId) {
      const sp = await storage.samlServiceProviders.find({ org_id: orgId, entity_id: entityId, is_active: true });
      return sp ? { id: sp.id, acs_url: sp.acs_url } : null;
    },
    issueAuthorizationCode: (request) => issueAuthorizationCode(core, request),
    settled: () => deps.events.settled(),
  };

  return {
    implementation,
    adminBootstrap: adminSecretBootstrap(core),
    serverOptions,
    state,
    setAddresses(addresses) {
      if (addresses.issuer !== undefined) config.issuer = addresses.issuer;
      if (addresses.grpcPort !== undefined) config.grpcPort = addresses.grpcPort;
    },
  };
}
