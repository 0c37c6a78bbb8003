// The service as an OpenID provider, over TLS, against a relying party built on openid-client (a
// library nobody here wrote): discovery from the issuer URL alone, the authorization code flow
// with PKCE through the hosted sign-in page (form posts, and once in headless Chromium), the ID
// token checked against the JWKS, userinfo, introspection, logout; and each refusal the RFCs name.
import { createHash, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import * as oidc from "openid-client";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { chromium, type Browser as Chromium } from "playwright-core";
import { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium } from "../helpers/chromium.js";
import { field, FormBrowser } from "../helpers/form-browser.js";
import { startReferenceHarness, type ReferenceHarnessOverTls } from "../helpers/reference-harness.js";
import { authorizationRequest as requestAuthorization, type AuthorizationRequest } from "./relying-party.js";

const ADMIN_SECRET = "oidc-provider-admin-secret";
const PASSWORD = "provider-password-1";
const REDIRECT_URI = "http://127.0.0.1:9/cb";
const LOGOUT_URI = "http://127.0.0.1:9/bye";

let reference: ReferenceHarnessOverTls;
let issuer: string;
let clientId: string;
let clientSecret: string;
let config: oidc.Configuration;
/** Seconds added to the service's clock (key rotation). */
let clockOffset = 0;

/** fetch that trusts the test CA: what the relying party sends with. */
const fetchWithCa: oidc.CustomFetch = (url, options) => undiciFetch(url, { ...options, dispatcher: reference.agent } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;

type Started = AuthorizationRequest;

const authorizationRequest = (extra: Record<string, string> = {}): Promise<Started> => requestAuthorization(config, REDIRECT_URI, extra);

/** The whole sign-in through the hosted page's forms: answers the URL the browser is sent back to. */
async function signIn(browser: FormBrowser, started: Started, email: string, password = PASSWORD): Promise<string> {
  const toPage = await browser.request(started.url.href);
  expect(toPage.status).toBe(302);
  expect(toPage.location).toMatch(new RegExp(`^${issuer}/oauth/signin\\?`));
  const page = await browser.request(toPage.location!);
  expect(page.status).toBe(200);
  const posted = await browser.request(`${issuer}/oauth/signin`, {
    method: "POST",
    origin: issuer,
    form: { request: field(page.body, "request"), csrf: field(page.body, "csrf"), step: "password", email, password },
  });
  expect(posted.status, posted.body).toBe(303);
  const back = await browser.request(posted.location!);
  expect(back.status).toBe(302);
  return back.location!;
}

/** The relying party's code grant for the URL the browser was sent back to, checking the PKCE verifier, state and nonce of `started`. */
const tokensFor = (back: string, started: Started) =>
  oidc.authorizationCodeGrant(config, new URL(back), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });

async function signUp(email: string): Promise<void> {
  const user = reference.userClient();
  await user.signup({ email, password: PASSWORD, confirm_password: PASSWORD });
  await user.close();
}

beforeAll(async () => {
  reference = await startReferenceHarness({
    adminSecret: ADMIN_SECRET,
    service: { features: { is_email_verification_enabled: false }, clock: () => Date.now() + clockOffset * 1000 },
    server: { mcp: true },
    tls: true,
  });
  issuer = reference.httpUrl;
  const admin = reference.adminClient();
  const created = await admin.createClient({ name: "portal", allowed_scopes: ["invoices:read"], redirect_uris: [REDIRECT_URI], post_logout_redirect_uris: [LOGOUT_URI] });
  await admin.close();
  clientId = created.client.client_id;
  clientSecret = created.client_secret;
  await signUp("ada@example.com");
  // Nothing but the issuer URL: discovery finds every endpoint and the keys.
  // enableNonRepudiationChecks: the ID token's signature is checked against the JWKS too.
  config = await oidc.discovery(new URL(issuer), clientId, clientSecret, undefined, { [oidc.customFetch]: fetchWithCa, execute: [oidc.enableNonRepudiationChecks] });
});

afterAll(async () => {
  await reference?.stop();
});

describe("the service as an OpenID provider, for openid-client", () => {
  it("is discovered from its issuer URL, with S256 and its signing algorithm", () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["ES256"]);
    expect(metadata.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
  });

  it("signs a user in through the hosted page: code with PKCE, ID token checked against the JWKS, userinfo and introspection", async () => {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest();
    const back = await signIn(browser, started, "ada@example.com");
    expect(back.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(new URL(back).searchParams.get("iss")).toBe(issuer);
    // The browser session: __Host- over TLS, Secure, HttpOnly, Lax (the relying party's redirect is a cross-site navigation).
    expect([...browser.cookies.keys()]).toContain("__Host-service_signin");

    const tokens = await tokensFor(back, started).catch((e) => {
      throw new Error(`grant: ${e.error} ${e.error_description}`);
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: issuer, aud: clientId, nonce: started.nonce, email: "ada@example.com" });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch((e) => {
      throw new Error(`userinfo: ${JSON.stringify(e.cause ?? e)}`);
    });
    expect(info).toMatchObject({ sub: claims.sub, email: "ada@example.com" });
    const introspected = await oidc.tokenIntrospection(config, tokens.access_token).catch((e) => {
      throw new Error(`introspect: ${JSON.stringify(e.cause ?? e)}`);
    });
    expect(introspected).toMatchObject({ active: true, sub: claims.sub, client_id: clientId });
    await oidc.tokenRevocation(config, tokens.refresh_token!).catch((e) => {
      throw new Error(`revoke: ${e.error} ${e.error_description}`);
    });
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);

    // Signed in already: the next request answers at once, and prompt=none too.
    const again = await authorizationRequest({ prompt: "none" });
    const direct = await browser.request(again.url.href);
    expect(direct.status).toBe(302);
    expect(new URL(direct.location!).searchParams.get("code")).toMatch(/^ac_/);
  });

  it("sets the session cookie Secure, HttpOnly, SameSite=Lax and refuses a form without its CSRF token or from another site", async () => {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest();
    const page = await browser.request((await browser.request(started.url.href)).location!);
    const form = { request: field(page.body, "request"), csrf: field(page.body, "csrf"), step: "password", email: "ada@example.com", password: PASSWORD };
    expect((await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: "https://evil.example", form })).status).toBe(403);
    expect((await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form: { ...form, csrf: "csrf_forged" } })).status).toBe(403);
    const wrong = await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form: { ...form, password: "not-the-password" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('role="alert"');
    expect(browser.cookies.has("__Host-service_signin")).toBe(false);
    const posted = await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form });
    const sessionCookie = posted.setCookies.find((line) => line.startsWith("__Host-service_signin="))!;
    expect(sessionCookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=\d+$/);
  });

  it("asks for the one-time code where the account needs one, and refuses a wrong code on the page", async () => {
    await signUp("mfa@example.com");
    const user = reference.userClient();
    const { access_token } = await user.login({ email: "mfa@example.com", password: PASSWORD });
    user.setAccessToken(access_token!);
    await user.updateProfile({ is_multi_factor_auth_enabled: true });
    await user.close();
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest();
    const page = await browser.request((await browser.request(started.url.href)).location!);
    const askedForCode = await browser.request(`${issuer}/oauth/signin`, {
      method: "POST",
      origin: issuer,
      form: { request: field(page.body, "request"), csrf: field(page.body, "csrf"), step: "password", email: "mfa@example.com", password: PASSWORD },
    });
    expect(askedForCode.status).toBe(200);
    expect(askedForCode.body).toContain('name="otp"');
    const otpForm = { request: field(askedForCode.body, "request"), csrf: field(askedForCode.body, "csrf"), step: "otp", email: "mfa@example.com" };
    const wrong = await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form: { ...otpForm, otp: "000000" } });
    expect(wrong.status).toBe(400);
    expect(browser.cookies.has("__Host-service_signin")).toBe(false);
    const code = reference.service.state.outbox.filter((message) => message.to === "mfa@example.com").at(-1)!.secret;
    const posted = await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form: { ...otpForm, otp: code } });
    expect(posted.status, posted.body).toBe(303);
    const back = await browser.request(posted.location!);
    const tokens = await tokensFor(back.location!, started);
    expect(tokens.claims()).toMatchObject({ email: "mfa@example.com" });
  });

  it("escapes what a request carries into the page", async () => {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest({ state: '"><script>alert(1)</script>' });
    const page = await browser.request((await browser.request(started.url.href)).location!);
    expect(page.body).not.toContain("<script>");
    expect(new URLSearchParams(field(page.body, "request")).get("state")).toBe('"><script>alert(1)</script>');
    const form = { request: field(page.body, "request"), csrf: field(page.body, "csrf"), step: "password", email: '"><img src=x onerror=alert(1)>@example.com', password: "wrong-password-1" };
    const again = await browser.request(`${issuer}/oauth/signin`, { method: "POST", origin: issuer, form });
    expect(again.status).toBe(401);
    expect(again.body).not.toContain("<img");
    expect(again.body).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;@example.com"');
  });

  it("answers a wrong redirect_uri or an unknown client itself, never redirecting", async () => {
    const browser = new FormBrowser(reference.agent);
    const wrongUri = await authorizationRequest({ redirect_uri: "http://127.0.0.1:9/elsewhere" });
    const refused = await browser.request(wrongUri.url.href);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
    expect(JSON.parse(refused.body)).toMatchObject({ error: "invalid_request" });
    const unknown = new URL(wrongUri.url);
    unknown.searchParams.set("client_id", "no-such-client");
    unknown.searchParams.set("redirect_uri", REDIRECT_URI);
    expect((await browser.request(unknown.href)).status).toBe(400);
    // Without PKCE the contract refuses the request (code_challenge is required).
    const noPkce = new URL(wrongUri.url);
    noPkce.searchParams.delete("code_challenge");
    noPkce.searchParams.set("redirect_uri", REDIRECT_URI);
    expect(JSON.parse((await browser.request(noPkce.href)).body)).toMatchObject({ error: "invalid_request" });
  });

  it("sends login_required back when prompt=none finds no session, and invalid_scope for a scope the client was not given", async () => {
    const browser = new FormBrowser(reference.agent);
    const silent = await authorizationRequest({ prompt: "none" });
    const answer = await browser.request(silent.url.href);
    expect(Object.fromEntries(new URL(answer.location!).searchParams)).toMatchObject({ error: "login_required", state: silent.state, iss: issuer });
    const scoped = await authorizationRequest({ scope: "openid invoices:write" });
    expect(new URL((await browser.request(scoped.url.href)).location!).searchParams.get("error")).toBe("invalid_scope");
  });

  it("refuses at the token endpoint a missing or wrong code_verifier and a replayed code", async () => {
    const browser = new FormBrowser(reference.agent);
    const exchange = (code: string, verifier?: string) =>
      undiciFetch(`${issuer}/oauth/token`, {
        method: "POST",
        dispatcher: reference.agent,
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, ...(verifier ? { code_verifier: verifier } : {}) }).toString(),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, string> }));
    const started = await authorizationRequest();
    const code = new URL(await signIn(browser, started, "ada@example.com")).searchParams.get("code")!;
    expect(await exchange(code)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(await exchange(code, oidc.randomPKCECodeVerifier())).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    // The wrong verifier used the code up: even the right one is refused now, as a replay is.
    expect(await exchange(code, started.verifier)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const fresh = await authorizationRequest();
    const freshCode = new URL((await browser.request(fresh.url.href)).location!).searchParams.get("code")!;
    expect((await exchange(freshCode, fresh.verifier)).status).toBe(200);
    expect(await exchange(freshCode, fresh.verifier)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("logs out to a registered address only, ending the browser's session", async () => {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest();
    const tokens = await tokensFor(await signIn(browser, started, "ada@example.com"), started);
    const elsewhere = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: "http://127.0.0.1:9/not-registered" });
    expect((await browser.request(elsewhere.href)).status).toBe(400);
    const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGOUT_URI, state: "bye-1" });
    const answer = await browser.request(logout.href);
    expect(answer.location).toBe(`${LOGOUT_URI}?state=bye-1`);
    expect(browser.cookies.has("__Host-service_signin")).toBe(false);
    const silent = await authorizationRequest({ prompt: "none" });
    expect(new URL((await browser.request(silent.url.href)).location!).searchParams.get("error")).toBe("login_required");
  });

  it("publishes the next key before it signs, and keeps a rotated key published until the tokens it signed expire", async () => {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest();
    const tokens = await tokensFor(await signIn(browser, started, "ada@example.com"), started);
    const jwks = async () => ((await (await undiciFetch(`${issuer}/.well-known/jwks.json`, { dispatcher: reference.agent })).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
    const [current, next] = await jwks();
    expect(next).toBeDefined();
    await reference.service.state.rotateSigningKey();
    const during = await jwks();
    // The pre-published key signs now; the old one stays; a new next key is published.
    expect(during.slice(0, 2)).toEqual([next, current]);
    expect(during).toHaveLength(3);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    // A token signed with the promoted key verifies against the key set the relying party cached before the rotation.
    const after = await authorizationRequest();
    const fresh = await tokensFor(await signIn(new FormBrowser(reference.agent), after, "ada@example.com"), after);
    expect(JSON.parse(Buffer.from(fresh.id_token!.split(".")[0]!, "base64url").toString()).kid).toBe(next);
    clockOffset += reference.service.state.config.accessTokenSeconds + 1;
    try {
      expect(await jwks()).toEqual(during.filter((kid) => kid !== current));
    } finally {
      clockOffset = 0;
    }
  });
});

describe("an MCP host (the official SDK's client)", () => {
  it("learns the authorization server from /mcp's 401 (RFC 9728), signs the user in with the flow above and calls a user tool with the token", async () => {
    const unauthenticated = await undiciFetch(`${issuer}/mcp`, {
      method: "POST",
      dispatcher: reference.agent,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "profile", arguments: {} } }),
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toContain(`resource_metadata="${issuer}/.well-known/oauth-protected-resource"`);

    const fetchFn = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: reference.agent })) as unknown as typeof fetch;
    let saved: OAuthTokens | undefined;
    let verifier = "";
    let authorizationUrl: URL | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT_URI,
      clientMetadata: { redirect_uris: [REDIRECT_URI], client_name: "an MCP host" },
      clientInformation: () => ({ client_id: clientId, client_secret: clientSecret }),
      tokens: () => saved,
      saveTokens: (tokens) => {
        saved = tokens;
      },
      redirectToAuthorization: (url) => {
        authorizationUrl = url;
      },
      saveCodeVerifier: (value) => {
        verifier = value;
      },
      codeVerifier: () => verifier,
    };
    expect(await auth(provider, { serverUrl: `${issuer}/mcp`, fetchFn })).toBe("REDIRECT");
    expect(authorizationUrl!.href.startsWith(`${issuer}/oauth/authorize?`)).toBe(true);
    const back = await signIn(new FormBrowser(reference.agent), { url: authorizationUrl!, verifier, state: "", nonce: "" }, "ada@example.com");
    expect(await auth(provider, { serverUrl: `${issuer}/mcp`, authorizationCode: new URL(back).searchParams.get("code")!, fetchFn })).toBe("AUTHORIZED");

    const client = new Client({ name: "mcp-host-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: fetchFn }));
    try {
      const result = await client.callTool({ name: "profile", arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain("ada@example.com");
    } finally {
      await client.close();
    }
  });
});

describe("in headless Chromium", () => {
  let browser: Chromium;
  beforeAll(async () => {
    await ensureChromium();
    // Chromium trusts the test server's key as it would a certificate from a known CA (its Secure
    // cookies then count, which it refuses on a connection with an ignored certificate error).
    const spki = createHash("sha256")
      .update(createPublicKey(readFileSync(reference.certs.serverCert)).export({ type: "spki", format: "der" }))
      .digest("base64");
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("signs in on the hosted page and lands on the client's redirect_uri with a code openid-client accepts", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const landed = new Promise<string>((resolve) => void page.route(`${REDIRECT_URI}**`, (route) => (resolve(route.request().url()), route.fulfill({ body: "signed in" }))));
    const started = await authorizationRequest();
    await page.goto(started.url.href);
    await page.fill("#email", "ada@example.com");
    await page.fill("#password", PASSWORD);
    await page.click("button[type=submit]");
    const back = await Promise.race([
      landed,
      new Promise<string>((_, reject) =>
        setTimeout(async () => reject(new Error(`stuck at ${page.url()}: ${(await page.content()).replace(/<head>[\s\S]*<\/head>/, "")} cookies ${JSON.stringify(await context.cookies())}`)), 10_000),
      ),
    ]);
    const tokens = await tokensFor(back, started);
    expect(tokens.claims()).toMatchObject({ aud: clientId, email: "ada@example.com" });
    const cookies = await context.cookies(issuer);
    expect(cookies.find((cookie) => cookie.name === "__Host-service_signin")).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax" });
    await context.close();
  });
});
