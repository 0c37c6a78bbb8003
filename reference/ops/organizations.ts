// Admin: organizations (unique slug names) and their members. Deleting an organization deletes
// everything that belongs to it: members, domains, SSO connections, SAML service providers and
// IdP keys, and the SCIM endpoint.
import type { Organization, OrgMember } from "../../generated/types.js";
import { alreadyExists, type Core, mustGet, notFound, nowSeconds, pageOf, paginate, saveChanges } from "../core.js";
import { scimUserKey } from "../scim/provisioning.js";
import type { Deps, Operations } from "../deps.js";

const DEFAULT_MEMBER_ROLES = ["member"];

async function assertNameFree(core: Core, name: string, exceptId?: string): Promise<void> {
  const twin = await core.storage.organizations.find(exceptId === undefined ? { name } : { name, id: { ne: exceptId } });
  if (twin) throw alreadyExists("an organization with this name already exists");
}

export async function deleteOrganizationCascade(core: Core, orgId: string): Promise<void> {
  const { storage } = core;
  const ofOrg = { org_id: orgId };
  await storage.transaction(async () => {
    await storage.orgMembers.deleteWhere(ofOrg);
    await storage.orgDomains.deleteWhere(ofOrg);
    await storage.orgOidcConnections.deleteWhere(ofOrg);
    await storage.orgSamlConnections.deleteWhere(ofOrg);
    await storage.samlServiceProviders.deleteWhere(ofOrg);
    await storage.samlIdpKeys.deleteWhere(ofOrg);
    await storage.scimEndpoints.deleteWhere(ofOrg);
    await storage.scimUsers.deleteWhere(ofOrg);
    await storage.scimGroups.deleteWhere(ofOrg);
    await storage.organizations.delete(orgId);
  });
}

export function organizationOperations({
  core,
}: Deps): Operations<
  "createOrganization" | "updateOrganization" | "deleteOrganization" | "getOrganization" | "organizations" | "addOrgMember" | "removeOrgMember" | "orgMembers" | "userOrganizations"
> {
  const { storage } = core;
  const membership = (orgId: string, userId: string) => storage.orgMembers.find({ org_id: orgId, user_id: userId });

  return {
    async createOrganization(input) {
      await assertNameFree(core, input.name);
      const now = nowSeconds(core);
      const org: Organization = { id: core.newId(), name: input.name, display_name: input.display_name ?? null, enabled: true, created_at: now, updated_at: now };
      await storage.organizations.put(org);
      return org;
    },

    async updateOrganization(input) {
      const org = await mustGet(storage.organizations, "organization", input.id);
      if (input.name) await assertNameFree(core, input.name, org.id);
      return await saveChanges(core, storage.organizations, "organization", org, { name: input.name, display_name: input.display_name, enabled: input.enabled });
    },

    async deleteOrganization(input) {
      await mustGet(storage.organizations, "organization", input.id);
      await deleteOrganizationCascade(core, input.id);
      return { message: `organization ${input.id} deleted with its members, domains, connections, SAML service providers and keys, and SCIM endpoint` };
    },

    async getOrganization(input) {
      return mustGet(storage.organizations, "organization", input.id);
    },

    async organizations(input) {
      const page = await pageOf(storage.organizations, {}, input.pagination);
      return { pagination: page.pagination, organizations: page.items };
    },

    async addOrgMember(input) {
      await mustGet(storage.organizations, "organization", input.org_id);
      const user = await mustGet(storage.users, "user", input.user_id);
      if (await membership(input.org_id, input.user_id)) throw alreadyExists("the user is already a member of the organization");
      const now = nowSeconds(core);
      const member: OrgMember = {
        id: core.newId(),
        org_id: input.org_id,
        user_id: user.id,
        email: user.email,
        given_name: user.given_name,
        family_name: user.family_name,
        roles: input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : [...DEFAULT_MEMBER_ROLES],
        created_at: now,
        updated_at: now,
      };
      await storage.orgMembers.put(member);
      return member;
    },

    async removeOrgMember(input) {
      const member = await membership(input.org_id, input.user_id);
      if (!member) throw notFound("member of the organization");
      // A member provisioned by SCIM leaves the endpoint's users too: the organization no longer has them.
      await storage.transaction(async () => {
        await storage.orgMembers.delete(member.id);
        await storage.scimUsers.delete(scimUserKey(input.org_id, input.user_id));
      });
      return { message: `user ${input.user_id} removed from organization ${input.org_id}` };
    },

    async orgMembers(input) {
      await mustGet(storage.organizations, "organization", input.org_id);
      const page = await pageOf(storage.orgMembers, { org_id: input.org_id }, input.pagination);
      // Name and email come from the user as it is now, not as it was when the user joined.
      const members = await Promise.all(
        page.items.map(async (member) => {
          const user = await storage.users.get(member.user_id);
          return user ? { ...member, email: user.email, given_name: user.given_name, family_name: user.family_name } : member;
        }),
      );
      return { pagination: page.pagination, members };
    },

    async userOrganizations(input, context) {
      await mustGet(storage.users, "user", input.user_id);
      let memberships = await storage.orgMembers.list({ user_id: input.user_id });
      // An org-admin sees only the organizations they administer.
      const caller = context.principal;
      if (caller.kind === "user") {
        const administered = new Set((await storage.orgMembers.list({ user_id: caller.userId })).filter((m) => m.roles.includes(core.config.orgAdminRole)).map((m) => m.org_id));
        memberships = memberships.filter((m) => administered.has(m.org_id));
      }
      const entries = [];
      for (const member of memberships) {
        const organization = await storage.organizations.get(member.org_id);
        if (organization) entries.push({ organization, roles: member.roles });
      }
      const page = paginate(entries, input.pagination);
      return { pagination: page.pagination, organizations: page.items };
    },
  };
}
