// SAML 2.0 over HTTP, per organization, under /saml/<org id>/:
//
// - The organization's IdP, for the downstream service providers the admin interface registers:
//   `metadata` (every current or published key; retired keys are absent) and `sso` (an AuthnRequest
//   by HTTP-Redirect or HTTP-POST, or an IdP-initiated login with ?sp=<entity id>). The signed-in
//   user (the browser session of the hosted sign-in page) gets a Response and Assertion signed
//   with the current key (RSA-SHA256, exclusive C14N, by xml-crypto), posted by the browser to the
//   SP's registered ACS URL only. An unknown, inactive or deleted SP gets no assertion.
// - The organization's upstream SAML connection, the service being its SP: `acs` accepts a
//   response of the connection's IdP, checked by @node-saml/node-saml against the connection's
//   certificate (signature over the response or the assertion, audience, recipient, validity,
//   InResponseTo of a sign-in this service started) and used once (its assertion ID is kept until
//   it expires); `sp-metadata` is what the IdP's admin loads.
//
// Every XML message is refused before parsing when it has a DOCTYPE: no entity is ever expanded
// (XXE, billion laughs).
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from "@node-saml/node-saml";
import { DOMParser } from "@xmldom/xmldom";
import { SignedXml } from "xml-crypto";
import { ServiceError, type HttpMount } from "../generated/server/index.js";
import type { OauthAuthorizeInput, SAMLServiceProvider } from "../generated/types.js";
import { escapeMarkup } from "../runtime/markup.js";
import { nowSeconds, type Core } from "./core.js";
import type { Deps } from "./deps.js";
import { authorizationError, authorizeQuery, type AuthorizationContinuation, SIGNIN_COOKIE, SIGNIN_PATH, signedInUser, type UpstreamSignIn } from "./ops/oidc.js";
import { orgForEmailDomain } from "./ops/org-domains.js";
import { ssoConnectionsFor } from "./ops/org-sso.js";
import { page, pageCookie, readPageCookie, seeOther, sendFailurePage, sendPage } from "./pages.js";
import { idpMetadataXml } from "./saml-metadata.js";
import { sha256 } from "./secrets.js";
import type { OrgSAMLConnectionRecord, SAMLIDPKeyRecord, UserRecord } from "./storage.js";
import { linkUpstreamUser } from "./upstream-sso.js";

const PROTOCOL_NS = "urn:oasis:names:tc:SAML:2.0:protocol";
const ASSERTION_NS = "urn:oasis:names:tc:SAML:2.0:assertion";
const HTTP_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const HTTP_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const NAMEID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const NAMEID_PERSISTENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent";
const NAMEID_TRANSIENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient";
/** How long an assertion this IdP issues may be presented. */
const ASSERTION_SECONDS = 300;
/** How long a sign-in this SP started may take at the upstream IdP. */
const REQUEST_SECONDS = 600;
/** The largest inflated AuthnRequest read (a deflated message may expand a thousandfold). */
const MAX_REQUEST_BYTES = 64 * 1024;
const CLOCK_SKEW_MS = 60_000;
/** The user fields an SP's mapped_attributes may name (attribute name → field); roles is multi-valued. */
const USER_FIELDS = ["id", "email", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "phone_number", "roles"] as const;
type UserField = (typeof USER_FIELDS)[number];
/** The attributes an SP gets when its mapping names none. */
const DEFAULT_ATTRIBUTES: Record<string, UserField> = { email: "email", given_name: "given_name", family_name: "family_name" };
/** Attribute names read for an upstream user's fields when the connection's attribute_mapping names none. */
const UPSTREAM_ATTRIBUTES = {
  email: ["email", "mail", "emailAddress", "urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"],
  given_name: ["given_name", "givenName", "urn:oid:2.5.4.42", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"],
  family_name: ["family_name", "sn", "surname", "urn:oid:2.5.4.4", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"],
} as const;

/** A refusal shown to the browser as a page: the status and what went wrong. */
class SamlRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Refuses a message with a DOCTYPE (entities, external or expanding, are never read), then parses it. */
export function parseSamlXml(xml: string, what: string): Document {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) throw new SamlRefusal(400, `the ${what} must not contain a DOCTYPE or entity declarations`);
  const problems: string[] = [];
  const document = new DOMParser({
    errorHandler: (level: string, message: unknown) => {
      if (level !== "warning") problems.push(String(message));
    },
  }).parseFromString(xml, "text/xml");
  if (problems.length > 0 || !document.documentElement) throw new SamlRefusal(400, `the ${what} is not well-formed XML`);
  return document as unknown as Document;
}

const childText = (parent: Element, namespace: string, name: string): string | undefined => {
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).localName === name && (node as Element).namespaceURI === namespace) return (node.textContent ?? "").trim();
  }
  return undefined;
};

export interface AuthnRequest {
  id: string;
  issuer: string;
  /** The ACS URL the request names, if any (it must be the registered one). */
  acsUrl: string | undefined;
}

/** The fields of an AuthnRequest (decoded XML) the IdP acts on. */
export function parseAuthnRequest(xml: string): AuthnRequest {
  const root = parseSamlXml(xml, "AuthnRequest").documentElement;
  if (root.localName !== "AuthnRequest" || root.namespaceURI !== PROTOCOL_NS) throw new SamlRefusal(400, "SAMLRequest is not a SAML 2.0 AuthnRequest");
  const id = root.getAttribute("ID") ?? "";
  if (!/^[A-Za-z_][\w.-]{0,255}$/.test(id)) throw new SamlRefusal(400, "the AuthnRequest has no valid ID");
  const issuer = childText(root, ASSERTION_NS, "Issuer");
  if (!issuer) throw new SamlRefusal(400, "the AuthnRequest names no Issuer");
  return { id, issuer, acsUrl: root.getAttribute("AssertionConsumerServiceURL") || undefined };
}

/** An AuthnRequest as HTTP-Redirect carries it (raw DEFLATE, base64) or as HTTP-POST does (base64). */
export function decodeSamlRequest(value: string, binding: "redirect" | "post"): string {
  const bytes = Buffer.from(value, "base64");
  if (binding === "post") return bytes.toString("utf8");
  try {
    return inflateRawSync(bytes, { maxOutputLength: MAX_REQUEST_BYTES }).toString("utf8");
  } catch {
    throw new SamlRefusal(400, "SAMLRequest is not a DEFLATE-encoded message (HTTP-Redirect binding)");
  }
}

const encodeRedirect = (xml: string) => deflateRawSync(Buffer.from(xml, "utf8")).toString("base64");
const instant = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
const samlId = () => `_${randomBytes(20).toString("hex")}`;

/** The values of a user field an SP's attribute names. */
function fieldValues(user: UserRecord, field: UserField): string[] {
  if (field === "roles") return [...user.roles];
  const value = user[field];
  return value === null || value === undefined || value === "" ? [] : [String(value)];
}

/** Signs `xml` (a Response holding one Assertion): the Assertion, then the Response over it, each signature after its Issuer. */
export function signSamlResponse(xml: string, key: Pick<SAMLIDPKeyRecord, "private_key_pem" | "certificate_pem">): string {
  const sign = (document: string, element: "Assertion" | "Response") => {
    const signer = new SignedXml({
      privateKey: key.private_key_pem,
      publicCert: key.certificate_pem,
      signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    });
    const path = element === "Response" ? "/*[local-name(.)='Response']" : "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";
    signer.addReference({
      xpath: path,
      transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
      digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    });
    signer.computeSignature(document, { location: { reference: `${path}/*[local-name(.)='Issuer']`, action: "after" } });
    return signer.getSignedXml();
  };
  return sign(sign(xml, "Assertion"), "Response");
}

export interface AssertionRequest {
  idpEntityId: string;
  sp: Pick<SAMLServiceProvider, "entity_id" | "acs_url" | "name_id_format" | "mapped_attributes">;
  user: UserRecord;
  sessionIndex: string;
  authnInstant: number;
  inResponseTo: string | undefined;
  now: number;
}

/** The unsigned Response: the NameID the SP's format asks for, its attribute mapping applied, audience, recipient and a 5-minute validity. */
export function assertionResponseXml(request: AssertionRequest): string {
  const { sp, user, now } = request;
  const format = sp.name_id_format ?? (user.email ? NAMEID_EMAIL : NAMEID_PERSISTENT);
  const nameId = format === NAMEID_PERSISTENT ? user.id : format === NAMEID_TRANSIENT ? samlId() : (user.email ?? user.id);
  const mapping = Object.keys(sp.mapped_attributes ?? {}).length > 0 ? (sp.mapped_attributes as Record<string, unknown>) : DEFAULT_ATTRIBUTES;
  const attributes = Object.entries(mapping)
    .filter((entry): entry is [string, UserField] => (USER_FIELDS as readonly unknown[]).includes(entry[1]))
    .map(([name, field]) => [name, fieldValues(user, field)] as const)
    .filter(([, values]) => values.length > 0)
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeMarkup(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values.map((value) => `<saml:AttributeValue>${escapeMarkup(value)}</saml:AttributeValue>`).join("")}</saml:Attribute>`,
    )
    .join("");
  const inResponseTo = request.inResponseTo ? ` InResponseTo="${escapeMarkup(request.inResponseTo)}"` : "";
  const issuer = `<saml:Issuer>${escapeMarkup(request.idpEntityId)}</saml:Issuer>`;
  const until = instant(now + ASSERTION_SECONDS);
  return (
    `<samlp:Response xmlns:samlp="${PROTOCOL_NS}" xmlns:saml="${ASSERTION_NS}" ID="${samlId()}" Version="2.0" IssueInstant="${instant(now)}" Destination="${escapeMarkup(sp.acs_url)}"${inResponseTo}>` +
    issuer +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${samlId()}" Version="2.0" IssueInstant="${instant(now)}">` +
    issuer +
    `<saml:Subject><saml:NameID Format="${escapeMarkup(format)}">${escapeMarkup(nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${escapeMarkup(sp.acs_url)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${instant(now - 30)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${escapeMarkup(sp.entity_id)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${instant(request.authnInstant)}" SessionIndex="${escapeMarkup(request.sessionIndex)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : "") +
    `</saml:Assertion></samlp:Response>`
  );
}

/** Where an organization's SAML endpoints live. */
export function samlUrls(issuer: string, orgId: string) {
  const base = `${issuer}/saml/${encodeURIComponent(orgId)}`;
  return { idpEntityId: `${base}/metadata`, metadata: `${base}/metadata`, sso: `${base}/sso`, spEntityId: `${base}/sp`, acs: `${base}/acs`, spMetadata: `${base}/sp-metadata` };
}

/** The IdP metadata of an organization: every current or published key, the current one first; null when it has none. */
export async function organizationIdpMetadata(core: Core, orgId: string): Promise<string | null> {
  const keys = await core.storage.samlIdpKeys.list({ org_id: orgId, status: { ne: "retired" } });
  if (keys.length === 0) return null;
  const urls = samlUrls(core.config.issuer, orgId);
  // The current key first: service providers that read one key read the signing one.
  const ordered = [...keys.filter((key) => key.status === "current"), ...keys.filter((key) => key.status !== "current")];
  return idpMetadataXml(
    urls.idpEntityId,
    [
      { binding: HTTP_REDIRECT, location: urls.sso },
      { binding: HTTP_POST, location: urls.sso },
    ],
    ordered.map((key) => key.certificate_pem),
  );
}

/** The service as SP of an organization's upstream SAML connection. */
export class UpstreamSaml implements UpstreamSignIn {
  constructor(private readonly core: Core) {}

  private endpoints(connection: OrgSAMLConnectionRecord) {
    const urls = samlUrls(this.core.config.issuer, connection.org_id);
    return { entityId: connection.sp_entity_id ?? urls.spEntityId, acs: connection.acs_url ?? urls.acs };
  }

  /** node-saml for one connection; `requests` keeps the AuthnRequests it sends (InResponseTo) in the database, so any replica can take the answer. */
  private saml(connection: OrgSAMLConnectionRecord, requests: CacheProvider): SAML {
    const { entityId, acs } = this.endpoints(connection);
    return new SAML({
      entryPoint: connection.idp_sso_url,
      issuer: entityId,
      callbackUrl: acs,
      audience: entityId,
      idpCert: connection.idp_certificate,
      idpIssuer: connection.idp_entity_id,
      // A signature over the response or over its assertion, either one (node-saml refuses neither).
      wantAuthnResponseSigned: false,
      wantAssertionsSigned: false,
      validateInResponseTo: connection.allow_idp_initiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: REQUEST_SECONDS * 1000,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      cacheProvider: requests,
    });
  }

  private requestKey = (connection: OrgSAMLConnectionRecord, requestId: string) => sha256(`saml-request\n${connection.id}\n${requestId}`);

  async start(input: OauthAuthorizeInput, hint: string): Promise<string | null> {
    const orgId = await orgForEmailDomain(this.core, hint);
    if (!orgId) return null;
    const { saml: connection } = await ssoConnectionsFor(this.core, orgId);
    if (!connection) return null;
    const { storage } = this.core;
    await storage.ssoTransactions.deleteWhere({ expires_at: { lte: nowSeconds(this.core) } });
    const requests: CacheProvider = {
      saveAsync: async (requestId, value) => {
        await storage.ssoTransactions.insert({
          state_hash: this.requestKey(connection, requestId),
          connection_id: connection.id,
          org_id: orgId,
          code_verifier: "",
          nonce: requestId,
          authorize_query: authorizeQuery(input),
          expires_at: nowSeconds(this.core) + REQUEST_SECONDS,
        });
        return { value, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    return this.saml(connection, requests).getAuthorizeUrlAsync("", undefined, {});
  }

  /** Takes a response the organization's IdP posted: where the browser goes next, or a page saying why not. */
  async consume(
    orgId: string,
    form: URLSearchParams,
    finish: AuthorizationContinuation,
    openSession: (user: UserRecord) => Promise<string>,
  ): Promise<{ location: string } | { signedIn: UserRecord; cookie: string }> {
    const { storage } = this.core;
    const { saml: connection } = await ssoConnectionsFor(this.core, orgId);
    // Deleting the connection (or disabling the organization) stops the next login at once.
    if (!connection) throw new SamlRefusal(404, "the organization has no SAML connection");
    const encoded = form.get("SAMLResponse");
    if (!encoded) throw new SamlRefusal(400, "the form carries no SAMLResponse");
    parseSamlXml(Buffer.from(encoded, "base64").toString("utf8"), "SAML response");
    // The sign-in this service started that the response answers (node-saml looks its InResponseTo up, twice).
    let transaction: { key: string; record: Awaited<ReturnType<typeof storage.ssoTransactions.get>> } | undefined;
    const requests: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (requestId) => {
        const key = this.requestKey(connection, requestId);
        if (transaction?.key !== key) transaction = { key, record: await storage.ssoTransactions.get(key) };
        const found = transaction.record;
        // node-saml reads the value as the instant the request was made.
        return found && found.expires_at > nowSeconds(this.core) ? new Date((found.expires_at - REQUEST_SECONDS) * 1000).toISOString() : null;
      },
      removeAsync: async () => null,
    };
    let profile: Profile | null = null;
    let refusal: string | undefined;
    try {
      ({ profile } = await this.saml(connection, requests).validatePostResponseAsync({ SAMLResponse: encoded }));
    } catch (error) {
      refusal = `the identity provider's response was refused: ${(error as Error).message}`;
    }
    // A sign-in is answered once, accepted or not.
    if (transaction?.record) await storage.ssoTransactions.delete(transaction.key);
    const original = transaction?.record ? (Object.fromEntries(new URLSearchParams(transaction.record.authorize_query)) as unknown as OauthAuthorizeInput) : undefined;
    const refuse = (description: string) => {
      if (original) return { location: authorizationError(original, this.core.config.issuer, "access_denied", description) };
      throw new SamlRefusal(403, description);
    };
    if (refusal !== undefined) return refuse(refusal);
    if (!profile) return refuse("the identity provider's response holds no assertion");

    // Each assertion signs in once, on any replica: its ID is kept until it would have expired.
    const assertion = (profile.getAssertion?.() as { Assertion?: { $?: { ID?: string } } } | undefined)?.Assertion;
    const assertionId = assertion?.$?.ID;
    if (!assertionId) return refuse("the assertion has no ID");
    await storage.usedAssertions.deleteWhere({ expires_at: { lte: nowSeconds(this.core) } });
    try {
      await storage.usedAssertions.insert({ key: sha256(`saml\n${connection.id}\n${assertionId}`), expires_at: nowSeconds(this.core) + REQUEST_SECONDS + CLOCK_SKEW_MS / 1000 });
    } catch (error) {
      if (error instanceof ServiceError && error.code === "ALREADY_EXISTS") return refuse("this assertion was used already");
      throw error;
    }

    const attribute = (field: keyof typeof UPSTREAM_ATTRIBUTES): string | null => {
      const mapped = (connection.attribute_mapping as Record<string, unknown> | null)?.[field];
      const names = typeof mapped === "string" ? [mapped] : UPSTREAM_ATTRIBUTES[field];
      for (const name of names) {
        const value = (profile.attributes as Record<string, unknown> | undefined)?.[name];
        const first = Array.isArray(value) ? value[0] : value;
        if (typeof first === "string" && first.trim()) return first.trim();
      }
      return null;
    };
    const email = attribute("email") ?? (profile.nameIDFormat === NAMEID_EMAIL || profile.nameID.includes("@") ? profile.nameID : null);
    if (!email) return refuse("the identity provider named no email address");
    // SAML says nothing of verification: the address counts as verified when its domain is one the organization verified.
    const verified = (await orgForEmailDomain(this.core, email)) === orgId;
    const linked = await linkUpstreamUser(this.core, orgId, { email, verified, given_name: attribute("given_name"), family_name: attribute("family_name") });
    if ("refused" in linked) return refuse(linked.refused);
    if (original) return { location: await finish(original, linked.user.id) };
    // IdP-initiated (allowed by the connection): the browser is signed in here.
    return { signedIn: linked.user, cookie: await openSession(linked.user) };
  }

  /** The SP metadata an organization's IdP admin loads for this connection. */
  spMetadata(connection: OrgSAMLConnectionRecord): string {
    return this.saml(connection, { saveAsync: async () => null, getAsync: async () => null, removeAsync: async () => null }).generateServiceProviderMetadata(null, null);
  }
}

export interface SamlRoutesOptions {
  deps: Deps;
  upstream: UpstreamSaml;
  finish: AuthorizationContinuation;
  onInternalError?: (operation: string, error: unknown) => void;
}

function sendMetadata(response: ServerResponse, xml: string): void {
  response.writeHead(200, { "content-type": "application/samlmetadata+xml; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" });
  response.end(xml);
}

export function samlRoutes({ deps, upstream, finish, onInternalError }: SamlRoutesOptions): HttpMount {
  const { core, sessions } = deps;
  const { storage, config } = core;

  /** A page that posts the signed response to the SP's ACS URL (HTTP-POST binding); a button where scripts do not run. */
  function postToSp(response: ServerResponse, acsUrl: string, samlResponse: string, relayState: string | null) {
    const nonce = randomBytes(16).toString("base64");
    const fields = `<input type="hidden" name="SAMLResponse" value="${escapeMarkup(samlResponse)}">${relayState ? `<input type="hidden" name="RelayState" value="${escapeMarkup(relayState)}">` : ""}`;
    sendPage(
      response,
      200,
      page(
        "Signing you in",
        `<form method="post" action="${escapeMarkup(acsUrl)}">${fields}<noscript><button type="submit">Continue</button></noscript></form><script nonce="${nonce}">document.forms[0].submit()</script>`,
      ),
      { "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'` },
    );
  }

  async function sso(request: IncomingMessage, response: ServerResponse, orgId: string, params: URLSearchParams) {
    const org = await storage.organizations.get(orgId);
    if (!org?.enabled || !config.features.is_saml_idp_enabled) throw new SamlRefusal(404, "no SAML identity provider here");
    const key = await storage.samlIdpKeys.find({ org_id: orgId, status: "current" });
    if (!key) throw new SamlRefusal(404, "the organization's SAML identity provider has no signing key yet (rotate_saml_idp_cert makes one)");
    const encoded = params.get("SAMLRequest");
    const relayState = params.get("RelayState");
    // SP-initiated (an AuthnRequest names the SP), or IdP-initiated (?sp=<entity id>).
    const authnRequest = encoded ? parseAuthnRequest(decodeSamlRequest(encoded, "redirect")) : undefined;
    const entityId = authnRequest?.issuer ?? params.get("sp");
    if (!entityId) throw new SamlRefusal(400, "send an AuthnRequest (SAMLRequest), or name the service provider (?sp=<entity id>) for an IdP-initiated login");
    const sp = await storage.samlServiceProviders.find({ org_id: orgId, entity_id: entityId });
    if (!sp?.is_active) throw new SamlRefusal(403, "the service provider is not registered with this organization, or is inactive");
    if (!authnRequest && !sp.allow_idp_initiated) throw new SamlRefusal(403, "the service provider does not accept IdP-initiated logins");
    if (authnRequest?.acsUrl !== undefined && authnRequest.acsUrl !== sp.acs_url) {
      throw new SamlRefusal(400, "the AuthnRequest's AssertionConsumerServiceURL is not the one registered for the service provider");
    }
    const signedIn = await signedInUser(deps, readPageCookie(request, SIGNIN_COOKIE));
    if (!signedIn) {
      // Back here once signed in.
      const back = new URLSearchParams();
      if (encoded) back.set("SAMLRequest", encoded);
      else back.set("sp", sp.entity_id);
      if (relayState) back.set("RelayState", relayState);
      return seeOther(response, `${config.issuer}${SIGNIN_PATH}?${new URLSearchParams({ return_to: `/saml/${encodeURIComponent(orgId)}/sso?${back}` })}`);
    }
    const now = nowSeconds(core);
    const xml = assertionResponseXml({
      idpEntityId: samlUrls(config.issuer, orgId).idpEntityId,
      sp,
      user: signedIn.user,
      sessionIndex: signedIn.session.id,
      authnInstant: signedIn.session.created_at,
      inResponseTo: authnRequest?.id,
      now,
    });
    postToSp(response, sp.acs_url, Buffer.from(signSamlResponse(xml, key), "utf8").toString("base64"), relayState);
  }

  async function acs(request: IncomingMessage, response: ServerResponse, orgId: string, form: URLSearchParams) {
    const answer = await upstream.consume(orgId, form, finish, async (user) => (await sessions.open(user, {})).cookie);
    if ("location" in answer) return seeOther(response, answer.location);
    sendPage(response, 200, page("Signed in", `<p>You are signed in as ${escapeMarkup(answer.signedIn.email ?? answer.signedIn.id)}.</p>`), {
      "set-cookie": pageCookie(request, SIGNIN_COOKIE, answer.cookie, { sameSite: "Lax", maxAgeSeconds: config.sessionSeconds }),
    });
  }

  return {
    prefix: "/saml",
    async handle(request, response, context) {
      const url = new URL(request.url ?? "/", "http://saml.invalid");
      const [, , rawOrg, endpoint, ...rest] = url.pathname.split("/");
      try {
        if (!rawOrg || !endpoint || rest.length > 0) throw new SamlRefusal(404, "no such SAML endpoint");
        const orgId = decodeURIComponent(rawOrg);
        const method = request.method ?? "GET";
        if (method === "POST") {
          if (endpoint !== "sso" && endpoint !== "acs") throw new SamlRefusal(405, "this SAML endpoint takes GET");
          await context.admit("write");
          if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers["content-type"] ?? "")) throw new SamlRefusal(415, "send the SAML message as an HTML form posts it");
          const form = new URLSearchParams(await context.readBody(request));
          if (endpoint === "acs") return await acs(request, response, orgId, form);
          // An SP's page posts the AuthnRequest cross-site, which carries no SameSite=Lax session
          // cookie: the same request again as a top-level GET (HTTP-Redirect encoding) does.
          const encoded = form.get("SAMLRequest");
          if (!encoded) throw new SamlRefusal(400, "the form carries no SAMLRequest");
          const again = new URLSearchParams({ SAMLRequest: encodeRedirect(decodeSamlRequest(encoded, "post")) });
          const relayState = form.get("RelayState");
          if (relayState) again.set("RelayState", relayState);
          return seeOther(response, `${config.issuer}/saml/${encodeURIComponent(orgId)}/sso?${again}`);
        }
        if (method !== "GET" && method !== "HEAD") throw new SamlRefusal(405, "SAML endpoints take GET or POST");
        await context.admit("read");
        if (endpoint === "metadata") {
          const org = await storage.organizations.get(orgId);
          const xml = org?.enabled && config.features.is_saml_idp_enabled ? await organizationIdpMetadata(core, orgId) : null;
          if (!xml) throw new SamlRefusal(404, "the organization has no SAML identity provider keys (rotate_saml_idp_cert makes one)");
          return sendMetadata(response, xml);
        }
        if (endpoint === "sp-metadata") {
          const { saml: connection } = await ssoConnectionsFor(core, orgId);
          if (!connection) throw new SamlRefusal(404, "the organization has no SAML connection");
          return sendMetadata(response, upstream.spMetadata(connection));
        }
        if (endpoint === "sso") return await sso(request, response, orgId, url.searchParams);
        throw new SamlRefusal(endpoint === "acs" ? 405 : 404, endpoint === "acs" ? "the assertion consumer service takes the IdP's POST" : "no such SAML endpoint");
      } catch (error) {
        if (error instanceof SamlRefusal) return sendPage(response, error.status, page("SAML sign-in refused", `<p>${escapeMarkup(error.message)}</p>`));
        sendFailurePage(response, error, { operation: "saml", title: "SAML sign-in failed" }, onInternalError);
      }
    },
  };
}
