// SAML with peers nobody here wrote (pysaml2 over xmlsec1, test/saml/peer.py), against the service
// over TLS: a downstream service provider reads the organization's IdP metadata, sends an
// AuthnRequest (HTTP-Redirect and HTTP-POST), the user signs in on the hosted page and the SP
// checks the signed answer; key rotation and retirement show in the metadata it reads; unknown,
// inactive and deleted SPs get nothing. An upstream IdP signs users into an organization through
// its SAML connection; another key, a replay, an expired response, another audience, a wrapped
// assertion, a DOCTYPE and a deleted connection are refused.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { inflateRawSync } from "node:zlib";
import * as oidc from "openid-client";
import { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient } from "../../generated/client/index.js";
import { selfSignedCertificate } from "../../reference/x509.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { ensureDebianProgramAsync } from "../helpers/apt.js";
import { field, FormBrowser } from "../helpers/form-browser.js";
import { REPO_ROOT } from "../helpers/project.js";
import { startReferenceHarness, type ReferenceHarnessOverTls } from "../helpers/reference-harness.js";
import { authorizationRequest } from "../oidc/relying-party.js";

const ADMIN_SECRET = "saml-admin-secret";
const PASSWORD = "saml-password-1";
const SP_ENTITY = "https://sp.example.test/metadata";
const SP_ACS = "https://sp.example.test/acs";
const UPSTREAM_ENTITY = "https://idp.globex.test";
const REDIRECT_URI = "http://127.0.0.1:9/cb";

let python: string;
let reference: ReferenceHarnessOverTls;
let issuer: string;
let admin: AdminClient;
let acmeId: string;

/** The pysaml2 peer (test/saml/peer.py): one process, one JSON line per command, answered in order. */
let peerProcess: ChildProcessWithoutNullStreams;
const waiting: ((line: string) => void)[] = [];
let peerQueue: Promise<unknown> = Promise.resolve();
function peer<T = Record<string, unknown>>(request: Record<string, unknown>): Promise<T> {
  const answer = peerQueue.then(
    () =>
      new Promise<T>((resolve) => {
        waiting.push((line) => resolve(JSON.parse(line) as T));
        peerProcess.stdin.write(`${JSON.stringify(request)}\n`);
      }),
  );
  peerQueue = answer.catch(() => undefined);
  return answer;
}

const get = async (url: string) => {
  const response = await undiciFetch(url, { dispatcher: reference.agent });
  return { status: response.status, body: await response.text() };
};

const idpMetadata = async (orgId = acmeId) => (await get(`${issuer}/saml/${orgId}/metadata`)).body;
const pemBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "");

/** The downstream SP's settings for the peer. */
const sp = async (extra: Record<string, unknown> = {}) => ({
  idp_metadata: await idpMetadata(),
  idp_entity_id: `${issuer}/saml/${acmeId}/metadata`,
  sp_entity_id: SP_ENTITY,
  acs_url: SP_ACS,
  ...extra,
});

/** Follows the SSO endpoint's answer to the page that posts the response; its SAMLResponse, or the status and page of a refusal. */
async function ssoAnswer(
  browser: FormBrowser,
  answer: { status: number; location: string | null; body: string },
): Promise<{ status: number; samlResponse: string; relayState: string; body: string; action: string }> {
  let current = answer;
  for (let hops = 0; current.status === 303 && hops < 3; hops++) current = await browser.request(current.location!);
  const action = /<form method="post" action="([^"]*)"/.exec(current.body)?.[1]?.replace(/&amp;/g, "&") ?? "";
  return { status: current.status, samlResponse: field(current.body, "SAMLResponse"), relayState: field(current.body, "RelayState"), body: current.body, action };
}

/** Signs in on the hosted page the SSO endpoint sent the browser to, and comes back to it. */
async function signInThere(browser: FormBrowser, signinUrl: string, email: string) {
  const page = await browser.request(signinUrl);
  expect(page.status).toBe(200);
  return browser.request(`${issuer}/oauth/signin`, {
    method: "POST",
    origin: issuer,
    form: { request: field(page.body, "request"), csrf: field(page.body, "csrf"), step: "password", email, password: PASSWORD },
  });
}

async function signUp(email: string) {
  const user = reference.userClient();
  const created = await user.signup({ email, password: PASSWORD, confirm_password: PASSWORD });
  await user.close();
  return created.user!.id;
}

beforeAll(async () => {
  await ensureDebianProgramAsync("xmlsec1", "/usr/bin/xmlsec1", "the SAML peers (pysaml2)");
  python = join((await ensurePythonEnv({ log: (line) => console.log(line) })).venv, "bin", "python");
  peerProcess = spawn(python, [join(REPO_ROOT, "test", "saml", "peer.py")], { cwd: REPO_ROOT });
  peerProcess.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  createInterface({ input: peerProcess.stdout }).on("line", (line) => waiting.shift()?.(line));
  reference = await startReferenceHarness({ adminSecret: ADMIN_SECRET, service: { features: { is_email_verification_enabled: false } }, tls: true });
  issuer = reference.httpUrl;
  admin = reference.adminClient();
  acmeId = (await admin.createOrganization({ name: "acme" })).id;
  await signUp("ada@example.com");
}, 600_000);

afterAll(async () => {
  peerProcess?.stdin.end();
  await admin?.close();
  await reference?.stop();
});

describe("the organization's SAML IdP, for a pysaml2 service provider", () => {
  it("serves no metadata before the organization has a key, then every published key", async () => {
    expect((await get(`${issuer}/saml/${acmeId}/metadata`)).status).toBe(404);
    const key = await admin.rotateSAMLIDPCert({ org_id: acmeId });
    const metadata = await idpMetadata();
    expect(metadata).toContain(pemBody(key.certificate_pem));
    expect(metadata).toContain(`Location="${issuer}/saml/${acmeId}/sso"`);
    expect((await get(`${issuer}/saml/no-such-org/metadata`)).status).toBe(404);
  });

  it("logs a user in: AuthnRequest by HTTP-Redirect, the hosted sign-in, a signed response the SP accepts", async () => {
    await admin.createSAMLServiceProvider({ org_id: acmeId, name: "wiki", entity_id: SP_ENTITY, acs_url: SP_ACS, mapped_attributes: { mail: "email", role: "roles" } });
    const request = await peer<{ request_id: string; location: string }>({ command: "sp_request", ...(await sp({ relay_state: "page-7" })) });
    expect(request.location.startsWith(`${issuer}/saml/${acmeId}/sso?`)).toBe(true);
    const browser = new FormBrowser(reference.agent);
    const toSignIn = await browser.request(request.location);
    expect(toSignIn.status).toBe(303);
    expect(toSignIn.location).toMatch(new RegExp(`^${issuer}/oauth/signin\\?return_to=`));
    const signedIn = await signInThere(browser, toSignIn.location!, "ada@example.com");
    expect(signedIn.status, signedIn.body).toBe(303);
    expect(signedIn.location!.startsWith(`${issuer}/saml/${acmeId}/sso?SAMLRequest=`)).toBe(true);
    const answer = await ssoAnswer(browser, await browser.request(signedIn.location!));
    expect(answer.status).toBe(200);
    // Posted to the registered ACS URL only, with the RelayState the SP sent.
    expect(answer.action).toBe(SP_ACS);
    expect(answer.relayState).toBe("page-7");
    const verified = await peer({ command: "sp_verify", ...(await sp({ request_id: request.request_id, saml_response: answer.samlResponse })) });
    expect(verified).toMatchObject({ name_id: "ada@example.com", issuer: `${issuer}/saml/${acmeId}/metadata`, attributes: { mail: ["ada@example.com"], role: ["user"] } });
    const xml = Buffer.from(answer.samlResponse, "base64").toString("utf8");
    expect(xml).toContain(`InResponseTo="${request.request_id}"`);
    expect(xml).toContain("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    // The same response for a request the SP did not send is refused by the SP.
    expect((await peer({ command: "sp_verify", ...(await sp({ request_id: "_other", saml_response: answer.samlResponse })) })).error).toBeTruthy();
  });

  it("takes the HTTP-POST binding too, for a browser already signed in", async () => {
    const browser = new FormBrowser(reference.agent);
    const toSignIn = await browser.request(`${issuer}/saml/${acmeId}/sso?sp=${encodeURIComponent(SP_ENTITY)}`);
    expect(toSignIn.status).toBe(403); // IdP-initiated is off for this SP
    const request = await peer<{ request_id: string; destination: string; saml_request: string }>({ command: "sp_request", ...(await sp({ binding: "post" })) });
    const posted = await browser.request(request.destination, { method: "POST", form: { SAMLRequest: request.saml_request } });
    expect(posted.status).toBe(303);
    const signedIn = await signInThere(browser, (await browser.request(posted.location!)).location!, "ada@example.com");
    const answer = await ssoAnswer(browser, await browser.request(signedIn.location!));
    const verified = await peer({ command: "sp_verify", ...(await sp({ request_id: request.request_id, saml_response: answer.samlResponse })) });
    expect(verified).toMatchObject({ name_id: "ada@example.com" });
    // Signed in now: a second request answers at once.
    const again = await peer<{ request_id: string; location: string }>({ command: "sp_request", ...(await sp()) });
    const direct = await ssoAnswer(browser, await browser.request(again.location));
    expect(direct.status).toBe(200);
    expect(await peer({ command: "sp_verify", ...(await sp({ request_id: again.request_id, saml_response: direct.samlResponse })) })).toMatchObject({ name_id: "ada@example.com" });
  });

  it("signs with the new key after rotate_saml_idp_cert, keeps the old one published, and drops it from the metadata once retired", async () => {
    const [old] = (await admin.listSAMLIDPKeys({ org_id: acmeId })).keys;
    const oldMetadata = await idpMetadata();
    const rotated = await admin.rotateSAMLIDPCert({ org_id: acmeId });
    const metadata = await idpMetadata();
    expect(metadata.indexOf(pemBody(rotated.certificate_pem))).toBeLessThan(metadata.indexOf(pemBody(old!.certificate_pem)));
    const browser = new FormBrowser(reference.agent);
    const request = await peer<{ request_id: string; location: string }>({ command: "sp_request", ...(await sp()) });
    const signedIn = await signInThere(browser, (await browser.request(request.location)).location!, "ada@example.com");
    const answer = await ssoAnswer(browser, await browser.request(signedIn.location!));
    const xml = Buffer.from(answer.samlResponse, "base64").toString("utf8");
    expect(xml).toContain(pemBody(rotated.certificate_pem));
    // An SP that reads the metadata again accepts it; one that kept the old metadata does not.
    expect(await peer({ command: "sp_verify", ...(await sp({ request_id: request.request_id, saml_response: answer.samlResponse })) })).toMatchObject({ name_id: "ada@example.com" });
    expect(
      (await peer<{ error?: string }>({ command: "sp_verify", ...(await sp({ idp_metadata: oldMetadata, request_id: request.request_id, saml_response: answer.samlResponse })) })).error,
    ).toBeTruthy();
    await admin.retireSAMLIDPKey({ id: old!.id });
    const after = await idpMetadata();
    expect(after).not.toContain(pemBody(old!.certificate_pem));
    expect(after).toContain(pemBody(rotated.certificate_pem));
  });

  it("gives no assertion to an unknown, inactive or deleted SP, nor for an ACS URL not registered", async () => {
    const browser = new FormBrowser(reference.agent);
    const signIn = await peer<{ location: string }>({ command: "sp_request", ...(await sp()) });
    await signInThere(browser, (await browser.request(signIn.location)).location!, "ada@example.com");
    const refused = async (settings: Record<string, unknown>, status: number, message: RegExp) => {
      const request = await peer<{ location: string }>({ command: "sp_request", ...(await sp(settings)) });
      const answer = await ssoAnswer(browser, await browser.request(request.location));
      expect(answer.status).toBe(status);
      expect(answer.samlResponse).toBe("");
      expect(answer.body).toMatch(message);
    };
    await refused({ sp_entity_id: "https://unknown.example.test/metadata" }, 403, /not registered/);
    await refused({ acs_url: "https://sp.example.test/elsewhere" }, 400, /AssertionConsumerServiceURL is not the one registered/);
    const { saml_service_providers } = await admin.listSAMLServiceProviders({ org_id: acmeId });
    const wiki = saml_service_providers.find((entry) => entry.entity_id === SP_ENTITY)!;
    await admin.updateSAMLServiceProvider({ id: wiki.id, is_active: false });
    await refused({}, 403, /inactive/);
    await admin.updateSAMLServiceProvider({ id: wiki.id, is_active: true, allow_idp_initiated: true });
    // IdP-initiated, now allowed: an unsolicited response the SP accepts when it takes those.
    const unsolicited = await ssoAnswer(browser, await browser.request(`${issuer}/saml/${acmeId}/sso?sp=${encodeURIComponent(SP_ENTITY)}`));
    expect(await peer({ command: "sp_verify", ...(await sp({ allow_unsolicited: true, saml_response: unsolicited.samlResponse })) })).toMatchObject({ name_id: "ada@example.com" });
    await admin.deleteSAMLServiceProvider({ id: wiki.id });
    await refused({}, 403, /not registered/);
  });

  it("refuses an AuthnRequest with a DOCTYPE (XXE, billion laughs) before parsing it, and keeps serving", async () => {
    const browser = new FormBrowser(reference.agent);
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a" Version="2.0"><saml:Issuer>&x;</saml:Issuer></samlp:AuthnRequest>`;
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_b">&c;</samlp:AuthnRequest>`;
    for (const xml of [xxe, laughs]) {
      const answer = await browser.request(`${issuer}/saml/${acmeId}/sso`, { method: "POST", form: { SAMLRequest: Buffer.from(xml).toString("base64") } });
      const followed = answer.status === 303 ? await browser.request(answer.location!) : answer;
      expect(followed.status).toBe(400);
      expect(followed.body).toContain("must not contain a DOCTYPE");
      expect(followed.body).not.toContain("root:");
    }
    expect((await get(`${issuer}/saml/${acmeId}/metadata`)).status).toBe(200);
  });
});

describe("an upstream SAML IdP (pysaml2) signing users into an organization", () => {
  let globexId: string;
  let connectionId: string;
  let config: oidc.Configuration;
  const idpKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const certificate = (key: typeof idpKey, name: string) => selfSignedCertificate({ ...key, commonName: name, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) });
  const idpCert = certificate(idpKey, "globex idp");
  const otherCert = certificate(otherKey, "someone else");
  const keyPem = (key: typeof idpKey) => key.privateKey.export({ type: "pkcs8", format: "pem" }) as string;

  beforeAll(async () => {
    globexId = (await admin.createOrganization({ name: "globex" })).id;
    await admin.addVerifiedOrgDomain({ org_id: globexId, domain: "globex.test" });
    connectionId = (await admin.createOrgSAMLConnection({ org_id: globexId, name: "globex idp", idp_entity_id: UPSTREAM_ENTITY, idp_sso_url: `${UPSTREAM_ENTITY}/sso`, idp_certificate: idpCert })).id;
    const { client, client_secret } = await admin.createClient({ name: "portal", allowed_scopes: ["invoices:read"], redirect_uris: [REDIRECT_URI] });
    config = await oidc.discovery(new URL(issuer), client.client_id, client_secret, undefined, {
      [oidc.customFetch]: ((url: string, options: object) => undiciFetch(url, { ...options, dispatcher: reference.agent } as never)) as unknown as oidc.CustomFetch,
    });
  });

  /** An authorization request for a globex.test address: home-realm discovery sends it to the IdP with an AuthnRequest. */
  async function startAt(email: string): Promise<{ requestId: string; browser: FormBrowser }> {
    const browser = new FormBrowser(reference.agent);
    const started = await authorizationRequest(config, REDIRECT_URI, { login_hint: email });
    const toIdp = await browser.request(started.url.href);
    expect(toIdp.status).toBe(302);
    expect(toIdp.location!.startsWith(`${UPSTREAM_ENTITY}/sso?SAMLRequest=`)).toBe(true);
    const xml = inflateRawSync(Buffer.from(new URL(toIdp.location!).searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
    return { requestId: /ID="([^"]+)"/.exec(xml)![1]!, browser };
  }

  const spMetadata = async () => (await get(`${issuer}/saml/${globexId}/sp-metadata`)).body;
  const respond = async (extra: Record<string, unknown>) =>
    (
      await peer<{ saml_response: string }>({
        command: "idp_response",
        idp_entity_id: UPSTREAM_ENTITY,
        key_pem: keyPem(idpKey),
        cert_pem: idpCert,
        sp_metadata: [await spMetadata()],
        sp_entity_id: `${issuer}/saml/${globexId}/sp`,
        acs_url: `${issuer}/saml/${globexId}/acs`,
        ...extra,
      })
    ).saml_response;
  const post = (browser: FormBrowser, samlResponse: string) => browser.request(`${issuer}/saml/${globexId}/acs`, { method: "POST", form: { SAMLResponse: samlResponse } });
  const members = async () => (await admin.orgMembers({ org_id: globexId })).members.map((member) => member.email);

  it("takes a signed response for the request it sent: the user is provisioned, a member, and the client gets its code", async () => {
    expect(await spMetadata()).toContain(`Location="${issuer}/saml/${globexId}/acs"`);
    const { requestId, browser } = await startAt("bob@globex.test");
    const answer = await post(browser, await respond({ in_response_to: requestId, email: "bob@globex.test" }));
    expect(answer.status, answer.body).toBe(303);
    const back = new URL(answer.location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("code"), back.search).toMatch(/^ac_/);
    expect(await members()).toContain("bob@globex.test");
    const [bob] = (await admin.users({ query: "bob@globex.test" })).users;
    expect(bob).toMatchObject({ given_name: "Upstream", email_verified: true });
  });

  it("refuses another key, a replay, an expired response, another audience and a wrapped assertion", async () => {
    const refusedBack = async (samlResponse: string, browser: FormBrowser, message: RegExp) => {
      const answer = await post(browser, samlResponse);
      expect(answer.status, answer.body).toBe(303);
      const back = new URL(answer.location!);
      expect(back.searchParams.get("error")).toBe("access_denied");
      expect(back.searchParams.get("error_description"), back.search).toMatch(message);
      expect(back.searchParams.get("code")).toBeNull();
    };
    let flow = await startAt("carl@globex.test");
    await refusedBack(await respond({ in_response_to: flow.requestId, email: "carl@globex.test", key_pem: keyPem(otherKey), cert_pem: otherCert }), flow.browser, /signature/i);

    flow = await startAt("carl@globex.test");
    await refusedBack(await respond({ in_response_to: flow.requestId, email: "carl@globex.test", lifetime_seconds: -3600 }), flow.browser, /expired|NotOnOrAfter|no valid subject confirmation/i);

    flow = await startAt("carl@globex.test");
    const otherSp = (await spMetadata()).replaceAll(`${issuer}/saml/${globexId}/sp`, "https://other-sp.example.test");
    await refusedBack(await respond({ in_response_to: flow.requestId, email: "carl@globex.test", sp_metadata: [otherSp], sp_entity_id: "https://other-sp.example.test" }), flow.browser, /audience/i);

    // Signature wrapping: the signed assertion moved into an extension, an unsigned one for another user in its place.
    flow = await startAt("carl@globex.test");
    const signed = Buffer.from(await respond({ in_response_to: flow.requestId, email: "carl@globex.test", sign_response: false }), "base64").toString("utf8");
    const assertion = /<(\w+:)?Assertion[\s>][\s\S]*<\/\1?Assertion>/.exec(signed)![0];
    const forged = assertion
      .replace(/<(\w+:)?Signature[\s>][\s\S]*<\/\1?Signature>/, "")
      .replaceAll("carl@globex.test", "mallory@globex.test")
      .replace(/ID="[^"]+"/, 'ID="_forged"');
    const prefix = /<(\w+):Response/.exec(signed)?.[1] ?? "samlp";
    const wrapped = signed.replace(assertion, `<${prefix}:Extensions>${assertion}</${prefix}:Extensions>${forged}`);
    await refusedBack(Buffer.from(wrapped).toString("base64"), flow.browser, /signature/i);
    expect(await members()).not.toContain("mallory@globex.test");
    expect(await members()).not.toContain("carl@globex.test");

    // A replay of an accepted response: the request it answered is used up.
    flow = await startAt("dora@globex.test");
    const good = await respond({ in_response_to: flow.requestId, email: "dora@globex.test" });
    expect((await post(flow.browser, good)).status).toBe(303);
    const replayed = await post(flow.browser, good);
    expect(replayed.status).toBe(403);
    expect(replayed.body).toMatch(/InResponseTo is not valid/);
  });

  it("takes IdP-initiated responses only where the connection allows them, each assertion once", async () => {
    const browser = new FormBrowser(reference.agent);
    const unsolicited = await respond({ email: "erin@globex.test" });
    const refused = await post(browser, unsolicited);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/InResponseTo is missing/);
    await admin.updateOrgSAMLConnection({ id: connectionId, allow_idp_initiated: true });
    const accepted = await post(browser, unsolicited);
    expect(accepted.status, accepted.body).toBe(200);
    expect(accepted.body).toContain("erin@globex.test");
    expect([...browser.cookies.keys()]).toContain("__Host-service_signin");
    const replayed = await post(new FormBrowser(reference.agent), unsolicited);
    expect(replayed.status).toBe(403);
    expect(replayed.body).toMatch(/used already/);
  });

  it("refuses a response with a DOCTYPE, and stops at once when the connection is deleted", async () => {
    const browser = new FormBrowser(reference.agent);
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&x;</samlp:Response>`;
    const answer = await post(browser, Buffer.from(xxe).toString("base64"));
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("must not contain a DOCTYPE");
    const pending = await startAt("fay@globex.test");
    const valid = await respond({ in_response_to: pending.requestId, email: "fay@globex.test" });
    await admin.deleteOrgSAMLConnection({ id: connectionId });
    const stopped = await post(pending.browser, valid);
    expect(stopped.status).toBe(404);
    expect(await members()).not.toContain("fay@globex.test");
    // Home-realm discovery no longer sends the domain anywhere but the hosted sign-in page.
    const started = await authorizationRequest(config, REDIRECT_URI, { login_hint: "fay@globex.test" });
    expect((await new FormBrowser(reference.agent).request(started.url.href)).location).toMatch(new RegExp(`^${issuer}/oauth/signin\\?`));
  });
});
