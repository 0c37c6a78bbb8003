// For the operations whose conformance scenario shows a refusal, a scenario in which the same call
// succeeds: the tests that need every operation's success path (the API reference's examples, the
// client openapi-python-client generates) run these instead. admin_signup and update_env always refuse.
import { expect } from "vitest";
import { sha256 } from "../../reference/secrets.js";
import { START_S } from "../helpers/reference-server.js";
import { FGA_MODEL, type OperationName, type Scenario } from "./scenarios.js";

export const SUCCEEDING_SCENARIOS: Partial<Record<OperationName, Scenario>> = {
  oauth_sso_callback: {
    about: "an upstream IdP's answer without a code, sent back to the client that asked",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const connection = await c.admin.createOrgOIDCConnection({ org_id: orgId, name: "okta", issuer_url: "https://acme.okta.example", client_id: "acme-app", client_secret: "upstream-secret-1" });
      const { client } = await c.admin.createClient({ name: "portal", allowed_scopes: ["invoices:read"], redirect_uris: ["https://app.example.com/cb"] });
      // A sign-in in flight at the upstream IdP, as /oauth/authorize leaves it.
      await c.state.storage.ssoTransactions.put({
        state_hash: sha256("sso_in-flight"),
        connection_id: connection.id,
        org_id: orgId,
        code_verifier: "upstream-verifier",
        nonce: "upstream-nonce",
        authorize_query: new URLSearchParams({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: "https://app.example.com/cb",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          state: "s-1",
        }).toString(),
        expires_at: START_S + 600,
      });
      return {};
    },
    input: () => ({ state: "sso_in-flight" }),
    expect: { ok: (a) => expect(a.location).toMatch(/^https:\/\/app\.example\.com\/cb\?error=access_denied&/) },
  },
  fga_get_model: {
    about: "the model written last",
    setup: async (c) => {
      await c.admin.fgaWriteModel({ dsl: FGA_MODEL });
      return {};
    },
    input: () => ({}),
    expect: { ok: (a) => expect(a).toEqual({ id: expect.any(String), dsl: FGA_MODEL, created_at: START_S }) },
  },
  get_client: {
    about: "by id, without its secret",
    setup: async (c) => ({ id: (await c.admin.createClient({ name: "billing", allowed_scopes: ["invoices:read"] })).client.id }),
    input: (v) => ({ id: v.id }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, name: "billing", allowed_scopes: ["invoices:read"], is_active: true }) },
  },
  retire_saml_idp_key: {
    about: "a published key that no longer signs",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const first = await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      return { id: first.id };
    },
    input: (v) => ({ id: v.id }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, status: "retired", retired_at: START_S }) },
  },
  create_organization: {
    about: "by the super-admin",
    input: () => ({ name: "acme" }),
    expect: { ok: (a) => expect(a).toMatchObject({ name: "acme", display_name: null, enabled: true }) },
  },
  organizations: {
    about: "all of them, by the super-admin",
    setup: async (c) => {
      await c.createOrg("acme");
      return {};
    },
    input: () => ({}),
    expect: { ok: (a) => expect(a.organizations.map((o: { name: string }) => o.name)).toEqual(["acme"]) },
  },
  verify_org_domain: {
    about: "once the TXT record is published",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const { txt_record } = await c.admin.requestOrgDomain({ org_id: orgId, domain: "example.com" });
      c.publishTxt(txt_record.name, txt_record.value);
      return { orgId };
    },
    input: (v) => ({ org_id: v.orgId, domain: "example.com" }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ domain: "example.com", org_id: v.orgId, status: "verified" }) },
  },
  get_org_oidc_connection: {
    about: "by id",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const connection = await c.admin.createOrgOIDCConnection({ org_id: orgId, name: "okta", issuer_url: "https://acme.okta.example", client_id: "acme-app", client_secret: "s" });
      return { orgId, id: connection.id };
    },
    input: (v) => ({ id: v.id }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, org_id: v.orgId, name: "okta" }) },
  },
  resend_verify_email: {
    about: "a purpose that can be sent again (the same answer whether or not one is pending)",
    input: () => ({ email: "ada@example.com", identifier: "basic_auth_signup" }),
    expect: { ok: (a) => expect(a.message).toMatch(/sent again/) },
  },
  revoke: {
    about: "the user's own refresh token",
    setup: (c) => c.signUp("ada@example.com"),
    input: (v) => ({ refresh_token: v.refreshToken }),
    expect: { ok: (a) => expect(a).toEqual({ message: "refresh token revoked" }) },
  },
};
