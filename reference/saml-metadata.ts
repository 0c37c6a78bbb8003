// SAML metadata: reading pasted SP metadata (nothing is fetched, nothing is created) and writing
// the IdP metadata of an organization from its published keys.
import { X509Certificate } from "node:crypto";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { SAMLSPMetadata } from "../generated/types.js";
import { invalid } from "./core.js";
import { escapeMarkup } from "../runtime/markup.js";

type Node = Record<string, unknown>;
const FIELD = "metadata_xml";
const HTTP_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const LIST_ELEMENTS = new Set(["EntityDescriptor", "SPSSODescriptor", "AssertionConsumerService", "KeyDescriptor", "NameIDFormat", "X509Certificate"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => LIST_ELEMENTS.has(name),
});

const asNodes = (value: unknown): Node[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is Node => typeof v === "object" && v !== null);
const textOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "object" && value !== null && typeof (value as Node)["#text"] === "string") return ((value as Node)["#text"] as string).trim() || undefined;
  return undefined;
};

/** Walks child elements by name, taking the first of each. */
function firstAlong(node: Node | undefined, ...names: string[]): unknown {
  let current: unknown = node;
  for (const name of names) {
    const next = (current as Node | undefined)?.[name];
    current = Array.isArray(next) ? next[0] : next;
  }
  return current;
}

function toPem(base64: string): string {
  const body = base64.replace(/\s+/g, "");
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw invalid(FIELD, "the signing certificate is not a valid X.509 certificate");
  }
  return pem;
}

function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The fields of the first SP in pasted metadata. INVALID_ARGUMENT when it is not SP metadata. */
export function parseSpMetadata(xml: string): SAMLSPMetadata {
  // A DTD can define entities that expand without bound or point outside; SP metadata needs none.
  if (/<!DOCTYPE/i.test(xml)) throw invalid(FIELD, "must not contain a DOCTYPE");
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw invalid(FIELD, `is not well-formed XML (line ${valid.err.line})`);
  const document = parser.parse(xml) as Node;
  const entity = asNodes(document.EntityDescriptor)[0] ?? asNodes(asNodes(document.EntitiesDescriptor)[0]?.EntityDescriptor)[0];
  if (!entity) throw invalid(FIELD, "has no EntityDescriptor");
  const entityId = typeof entity["@entityID"] === "string" ? entity["@entityID"].trim() : "";
  if (!entityId) throw invalid(FIELD, "the EntityDescriptor has no entityID");
  const sp = asNodes(entity.SPSSODescriptor)[0];
  if (!sp) throw invalid(FIELD, "has no SPSSODescriptor (is this IdP metadata?)");

  const services = asNodes(sp.AssertionConsumerService)
    .map((service) => ({
      location: typeof service["@Location"] === "string" ? service["@Location"].trim() : "",
      isDefault: service["@isDefault"] === "true",
      post: service["@Binding"] === HTTP_POST,
      index: Number(service["@index"] ?? Number.MAX_SAFE_INTEGER),
    }))
    .filter((service) => service.location !== "")
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || Number(b.post) - Number(a.post) || a.index - b.index);
  const acs = services[0];
  if (!acs) throw invalid(FIELD, "the SPSSODescriptor has no AssertionConsumerService with a Location");
  if (!isHttpUrl(acs.location)) throw invalid(FIELD, "the AssertionConsumerService Location is not an http or https URL");

  const signingKey = asNodes(sp.KeyDescriptor).find((key) => key["@use"] === undefined || key["@use"] === "signing");
  const certificateText = textOf(firstAlong(signingKey, "KeyInfo", "X509Data", "X509Certificate"));
  const nameIdFormat = (Array.isArray(sp.NameIDFormat) ? sp.NameIDFormat : []).map(textOf).find(Boolean);

  return {
    entity_id: entityId,
    acs_url: acs.location,
    sp_cert_pem: certificateText ? toPem(certificateText) : null,
    name_id_format: nameIdFormat ?? null,
  };
}

const pemBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");

/** IdP metadata naming every key that is current or published (retired keys are left out) and each SSO endpoint. */
export function idpMetadataXml(entityId: string, ssoServices: readonly { binding: string; location: string }[], certificates: readonly string[]): string {
  const keys = certificates
    .map((pem) => `    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${pemBody(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`)
    .join("\n");
  return [
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escapeMarkup(entityId)}">`,
    `  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`,
    keys,
    `    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>`,
    `    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>`,
    ...ssoServices.map((service) => `    <md:SingleSignOnService Binding="${escapeMarkup(service.binding)}" Location="${escapeMarkup(service.location)}"/>`),
    `  </md:IDPSSODescriptor>`,
    `</md:EntityDescriptor>`,
    "",
  ].join("\n");
}
