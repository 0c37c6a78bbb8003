// The OpenID provider: discovery (OpenID Connect Discovery 1.0 and RFC 8414), the keys (JWKS), the
// authorization endpoint (code flow with PKCE S256), userinfo, introspection (RFC 7662),
// RP-initiated logout and the protected-resource metadata MCP hosts read (RFC 9728). Who the user
// is at /oauth/authorize comes from the browser session the hosted sign-in page opens
// (reference/signin.ts); an email whose domain an organization verified goes to that
// organization's upstream IdP instead (reference/upstream-sso.ts).
import { ServiceError } from "../../generated/server/index.js";
import type { OauthAuthorizeInput, OpenIDConfiguration, Redirect, UserInfo } from "../../generated/types.js";
import { nowSeconds, type Core } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { sha256 } from "../secrets.js";
import type { ClientRecord, SessionRecord, UserRecord } from "../storage.js";
import { clientByClientId, clientSecretMatches, isServiceAudience } from "./clients.js";
import { GRANT_TOKEN_EXCHANGE, issueAuthorizationCode } from "./oauth.js";

/** The browser session cookie of the hosted sign-in page (SameSite=Lax: a relying party's redirect to /oauth/authorize is a cross-site navigation). */
export const SIGNIN_COOKIE = "service_signin";
export const SIGNIN_PATH = "/oauth/signin";

/** Scopes every client may ask for: OpenID Connect's own. */
export const OIDC_SCOPES = ["openid", "email", "profile", "phone"] as const;
const CLAIMS = [
  "sub",
  "iss",
  "aud",
  "exp",
  "iat",
  "nonce",
  "sid",
  "email",
  "email_verified",
  "name",
  "given_name",
  "family_name",
  "preferred_username",
  "picture",
  "phone_number",
  "phone_number_verified",
];

const invalidRequest = (message: string, field?: string) => new ServiceError("INVALID_ARGUMENT", message, field, "invalid_request");

/** The provider metadata under `issuer`; `algorithm`: the ID tokens' signing algorithm. */
export function providerMetadata(issuer: string, algorithm: string): OpenIDConfiguration {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    end_session_endpoint: `${issuer}/oauth/logout`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials", GRANT_TOKEN_EXCHANGE],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [algorithm],
    scopes_supported: [...OIDC_SCOPES],
    claims_supported: CLAIMS,
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    introspection_endpoint_auth_methods_supported: ["client_secret_post"],
    prompt_values_supported: ["none", "login"],
  };
}

/** `base` with `params` added to its query (RFC 6749 §3.1.2: a registered URI may carry a query of its own). */
export function withQuery(base: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** Where an authorization request's refusal goes (RFC 6749 §4.1.2.1): its redirect_uri, with the error, its state and the issuer (RFC 9207). */
export function authorizationError(input: Pick<OauthAuthorizeInput, "redirect_uri" | "state">, issuer: string, error: string, description: string): string {
  return withQuery(input.redirect_uri, { error, error_description: description, state: input.state, iss: issuer });
}

/** The query string of an authorization request, to come back to it after sign-in. */
export function authorizeQuery(input: OauthAuthorizeInput): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) if (value !== null && value !== undefined && key !== "prompt") params.set(key, String(value));
  return params.toString();
}

/** The live browser session the sign-in cookie names, or undefined. */
export async function browserSession(deps: Pick<Deps, "sessions">, cookie: string | undefined): Promise<SessionRecord | undefined> {
  return cookie ? deps.sessions.byCookie(cookie) : undefined;
}

/** The user signed in by the browser session the sign-in cookie names, while their access is not revoked. */
export async function signedInUser(deps: Pick<Deps, "core" | "sessions">, cookie: string | undefined): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
  const session = await browserSession(deps, cookie);
  const user = session ? await deps.core.storage.users.get(session.user_id) : undefined;
  return session && user && user.revoked_timestamp === null ? { session, user } : undefined;
}

/** The client the body authenticates (client_secret_post, as the contract requires), or invalid_client. */
async function authenticatedClient(core: Core, clientId: string, secret: string): Promise<ClientRecord> {
  const client = await clientByClientId(core, clientId);
  if (!client || !client.is_active || !clientSecretMatches(core, client, secret)) throw new ServiceError("UNAUTHENTICATED", "client authentication failed", undefined, "invalid_client");
  return client;
}

/** Hands the authorization request on once the user is known (the sign-in page, or the upstream IdP's callback). */
export type AuthorizationContinuation = (input: OauthAuthorizeInput, userId: string) => Promise<string>;

/** The client of an authorization request, checked before anything is redirected: never to an address the client did not register. */
async function registeredRedirect(core: Core, input: OauthAuthorizeInput): Promise<ClientRecord> {
  const client = await clientByClientId(core, input.client_id);
  if (!client || !client.is_active) throw invalidRequest("client_id names no active client", "client_id");
  if (!(client.redirect_uris ?? []).includes(input.redirect_uri)) throw invalidRequest("redirect_uri is not one the client registered (matched exactly)", "redirect_uri");
  return client;
}

/** Finishes an authorization request for a known user: the code, sent back to the client's redirect_uri with state and iss (RFC 9207). */
export function continueAuthorization(core: Core): AuthorizationContinuation {
  return async (input, userId) => {
    const client = await registeredRedirect(core, input);
    const code = await issueAuthorizationCode(core, {
      userId,
      clientId: client.client_id,
      redirectUri: input.redirect_uri,
      scope: (input.scope ?? "openid").split(" ").filter(Boolean),
      codeChallenge: input.code_challenge,
      codeChallengeMethod: "S256",
      nonce: input.nonce ?? null,
    });
    return withQuery(input.redirect_uri, { code, state: input.state, iss: core.config.issuer });
  };
}

/** An organization's upstream IdP that home-realm discovery can send a sign-in to (OIDC or SAML). */
export interface UpstreamSignIn {
  /** Where the browser goes to sign in at the IdP of the organization that verified the hint's domain; null when this kind of connection has none. */
  start(input: OauthAuthorizeInput, emailOrDomain: string): Promise<string | null>;
}

export function oidcOperations(
  deps: Deps,
  upstream: UpstreamSignIn & {
    callback(input: Parameters<Operations<"oauthSsoCallback">["oauthSsoCallback"]>[0], finish: AuthorizationContinuation): Promise<string>;
  },
  /** Further upstream kinds home-realm discovery tries after `upstream` (SAML). */
  otherUpstreams: readonly UpstreamSignIn[] = [],
): Operations<
  "openidConfiguration" | "oauthAuthorizationServerMetadata" | "oauthJWKS" | "oauthProtectedResource" | "oauthAuthorize" | "oauthSsoCallback" | "oauthUserinfo" | "oauthIntrospect" | "oauthLogout"
> {
  const { core, tokens, sessions } = deps;
  const { storage, config } = core;

  const finish = continueAuthorization(core);

  const metadata = async (): Promise<OpenIDConfiguration> => providerMetadata(config.issuer, await tokens.algorithm());

  return {
    openidConfiguration: metadata,
    oauthAuthorizationServerMetadata: metadata,

    async oauthJWKS() {
      return { keys: (await tokens.jwks()).keys.map((key) => ({ kty: key.kty!, kid: key.kid!, use: key.use ?? "sig", alg: key.alg!, crv: key.crv, x: key.x, y: key.y, n: key.n, e: key.e })) };
    },

    async oauthProtectedResource() {
      return { resource: config.issuer, authorization_servers: [config.issuer], bearer_methods_supported: ["header"], scopes_supported: [...OIDC_SCOPES], resource_name: config.issuer };
    },

    async oauthAuthorize(input, context): Promise<Redirect> {
      const client = await registeredRedirect(core, input);
      // From here on every refusal goes back to the client, as RFC 6749 §4.1.2.1 asks.
      const refuse = (error: string, description: string) => ({ location: authorizationError(input, config.issuer, error, description) });
      const requested = (input.scope ?? "openid").split(" ").filter(Boolean);
      const outside = requested.filter((scope) => !(OIDC_SCOPES as readonly string[]).includes(scope) && !client.allowed_scopes.includes(scope));
      if (outside.length > 0) return refuse("invalid_scope", `scope not allowed for this client: ${outside.join(" ")}`);
      if (input.resource != null && !(await isServiceAudience(core, input.resource))) return refuse("invalid_target", "resource must be this service or a registered client");

      const signedIn = input.prompt === "login" ? undefined : await signedInUser(deps, context.cookies[SIGNIN_COOKIE]);
      if (signedIn) return { location: await finish(input, signedIn.user.id) };
      if (input.prompt === "none") return refuse("login_required", "the user is not signed in");

      // Home-realm discovery: an email domain an organization verified signs in at its IdP.
      const hint = input.login_hint ?? input.domain_hint;
      if (hint) {
        for (const candidate of [upstream, ...otherUpstreams]) {
          const upstreamUrl = await candidate.start(input, hint);
          if (upstreamUrl) return { location: upstreamUrl };
        }
      }
      return { location: `${config.issuer}${SIGNIN_PATH}?${authorizeQuery(input)}` };
    },

    async oauthSsoCallback(input) {
      return { location: await upstream.callback(input, finish) };
    },

    async oauthUserinfo(_input, context): Promise<UserInfo> {
      const principal = context.principal;
      if (principal.kind !== "user") throw new ServiceError("UNAUTHENTICATED", "userinfo needs a user's access token");
      const token = (context.headers["authorization"] ?? "").replace(/^bearer\s+/i, "");
      const claims = await tokens.verify(token);
      const user = await storage.users.get(principal.userId);
      if (!claims || !user) throw new ServiceError("UNAUTHENTICATED", "the access token is not valid");
      const scope = (claims.scope ?? "").split(" ");
      const name = [user.given_name, user.family_name].filter(Boolean).join(" ");
      return {
        sub: user.id,
        ...(scope.includes("email") ? { email: user.email, email_verified: user.email !== null ? user.email_verified : null } : {}),
        ...(scope.includes("profile") ? { name: name || null, given_name: user.given_name, family_name: user.family_name, preferred_username: user.preferred_username, picture: user.picture } : {}),
        ...(scope.includes("phone") ? { phone_number: user.phone_number, phone_number_verified: user.phone_number !== null ? user.phone_number_verified : null } : {}),
      } as UserInfo;
    },

    async oauthIntrospect(input) {
      await authenticatedClient(core, input.client_id, input.client_secret);
      const refresh = await storage.refreshTokens.get(sha256(input.token));
      if (refresh && refresh.used_at == null && refresh.expires_at > nowSeconds(core) && (await storage.sessions.get(refresh.session_id))) {
        return {
          active: true,
          token_type: "refresh_token",
          sub: refresh.user_id,
          client_id: refresh.client_id ?? config.clientId,
          scope: refresh.scope.join(" "),
          exp: refresh.expires_at,
          iat: refresh.created_at,
          iss: config.issuer,
        };
      }
      const claims = await tokens.verify(input.token);
      if (!claims || claims.token_type !== "access_token") return { active: false };
      const user = await storage.users.get(claims.sub);
      return {
        active: true,
        token_type: "Bearer",
        scope: claims.scope ?? null,
        client_id: claims.client_id ?? (typeof claims.aud === "string" ? claims.aud : config.clientId),
        username: user?.email ?? null,
        sub: claims.sub,
        aud: typeof claims.aud === "string" ? claims.aud : null,
        iss: claims.iss ?? config.issuer,
        exp: claims.exp,
        iat: claims.iat ?? null,
        jti: claims.jti,
      };
    },

    async oauthLogout(input, context) {
      // The ID token names the client and the session; without one, a page could end anyone's session with an image tag.
      const hint = input.id_token_hint ? await tokens.verify(input.id_token_hint) : null;
      if (input.id_token_hint && (!hint || hint.token_type !== "id_token")) throw invalidRequest("id_token_hint is not an ID token of this service", "id_token_hint");
      const clientId = input.client_id ?? (typeof hint?.aud === "string" ? hint.aud : null);
      if (hint && input.client_id && hint.aud !== input.client_id) throw invalidRequest("client_id is not the audience of id_token_hint", "client_id");
      if (input.post_logout_redirect_uri) {
        const client = clientId ? await clientByClientId(core, clientId) : undefined;
        if (!client || !(client.post_logout_redirect_uris ?? []).includes(input.post_logout_redirect_uri)) {
          throw invalidRequest("post_logout_redirect_uri is not one the client registered (matched exactly)", "post_logout_redirect_uri");
        }
      }
      const session = await browserSession(deps, context.cookies[SIGNIN_COOKIE]);
      if (hint && session && session.user_id === hint.sub) {
        await sessions.end(session.id);
        context.setCookie(SIGNIN_COOKIE, "", { maxAgeSeconds: 0 });
      }
      return { location: input.post_logout_redirect_uri ? withQuery(input.post_logout_redirect_uri, { state: input.state }) : `${config.issuer}${SIGNIN_PATH}?signed_out=1` };
    },
  };
}
