// The token routes. /oauth/token: client_credentials (client secret in the body or HTTP Basic, or a
// JWT-bearer assertion from a trusted issuer), token exchange (of a token this service issued, or
// of a trusted issuer's assertion), authorization_code with PKCE, and refresh_token with rotation.
// /oauth/revoke answers 200 {} whether or not anything was revoked (RFC 7009). Also the issuing
// of authorization codes, which stands in for the interactive authorization endpoint.
import { createHash } from "node:crypto";
import { decodeJwt } from "jose";
import { ServiceError, type CallContext } from "../../generated/server/index.js";
import type { OauthTokenInput, OauthTokenResponse } from "../../generated/types.js";
import type { AssertionIdentity } from "../assertions.js";
import { nowSeconds, type Core } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { randomToken, sameDigest, sha256 } from "../secrets.js";
import type { ClientRecord } from "../storage.js";
import { clientByClientId, clientSecretMatches, isServiceAudience } from "./clients.js";

export const GRANT_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ASSERTION_JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const TOKEN_TYPE_ACCESS = "urn:ietf:params:oauth:token-type:access_token";
export const TOKEN_TYPE_JWT = "urn:ietf:params:oauth:token-type:jwt";

const invalidRequest = (message: string, field?: string) => new ServiceError("INVALID_ARGUMENT", message, field, "invalid_request");
const invalidClient = (message = "client authentication failed") => new ServiceError("UNAUTHENTICATED", message, undefined, "invalid_client");
const unauthorizedClient = (message: string) => new ServiceError("PERMISSION_DENIED", message, undefined, "unauthorized_client");
const invalidGrant = (message: string) => new ServiceError("FAILED_PRECONDITION", message, undefined, "invalid_grant");
const invalidTarget = () => new ServiceError("INVALID_ARGUMENT", "resource must be this service or a registered client", "resource", "invalid_target");
const invalidScope = (message: string) => new ServiceError("INVALID_ARGUMENT", message, "scope", "invalid_scope");

/** Requested scopes (space-separated) must lie within `allowed`; none requested means all of them. */
function grantScopes(requested: string | null | undefined, allowed: readonly string[]): string[] {
  const wanted = (requested ?? "").split(" ").filter(Boolean);
  if (wanted.length === 0) return [...allowed];
  const outside = wanted.filter((scope) => !allowed.includes(scope));
  if (outside.length > 0) throw invalidScope(`scope not allowed: ${outside.join(" ")}`);
  return [...new Set(wanted)];
}

/** client_id and client_secret from an HTTP Basic authorization header (RFC 6749 §2.3.1). */
export function basicCredentials(context: CallContext): { clientId: string; secret: string } | null {
  const header = context.headers["authorization"];
  if (!header?.toLowerCase().startsWith("basic ")) return null;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw invalidClient("the Basic authorization header must hold client_id:client_secret");
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")) };
  } catch {
    throw invalidClient("the Basic authorization header is not form-encoded");
  }
}

interface AuthenticatedClient {
  client: ClientRecord;
  /** Set when the client authenticated with a trusted issuer's assertion. */
  assertion?: AssertionIdentity;
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/** An S256 code challenge: the base64url SHA-256 of the verifier, unpadded (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const AUTHORIZATION_CODE_SECONDS = 600;

export interface AuthorizationCodeRequest {
  userId: string;
  /** A registered client's client_id, or the service's own client id (the default). */
  clientId?: string;
  redirectUri?: string | null;
  scope?: string[];
  /** PKCE code challenge (S256); required for every client. */
  codeChallenge?: string | null;
  /** Only S256 is accepted; taken as S256 when not given, as the challenge is then checked as one. */
  codeChallengeMethod?: string | null;
  nonce?: string | null;
}

/**
 * Issues an authorization code as the authorization endpoint would once the user consented. Every
 * client sends an S256 challenge, as OAuth 2.1 asks: a public client (any client_id that is not a
 * registered client, the service's own included) has no secret, so only PKCE ties the code to the
 * client that asked for it (RFC 9700 §2.1.1), and for a registered one it also stops a code
 * injected into its session. Refusals are the authorization endpoint's invalid_request (RFC 7636 §4.4.1).
 */
export async function issueAuthorizationCode(core: Core, request: AuthorizationCodeRequest): Promise<string> {
  const clientId = request.clientId ?? core.config.clientId;
  const challenge = request.codeChallenge ?? null;
  if (request.codeChallengeMethod != null && request.codeChallengeMethod !== "S256") {
    throw invalidRequest("code_challenge_method must be S256; plain is not supported", "code_challenge_method");
  }
  if (challenge === null) {
    throw invalidRequest("code_challenge is required (PKCE with S256)", "code_challenge");
  } else if (!S256_CHALLENGE.test(challenge)) {
    throw invalidRequest("code_challenge must be the base64url SHA-256 of the code verifier (43 characters)", "code_challenge");
  }
  const code = randomToken("ac_", core.random);
  await core.storage.authorizationCodes.put({
    code_hash: sha256(code),
    user_id: request.userId,
    client_id: clientId,
    redirect_uri: request.redirectUri ?? null,
    scope: request.scope ?? ["openid", "email", "profile"],
    code_challenge: challenge,
    nonce: request.nonce ?? null,
    expires_at: nowSeconds(core) + AUTHORIZATION_CODE_SECONDS,
  });
  return code;
}

export function oauthOperations({ core, tokens, sessions, trustedIssuers }: Deps): Operations<"oauthToken" | "oauthRevoke"> {
  const { storage, config } = core;

  /** The client the request authenticates as, by exactly one method; null when it names none. */
  async function authenticateClient(input: OauthTokenInput, context: CallContext): Promise<AuthenticatedClient | null> {
    const basic = basicCredentials(context);
    const methods = [basic !== null, Boolean(input.client_secret), Boolean(input.client_assertion)].filter(Boolean).length;
    if (methods > 1) throw invalidRequest("use one client authentication method: HTTP Basic, client_secret or client_assertion");

    if (input.client_assertion || input.client_assertion_type) {
      // The manifest admits only the JWT-bearer assertion type, and the assertion and its type together.
      const identity = await trustedIssuers.authenticate(input.client_assertion!);
      if (!identity || (input.client_id && input.client_id !== identity.client.client_id)) throw invalidClient("the client assertion is not from a trusted issuer of this client");
      return { client: identity.client, assertion: identity };
    }
    const clientId = basic?.clientId ?? input.client_id;
    const secret = basic?.secret ?? input.client_secret;
    if (basic && input.client_id && input.client_id !== basic.clientId) throw invalidRequest("client_id differs from the one in the Basic authorization header", "client_id");
    if (!secret) return null;
    const client = clientId ? await clientByClientId(core, clientId) : undefined;
    if (!client || !clientSecretMatches(core, client, secret)) throw invalidClient();
    if (!client.is_active) throw invalidClient("the client is not active");
    return { client };
  }

  async function requireClient(input: OauthTokenInput, context: CallContext): Promise<AuthenticatedClient> {
    const authenticated = await authenticateClient(input, context);
    if (!authenticated) throw invalidClient("client authentication is required: client_secret, HTTP Basic or client_assertion");
    return authenticated;
  }

  async function machineToken(client: ClientRecord, scope: string[], extra: Record<string, unknown>, audience?: string | null): Promise<OauthTokenResponse> {
    const token = await tokens.sign(
      { sub: client.client_id, token_type: "access_token", client_id: client.client_id, scope: scope.join(" "), aud: audience ?? config.issuer, ...extra },
      config.accessTokenSeconds,
    );
    return { access_token: token.token, token_type: "Bearer", expires_in: token.expiresIn, scope: scope.join(" "), id_token: null, refresh_token: null, issued_token_type: null };
  }

  async function clientCredentials(input: OauthTokenInput, context: CallContext): Promise<OauthTokenResponse> {
    const { client } = await requireClient(input, context);
    if (input.resource != null && !(await isServiceAudience(core, input.resource))) throw invalidTarget();
    return machineToken(client, grantScopes(input.scope, client.allowed_scopes), {}, input.resource);
  }

  async function tokenExchange(input: OauthTokenInput, context: CallContext): Promise<OauthTokenResponse> {
    if (input.actor_token) throw invalidRequest("actor_token is not supported", "actor_token");
    // The manifest asks for subject_token with this grant, and admits only the subject token types exchanged here.
    const subjectToken = input.subject_token!;
    const authenticated = await authenticateClient(input, context);
    let issuer: unknown;
    try {
      issuer = decodeJwt(subjectToken).iss;
    } catch {
      throw invalidGrant("subject_token is not a JWT");
    }

    if (issuer === config.issuer) {
      // A token of this service, exchanged by an authenticated client acting for its subject.
      if (!authenticated) throw invalidClient("exchanging a token of this service needs client authentication");
      // Re-issuing a user's token is a power an admin grants a client (allow_token_exchange), off by default.
      if (authenticated.client.allow_token_exchange !== true) throw unauthorizedClient("this client may not exchange tokens; an admin can allow it (allow_token_exchange)");
      const subject = await tokens.verify(subjectToken);
      if (!subject || subject.token_type !== "access_token") throw invalidGrant("subject_token is not a valid access token of this service");
      // A client exchanges only what was issued to it: a token another client (or the service's own
      // sign-in) holds is not its to re-issue.
      if (subject.aud !== authenticated.client.client_id) throw invalidGrant("subject_token was not issued to this client");
      if (input.resource != null && !(await isServiceAudience(core, input.resource))) throw invalidTarget();
      const scope = grantScopes(input.scope, (subject.scope ?? "").split(" ").filter(Boolean));
      const exchanged = await tokens.sign(
        {
          sub: subject.sub,
          token_type: "access_token",
          client_id: authenticated.client.client_id,
          act: { sub: authenticated.client.client_id },
          scope: scope.join(" "),
          aud: input.resource ?? config.issuer,
          ...(subject.sid !== undefined ? { sid: subject.sid } : {}),
          ...(subject.roles ? { roles: subject.roles } : {}),
        },
        config.accessTokenSeconds,
      );
      return {
        access_token: exchanged.token,
        token_type: "Bearer",
        expires_in: exchanged.expiresIn,
        scope: scope.join(" "),
        id_token: null,
        refresh_token: null,
        issued_token_type: TOKEN_TYPE_ACCESS,
      };
    }

    // Otherwise it must be an assertion of a trusted issuer: it authenticates as that issuer's service account.
    const identity = await trustedIssuers.authenticate(subjectToken);
    if (!identity) throw invalidGrant("subject_token is not a valid assertion of a trusted issuer");
    if (authenticated && authenticated.client.id !== identity.client.id) throw invalidGrant("subject_token belongs to another service account than the authenticated client");
    const answer = await machineToken(identity.client, grantScopes(input.scope, identity.client.allowed_scopes), { ext_iss: identity.issuer.issuer_url, ext_sub: identity.subject }, input.resource);
    return { ...answer, issued_token_type: TOKEN_TYPE_ACCESS };
  }

  async function authorizationCode(input: OauthTokenInput, context: CallContext): Promise<OauthTokenResponse> {
    const hash = sha256(input.code!);
    const code = await storage.authorizationCodes.get(hash);
    // A code is good for one exchange only.
    if (code) await storage.authorizationCodes.delete(hash);
    if (!code || code.expires_at <= nowSeconds(core)) throw invalidGrant("the authorization code is not valid or has expired");

    const authenticated = await authenticateClient(input, context);
    const registered = await clientByClientId(core, code.client_id);
    if (registered) {
      if (authenticated?.client.id !== registered.id) throw invalidClient("the client the code was issued to must authenticate");
    } else if (authenticated || (input.client_id && input.client_id !== code.client_id)) {
      throw invalidGrant("the code was issued to another client");
    }
    // Defence in depth for codes stored before PKCE was required.
    if (code.code_challenge === null) throw invalidGrant("the code was issued without a code challenge (PKCE)");
    if (code.redirect_uri !== null && input.redirect_uri !== code.redirect_uri) throw invalidGrant("redirect_uri does not match the authorization request");
    // The contract requires code_verifier with this grant.
    if (!sameDigest(s256(input.code_verifier!), code.code_challenge)) throw invalidGrant("code_verifier does not match the code challenge");
    const user = await storage.users.get(code.user_id);
    if (!user || user.revoked_timestamp !== null) throw invalidGrant("the user of this code can no longer sign in");
    const { tokens: issued } = await sessions.open(user, { scope: code.scope, nonce: code.nonce, clientId: registered ? registered.client_id : null });
    return {
      access_token: issued.access_token,
      token_type: "Bearer",
      expires_in: issued.expires_in,
      scope: issued.scope.join(" "),
      id_token: issued.id_token,
      refresh_token: issued.refresh_token,
      issued_token_type: null,
    };
  }

  async function refreshToken(input: OauthTokenInput, context: CallContext): Promise<OauthTokenResponse> {
    const hash = sha256(input.refresh_token!);
    const record = await storage.refreshTokens.get(hash);
    if (record?.used_at != null) {
      // A refresh token used twice was copied: end its whole family (the session) for both holders (RFC 9700 §4.14.2).
      await sessions.end(record.session_id);
      throw invalidGrant("the refresh token was used already; its session is ended");
    }
    if (!record || record.expires_at <= nowSeconds(core)) throw invalidGrant("the refresh token is not valid or has expired");
    if (record.client_id) {
      const authenticated = await authenticateClient(input, context);
      if (authenticated?.client.client_id !== record.client_id) throw invalidClient("the client the refresh token was issued to must authenticate");
    }
    const session = await storage.sessions.get(record.session_id);
    const user = await storage.users.get(record.user_id);
    if (!session || session.expires_at <= nowSeconds(core) || !user || user.revoked_timestamp !== null) throw invalidGrant("the session of this refresh token has ended");
    const scope = grantScopes(input.scope, record.scope);
    // Rotation: the presented refresh token is used up (kept, marked, to recognise a replay) and a new one is answered.
    await storage.refreshTokens.update({ ...record, used_at: nowSeconds(core) });
    const issued = await sessions.tokensFor(user, session, scope, record.client_id, null);
    return {
      access_token: issued.access_token,
      token_type: "Bearer",
      expires_in: issued.expires_in,
      scope: scope.join(" "),
      id_token: issued.id_token,
      refresh_token: issued.refresh_token,
      issued_token_type: null,
    };
  }

  return {
    async oauthToken(input, context) {
      switch (input.grant_type) {
        case "client_credentials":
          return clientCredentials(input, context);
        case GRANT_TOKEN_EXCHANGE:
          return tokenExchange(input, context);
        case "authorization_code":
          return authorizationCode(input, context);
        case "refresh_token":
          return refreshToken(input, context);
        default:
          throw new ServiceError("INVALID_ARGUMENT", "grant_type must be authorization_code, refresh_token, client_credentials or token exchange", "grant_type", "unsupported_grant_type");
      }
    },

    async oauthRevoke(input, context) {
      // A client that authenticates revokes as itself (RFC 7009 §2.1); a wrong secret is refused.
      if (input.client_secret || basicCredentials(context)) {
        const { client } = await requireClient({ ...input, grant_type: "refresh_token" } as OauthTokenInput, context);
        input = { ...input, client_id: client.client_id };
      }
      const refresh = await storage.refreshTokens.get(sha256(input.token));
      if (refresh) {
        if (!input.client_id || input.client_id === (refresh.client_id ?? config.clientId)) {
          // Revoking a refresh token ends the grant it belongs to, access tokens included (RFC 7009 §2.1).
          await sessions.end(refresh.session_id);
        }
        return {};
      }
      const claims = await tokens.verify(input.token);
      if (claims && (!input.client_id || input.client_id === (claims.client_id ?? config.clientId))) await tokens.revoke(claims);
      return {};
    },
  };
}
