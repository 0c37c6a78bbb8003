// A real OpenID Provider (panva's oidc-provider) on loopback, standing in for an organization's
// upstream IdP in the SSO tests: authorization code with PKCE S256 required, scopes openid email
// profile, the account's email claims in the ID token (RS256, key published at jwks_uri), client
// secrets by client_secret_basic or client_secret_post.
//
// Nobody types a password: the provider's interaction URL signs in the account `nextLogin` names
// and grants the requested scopes at once, then redirects back into the flow. A client walking
// the flow must behave like a browser: follow each Location header itself and send back the
// cookies it was given (the provider ties the interaction to `_interaction` / `_interaction_resume`
// cookies, and the finished sign-in to `_session`). followToRedirectUri does exactly that.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type Interaction, type InteractionResults } from "oidc-provider";

export interface UpstreamAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
}

export interface UpstreamClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface UpstreamIdp {
  /** e.g. http://127.0.0.1:PORT (https when started with `tls`). */
  issuer: string;
  /** Accounts by login name (those given to startUpstreamIdp under their email); the helper signs in whichever account `nextLogin` names. */
  accounts: Map<string, UpstreamAccount>;
  /** Which account the next interaction signs in as (set by the test before starting a flow); unset or unknown, the IdP answers access_denied. */
  nextLogin: string | undefined;
  /**
   * Overrides applied to the claims of the next ID token (e.g. { nonce: "wrong" } or { aud: "other" }) -- for negative tests; cleared after use.
   * Any claim can be replaced (iss, aud, exp, nonce, sub, email...); a value of undefined removes the claim. The token is signed again with the published key, so only the claims are wrong.
   */
  tamperNextIdToken?: Record<string, unknown>;
  /** Signs the next ID token with a key that is not in the JWKS (same kid), so only its signature is wrong; cleared after use. */
  signNextIdTokenWithForeignKey?: boolean;
  close(): Promise<void>;
}

/** Claims released per scope; `sub` always. */
const CLAIMS_BY_SCOPE = { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "given_name", "family_name"] };

const SIGNING_ALG = "RS256";

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Builds a compact JWS by hand so the claims can be anything a broken IdP might send. */
function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  return `${signingInput}.${sign("sha256", Buffer.from(signingInput), key).toString("base64url")}`;
}

function decodeJwtPart(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

/** The claim names an OIDC `claims` request parameter asks for, so the grant covers them too. */
function requestedClaimNames(claimsParameter: unknown): string[] {
  if (typeof claimsParameter !== "string") return [];
  const parsed = JSON.parse(claimsParameter) as { id_token?: Record<string, unknown>; userinfo?: Record<string, unknown> };
  return [...Object.keys(parsed.id_token ?? {}), ...Object.keys(parsed.userinfo ?? {})];
}

export async function startUpstreamIdp(options: { clients: UpstreamClient[]; accounts?: UpstreamAccount[]; tls?: { cert: string; key: string } }): Promise<UpstreamIdp> {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const signingJwk = privateKey.export({ format: "jwk" });
  const kid = randomBytes(8).toString("base64url");
  let foreignKey: KeyObject | undefined;

  // The provider needs its issuer (hence the port) when constructed, so the server listens first and gets its handler after.
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const listener = (req: IncomingMessage, res: ServerResponse) => handle!(req, res);
  const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener) : createHttpServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const idp: UpstreamIdp = {
    issuer: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    accounts: new Map((options.accounts ?? []).map((account) => [account.email, account])),
    nextLogin: undefined,
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of fetch would otherwise hold close() open.
        server.closeAllConnections();
      });
    },
  };

  const configuration: Configuration = {
    clients: options.clients.map((client) => ({
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uris: client.redirect_uris,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      // The provider accepts the secret in the Authorization header or in the body for either registered method.
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: SIGNING_ALG,
    })),
    jwks: { keys: [{ ...signingJwk, kid, alg: SIGNING_ALG, use: "sig" }] },
    responseTypes: ["code"],
    pkce: { required: () => true },
    claims: CLAIMS_BY_SCOPE,
    // By default scope-requested claims go to userinfo only when an access token is issued; the SSO callback reads them from the ID token.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    // Explicit lifetimes (seconds), which also keeps the provider from printing a notice for each default one.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    findAccount: (_ctx, sub) => {
      const account = [...idp.accounts.values()].find((candidate) => candidate.sub === sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => Object.fromEntries(Object.entries(account).filter(([, value]) => value !== undefined)) as { sub: string } };
    },
  };
  const provider = new Provider(idp.issuer, configuration);

  // Login and consent in one step for `nextLogin`.
  provider.use(async (ctx, next) => {
    if (ctx.method !== "GET" || !ctx.path.startsWith("/interaction/")) return next();
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (error) {
      ctx.status = 400;
      ctx.body = `no sign-in in progress for this request; a client must send back the cookies the provider set (${(error as { error_description?: string }).error_description ?? (error as Error).message})`;
      return;
    }
    const account = idp.nextLogin === undefined ? undefined : idp.accounts.get(idp.nextLogin);
    let result: InteractionResults;
    if (!account) {
      result = { error: "access_denied", error_description: idp.nextLogin === undefined ? "no test account is set to sign in" : `no test account is named ${idp.nextLogin}` };
    } else {
      const grant = new provider.Grant({ accountId: account.sub, clientId: String(interaction.params.client_id) });
      grant.addOIDCScope(String(interaction.params.scope ?? "openid"));
      const claimNames = requestedClaimNames(interaction.params.claims);
      if (claimNames.length > 0) grant.addOIDCClaims(claimNames);
      result = { login: { accountId: account.sub }, consent: { grantId: await grant.save() } };
    }
    ctx.status = 303;
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
  });

  // Rewrites the token response's ID token when a test asked for a broken one.
  provider.use(async (ctx, next) => {
    await next();
    const tamper = idp.tamperNextIdToken;
    const foreign = idp.signNextIdTokenWithForeignKey === true;
    const body = ctx.body as { id_token?: unknown } | undefined;
    if ((!tamper && !foreign) || ctx.method !== "POST" || ctx.path !== "/token" || typeof body?.id_token !== "string") return;
    idp.tamperNextIdToken = undefined;
    idp.signNextIdTokenWithForeignKey = undefined;
    const [header, payload] = body.id_token.split(".");
    foreignKey ??= foreign ? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey : undefined;
    body.id_token = signRs256(decodeJwtPart(header), { ...decodeJwtPart(payload), ...tamper }, foreign ? foreignKey! : privateKey);
  });

  handle = provider.callback();
  return idp;
}

const MAX_REDIRECTS = 20;

/**
 * Follows redirects from `startUrl` as a browser would (manual redirects, cookies kept per host and
 * sent back; paths and expiry beyond deletion ignored) and returns the first Location that starts
 * with `redirectUriPrefix` -- the client's redirect_uri with `code` and `state`, or `error`.
 * `fetchWith` lets callers trust a test CA (e.g. undici's fetch with an Agent).
 */
export async function followToRedirectUri(startUrl: string, redirectUriPrefix: string, fetchWith: (url: string, init: RequestInit) => Promise<Response> = fetch): Promise<URL> {
  const cookiesByHost = new Map<string, Map<string, string>>();
  let url = new URL(startUrl);
  for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
    const jar = cookiesByHost.get(url.host) ?? new Map<string, string>();
    cookiesByHost.set(url.host, jar);
    const headers: Record<string, string> = jar.size > 0 ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") } : {};
    const response = await fetchWith(url.href, { headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator);
      const expires = attributes.find((attribute) => /^expires=/i.test(attribute));
      const expired = attributes.some((attribute) => /^max-age=(0|-)/i.test(attribute)) || (expires !== undefined && Date.parse(expires.slice(8)) <= Date.now());
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(separator + 1));
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) {
      throw new Error(`${url.href} answered ${response.status} instead of a redirect: ${(await response.text()).slice(0, 500)}`);
    }
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.href.startsWith(redirectUriPrefix)) return next;
    url = next;
  }
  throw new Error(`no redirect to ${redirectUriPrefix} within ${MAX_REDIRECTS} hops from ${startUrl}`);
}
