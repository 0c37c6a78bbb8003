// §3: organizations (unique names; delete cascades), members, org SSO connections (write-only
// secrets; get by id or org id; delete stops SSO logins) and the org-admin decision of hasRole.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import type { Collection } from "../../reference/storage.js";
import { selfSignedCertificate } from "../../reference/x509.js";
import { createHarness, expectCode, makeOrgAdmin, operationOf, signUp, type Harness } from "./context.js";
import type { ServiceError } from "../../runtime/errors.js";

const pem = (name: string) => {
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return selfSignedCertificate({ ...pair, commonName: name, notBefore: new Date(), notAfter: new Date(Date.now() + 864e5) });
};

const oidcInput = (orgId: string) => ({ org_id: orgId, name: "okta", issuer_url: "https://acme.okta.example.com", client_id: "acme-client", client_secret: "upstream-secret-1" });
const samlInput = (orgId: string, certificate: string) => ({
  org_id: orgId,
  name: "adfs",
  idp_entity_id: "https://adfs.acme.example.com",
  idp_sso_url: "https://adfs.acme.example.com/sso",
  idp_certificate: certificate,
});

describe("organizations", () => {
  it("names are unique", async () => {
    const h = createHarness();
    const acme = await h.call("createOrganization", { name: "acme", display_name: "Acme" });
    expect(acme).toMatchObject({ name: "acme", display_name: "Acme", enabled: true });
    await expectCode(h.call("createOrganization", { name: "acme" }), "ALREADY_EXISTS");
    const other = await h.call("createOrganization", { name: "other" });
    await expectCode(h.call("updateOrganization", { id: other.id, name: "acme" }), "ALREADY_EXISTS");
    expect(await h.call("updateOrganization", { id: other.id, name: "other-2", enabled: false })).toMatchObject({ name: "other-2", enabled: false, display_name: null });
    expect((await h.call("organizations", { pagination: { limit: 1, page: 2 } })).organizations.map((o) => o.name)).toEqual(["other-2"]);
    // The slug rule is the runtime's: it refuses before the implementation runs.
    await expectCode(h.call("createOrganization", { name: "Not A Slug" }), "INVALID_ARGUMENT");
  });

  it("a failure midway through delete_organization leaves the organization and everything of it in place", async () => {
    const h = createHarness();
    const user = await signUp(h, "alice@acme.com");
    const org = await h.call("createOrganization", { name: "acme" });
    await h.call("addOrgMember", { org_id: org.id, user_id: user.userId });
    await h.call("addVerifiedOrgDomain", { org_id: org.id, domain: "acme.com" });
    await h.call("createOrgOIDCConnection", oidcInput(org.id));
    await h.call("createSCIMEndpoint", { org_id: org.id });
    await h.call("rotateSAMLIDPCert", { org_id: org.id });
    const { storage } = h.service.state;
    const counts = async () =>
      Promise.all(
        [storage.orgMembers, storage.orgDomains, storage.orgOidcConnections, storage.samlIdpKeys, storage.scimEndpoints, storage.organizations].map((c) =>
          (c as Collection<unknown, { org_id: string }>).count(c === storage.organizations ? {} : { org_id: org.id }),
        ),
      );
    const before = await counts();
    expect(before).toEqual([1, 1, 1, 1, 1, 1]);
    // The SAML service providers go after members, domains and connections, before keys and the organization.
    const deleteWhere = storage.samlServiceProviders.deleteWhere.bind(storage.samlServiceProviders);
    storage.samlServiceProviders.deleteWhere = async (where) => {
      await deleteWhere(where);
      throw new Error("injected failure");
    };
    await expect(h.call("deleteOrganization", { id: org.id })).rejects.toThrow("injected failure");
    storage.samlServiceProviders.deleteWhere = deleteWhere;
    expect(await counts()).toEqual(before);
    expect(await h.service.state.orgForEmailDomain("bob@acme.com")).toBe(org.id);
    await h.call("deleteOrganization", { id: org.id });
    expect(await counts()).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("a failure midway through rotate_saml_idp_cert keeps the current key current", async () => {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    const first = await h.call("rotateSAMLIDPCert", { org_id: org.id });
    const { storage } = h.service.state;
    const insert = storage.samlIdpKeys.insert.bind(storage.samlIdpKeys);
    storage.samlIdpKeys.insert = async () => {
      throw new Error("injected failure");
    };
    await expect(h.call("rotateSAMLIDPCert", { org_id: org.id })).rejects.toThrow("injected failure");
    storage.samlIdpKeys.insert = insert;
    expect((await h.call("listSAMLIDPKeys", { org_id: org.id })).keys.map((k) => [k.id, k.status])).toEqual([[first.id, "current"]]);
  });

  it("delete cascades to members, domains, SSO connections, SAML SPs and keys, and the SCIM endpoint", async () => {
    const h = createHarness();
    const user = await signUp(h, "alice@acme.com");
    const org = await h.call("createOrganization", { name: "acme" });
    const keep = await h.call("createOrganization", { name: "keep" });
    for (const orgId of [org.id, keep.id]) {
      await h.call("addOrgMember", { org_id: orgId, user_id: user.userId });
      await h.call("addVerifiedOrgDomain", { org_id: orgId, domain: `${orgId}.example.com` });
      await h.call("createOrgOIDCConnection", oidcInput(orgId));
      await h.call("createOrgSAMLConnection", samlInput(orgId, pem("idp")));
      await h.call("createSAMLServiceProvider", { org_id: orgId, name: "wiki", entity_id: "https://wiki", acs_url: "https://wiki.example.com/acs" });
      await h.call("createSCIMEndpoint", { org_id: orgId });
    }
    await h.call("rotateSAMLIDPCert", { org_id: org.id });
    const { token } = await h.call("rotateSCIMToken", { org_id: org.id });

    await h.call("deleteOrganization", { id: org.id });
    const { storage } = h.service.state;
    for (const collection of [
      storage.orgMembers,
      storage.orgDomains,
      storage.orgOidcConnections,
      storage.orgSamlConnections,
      storage.samlServiceProviders,
      storage.samlIdpKeys,
      storage.scimEndpoints,
    ]) {
      expect(await (collection as Collection<unknown, { org_id: string }>).count({ org_id: org.id })).toBe(0);
      // The other organization keeps its own (it has no IdP key: it never rotated).
      if (collection !== storage.samlIdpKeys) expect(await (collection as Collection<unknown, { org_id: string }>).count({ org_id: keep.id })).toBeGreaterThan(0);
    }
    expect(await h.service.state.verifyScimToken(token)).toBeNull();
    expect(await h.service.state.orgForEmailDomain(`bob@${org.id}.example.com`)).toBeNull();
    expect(await h.service.state.orgForEmailDomain(`bob@${keep.id}.example.com`)).toBe(keep.id);
    expect((await h.call("userOrganizations", { user_id: user.userId })).organizations.map((o) => o.organization.id)).toEqual([keep.id]);
    await expectCode(h.call("getOrganization", { id: org.id }), "NOT_FOUND");
    // The user itself is not the organization's to delete.
    expect(await storage.users.get(user.userId)).toBeDefined();
  });

  it("members: add (roles default to member), list with current profile, remove", async () => {
    const h = createHarness();
    const alice = await signUp(h, "alice@acme.com");
    const org = await h.call("createOrganization", { name: "acme" });
    const member = await h.call("addOrgMember", { org_id: org.id, user_id: alice.userId });
    expect(member).toMatchObject({ org_id: org.id, user_id: alice.userId, email: "alice@acme.com", roles: ["member"] });
    await expectCode(h.call("addOrgMember", { org_id: org.id, user_id: alice.userId }), "ALREADY_EXISTS");
    await expectCode(h.call("addOrgMember", { org_id: org.id, user_id: "nope" }), "NOT_FOUND");

    await h.call("updateUser", { id: alice.userId, given_name: "Alice" });
    const members = await h.call("orgMembers", { org_id: org.id });
    expect(members.members[0]).toMatchObject({ given_name: "Alice" });
    expect(members.pagination.total).toBe(1);

    await h.call("removeOrgMember", { org_id: org.id, user_id: alice.userId });
    expect((await h.call("orgMembers", { org_id: org.id })).members).toEqual([]);
    await expectCode(h.call("removeOrgMember", { org_id: org.id, user_id: alice.userId }), "NOT_FOUND");
  });
});

describe("org SSO connections", () => {
  it("the OIDC client secret is write-only: never answered, kept when omitted, replaced when supplied", async () => {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    const created = await h.callRaw("createOrgOIDCConnection", oidcInput(org.id));
    expect(created).toMatchObject({ org_id: org.id, scopes: ["openid", "email", "profile"] });
    const state = h.service.state;
    expect(await state.oidcClientSecretMatches(created.id, "upstream-secret-1")).toBe(true);

    const renamed = await h.callRaw("updateOrgOIDCConnection", { id: created.id, name: "okta-2" });
    expect(renamed.name).toBe("okta-2");
    expect(await state.oidcClientSecretMatches(created.id, "upstream-secret-1")).toBe(true);

    await h.call("updateOrgOIDCConnection", { id: created.id, client_secret: "upstream-secret-2" });
    expect(await state.oidcClientSecretMatches(created.id, "upstream-secret-1")).toBe(false);
    expect(await state.oidcClientSecretMatches(created.id, "upstream-secret-2")).toBe(true);

    for (const answer of [created, renamed, await h.callRaw("getOrgOIDCConnection", { id: created.id }), await h.callRaw("getOrgOIDCConnection", { org_id: org.id })]) {
      expect(JSON.stringify(answer)).not.toMatch(/upstream-secret|client_secret/);
    }
    await expectCode(h.call("createOrgOIDCConnection", oidcInput(org.id)), "ALREADY_EXISTS");
  });

  it("the SAML IdP certificate is write-only: never answered, kept when omitted, replaced when supplied", async () => {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    const first = pem("idp-1");
    const created = await h.callRaw("createOrgSAMLConnection", samlInput(org.id, first));
    expect(await h.service.state.samlConnectionCertificate(created.id)).toBe(first);

    await h.call("updateOrgSAMLConnection", { id: created.id, attribute_mapping: { email: "mail" }, allow_idp_initiated: true });
    expect(await h.service.state.samlConnectionCertificate(created.id)).toBe(first);
    const second = pem("idp-2");
    const updated = await h.callRaw("updateOrgSAMLConnection", { id: created.id, idp_certificate: second });
    expect(updated).toMatchObject({ attribute_mapping: { email: "mail" }, allow_idp_initiated: true });
    expect(await h.service.state.samlConnectionCertificate(created.id)).toBe(second);

    const body = first.split("\n")[1]!;
    for (const answer of [created, updated, await h.callRaw("getOrgSAMLConnection", { org_id: org.id })]) {
      expect(JSON.stringify(answer)).not.toContain(body);
      expect(JSON.stringify(answer)).not.toContain("CERTIFICATE");
    }
    await expectCode(h.call("updateOrgSAMLConnection", { id: created.id, idp_certificate: "not a certificate" }), "INVALID_ARGUMENT");
  });

  it("get works by id or by org id; the runtime refuses both or neither", async () => {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    const connection = await h.call("createOrgOIDCConnection", oidcInput(org.id));
    expect(await h.call("getOrgOIDCConnection", { id: connection.id })).toEqual(await h.call("getOrgOIDCConnection", { org_id: org.id }));
    await expectCode(h.call("getOrgOIDCConnection", { id: connection.id, org_id: org.id }), "INVALID_ARGUMENT");
    await expectCode(h.call("getOrgSAMLConnection", {}), "INVALID_ARGUMENT");
    await expectCode(h.call("getOrgSAMLConnection", { org_id: org.id }), "NOT_FOUND");
    await expectCode(h.call("getOrgOIDCConnection", { id: "nope" }), "NOT_FOUND");
  });

  it("delete stops SSO logins through the connection at once", async () => {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    await h.call("addVerifiedOrgDomain", { org_id: org.id, domain: "acme.com" });
    const oidc = await h.call("createOrgOIDCConnection", oidcInput(org.id));
    const saml = await h.call("createOrgSAMLConnection", samlInput(org.id, pem("idp")));
    expect(await h.service.state.ssoConnectionsForEmail("alice@acme.com")).toEqual({ org_id: org.id, oidc_connection_id: oidc.id, saml_connection_id: saml.id });

    await h.call("deleteOrgOIDCConnection", { id: oidc.id });
    expect(await h.service.state.ssoConnectionsForEmail("alice@acme.com")).toEqual({ org_id: org.id, oidc_connection_id: null, saml_connection_id: saml.id });
    await h.call("deleteOrgSAMLConnection", { id: saml.id });
    expect(await h.service.state.ssoConnectionsForEmail("alice@acme.com")).toEqual({ org_id: org.id, oidc_connection_id: null, saml_connection_id: null });
    await expectCode(h.call("deleteOrgSAMLConnection", { id: saml.id }), "NOT_FOUND");
  });
});

describe("hasRole: the org-admins of an organization", () => {
  async function setup() {
    const h = createHarness();
    const admin = await signUp(h, "admin@acme.com");
    const member = await signUp(h, "member@acme.com");
    const acme = await h.call("createOrganization", { name: "acme" });
    const other = await h.call("createOrganization", { name: "other" });
    await makeOrgAdmin(h, acme.id, admin.userId);
    await h.call("addOrgMember", { org_id: acme.id, user_id: member.userId });
    await h.call("addOrgMember", { org_id: other.id, user_id: member.userId, roles: ["member", schema.orgAdminRole] });
    return { h, admin, member, acme, other };
  }

  /** true, or false when refused: a refusal of an organization it can name says which and the role needed. */
  const decide = async (h: Harness, userId: string, method: Parameters<typeof operationOf>[0], input: Record<string, unknown>) => {
    try {
      return await h.service.serverOptions.hasRole({ kind: "user", userId, roles: [] }, operationOf(method), input);
    } catch (error) {
      expect((error as ServiceError).code).toBe("PERMISSION_DENIED");
      expect((error as ServiceError).message).toMatch(new RegExp(`the caller is not ${schema.orgAdminRole} of organization \\S+$`));
      return false;
    }
  };

  it("decides from input.org_id and the membership role", async () => {
    const { h, admin, acme, other } = await setup();
    expect(await decide(h, admin.userId, "orgMembers", { org_id: acme.id })).toBe(true);
    expect(await decide(h, admin.userId, "orgMembers", { org_id: other.id })).toBe(false);
    expect(await decide(h, admin.userId, "createSCIMEndpoint", { org_id: "missing" })).toBe(false);
  });

  it("decides from the organization of the resource named by id, or of the domain", async () => {
    const { h, admin, acme, other } = await setup();
    const mine = await h.call("createOrgOIDCConnection", oidcInput(acme.id));
    const theirs = await h.call("createOrgSAMLConnection", samlInput(other.id, pem("idp")));
    await h.call("addVerifiedOrgDomain", { org_id: acme.id, domain: "acme.com" });
    await h.call("addVerifiedOrgDomain", { org_id: other.id, domain: "other.com" });

    expect(await decide(h, admin.userId, "updateOrganization", { id: acme.id })).toBe(true);
    expect(await decide(h, admin.userId, "getOrganization", { id: other.id })).toBe(false);
    expect(await decide(h, admin.userId, "deleteOrgOIDCConnection", { id: mine.id })).toBe(true);
    expect(await decide(h, admin.userId, "getOrgSAMLConnection", { id: theirs.id })).toBe(false);
    expect(await decide(h, admin.userId, "deleteOrgDomain", { domain: "acme.com" })).toBe(true);
    expect(await decide(h, admin.userId, "deleteOrgDomain", { domain: "other.com" })).toBe(false);
    expect(await decide(h, admin.userId, "deleteOrgOIDCConnection", { id: "missing" })).toBe(false);
  });

  it("user_organizations: allowed for a shared administered org, and the answer holds only those orgs", async () => {
    const { h, admin, member, acme } = await setup();
    const stranger = await signUp(h, "stranger@else.com");
    expect(await decide(h, admin.userId, "userOrganizations", { user_id: member.userId })).toBe(true);
    expect(await decide(h, admin.userId, "userOrganizations", { user_id: stranger.userId })).toBe(false);

    const asAdmin = await h.call("userOrganizations", { user_id: member.userId }, { bearer: admin.accessToken });
    expect(asAdmin.organizations.map((o) => o.organization.id)).toEqual([acme.id]);
    const asSuperAdmin = await h.call("userOrganizations", { user_id: member.userId });
    expect(asSuperAdmin.organizations.map((o) => [o.organization.name, o.roles])).toEqual([
      ["acme", ["member"]],
      ["other", ["member", schema.orgAdminRole]],
    ]);
  });
});
