// Every state transition of spec §3, over each protocol, through the generated clients against
// the reference service served by the generated stubs. Token routes are REST whatever the
// protocol; what the operations cannot show (metadata, token checks, home-realm discovery, SSO
// routing) is read from the reference `state`.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { AdminClient, ApiError, UserClient, type Protocol } from "../../generated/client/index.js";
import { ASSERTION_JWT_BEARER } from "../../reference/ops/oauth.js";
import { DEFAULT_CLIENT_SECRET_GRACE_SECONDS } from "../../reference/service.js";
import { selfSignedCertificate } from "../../reference/x509.js";
import { ADMIN_SECRET, START_S, ciClusterIssuer, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys, type World } from "../helpers/reference-server.js";

const PROTOCOLS: readonly Protocol[] = ["graphql", "rest", "grpc"];
const PASSWORD = "transition-password-1";

let keys: TestKeys;
let server: SwappableServer;

beforeAll(async () => {
  keys = await makeTestKeys();
  server = await startSwappableServer(createWorld(keys, "boot").service);
});
afterAll(async () => {
  await server?.close();
});

/** The ApiError a call fails with (the test fails if it succeeds). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected the call to fail").toBeInstanceOf(ApiError);
  return error as ApiError;
}

const certificate = () => {
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return selfSignedCertificate({ ...pair, commonName: "idp.acme.example", notBefore: new Date(START_S * 1000), notAfter: new Date((START_S + 86400 * 365) * 1000) });
};

describe.each(PROTOCOLS)("§3 transitions over %s", (protocol) => {
  let world: World;
  let admin: AdminClient;
  let user: UserClient;

  beforeAll(() => {
    const common = { serviceUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint, protocol, serverVersion: schema.version, retry: false as const };
    admin = new AdminClient({ ...common, adminSecret: ADMIN_SECRET });
    user = new UserClient({ ...common, clientId: "reference" });
  });
  afterAll(async () => {
    await admin.close();
    await user.close();
  });
  beforeEach(() => {
    world = createWorld(keys, `transitions-${protocol}`);
    server.use(world.service);
    user.setAccessToken(undefined);
  });

  const state = () => world.service.state;
  const createOrg = async (name = "acme") => (await admin.createOrganization({ name })).id;

  describe("SAML IdP keys", () => {
    it("rotate makes a new current key and demotes the previous one to published; the current key cannot be retired; a retired key leaves the metadata", async () => {
      const orgId = await createOrg();
      expect(await state().samlIdpMetadata(orgId)).toBeNull();

      const first = await admin.rotateSAMLIDPCert({ org_id: orgId });
      expect(first).toMatchObject({ org_id: orgId, status: "current", retired_at: null });
      const second = await admin.rotateSAMLIDPCert({ org_id: orgId });
      expect(second.status).toBe("current");
      expect(second.certificate_pem).not.toBe(first.certificate_pem);

      // The previous current key is published: listed and in the metadata (it still verifies), no longer the signing key.
      const keysAfterRotation = await admin.listSAMLIDPKeys({ org_id: orgId });
      expect(keysAfterRotation.keys.map((k) => [k.id, k.status])).toEqual([
        [first.id, "published"],
        [second.id, "current"],
      ]);
      const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");
      const metadata = (await state().samlIdpMetadata(orgId))!;
      expect(metadata).toContain(body(first.certificate_pem));
      // The signing key is named first.
      expect(metadata.indexOf(body(second.certificate_pem))).toBeLessThan(metadata.indexOf(body(first.certificate_pem)));

      // The current key cannot be retired.
      const refused = await failure(admin.retireSAMLIDPKey({ id: second.id }));
      expect(refused).toMatchObject({ code: "FAILED_PRECONDITION", protocol });
      expect(refused.message).toMatch(/current signing key and cannot be retired/);
      expect((await admin.listSAMLIDPKeys({ org_id: orgId })).keys.find((k) => k.id === second.id)?.status).toBe("current");

      // A published key retires and drops out of the metadata, but stays listed.
      world.advance(60);
      const retired = await admin.retireSAMLIDPKey({ id: first.id });
      expect(retired).toMatchObject({ id: first.id, status: "retired", retired_at: START_S + 60 });
      const after = (await state().samlIdpMetadata(orgId))!;
      expect(after).not.toContain(body(first.certificate_pem));
      expect(after).toContain(body(second.certificate_pem));
      expect((await admin.listSAMLIDPKeys({ org_id: orgId })).keys.map((k) => k.status)).toEqual(["retired", "current"]);
      // Retired is final.
      expect((await failure(admin.retireSAMLIDPKey({ id: first.id }))).code).toBe("FAILED_PRECONDITION");
    });
  });

  describe("org domains", () => {
    it("request answers the TXT record and leaves the domain pending; verify succeeds only once the record is published; then logins resolve", async () => {
      const orgId = await createOrg();
      const requested = await admin.requestOrgDomain({ org_id: orgId, domain: "acme.com" });
      expect(requested.domain).toMatchObject({ domain: "acme.com", status: "pending", verified_at: null });
      expect(requested.txt_record).toMatchObject({ record_type: "TXT", name: "_service-challenge.acme.com" });
      expect(await state().orgForEmailDomain("ann@acme.com")).toBeNull();

      // Without the record: refused, still pending.
      const refused = await failure(admin.verifyOrgDomain({ org_id: orgId, domain: "acme.com" }));
      expect(refused).toMatchObject({ code: "FAILED_PRECONDITION", protocol });
      expect(world.dnsLookups).toEqual(["_service-challenge.acme.com"]);
      // A record with another value is not enough either.
      world.dns.set(requested.txt_record.name, [["some-other-value"]]);
      expect((await failure(admin.verifyOrgDomain({ org_id: orgId, domain: "acme.com" }))).code).toBe("FAILED_PRECONDITION");
      // Still pending: asking again answers it (the list holds verified domains only).
      expect((await admin.requestOrgDomain({ org_id: orgId, domain: "acme.com" })).domain.status).toBe("pending");
      expect((await admin.orgDomains({ org_id: orgId })).domains).toEqual([]);
      expect(await state().orgForEmailDomain("ann@acme.com")).toBeNull();

      world.dns.set(requested.txt_record.name, [["v=spf1 -all"], [requested.txt_record.value]]);
      world.advance(30);
      const verified = await admin.verifyOrgDomain({ org_id: orgId, domain: "acme.com" });
      expect(verified).toMatchObject({ domain: "acme.com", org_id: orgId, status: "verified", verified_at: START_S + 30 });
      expect(await state().orgForEmailDomain("ann@acme.com")).toBe(orgId);
      expect((await admin.orgDomains({ org_id: orgId })).domains.map((d) => [d.domain, d.status])).toEqual([["acme.com", "verified"]]);
    });

    it("add_verified_org_domain: the super-admin skips the DNS challenge; an org-admin may not", async () => {
      const orgId = await createOrg();
      const added = await admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.io" });
      expect(added).toMatchObject({ status: "verified", verified_at: START_S });
      expect(world.dnsLookups).toEqual([]);
      expect(await state().orgForEmailDomain("bob@acme.io")).toBe(orgId);

      const { user: owner, access_token } = await user.signup({ email: "owner@acme.io", password: PASSWORD, confirm_password: PASSWORD });
      await admin.addOrgMember({ org_id: orgId, user_id: owner!.id, roles: ["service:org_admin"] });
      const asOrgAdmin = { headers: { "x-service-admin-secret": "", authorization: `Bearer ${access_token}` } };
      expect((await failure(admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.dev" }, asOrgAdmin))).code).toBe("PERMISSION_DENIED");
      // ... though the org-admin may request one, which goes through the challenge.
      expect((await admin.requestOrgDomain({ org_id: orgId, domain: "acme.dev" }, asOrgAdmin)).domain.status).toBe("pending");
      expect(await state().orgForEmailDomain("bob@acme.dev")).toBeNull();
    });

    it("delete: logins stop resolving to the organization", async () => {
      const orgId = await createOrg();
      await admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.com" });
      expect(await state().orgForEmailDomain("ann@acme.com")).toBe(orgId);
      expect(await admin.deleteOrgDomain({ domain: "acme.com" })).toEqual({ message: "domain acme.com deleted" });
      expect(await state().orgForEmailDomain("ann@acme.com")).toBeNull();
      expect(await state().ssoConnectionsForEmail("ann@acme.com")).toBeNull();
      expect((await admin.orgDomains({ org_id: orgId })).domains).toEqual([]);
      expect((await failure(admin.deleteOrgDomain({ domain: "acme.com" }))).code).toBe("NOT_FOUND");
    });
  });

  describe("clients", () => {
    const newClient = () => admin.createClient({ name: "billing", allowed_scopes: ["invoices:read"] });
    const tokenWith = (clientId: string, clientSecret: string) => user.oauthToken({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });

    it("delete stops the tokens already issued", async () => {
      const { client, client_secret } = await newClient();
      const { access_token } = await tokenWith(client.client_id, client_secret);
      expect(await state().verifyAccessToken(access_token)).toMatchObject({ client_id: client.client_id, scope: "invoices:read" });
      expect((await user.validateJWTToken({ token_type: "access_token", token: access_token })).is_valid).toBe(true);

      await admin.deleteClient({ id: client.id });
      expect(await state().verifyAccessToken(access_token)).toBeNull();
      expect(await user.validateJWTToken({ token_type: "access_token", token: access_token })).toEqual({ is_valid: false, claims: null });
      // Its secret no longer gets tokens, and the client is gone.
      expect(await failure(tokenWith(client.client_id, client_secret))).toMatchObject({ code: "UNAUTHENTICATED", oauthError: "invalid_client", protocol: "rest" });
      expect((await failure(admin.getClient({ id: client.id }))).code).toBe("NOT_FOUND");
    });

    it("rotate_client_secret answers the new secret once; the old one works during the grace window and stops after it", async () => {
      const { client, client_secret: oldSecret } = await newClient();
      world.advance(10);
      const rotated = await admin.rotateClientSecret({ id: client.id });
      const newSecret = rotated.client_secret;
      expect(newSecret).toMatch(/^cs_/);
      expect(newSecret).not.toBe(oldSecret);
      expect(rotated.client).toMatchObject({ id: client.id, updated_at: START_S + 10 });
      // Never again: not on get, not in the list.
      expect(JSON.stringify(await admin.getClient({ id: client.id }))).not.toContain(newSecret);
      expect(JSON.stringify(await admin.clients())).not.toContain(newSecret);

      expect((await tokenWith(client.client_id, newSecret)).access_token).toBeTruthy();
      world.advance(DEFAULT_CLIENT_SECRET_GRACE_SECONDS - 1);
      expect((await tokenWith(client.client_id, oldSecret)).access_token).toBeTruthy();
      world.advance(1);
      expect(await failure(tokenWith(client.client_id, oldSecret))).toMatchObject({ code: "UNAUTHENTICATED", oauthError: "invalid_client" });
      expect((await tokenWith(client.client_id, newSecret)).access_token).toBeTruthy();
    });
  });

  describe("SCIM endpoints", () => {
    it("rotate_scim_token answers a new token; the old one stops at once", async () => {
      const orgId = await createOrg();
      const created = await admin.createSCIMEndpoint({ org_id: orgId });
      expect(await state().verifyScimToken(created.token)).toEqual({ org_id: orgId, endpoint_id: created.scim_endpoint.id });
      expect(JSON.stringify(await admin.getSCIMEndpoint({ org_id: orgId }))).not.toContain(created.token);

      const rotated = await admin.rotateSCIMToken({ org_id: orgId });
      expect(rotated.token).not.toBe(created.token);
      expect(rotated.scim_endpoint.id).toBe(created.scim_endpoint.id);
      expect(await state().verifyScimToken(created.token)).toBeNull();
      expect(await state().verifyScimToken(rotated.token)).toEqual({ org_id: orgId, endpoint_id: created.scim_endpoint.id });
    });

    it("delete_scim_endpoint stops the provisioning token at once", async () => {
      const orgId = await createOrg();
      const { token } = await admin.createSCIMEndpoint({ org_id: orgId });
      await admin.deleteSCIMEndpoint({ org_id: orgId });
      expect(await state().verifyScimToken(token)).toBeNull();
      expect((await failure(admin.getSCIMEndpoint({ org_id: orgId }))).code).toBe("NOT_FOUND");
    });
  });

  describe("trusted issuers", () => {
    it("delete_trusted_issuer stops its assertions at once", async () => {
      const { client } = await admin.createClient({ name: "deployer", allowed_scopes: ["deploy"] });
      const issuer = await admin.addTrustedIssuer(ciClusterIssuer(client.id));
      const assertion = await world.issuerAssertion({ sub: "system:serviceaccount:ci:deployer", aud: "identity" });
      const exchange = () => user.oauthToken({ grant_type: "client_credentials", client_id: client.client_id, client_assertion_type: ASSERTION_JWT_BEARER, client_assertion: assertion });
      const token = await exchange();
      expect(token).toMatchObject({ token_type: "Bearer", scope: "deploy" });

      await admin.deleteTrustedIssuer({ id: issuer.id });
      expect(await failure(exchange())).toMatchObject({ code: "UNAUTHENTICATED", oauthError: "invalid_client", protocol: "rest" });
      expect((await failure(admin.getTrustedIssuer({ id: issuer.id }))).code).toBe("NOT_FOUND");
    });
  });

  describe("SAML service providers", () => {
    it("delete_saml_service_provider: no more assertions are issued to it", async () => {
      const orgId = await createOrg();
      const sp = await admin.createSAMLServiceProvider({ org_id: orgId, name: "wiki", entity_id: "https://wiki.example.com/saml", acs_url: "https://wiki.example.com/saml/acs" });
      expect(await state().samlServiceProviderFor(orgId, sp.entity_id)).toEqual({ id: sp.id, acs_url: sp.acs_url });
      await admin.deleteSAMLServiceProvider({ id: sp.id });
      expect(await state().samlServiceProviderFor(orgId, sp.entity_id)).toBeNull();
      expect((await failure(admin.getSAMLServiceProvider({ id: sp.id }))).code).toBe("NOT_FOUND");
    });
  });

  describe("org SSO connections", () => {
    it("deleting the OIDC and then the SAML connection stops SSO logins through each at once", async () => {
      const orgId = await createOrg();
      await admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.com" });
      const oidc = await admin.createOrgOIDCConnection({ org_id: orgId, name: "okta", issuer_url: "https://acme.okta.example", client_id: "acme", client_secret: "upstream-secret" });
      const saml = await admin.createOrgSAMLConnection({
        org_id: orgId,
        name: "adfs",
        idp_entity_id: "https://adfs.acme.example",
        idp_sso_url: "https://adfs.acme.example/ls",
        idp_certificate: certificate(),
      });
      expect(await state().ssoConnectionsForEmail("ann@acme.com")).toEqual({ org_id: orgId, oidc_connection_id: oidc.id, saml_connection_id: saml.id });

      await admin.deleteOrgOIDCConnection({ id: oidc.id });
      expect(await state().ssoConnectionsForEmail("ann@acme.com")).toEqual({ org_id: orgId, oidc_connection_id: null, saml_connection_id: saml.id });
      expect((await failure(admin.getOrgOIDCConnection({ org_id: orgId }))).code).toBe("NOT_FOUND");

      await admin.deleteOrgSAMLConnection({ id: saml.id });
      expect(await state().ssoConnectionsForEmail("ann@acme.com")).toEqual({ org_id: orgId, oidc_connection_id: null, saml_connection_id: null });
      expect((await failure(admin.getOrgSAMLConnection({ id: saml.id }))).code).toBe("NOT_FOUND");
    });
  });

  describe("users", () => {
    it("revoke_access: the user cannot log in and their tokens stop; enable_access: they can log in again", async () => {
      const signedUp = await user.signup({ email: "ann@example.com", password: PASSWORD, confirm_password: PASSWORD });
      const userId = signedUp.user!.id;
      user.setAccessToken(signedUp.access_token!);
      expect((await user.profile()).id).toBe(userId);

      world.advance(5);
      expect(await admin.revokeAccess({ user_id: userId })).toEqual({ message: `access of user ${userId} revoked` });
      expect((await admin.user({ id: userId })).revoked_timestamp).toBe(START_S + 5);
      expect((await failure(user.profile())).code).toBe("UNAUTHENTICATED");
      user.setAccessToken(undefined);
      const refused = await failure(user.login({ email: "ann@example.com", password: PASSWORD }));
      expect(refused).toMatchObject({ code: "PERMISSION_DENIED", message: "access of this user has been revoked", protocol });
      // The refresh token went with the sessions.
      expect((await failure(user.oauthToken({ grant_type: "refresh_token", refresh_token: signedUp.refresh_token! }))).code).toBe("FAILED_PRECONDITION");

      expect(await admin.enableAccess({ user_id: userId })).toEqual({ message: `access of user ${userId} enabled` });
      expect((await admin.user({ id: userId })).revoked_timestamp).toBeNull();
      const again = await user.login({ email: "ann@example.com", password: PASSWORD });
      user.setAccessToken(again.access_token!);
      expect((await user.profile()).id).toBe(userId);
    });
  });
});
