// SCIM provisioning on the service's own records, for one organization at a time (the one of the
// endpoint whose token the request carries). A provisioned user IS a service user and a member of
// the organization; `active` is the user's access (revoke_access / enable_access); a group is a
// stored record whose members are provisioned users of the same organization. Errors are SCIM
// errors (SCIMMY's), which routes.ts answers as they are.
import SCIMMY from "scimmy";
import { rules } from "../../generated/server/rules.js";
import { compareCodePoints } from "../../runtime/validate.js";
import { checkPasswordStrength, newUserRecord, normalizeEmail, userByEmail } from "../accounts.js";
import type { Deps } from "../deps.js";
import { orgForEmailDomain } from "../ops/org-domains.js";
import { deleteUserCascade, enableUserAccess, revokeUserAccess } from "../ops/users.js";
import { hashPassword } from "../secrets.js";
import type { ScimGroupRecord, ScimUserRecord, UserRecord } from "../storage.js";
import { publicUser } from "../views.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
/** What `signup_methods` says of a user that provisioning created. */
const SIGNUP_METHOD = "scim";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const scimUserKey = (orgId: string, userId: string) => `${orgId}/${userId}`;

/** The organization a request provisions for, and the absolute URL of its SCIM base (…/scim/v2). */
export interface ScimScope {
  orgId: string;
  base: string;
}

export type ScimResource = Record<string, unknown> & { id: string; meta: { version: string } };

export const scimError = (status: number, scimType: string | null, detail: string) => new SCIMMY.Types.Error(status, scimType as string, detail);

/** The manifest's rule of a password (signup's): a SCIM password meets the same length as every other way of setting one. */
const PASSWORD_RULE = rules.fields.SignupRequest?.password ?? {};

function checkPasswordLength(password: string): void {
  const { minLength, maxLength } = PASSWORD_RULE;
  if (minLength !== undefined && compareCodePoints(password, minLength) < 0) throw scimError(400, "invalidValue", `password: must be at least ${minLength} characters`);
  if (maxLength !== undefined && compareCodePoints(password, maxLength) > 0) throw scimError(400, "invalidValue", `password: must be at most ${maxLength} characters`);
}
const notFound = (kind: "User" | "Group") => scimError(404, null, `${kind} not found`);
const uniqueness = (detail: string) => scimError(409, "uniqueness", detail);

export const etagOf = (version: number) => `W/"${version}"`;

/** 412 unless `ifMatch` (the If-Match header) is absent, "*", or names `current`, the resource's ETag. */
export function checkVersion(current: string, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === "*") return;
  const strong = current.slice(2);
  if (!ifMatch.split(",").some((tag) => [current, strong].includes(tag.trim()))) {
    throw scimError(412, null, `the resource is at version ${current}, not the one If-Match names`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const meta = (resourceType: "User" | "Group", record: { created: number; last_modified: number; version: number }) => ({
  resourceType,
  created: iso(record.created),
  lastModified: iso(record.last_modified),
  version: etagOf(record.version),
});

/** A userName or displayName as the unique indexes compare it. */
const caseless = (value: string) => value.toLowerCase();

type Plain = Record<string, unknown>;

/** The parts of a User resource (as SCIMMY's schema read it in) the service keeps apart. */
function splitUser(input: Plain) {
  const { schemas: _schemas, id: _id, meta: _meta, groups: _groups, userName, externalId, active, password, ...attributes } = input;
  return { userName: userName as string, externalId: (externalId as string | undefined) ?? null, active: active as boolean | undefined, password: password as string | undefined, attributes };
}

/** The email of the service user: the primary (or first) SCIM email, else a userName that is one. */
function emailOf(userName: string, attributes: Plain): string | null {
  const emails = Array.isArray(attributes.emails) ? (attributes.emails as { value?: string; primary?: boolean }[]) : [];
  const value = (emails.find((email) => email.primary) ?? emails[0])?.value ?? (EMAIL.test(userName) ? userName : null);
  return value ? normalizeEmail(value) : null;
}

/** The names of the service user, from the SCIM `name` and `nickName`. */
function namesOf(attributes: Plain) {
  const name = (attributes.name ?? {}) as { givenName?: string; familyName?: string; middleName?: string };
  return { given_name: name.givenName ?? null, family_name: name.familyName ?? null, middle_name: name.middleName ?? null, nickname: (attributes.nickName as string | undefined) ?? null };
}

/** A filter's conjunction (SCIMMY's parsed form: attribute → expression, or nested object). */
type Conjunction = Record<string, unknown>;

/** The value of `attribute eq "value"` in a conjunction, with the rest of the conjunction (null when nothing is left). */
function equalityOn(conjunction: Conjunction, attribute: string): { value: string; rest: Conjunction | null } | undefined {
  const key = Object.keys(conjunction).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const expression = key === undefined ? undefined : conjunction[key];
  if (!Array.isArray(expression) || expression.length !== 2 || String(expression[0]).toLowerCase() !== "eq" || typeof expression[1] !== "string") return undefined;
  const { [key!]: _matched, ...rest } = conjunction;
  return { value: expression[1], rest: Object.keys(rest).length > 0 ? rest : null };
}

export interface ListPage {
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
}

export interface Listed {
  total: number;
  resources: ScimResource[];
}

/**
 * One page of what `filter` matches, in the order found: each of its alternatives (SCIMMY's parsed
 * form) picks candidates, narrowed on an index where it can, and SCIMMY's matcher checks the rest.
 */
async function filteredPage(
  filter: SCIMMY.Types.Filter,
  page: ListPage,
  candidatesOf: (conjunction: Conjunction) => Promise<{ candidates: ScimResource[]; rest: Conjunction | null }>,
): Promise<Listed> {
  const matched = new Map<string, ScimResource>();
  for (const conjunction of filter as unknown as Conjunction[]) {
    const { candidates, rest } = await candidatesOf(conjunction);
    for (const hit of rest ? new SCIMMY.Types.Filter([rest]).match(candidates) : candidates) matched.set(hit.id, hit);
  }
  const all = [...matched.values()];
  return { total: all.length, resources: all.slice(page.startIndex - 1, page.startIndex - 1 + page.count) };
}

export class ScimProvisioning {
  constructor(private readonly deps: Pick<Deps, "core" | "sessions" | "events">) {}

  private get storage() {
    return this.deps.core.storage;
  }

  // ---- users ----

  async getUser(scope: ScimScope, id: string): Promise<ScimResource> {
    const record = await this.storage.scimUsers.get(scimUserKey(scope.orgId, id));
    if (!record) throw notFound("User");
    return (await this.userResources(scope, [record]))[0]!;
  }

  async listUsers(scope: ScimScope, filter: SCIMMY.Types.Filter | undefined, page: ListPage): Promise<Listed> {
    const { scimUsers } = this.storage;
    const ofOrg = { org_id: scope.orgId };
    if (!filter) {
      const found = await scimUsers.page(ofOrg, { limit: page.count, offset: page.startIndex - 1 });
      return { total: found.total, resources: await this.userResources(scope, found.items) };
    }
    // userName (as SCIM compares it, ignoring case) or externalId tested for equality narrow on an index.
    return filteredPage(filter, page, async (conjunction) => {
      const byName = equalityOn(conjunction, "userName");
      const byExternalId = byName ? undefined : equalityOn(conjunction, "externalId");
      const candidates = byName
        ? await scimUsers.list({ ...ofOrg, user_name_key: caseless(byName.value) })
        : byExternalId
          ? await scimUsers.list({ ...ofOrg, external_id: byExternalId.value })
          : await scimUsers.list(ofOrg);
      return { candidates: await this.userResources(scope, candidates), rest: byName ? byName.rest : byExternalId ? byExternalId.rest : conjunction };
    });
  }

  /**
   * A new user of the organization. An account that already has the email is linked instead of
   * created when it is a member of the organization already, or when the organization verified
   * the email's domain; any other account is someone else's (409).
   */
  async createUser(scope: ScimScope, input: Plain): Promise<ScimResource> {
    const { core, events } = this.deps;
    const { storage } = core;
    const { userName, externalId, active, password, attributes } = splitUser(input);
    const email = emailOf(userName, attributes);
    if (password !== undefined) {
      checkPasswordLength(password);
      checkPasswordStrength(core, password);
    }
    // Hashed before the transaction: scrypt's ~180 ms would hold the database's write lock.
    const passwordHash = password !== undefined ? await hashPassword(password, this.deps.core.config.passwordHashCost) : null;
    const { record, user, created } = await storage.transaction(async () => {
      let user = email ? await userByEmail(core, email) : undefined;
      const created = !user;
      if (user) {
        if (await storage.scimUsers.get(scimUserKey(scope.orgId, user.id))) throw uniqueness("a user with this email is already provisioned in the organization");
        const member = await storage.orgMembers.find({ org_id: scope.orgId, user_id: user.id });
        if (!member && (await orgForEmailDomain(core, email!)) !== scope.orgId) {
          throw uniqueness("an account outside the organization has this email; verify the email's domain for the organization to let provisioning link it");
        }
      } else {
        user = newUserRecord(core, { email, roles: [...core.config.defaultRoles], signup_method: SIGNUP_METHOD, password_hash: passwordHash, email_verified: false, ...namesOf(attributes) });
        await storage.users.insert(user);
      }
      if (!(await storage.orgMembers.find({ org_id: scope.orgId, user_id: user.id }))) {
        const now = Math.floor(core.clock() / 1000);
        await storage.orgMembers.insert({
          id: core.newId(),
          org_id: scope.orgId,
          user_id: user.id,
          email: user.email,
          given_name: user.given_name,
          family_name: user.family_name,
          roles: [],
          created_at: now,
          updated_at: now,
        });
      }
      const now = core.clock();
      const record: ScimUserRecord = {
        key: scimUserKey(scope.orgId, user.id),
        org_id: scope.orgId,
        user_id: user.id,
        user_name: userName,
        user_name_key: caseless(userName),
        external_id: externalId,
        attributes,
        created_user: created,
        active_stated: active !== undefined,
        deactivated: active === false,
        version: 1,
        created: now,
        last_modified: now,
      };
      await storage.scimUsers.insert(record);
      if (active === false) await revokeUserAccess(this.deps, user);
      return { record, user, created };
    });
    if (created) events.emit("user.created", { user: publicUser(user) });
    return (await this.userResources(scope, [record]))[0]!;
  }

  /**
   * PUT (and PATCH, after SCIMMY applied its operations). The service user follows the SCIM
   * attributes when provisioning created it; an account that was linked keeps its own email, names
   * and password. `active` moves the access of either: false revokes it, true gives it back, and so
   * does leaving it out after provisioning revoked it (not after an admin did).
   */
  async replaceUser(scope: ScimScope, id: string, input: Plain, ifMatch?: string): Promise<ScimResource> {
    const { core } = this.deps;
    const { storage } = core;
    const { userName, externalId, active, password, attributes } = splitUser(input);
    if (password !== undefined) {
      checkPasswordLength(password);
      checkPasswordStrength(core, password);
    }
    const passwordHash = password !== undefined ? await hashPassword(password, this.deps.core.config.passwordHashCost) : undefined;
    const record = await storage.transaction(async () => {
      const current = await storage.scimUsers.get(scimUserKey(scope.orgId, id));
      const user = current && (await storage.users.get(id));
      if (!current || !user) throw notFound("User");
      checkVersion(etagOf(current.version), ifMatch);
      if (current.created_user) {
        const email = emailOf(userName, attributes);
        const next: UserRecord = { ...user, ...namesOf(attributes), email, updated_at: Math.floor(core.clock() / 1000) };
        if (email !== user.email) next.email_verified = false;
        if (passwordHash !== undefined) next.password_hash = passwordHash;
        if (!(await storage.users.update(next))) throw notFound("User");
      } else if (passwordHash !== undefined) {
        throw scimError(400, "mutability", "the password of an account that provisioning linked, not created, belongs to its owner");
      }
      const record: ScimUserRecord = {
        ...current,
        user_name: userName,
        user_name_key: caseless(userName),
        external_id: externalId,
        attributes,
        active_stated: active !== undefined,
        deactivated: active === false,
        version: current.version + 1,
        last_modified: core.clock(),
      };
      if (!(await storage.scimUsers.update(record))) throw notFound("User");
      const latest = (await storage.users.get(id))!;
      if (active === false) await revokeUserAccess(this.deps, latest);
      // Left out, `active` counts as true for a user provisioning deactivated; access revoked by an admin stays so.
      else if (active === true || current.deactivated) await enableUserAccess(this.deps, latest);
      return record;
    });
    return (await this.userResources(scope, [record]))[0]!;
  }

  /**
   * Deprovisioning: the user leaves the organization and its groups. The account itself is deleted
   * only when provisioning created it and no other organization has it: an account its owner made,
   * or that another organization uses, is not this organization's to delete.
   */
  async deleteUser(scope: ScimScope, id: string, ifMatch?: string): Promise<void> {
    const { core, events } = this.deps;
    const { storage } = core;
    const deleted = await storage.transaction(async () => {
      const current = await storage.scimUsers.get(scimUserKey(scope.orgId, id));
      if (!current) throw notFound("User");
      checkVersion(etagOf(current.version), ifMatch);
      await storage.scimUsers.delete(current.key);
      await storage.orgMembers.deleteWhere({ org_id: scope.orgId, user_id: id });
      for (const group of await storage.scimGroups.list({ org_id: scope.orgId })) {
        if (group.members.some((member) => member.user_id === id)) {
          await storage.scimGroups.update({ ...group, members: group.members.filter((member) => member.user_id !== id), version: group.version + 1, last_modified: core.clock() });
        }
      }
      const user = await storage.users.get(id);
      if (!user || !current.created_user || (await storage.orgMembers.count({ user_id: id })) > 0) return undefined;
      await deleteUserCascade(core, id);
      return user;
    });
    if (deleted) events.emit("user.deleted", { user: publicUser(deleted) });
  }

  /**
   * The SCIM resources of `records`, in order. `active` is false while the user's access is revoked
   * (by provisioning or by revoke_access); otherwise true when the identity provider stated it, and
   * absent when it did not (or removed it).
   */
  private async userResources(scope: ScimScope, records: readonly ScimUserRecord[]): Promise<ScimResource[]> {
    if (records.length === 0) return [];
    const { storage } = this.deps.core;
    const ids = records.map((record) => record.user_id);
    const users = new Map((await storage.users.list({ id: { in: ids } })).map((user) => [user.id, user]));
    const groups = await storage.scimGroups.list({ org_id: scope.orgId });
    return records.map((record) => ({
      schemas: [USER_SCHEMA],
      id: record.user_id,
      ...(record.external_id !== null ? { externalId: record.external_id } : {}),
      userName: record.user_name,
      ...record.attributes,
      ...(users.get(record.user_id)?.revoked_timestamp !== null ? { active: false } : record.active_stated ? { active: true } : {}),
      groups: groups
        .filter((group) => group.members.some((member) => member.user_id === record.user_id))
        .map((group) => ({ value: group.id, display: group.display_name, $ref: `${scope.base}/Groups/${group.id}`, type: "direct" })),
      meta: meta("User", record),
    }));
  }

  // ---- groups ----

  async getGroup(scope: ScimScope, id: string): Promise<ScimResource> {
    return (await this.groupResources(scope, [await this.mustGetGroup(scope, id)]))[0]!;
  }

  async listGroups(scope: ScimScope, filter: SCIMMY.Types.Filter | undefined, page: ListPage): Promise<Listed> {
    const { scimGroups } = this.storage;
    const ofOrg = { org_id: scope.orgId };
    if (!filter) {
      const found = await scimGroups.page(ofOrg, { limit: page.count, offset: page.startIndex - 1 });
      return { total: found.total, resources: await this.groupResources(scope, found.items) };
    }
    return filteredPage(filter, page, async (conjunction) => {
      const byName = equalityOn(conjunction, "displayName");
      const candidates = byName ? await scimGroups.list({ ...ofOrg, display_name_key: caseless(byName.value) }) : await scimGroups.list(ofOrg);
      return { candidates: await this.groupResources(scope, candidates), rest: byName ? byName.rest : conjunction };
    });
  }

  async createGroup(scope: ScimScope, input: Plain): Promise<ScimResource> {
    const { core } = this.deps;
    const { displayName, externalId, members, attributes } = this.splitGroup(input);
    const now = core.clock();
    const record: ScimGroupRecord = {
      id: core.newId(),
      org_id: scope.orgId,
      display_name: displayName,
      display_name_key: caseless(displayName),
      external_id: externalId,
      members: await this.checkMembers(scope, members),
      attributes,
      version: 1,
      created: now,
      last_modified: now,
    };
    await core.storage.scimGroups.insert(record);
    return (await this.groupResources(scope, [record]))[0]!;
  }

  async replaceGroup(scope: ScimScope, id: string, input: Plain, ifMatch?: string): Promise<ScimResource> {
    const { core } = this.deps;
    const { displayName, externalId, members, attributes } = this.splitGroup(input);
    const record = await core.storage.transaction(async () => {
      const current = await this.mustGetGroup(scope, id);
      checkVersion(etagOf(current.version), ifMatch);
      const record: ScimGroupRecord = {
        ...current,
        display_name: displayName,
        display_name_key: caseless(displayName),
        external_id: externalId,
        members: await this.checkMembers(scope, members),
        attributes,
        version: current.version + 1,
        last_modified: core.clock(),
      };
      if (!(await core.storage.scimGroups.update(record))) throw notFound("Group");
      return record;
    });
    return (await this.groupResources(scope, [record]))[0]!;
  }

  async deleteGroup(scope: ScimScope, id: string, ifMatch?: string): Promise<void> {
    const current = await this.mustGetGroup(scope, id);
    checkVersion(etagOf(current.version), ifMatch);
    await this.storage.scimGroups.delete(id);
  }

  private async mustGetGroup(scope: ScimScope, id: string): Promise<ScimGroupRecord> {
    const record = await this.storage.scimGroups.get(id);
    // Another organization's group is as absent as one that never was.
    if (!record || record.org_id !== scope.orgId) throw notFound("Group");
    return record;
  }

  private splitGroup(input: Plain) {
    const { schemas: _schemas, id: _id, meta: _meta, displayName, externalId, members, ...attributes } = input;
    return { displayName: displayName as string, externalId: (externalId as string | undefined) ?? null, members: (members ?? []) as { value?: string; display?: string }[], attributes };
  }

  /** `members`, each a provisioned user of the organization (400 otherwise), once each. */
  private async checkMembers(scope: ScimScope, members: readonly { value?: string; display?: string }[]): Promise<ScimGroupRecord["members"]> {
    const byId = new Map(members.map((member) => [member.value ?? "", member.display ?? null]));
    if (byId.size === 0) return [];
    const ids = [...byId.keys()];
    const known = new Set((await this.storage.scimUsers.list({ org_id: scope.orgId, user_id: { in: ids } })).map((user) => user.user_id));
    const unknown = ids.findIndex((id) => !known.has(id));
    if (unknown >= 0) throw scimError(400, "invalidValue", `members[${unknown}] is not a user provisioned in this organization`);
    return ids.map((id) => ({ user_id: id, display: byId.get(id)! }));
  }

  /** Members are shown with the display name given, else their userName; a member deprovisioned since is left out. */
  private async groupResources(scope: ScimScope, records: readonly ScimGroupRecord[]): Promise<ScimResource[]> {
    if (records.length === 0) return [];
    const memberIds = [...new Set(records.flatMap((record) => record.members.map((member) => member.user_id)))];
    const users = memberIds.length === 0 ? [] : await this.storage.scimUsers.list({ org_id: scope.orgId, user_id: { in: memberIds } });
    const userNames = new Map(users.map((user) => [user.user_id, user.user_name]));
    return records.map((record) => ({
      schemas: [GROUP_SCHEMA],
      id: record.id,
      ...(record.external_id !== null ? { externalId: record.external_id } : {}),
      displayName: record.display_name,
      ...record.attributes,
      members: record.members
        .filter((member) => userNames.has(member.user_id))
        .map((member) => ({ value: member.user_id, display: member.display ?? userNames.get(member.user_id), $ref: `${scope.base}/Users/${member.user_id}`, type: "User" })),
      meta: meta("Group", record),
    }));
  }
}
