// Admin: upstream SSO connections of organizations, at most one OIDC and one SAML connection per
// organization. The OIDC client secret and the SAML IdP certificate are write-only: never
// answered; omitted on update they stay as they are, supplied they replace the stored value.
import { alreadyExists, applyChanges, type Core, mustGet, notFound, nowSeconds, removeRecord, saveChanges, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import type { Collection, OrgOIDCConnectionRecord, OrgSAMLConnectionRecord } from "../storage.js";
import { publicOidcConnection, publicSamlConnection } from "../views.js";

/** By id or by organization; the stub has already checked that exactly one is given. */
async function byIdOrOrg<T extends { org_id: string }>(collection: Collection<T, { org_id: string }>, kind: string, input: { id?: string | null; org_id?: string | null }): Promise<T> {
  if (input.id != null) return mustGet(collection, kind, input.id);
  const record = await collection.find({ org_id: input.org_id! });
  if (!record) throw notFound(`${kind} of the organization`);
  return record;
}

export function orgSsoOperations({
  core,
}: Deps): Operations<
  | "createOrgOIDCConnection"
  | "updateOrgOIDCConnection"
  | "deleteOrgOIDCConnection"
  | "getOrgOIDCConnection"
  | "createOrgSAMLConnection"
  | "updateOrgSAMLConnection"
  | "deleteOrgSAMLConnection"
  | "getOrgSAMLConnection"
> {
  const { storage } = core;
  const mustGetOrg = (id: string) => mustGet(storage.organizations, "organization", id);
  const assertNone = async (kind: string, existing: Promise<{ id: string } | undefined>) => {
    const found = await existing;
    if (found) throw alreadyExists(`the organization already has ${kind === "OIDC connection" ? "an" : "a"} ${kind}`);
  };

  return {
    async createOrgOIDCConnection(input) {
      await mustGetOrg(input.org_id);
      await assertNone("OIDC connection", storage.orgOidcConnections.find({ org_id: input.org_id }));
      const now = nowSeconds(core);
      const connection: OrgOIDCConnectionRecord = {
        id: core.newId(),
        org_id: input.org_id,
        name: input.name,
        issuer_url: input.issuer_url,
        client_id: input.client_id,
        scopes: input.scopes && input.scopes.length > 0 ? input.scopes : ["openid", "email", "profile"],
        redirect_uri: input.redirect_uri ?? null,
        created_at: now,
        updated_at: now,
        client_secret: input.client_secret,
        client_secret_updated_at: now,
      };
      await storage.orgOidcConnections.put(connection);
      return publicOidcConnection(connection);
    },

    async updateOrgOIDCConnection(input) {
      const connection = await mustGet(storage.orgOidcConnections, "OIDC connection", input.id);
      const now = nowSeconds(core);
      const next = applyChanges(connection, { name: input.name, issuer_url: input.issuer_url, client_id: input.client_id, scopes: input.scopes, redirect_uri: input.redirect_uri });
      if (input.client_secret) {
        next.client_secret = input.client_secret;
        next.client_secret_updated_at = now;
      }
      next.updated_at = now;
      await mustUpdate(storage.orgOidcConnections, "OIDC connection", next);
      return publicOidcConnection(next);
    },

    async deleteOrgOIDCConnection(input) {
      return removeRecord(storage.orgOidcConnections, "OIDC connection", input.id);
    },

    async getOrgOIDCConnection(input) {
      return publicOidcConnection(await byIdOrOrg(storage.orgOidcConnections, "OIDC connection", input));
    },

    async createOrgSAMLConnection(input) {
      await mustGetOrg(input.org_id);
      await assertNone("SAML connection", storage.orgSamlConnections.find({ org_id: input.org_id }));
      const now = nowSeconds(core);
      const connection: OrgSAMLConnectionRecord = {
        id: core.newId(),
        org_id: input.org_id,
        name: input.name,
        idp_entity_id: input.idp_entity_id,
        idp_sso_url: input.idp_sso_url,
        sp_entity_id: input.sp_entity_id ?? null,
        acs_url: input.acs_url ?? null,
        attribute_mapping: input.attribute_mapping ?? {},
        allow_idp_initiated: input.allow_idp_initiated ?? false,
        created_at: now,
        updated_at: now,
        idp_certificate: input.idp_certificate,
      };
      await storage.orgSamlConnections.put(connection);
      return publicSamlConnection(connection);
    },

    async updateOrgSAMLConnection(input) {
      const connection = await mustGet(storage.orgSamlConnections, "SAML connection", input.id);
      const { id: _id, ...changes } = input;
      return publicSamlConnection(await saveChanges(core, storage.orgSamlConnections, "SAML connection", connection, changes));
    },

    async deleteOrgSAMLConnection(input) {
      return removeRecord(storage.orgSamlConnections, "SAML connection", input.id);
    },

    async getOrgSAMLConnection(input) {
      return publicSamlConnection(await byIdOrOrg(storage.orgSamlConnections, "SAML connection", input));
    },
  };
}

/** The SSO connections logins into an organization go through; none while it is disabled. */
export async function ssoConnectionsFor(core: Core, orgId: string): Promise<{ oidc: OrgOIDCConnectionRecord | undefined; saml: OrgSAMLConnectionRecord | undefined }> {
  const org = await core.storage.organizations.get(orgId);
  if (!org || !org.enabled) return { oidc: undefined, saml: undefined };
  return {
    oidc: await core.storage.orgOidcConnections.find({ org_id: orgId }),
    saml: await core.storage.orgSamlConnections.find({ org_id: orgId }),
  };
}
