// Upstream SSO per organization, end to end with real peers: a relying party on openid-client asks
// the service (over TLS) to sign in ann@acme.example; the verified domain acme.example sends the
// browser to the organization's IdP, a real OpenID provider (oidc-provider) on loopback; the
// service runs the code flow with PKCE against it, checks its ID token, provisions or links the
// user, makes them a member and finishes the relying party's request. Pending domains never route,
// a deleted connection stops the next login and one in flight, and a forged answer is refused.
import * as oidc from "openid-client";
import { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AdminClient } from "../../generated/client/index.js";
import { followToRedirectUri, startUpstreamIdp, type UpstreamIdp } from "../helpers/oidc-upstream.js";
import { startReferenceHarness, type ReferenceHarnessOverTls } from "../helpers/reference-harness.js";
import { authorizationRequest as requestAuthorization, type AuthorizationRequest } from "./relying-party.js";

const ADMIN_SECRET = "upstream-sso-admin-secret";
const REDIRECT_URI = "http://127.0.0.1:9/cb";

let reference: ReferenceHarnessOverTls;
let issuer: string;
let idp: UpstreamIdp;
let admin: AdminClient;
let config: oidc.Configuration;
let orgId: string;
let connectionId: string;

const fetchWith = (url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: reference.agent }) as unknown as Promise<Response>;

type Started = AuthorizationRequest;

const authorizationRequest = (hint: Record<string, string>): Promise<Started> => requestAuthorization(config, REDIRECT_URI, hint);

/** The relying party's whole flow for `email`, through the organization's IdP: answers the ID token's claims. */
async function signInThroughIdp(email: string): Promise<oidc.IDToken> {
  idp.nextLogin = email;
  const started = await authorizationRequest({ login_hint: email });
  const back = await followToRedirectUri(started.url.href, REDIRECT_URI, fetchWith);
  expect(back.searchParams.get("error"), back.searchParams.get("error_description") ?? "").toBeNull();
  const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
  return tokens.claims()!;
}

/** Where the service sends the browser first for this authorization request. */
async function firstHop(started: Started): Promise<string> {
  const response = await undiciFetch(started.url.href, { redirect: "manual", dispatcher: reference.agent });
  expect(response.status).toBe(302);
  return response.headers.get("location")!;
}

/** The error the relying party gets back for a sign-in through the IdP. */
async function refusal(email: string): Promise<string | null> {
  idp.nextLogin = email;
  const started = await authorizationRequest({ login_hint: email });
  const back = await followToRedirectUri(started.url.href, REDIRECT_URI, fetchWith);
  expect(back.searchParams.get("state")).toBe(started.state);
  return back.searchParams.get("error");
}

async function members(): Promise<string[]> {
  return (await admin.orgMembers({ org_id: orgId })).members.map((member) => member.email ?? "");
}

beforeAll(async () => {
  // allowPrivateOutbound: the organization's IdP listens on loopback here.
  reference = await startReferenceHarness({ adminSecret: ADMIN_SECRET, service: { features: { is_email_verification_enabled: false }, allowPrivateOutbound: true }, tls: true });
  issuer = reference.httpUrl;
  idp = await startUpstreamIdp({
    clients: [{ client_id: "acme-app", client_secret: "acme-upstream-secret", redirect_uris: [`${issuer}/oauth/sso/callback`] }],
    accounts: [
      { sub: "u-ann", email: "ann@acme.example", email_verified: true, given_name: "Ann", family_name: "Acme" },
      { sub: "u-mal", email: "ada@acme.example", email_verified: false },
      { sub: "u-new", email: "new@acme.example", email_verified: false },
    ],
  });
  admin = reference.adminClient();
  orgId = (await admin.createOrganization({ name: "acme" })).id;
  await admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.example" });
  await admin.requestOrgDomain({ org_id: orgId, domain: "pending.example" });
  const { client, client_secret } = await admin.createClient({ name: "portal", allowed_scopes: ["invoices:read"], redirect_uris: [REDIRECT_URI] });
  config = await oidc.discovery(new URL(issuer), client.client_id, client_secret, undefined, { [oidc.customFetch]: fetchWith as oidc.CustomFetch, execute: [oidc.enableNonRepudiationChecks] });
  // A local account whose address the organization's IdP does not vouch for (ada@acme.example).
  const user = reference.userClient();
  await user.signup({ email: "ada@acme.example", password: "local-password-1", confirm_password: "local-password-1" });
  await user.close();
});

beforeEach(async () => {
  if (!connectionId || !(await reference.service.state.storage.orgOidcConnections.get(connectionId))) {
    connectionId = (await admin.createOrgOIDCConnection({ org_id: orgId, name: "acme idp", issuer_url: idp.issuer, client_id: "acme-app", client_secret: "acme-upstream-secret" })).id;
  }
});

afterAll(async () => {
  await admin?.close();
  await idp?.close();
  await reference?.stop();
});

describe("upstream OIDC SSO by verified domain", () => {
  it("sends a verified domain's user to the organization's IdP and back, provisioned, verified as the IdP says and a member", async () => {
    const claims = await signInThroughIdp("ann@acme.example");
    expect(claims).toMatchObject({ iss: issuer, email: "ann@acme.example", email_verified: true, given_name: "Ann" });
    expect(await members()).toContain("ann@acme.example");
    // Signed in again: the same account, not a second one.
    expect((await signInThroughIdp("ann@acme.example")).sub).toBe(claims.sub);
    expect((await reference.service.state.storage.users.list({ email: "ann@acme.example" })).length).toBe(1);
  });

  it("routes domain_hint as login_hint, and never a pending domain (the hosted page instead)", async () => {
    expect(await firstHop(await authorizationRequest({ domain_hint: "acme.example" }))).toMatch(new RegExp(`^${idp.issuer}/`));
    expect(await firstHop(await authorizationRequest({ login_hint: "bob@pending.example" }))).toMatch(new RegExp(`^${issuer}/oauth/signin\\?`));
    expect(await firstHop(await authorizationRequest({ login_hint: "carol@elsewhere.example" }))).toMatch(new RegExp(`^${issuer}/oauth/signin\\?`));
  });

  it("provisions an address the IdP did not verify as unverified, and never links it to an existing account", async () => {
    const claims = await signInThroughIdp("new@acme.example");
    expect(claims.email_verified).toBe(false);
    expect(await refusal("ada@acme.example")).toBe("access_denied");
    expect(await members()).not.toContain("ada@acme.example");
  });

  it("refuses an upstream ID token with a wrong nonce, audience or signature", async () => {
    idp.tamperNextIdToken = { nonce: "not-the-nonce" };
    expect(await refusal("ann@acme.example")).toBe("access_denied");
    idp.tamperNextIdToken = { aud: "another-client" };
    expect(await refusal("ann@acme.example")).toBe("access_denied");
    idp.signNextIdTokenWithForeignKey = true;
    expect(await refusal("ann@acme.example")).toBe("access_denied");
    // And the next honest answer goes through.
    expect((await signInThroughIdp("ann@acme.example")).email).toBe("ann@acme.example");
  });

  it("stops at once when the connection is deleted: the next login is not routed, and one in flight is refused", async () => {
    idp.nextLogin = "ann@acme.example";
    const inFlight = await authorizationRequest({ login_hint: "ann@acme.example" });
    const upstreamUrl = await firstHop(inFlight);
    expect(upstreamUrl.startsWith(idp.issuer)).toBe(true);
    await admin.deleteOrgOIDCConnection({ id: connectionId });
    const back = await followToRedirectUri(upstreamUrl, REDIRECT_URI, fetchWith);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: "access_denied", state: inFlight.state });
    expect(await firstHop(await authorizationRequest({ login_hint: "ann@acme.example" }))).toMatch(new RegExp(`^${issuer}/oauth/signin\\?`));
  });

  it("refuses a callback whose state it did not issue, or issued once already", async () => {
    const response = await undiciFetch(`${issuer}/oauth/sso/callback?state=sso_forged&code=abc`, { redirect: "manual", dispatcher: reference.agent });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
  });
});
