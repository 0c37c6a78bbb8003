// Upstream OIDC SSO per organization, with openid-client: an authorization request whose login_hint
// (or domain_hint) has a domain an organization verified goes to that organization's OIDC
// connection (discovery, authorization code with PKCE S256, state and nonce); its callback checks
// the upstream ID token (signature from the upstream JWKS, iss, aud, exp, nonce), links or
// provisions the user, makes them a member of the organization and finishes the original request.
// Pending domains never route; a connection deleted while a sign-in is in flight stops it.
import * as oidc from "openid-client";
import { ServiceError } from "../generated/server/index.js";
import type { OauthAuthorizeInput, OauthSsoCallbackInput } from "../generated/types.js";
import { newUserRecord, userByEmail } from "./accounts.js";
import { nowSeconds, type Core } from "./core.js";
import { authorizationError, authorizeQuery, type AuthorizationContinuation } from "./ops/oidc.js";
import { orgForEmailDomain } from "./ops/org-domains.js";
import { ssoConnectionsFor } from "./ops/org-sso.js";
import { randomToken, sha256 } from "./secrets.js";
import type { OrgOIDCConnectionRecord, UserRecord } from "./storage.js";

/** How long a sign-in at the upstream IdP may take. */
const TRANSACTION_SECONDS = 600;
/** How long an upstream's discovery document is reused. */
const DISCOVERY_SECONDS = 300;
const DEFAULT_MEMBER_ROLES = ["member"];

export interface UpstreamSsoOptions {
  /** Reach issuers on loopback and private addresses, and over plain http (development and tests only). */
  allowPrivate: boolean;
}

export class UpstreamSso {
  private readonly discovered = new Map<string, { config: oidc.Configuration; until: number }>();

  constructor(
    private readonly core: Core,
    private readonly options: UpstreamSsoOptions,
  ) {}

  private callbackUrl(connection: OrgOIDCConnectionRecord): string {
    return connection.redirect_uri ?? `${this.core.config.issuer}/oauth/sso/callback`;
  }

  /** The upstream's configuration (its discovery document, reused a few minutes), for this connection's client. */
  private async configuration(connection: OrgOIDCConnectionRecord): Promise<oidc.Configuration> {
    const key = `${connection.id}\n${connection.updated_at}`;
    const cached = this.discovered.get(key);
    if (cached && cached.until > Date.now()) return cached.config;
    try {
      const config = await oidc.discovery(new URL(connection.issuer_url), connection.client_id, connection.client_secret, undefined, {
        timeout: 5,
        // The ID token's signature is checked against the upstream's JWKS too (openid-client skips that
        // by default for a token fetched over TLS); allowInsecureRequests only for loopback IdPs in development.
        execute: [oidc.enableNonRepudiationChecks, ...(this.options.allowPrivate ? [oidc.allowInsecureRequests] : [])],
      });
      this.discovered.set(key, { config, until: Date.now() + DISCOVERY_SECONDS * 1000 });
      return config;
    } catch (error) {
      throw new ServiceError("UNAVAILABLE", `the organization's identity provider could not be discovered: ${(error as Error).message}`);
    }
  }

  /** The upstream authorization URL for a hint whose domain an organization verified and connected over OIDC; null otherwise. */
  async start(input: OauthAuthorizeInput, hint: string): Promise<string | null> {
    const orgId = await orgForEmailDomain(this.core, hint);
    if (!orgId) return null;
    const { oidc: connection } = await ssoConnectionsFor(this.core, orgId);
    if (!connection) return null;
    const config = await this.configuration(connection);
    const state = randomToken("sso_", this.core.random);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    await this.core.storage.ssoTransactions.deleteWhere({ expires_at: { lte: nowSeconds(this.core) } });
    await this.core.storage.ssoTransactions.put({
      state_hash: sha256(state),
      connection_id: connection.id,
      org_id: orgId,
      code_verifier: codeVerifier,
      nonce,
      authorize_query: authorizeQuery(input),
      expires_at: nowSeconds(this.core) + TRANSACTION_SECONDS,
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(connection),
      scope: connection.scopes.length > 0 ? connection.scopes.join(" ") : "openid email profile",
      response_type: "code",
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
      ...(input.login_hint ? { login_hint: input.login_hint } : {}),
    });
    return url.href;
  }

  /** Finishes a sign-in at the upstream IdP: where the browser goes next. */
  async callback(input: OauthSsoCallbackInput, finish: AuthorizationContinuation): Promise<string> {
    const { storage } = this.core;
    const hash = sha256(input.state);
    const transaction = await storage.ssoTransactions.get(hash);
    // A state is good for one callback only.
    if (transaction) await storage.ssoTransactions.delete(hash);
    if (!transaction || transaction.expires_at <= nowSeconds(this.core))
      throw new ServiceError("FAILED_PRECONDITION", "this sign-in is unknown or has expired; start again from the application", "state", "invalid_request");
    const original = Object.fromEntries(new URLSearchParams(transaction.authorize_query)) as unknown as OauthAuthorizeInput;
    const back = (error: string, description: string) => authorizationError(original, this.core.config.issuer, error, description);

    const connection = await storage.orgOidcConnections.get(transaction.connection_id);
    if (!connection) return back("access_denied", "the organization's SSO connection was removed");
    if (input.error) return back("access_denied", `the organization's identity provider refused the sign-in: ${input.error}${input.error_description ? ` (${input.error_description})` : ""}`);
    if (!input.code) return back("access_denied", "the organization's identity provider answered neither a code nor an error");

    const config = await this.configuration(connection);
    const current = new URL(this.callbackUrl(connection));
    current.searchParams.set("code", input.code);
    current.searchParams.set("state", input.state);
    if (input.iss) current.searchParams.set("iss", input.iss);
    let claims: oidc.IDToken;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: transaction.code_verifier,
        expectedState: input.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
    } catch (error) {
      return back("access_denied", `the identity provider's answer was refused: ${(error as Error).message}`);
    }
    const email = typeof claims.email === "string" ? claims.email : null;
    if (!email) return back("access_denied", "the identity provider named no email address");

    const linked = await linkUpstreamUser(this.core, transaction.org_id, {
      email,
      verified: claims.email_verified === true,
      given_name: typeof claims.given_name === "string" ? claims.given_name : null,
      family_name: typeof claims.family_name === "string" ? claims.family_name : null,
    });
    if ("refused" in linked) return back("access_denied", linked.refused);
    const { user } = linked;
    return finish(original, user.id);
  }
}

/** Who an organization's IdP says signed in. */
export interface UpstreamIdentity {
  email: string;
  /** Whether the IdP vouches for the address (an unverified one never takes over an account here). */
  verified: boolean;
  given_name: string | null;
  family_name: string | null;
}

/**
 * The account an upstream sign-in is for: the one with its email (only when the IdP verified the
 * address), or a new one; either way a member of the organization. A refusal says why.
 */
export async function linkUpstreamUser(core: Core, orgId: string, identity: UpstreamIdentity): Promise<{ user: UserRecord } | { refused: string }> {
  const { storage } = core;
  let user = await userByEmail(core, identity.email);
  // Linking by an address the upstream did not verify would hand this account to whoever typed it there.
  if (user && !identity.verified) return { refused: "the identity provider did not verify this email address, which an account here already uses" };
  if (user && user.revoked_timestamp !== null) return { refused: "this account's access is revoked" };
  const now = nowSeconds(core);
  if (!user) {
    user = newUserRecord(core, {
      email: identity.email,
      email_verified: identity.verified,
      given_name: identity.given_name,
      family_name: identity.family_name,
      roles: [...core.config.defaultRoles],
      signup_method: "sso",
      password_hash: null,
    });
    await storage.users.insert(user);
  }
  if (!(await storage.orgMembers.find({ org_id: orgId, user_id: user.id }))) {
    await storage.orgMembers.insert({
      id: core.newId(),
      org_id: orgId,
      user_id: user.id,
      email: user.email,
      given_name: user.given_name,
      family_name: user.family_name,
      roles: [...DEFAULT_MEMBER_ROLES],
      created_at: now,
      updated_at: now,
    });
  }
  return { user };
}
