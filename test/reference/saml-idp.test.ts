// §3: SAML IdP keys (rotate demotes the current key to published; only published keys retire;
// retired keys leave the metadata), service providers, and SP metadata import.
import { createPrivateKey, generateKeyPairSync, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../../reference/x509.js";
import { createHarness, expectCode, type Harness } from "./context.js";

async function withOrg(harness: Harness) {
  return (await harness.call("createOrganization", { name: "acme" })).id;
}

function spCertificateBase64(): string {
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pem = selfSignedCertificate({ ...pair, commonName: "sp.example.com", notBefore: new Date(), notAfter: new Date(Date.now() + 864e5) });
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
}

describe("SAML IdP keys", () => {
  it("rotation makes a new current key and demotes the previous one to published", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    expect((await h.call("listSAMLIDPKeys", { org_id: orgId })).keys).toEqual([]);

    const first = await h.call("rotateSAMLIDPCert", { org_id: orgId });
    expect(first.status).toBe("current");
    const second = await h.call("rotateSAMLIDPCert", { org_id: orgId });
    expect(second.status).toBe("current");

    const keys = (await h.call("listSAMLIDPKeys", { org_id: orgId })).keys;
    expect(keys.map((k) => [k.id, k.status])).toEqual([
      [first.id, "published"],
      [second.id, "current"],
    ]);
    // The published key still verifies: it stays in the metadata, after the current one.
    const metadata = (await h.service.state.samlIdpMetadata(orgId))!;
    const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
    expect(metadata.indexOf(body(second.certificate_pem))).toBeGreaterThan(0);
    expect(metadata.indexOf(body(first.certificate_pem))).toBeGreaterThan(metadata.indexOf(body(second.certificate_pem)));
  });

  it("the certificate is a valid self-signed X.509 certificate and the private key is never answered", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    const key = await h.callRaw("rotateSAMLIDPCert", { org_id: orgId });
    const certificate = new X509Certificate(key.certificate_pem);
    expect(certificate.subject).toContain("acme SAML IdP");
    expect(certificate.verify(certificate.publicKey)).toBe(true);

    const listed = await h.callRaw("listSAMLIDPKeys", { org_id: orgId });
    for (const answer of [key, listed]) expect(JSON.stringify(answer)).not.toMatch(/PRIVATE KEY/);
    const stored = await h.service.state.storage.samlIdpKeys.get(key.id);
    expect(stored!.private_key_pem).toMatch(/BEGIN PRIVATE KEY/);
    expect(certificate.checkPrivateKey(createPrivateKey(stored!.private_key_pem))).toBe(true);
  });

  it("retiring a published key drops it from the metadata; the list still shows it as retired", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    const old = await h.call("rotateSAMLIDPCert", { org_id: orgId });
    await h.call("rotateSAMLIDPCert", { org_id: orgId });
    h.advance(60);

    const retired = await h.call("retireSAMLIDPKey", { id: old.id });
    expect(retired.status).toBe("retired");
    expect(retired.retired_at).toBe(Math.floor(h.now() / 1000));

    const metadata = (await h.service.state.samlIdpMetadata(orgId))!;
    expect(metadata).not.toContain(old.certificate_pem.split("\n")[1]);
    const listed = (await h.call("listSAMLIDPKeys", { org_id: orgId })).keys.find((k) => k.id === old.id);
    expect(listed?.status).toBe("retired");
    await expectCode(h.call("retireSAMLIDPKey", { id: old.id }), "FAILED_PRECONDITION");
  });

  it("the current key cannot be retired", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    const current = await h.call("rotateSAMLIDPCert", { org_id: orgId });
    const error = await expectCode(h.call("retireSAMLIDPKey", { id: current.id }), "FAILED_PRECONDITION");
    expect(error.message).toContain("current");
    expect((await h.call("listSAMLIDPKeys", { org_id: orgId })).keys[0]!.status).toBe("current");
  });

  it("concurrent rotations leave exactly one current key", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    await Promise.all([1, 2, 3].map(() => h.call("rotateSAMLIDPCert", { org_id: orgId })));
    const keys = (await h.call("listSAMLIDPKeys", { org_id: orgId })).keys;
    expect(keys.filter((k) => k.status === "current")).toHaveLength(1);
    expect(keys.filter((k) => k.status === "published")).toHaveLength(2);
  });

  it("unknown ids and organizations are NOT_FOUND", async () => {
    const h = createHarness();
    const error = await expectCode(h.call("retireSAMLIDPKey", { id: "nope" }), "NOT_FOUND");
    // Messages never echo what the caller sent.
    expect(error.message).toBe("SAML IdP key not found");
    await expectCode(h.call("rotateSAMLIDPCert", { org_id: "nope" }), "NOT_FOUND");
    await expectCode(h.call("listSAMLIDPKeys", { org_id: "nope" }), "NOT_FOUND");
  });
});

describe("SAML service providers", () => {
  it("create, update, get, list and delete; a deleted SP gets no more assertions", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    const sp = await h.call("createSAMLServiceProvider", { org_id: orgId, name: "Wiki", entity_id: "https://wiki.example.com/sp", acs_url: "https://wiki.example.com/acs" });
    expect(sp).toMatchObject({ org_id: orgId, is_active: true, allow_idp_initiated: false });
    await expectCode(h.call("createSAMLServiceProvider", { org_id: orgId, name: "Twin", entity_id: sp.entity_id, acs_url: "https://x.example.com/acs" }), "ALREADY_EXISTS");

    const updated = await h.call("updateSAMLServiceProvider", { id: sp.id, name: "Wiki 2", mapped_attributes: { email: "mail" } });
    expect(updated).toMatchObject({ name: "Wiki 2", entity_id: sp.entity_id, mapped_attributes: { email: "mail" } });
    expect(await h.call("getSAMLServiceProvider", { id: sp.id })).toEqual(updated);
    expect((await h.call("listSAMLServiceProviders", { org_id: orgId })).saml_service_providers).toEqual([updated]);
    expect(await h.service.state.samlServiceProviderFor(orgId, sp.entity_id)).toEqual({ id: sp.id, acs_url: sp.acs_url });

    await h.call("deleteSAMLServiceProvider", { id: sp.id });
    expect(await h.service.state.samlServiceProviderFor(orgId, sp.entity_id)).toBeNull();
    await expectCode(h.call("getSAMLServiceProvider", { id: sp.id }), "NOT_FOUND");
  });
});

describe("import_saml_sp_metadata", () => {
  const certificate = spCertificateBase64();
  const metadata = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://sp.example.com/metadata">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIBogus</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
      ${certificate.match(/.{1,64}/g)!.join("\n      ")}
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="https://sp.example.com/artifact" index="0"/>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example.com/acs?a=1&amp;b=2" index="1"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;

  it("answers the parsed fields and creates nothing", async () => {
    const h = createHarness();
    const orgId = await withOrg(h);
    const parsed = await h.call("importSAMLSPMetadata", { metadata_xml: metadata });
    expect(parsed).toMatchObject({
      entity_id: "https://sp.example.com/metadata",
      acs_url: "https://sp.example.com/acs?a=1&b=2",
      name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    });
    expect(new X509Certificate(parsed.sp_cert_pem!).subject).toContain("sp.example.com");
    expect((await h.call("listSAMLServiceProviders", { org_id: orgId })).pagination.total).toBe(0);
    expect(await h.service.state.storage.samlServiceProviders.list()).toEqual([]);
  });

  it.each([
    ["malformed XML", "<md:EntityDescriptor entityID='x'><md:SPSSODescriptor></md:EntityDescriptor>"],
    ["not XML at all", "entity_id=https://sp.example.com"],
    ["no entityID", `<EntityDescriptor><SPSSODescriptor><AssertionConsumerService Location="https://a.example.com/acs"/></SPSSODescriptor></EntityDescriptor>`],
    ["IdP metadata", `<EntityDescriptor entityID="x"><IDPSSODescriptor/></EntityDescriptor>`],
    ["no ACS", `<EntityDescriptor entityID="x"><SPSSODescriptor/></EntityDescriptor>`],
    ["a DOCTYPE", `<!DOCTYPE x [<!ENTITY e SYSTEM "http://169.254.169.254/">]><EntityDescriptor entityID="&e;"/>`],
  ])("refuses %s with INVALID_ARGUMENT", async (_label, xml) => {
    const h = createHarness();
    const error = await expectCode(h.call("importSAMLSPMetadata", { metadata_xml: xml }), "INVALID_ARGUMENT");
    expect(error.field).toBe("metadata_xml");
  });
});
