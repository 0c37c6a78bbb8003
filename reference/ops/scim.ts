// Admin: the SCIM provisioning endpoint of an organization (at most one). Its bearer token is
// answered on create and rotate only; the store keeps its hash, so rotating or deleting stops the
// old token at once.
import { alreadyExists, mustGet, notFound, nowSeconds, type Core, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { randomToken, sha256 } from "../secrets.js";
import type { ScimEndpointRecord } from "../storage.js";
import { publicScimEndpoint } from "../views.js";

/** The organization and endpoint a SCIM bearer token provisions for, or null. */
export async function verifyScimToken(core: Core, token: string): Promise<{ org_id: string; endpoint_id: string } | null> {
  const hash = sha256(token);
  const endpoint = await core.storage.scimEndpoints.find({ token_hash: hash });
  return endpoint && endpoint.enabled ? { org_id: endpoint.org_id, endpoint_id: endpoint.id } : null;
}

export function scimOperations({ core }: Deps): Operations<"createSCIMEndpoint" | "rotateSCIMToken" | "deleteSCIMEndpoint" | "getSCIMEndpoint"> {
  const { storage } = core;
  const endpointOf = async (orgId: string) => {
    await mustGet(storage.organizations, "organization", orgId);
    return storage.scimEndpoints.find({ org_id: orgId });
  };
  const mustGetEndpoint = async (orgId: string) => {
    const endpoint = await endpointOf(orgId);
    if (!endpoint) throw notFound("SCIM endpoint of the organization");
    return endpoint;
  };

  return {
    async createSCIMEndpoint(input) {
      const existing = await endpointOf(input.org_id);
      if (existing) throw alreadyExists("the organization already has a SCIM endpoint; rotate its token instead");
      const token = randomToken("scim_", core.random);
      const now = nowSeconds(core);
      const endpoint: ScimEndpointRecord = { id: core.newId(), org_id: input.org_id, enabled: true, created_at: now, updated_at: now, token_hash: sha256(token) };
      await storage.scimEndpoints.put(endpoint);
      return { scim_endpoint: publicScimEndpoint(endpoint), token };
    },

    async rotateSCIMToken(input) {
      const endpoint = await mustGetEndpoint(input.org_id);
      const token = randomToken("scim_", core.random);
      const rotated: ScimEndpointRecord = { ...endpoint, token_hash: sha256(token), updated_at: nowSeconds(core) };
      await mustUpdate(storage.scimEndpoints, "SCIM endpoint of the organization", rotated);
      return { scim_endpoint: publicScimEndpoint(rotated), token };
    },

    async deleteSCIMEndpoint(input) {
      const endpoint = await mustGetEndpoint(input.org_id);
      await storage.scimEndpoints.delete(endpoint.id);
      return { message: `SCIM endpoint ${endpoint.id} of organization ${input.org_id} deleted` };
    },

    async getSCIMEndpoint(input) {
      return publicScimEndpoint(await mustGetEndpoint(input.org_id));
    },
  };
}
