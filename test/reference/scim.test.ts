// SCIM 2.0 provisioning at /scim/v2 of the reference service, over HTTP on the real server: the
// token rules of §3 and §5.8 on the route itself, provisioning through two organizations'
// endpoints, what provisioning does to the service's users, and a SCIM error for every bad input.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient } from "../../generated/client/index.js";
import type { ServerOptions } from "../../generated/server/index.js";
import type { ReferenceServiceOptions } from "../../reference/service.js";
import { openStorage } from "../../reference/store/open.js";
import { ensureDebianProgram } from "../helpers/apt.js";
import { REPO_ROOT, tempDir } from "../helpers/project.js";
import { startReferenceHarness, type ReferenceHarness } from "../helpers/reference-harness.js";
import { testStorage } from "../helpers/test-storage.js";

const SECRET = "scim-test-admin-secret";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

let reference: ReferenceHarness;
let base: string;
let admin: AdminClient;
let internalErrors: unknown[];

/** Serves a reference service with these options (its store among them) and an admin client of it. */
async function serve(service: ReferenceServiceOptions, server: Partial<ServerOptions> = {}) {
  reference = await startReferenceHarness({ adminSecret: SECRET, service, server });
  base = reference.httpUrl;
  admin = reference.adminClient();
}

/** Serves the service on a fresh test store, its internal errors kept in `internalErrors`. */
async function start(server: Partial<ServerOptions> = {}) {
  internalErrors = [];
  await serve({ storage: testStorage(), onInternalError: (_operation, error) => internalErrors.push(error) }, server);
}

async function stop() {
  await admin.close();
  await reference.stop();
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function scim(token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}/scim/v2${path}`, {
    method,
    headers: {
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/scim+json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function organization(name: string) {
  const org = await admin.createOrganization({ name, display_name: name });
  const { token } = await admin.createSCIMEndpoint({ org_id: org.id });
  return { id: org.id, token };
}

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ value: userName.includes("@") ? userName : `${userName}@example.org`, primary: true, type: "work" }],
  active: true,
  ...extra,
});

function expectScimError(answer: Answer, status: number, scimType?: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/scim\+json/);
  expect(answer.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(typeof answer.body.detail).toBe("string");
}

describe("SCIM at /scim/v2", () => {
  beforeAll(() => start());
  afterAll(() => stop());
  afterEach(() => expect(internalErrors).toEqual([]));

  describe("authentication (§3, §5.8)", () => {
    it("refuses no token, a wrong token and another scheme with 401, a SCIM error and WWW-Authenticate", async () => {
      const { token } = await organization("auth-org");
      for (const [credential, headers] of [
        [null, {}],
        ["scim_not-a-real-token", {}],
        [null, { authorization: `Basic ${Buffer.from(`x:${token}`).toString("base64")}` }],
      ] as const) {
        const answer = await scim(credential, "GET", "/Users", undefined, headers);
        expectScimError(answer, 401);
        expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="SCIM"');
      }
      expect((await scim(token, "GET", "/Users")).status).toBe(200);
    });

    it("stops a rotated-away token from the first request after the rotation, and the new one works", async () => {
      const org = await organization("rotate-org");
      expect((await scim(org.token, "POST", "/Users", newUser("rot@example.org"))).status).toBe(201);
      const { token: rotated } = await admin.rotateSCIMToken({ org_id: org.id });
      expectScimError(await scim(org.token, "GET", "/Users"), 401);
      expectScimError(await scim(org.token, "POST", "/Users", newUser("rot2@example.org")), 401);
      const listed = await scim(rotated, "GET", "/Users");
      expect(listed.body.Resources.map((user: any) => user.userName)).toEqual(["rot@example.org"]);
    });

    it("stops the token of a deleted endpoint at once, and of a deleted organization", async () => {
      const org = await organization("delete-org");
      expect((await scim(org.token, "GET", "/ServiceProviderConfig")).status).toBe(200);
      await admin.deleteSCIMEndpoint({ org_id: org.id });
      expectScimError(await scim(org.token, "GET", "/Users"), 401);
      expectScimError(await scim(org.token, "GET", "/ServiceProviderConfig"), 401);
      const other = await organization("delete-org-2");
      await admin.deleteOrganization({ id: other.id });
      expectScimError(await scim(other.token, "GET", "/Users"), 401);
    });

    it("never lets one endpoint's token reach another organization's users or groups", async () => {
      const a = await organization("iso-a");
      const b = await organization("iso-b");
      const inB = (await scim(b.token, "POST", "/Users", newUser("only-b@example.org"))).body;
      const groupB = (await scim(b.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "B team", members: [{ value: inB.id }] })).body;
      expectScimError(await scim(a.token, "GET", `/Users/${inB.id}`), 404);
      expectScimError(await scim(a.token, "PUT", `/Users/${inB.id}`, newUser("only-b@example.org", { active: false })), 404);
      expectScimError(await scim(a.token, "PATCH", `/Users/${inB.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }), 404);
      expectScimError(await scim(a.token, "DELETE", `/Users/${inB.id}`), 404);
      expectScimError(await scim(a.token, "GET", `/Groups/${groupB.id}`), 404);
      expectScimError(await scim(a.token, "DELETE", `/Groups/${groupB.id}`), 404);
      // A member of another organization cannot be put in a group either.
      expectScimError(await scim(a.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "steal", members: [{ value: inB.id }] }), 400, "invalidValue");
      expect((await scim(a.token, "GET", `/Users?filter=${encodeURIComponent('userName eq "only-b@example.org"')}`)).body.totalResults).toBe(0);
      expect((await scim(a.token, "GET", "/Groups")).body.totalResults).toBe(0);
      // B's user is untouched.
      const still = await scim(b.token, "GET", `/Users/${inB.id}`);
      expect(still.body).toMatchObject({ active: true, userName: "only-b@example.org", groups: [{ value: groupB.id, display: "B team" }] });
    });
  });

  describe("provisioning users", () => {
    it("creates a user of the service and a member of the organization, with meta, Location and ETag", async () => {
      const org = await organization("create-org");
      const created = await scim(org.token, "POST", "/Users", newUser("ada@example.org", { externalId: "okta-1", nickName: "ada" }));
      expect(created.status).toBe(201);
      expect(created.headers.get("content-type")).toBe("application/scim+json; charset=utf-8");
      const user = created.body;
      expect(user).toMatchObject({
        schemas: [USER_SCHEMA],
        userName: "ada@example.org",
        externalId: "okta-1",
        active: true,
        name: { givenName: "Ada", familyName: "Lovelace" },
        meta: { resourceType: "User", version: 'W/"1"', location: `${base}/scim/v2/Users/${user.id}` },
      });
      expect(created.headers.get("location")).toBe(user.meta.location);
      expect(created.headers.get("etag")).toBe('W/"1"');
      expect(Date.parse(user.meta.created)).not.toBeNaN();
      const serviceUser = await admin.user({ id: user.id });
      expect(serviceUser).toMatchObject({ email: "ada@example.org", given_name: "Ada", family_name: "Lovelace", nickname: "ada", email_verified: false, revoked_timestamp: null });
      const members = await admin.orgMembers({ org_id: org.id });
      expect(members.members.map((member) => member.user_id)).toEqual([user.id]);
      expect((await scim(org.token, "GET", `/Users/${user.id}`)).body).toEqual(user);
    });

    it("filters on userName (ignoring case), externalId, emails.value and `and`, and pages with startIndex and count", async () => {
      const org = await organization("filter-org");
      for (const [index, name] of ["ann", "bob", "cat", "dan", "eve"].entries()) {
        expect((await scim(org.token, "POST", "/Users", newUser(`${name}@filter.example`, { externalId: `ext-${index}` }))).status).toBe(201);
      }
      const names = async (query: string) => {
        const answer = await scim(org.token, "GET", `/Users?${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:ListResponse"]);
        return { total: answer.body.totalResults, names: answer.body.Resources.map((user: any) => user.userName.split("@")[0]) };
      };
      const filter = (text: string) => `filter=${encodeURIComponent(text)}`;
      expect(await names(filter('userName eq "BOB@Filter.Example"'))).toEqual({ total: 1, names: ["bob"] });
      expect(await names(filter('externalId eq "ext-2"'))).toEqual({ total: 1, names: ["cat"] });
      expect(await names(filter('emails.value eq "dan@filter.example"'))).toEqual({ total: 1, names: ["dan"] });
      expect(await names(filter('userName eq "eve@filter.example" and externalId eq "ext-4"'))).toEqual({ total: 1, names: ["eve"] });
      expect(await names(filter('userName eq "eve@filter.example" and externalId eq "ext-1"'))).toEqual({ total: 0, names: [] });
      expect(await names(filter('userName eq "nobody@filter.example"'))).toEqual({ total: 0, names: [] });
      expect(await names(filter('userName sw "a" or userName sw "b"'))).toEqual({ total: 2, names: ["ann", "bob"] });
      expect(await names("startIndex=2&count=2")).toEqual({ total: 5, names: ["bob", "cat"] });
      expect(await names("startIndex=5&count=10")).toEqual({ total: 5, names: ["eve"] });
      expect(await names(`${filter('userName ew "filter.example"')}&startIndex=4&count=1`)).toEqual({ total: 5, names: ["dan"] });
      expect(await names("count=0")).toEqual({ total: 5, names: [] });
      const only = await scim(org.token, "GET", `/Users?${filter('userName eq "ann@filter.example"')}&attributes=userName`);
      expect(Object.keys(only.body.Resources[0]).sort()).toEqual(["id", "schemas", "userName"]);
    });

    it("replaces with PUT: the service user follows, and If-Match guards the version", async () => {
      const org = await organization("put-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("put@example.org"))).body;
      const stale = await scim(org.token, "PUT", `/Users/${user.id}`, newUser("renamed@example.org"), { "if-match": 'W/"7"' });
      expectScimError(stale, 412);
      expect((await admin.user({ id: user.id })).email).toBe("put@example.org");
      const replaced = await scim(org.token, "PUT", `/Users/${user.id}`, newUser("renamed@example.org", { name: { givenName: "Augusta" } }), { "if-match": 'W/"1"' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ userName: "renamed@example.org", name: { givenName: "Augusta" }, meta: { version: 'W/"2"' } });
      expect(replaced.body.name.familyName).toBeUndefined();
      expect(await admin.user({ id: user.id })).toMatchObject({ email: "renamed@example.org", given_name: "Augusta", family_name: null });
      const unchanged = await scim(org.token, "GET", `/Users/${user.id}`, undefined, { "if-none-match": 'W/"2"' });
      expect(unchanged.status).toBe(304);
    });

    it("PATCH active false revokes access as revoke_access does (sessions end), active true re-enables", async () => {
      const org = await organization("patch-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("patch@example.org", { password: "Patch-password-1" }))).body;
      const client = reference.userClient();
      const signedIn = await client.login({ email: "patch@example.org", password: "Patch-password-1" });
      expect(signedIn.access_token).toBeTruthy();
      client.setAccessToken(signedIn.access_token!);
      expect((await client.profile({})).id).toBe(user.id);
      const deactivated = await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] });
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.active).toBe(false);
      expect((await admin.user({ id: user.id })).revoked_timestamp).not.toBeNull();
      await expect(client.profile({})).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
      client.setAccessToken(undefined);
      await expect(client.login({ email: "patch@example.org", password: "Patch-password-1" })).rejects.toBeDefined();
      const reactivated = await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: true }] });
      expect(reactivated.body.active).toBe(true);
      expect((await admin.user({ id: user.id })).revoked_timestamp).toBeNull();
      expect((await client.login({ email: "patch@example.org", password: "Patch-password-1" })).access_token).toBeTruthy();
      await client.close();
    });

    it("PATCH adds, replaces and removes attributes by path", async () => {
      const org = await organization("paths-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("paths@example.org"))).body;
      const patched = await scim(org.token, "PATCH", `/Users/${user.id}`, {
        schemas: [PATCH_OP],
        Operations: [
          { op: "add", path: "title", value: "Engineer" },
          { op: "replace", path: "name.givenName", value: "Grace" },
          { op: "remove", path: "name.familyName" },
          { op: "add", path: "emails", value: [{ value: "home@example.net", type: "home" }] },
        ],
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ title: "Engineer", name: { givenName: "Grace" }, meta: { version: 'W/"2"' } });
      expect(patched.body.name.familyName).toBeUndefined();
      expect(patched.body.emails.map((email: any) => email.value).sort()).toEqual(["home@example.net", "paths@example.org"]);
      expect(await admin.user({ id: user.id })).toMatchObject({ given_name: "Grace", family_name: null, email: "paths@example.org" });
      const removed = await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: 'emails[type eq "home"]' }] });
      expect(removed.body.emails.map((email: any) => email.value)).toEqual(["paths@example.org"]);
      expectScimError(await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "title", value: "x" }] }, { "if-match": 'W/"1"' }), 412);
      expectScimError(await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "jump", path: "title" }] }), 400);
    });

    it("DELETE deprovisions: the account provisioning made is deleted, one its owner made only leaves the organization", async () => {
      const org = await organization("deprovision-org");
      await admin.addVerifiedOrgDomain({ org_id: org.id, domain: "deprov.example" });
      const made = (await scim(org.token, "POST", "/Users", newUser("made@deprov.example"))).body;
      const user = reference.userClient();
      const { user: own } = await user.signup({ email: "own@deprov.example", password: "own-password-1", confirm_password: "own-password-1" });
      await user.close();
      const linked = await scim(org.token, "POST", "/Users", newUser("own@deprov.example"));
      expect(linked.status).toBe(201);
      expect(linked.body.id).toBe(own!.id);
      expect((await scim(org.token, "DELETE", `/Users/${made.id}`)).status).toBe(204);
      expect((await scim(org.token, "DELETE", `/Users/${own!.id}`)).status).toBe(204);
      await expect(admin.user({ id: made.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await admin.user({ id: own!.id })).email).toBe("own@deprov.example");
      expect((await admin.orgMembers({ org_id: org.id })).members).toEqual([]);
      expectScimError(await scim(org.token, "GET", `/Users/${made.id}`), 404);
      expectScimError(await scim(org.token, "DELETE", `/Users/${made.id}`), 404);
      // Provisioned again later, the account is linked again (the domain is the organization's).
      expect((await scim(org.token, "POST", "/Users", newUser("own@deprov.example"))).body.id).toBe(own!.id);
    });

    it("refuses to take over an account outside the organization, and a taken userName, with 409 uniqueness and nothing written", async () => {
      const org = await organization("unique-org");
      const user = reference.userClient();
      await user.signup({ email: "victim@elsewhere.example", password: "victim-password-1", confirm_password: "victim-password-1" });
      await user.close();
      expectScimError(await scim(org.token, "POST", "/Users", newUser("victim@elsewhere.example")), 409, "uniqueness");
      expect((await admin.orgMembers({ org_id: org.id })).members).toEqual([]);
      expect((await scim(org.token, "POST", "/Users", newUser("taken@example.org"))).status).toBe(201);
      const before = (await admin.users({})).pagination.total;
      expectScimError(await scim(org.token, "POST", "/Users", newUser("TAKEN@example.org", { emails: [{ value: "other@example.org", primary: true }] })), 409, "uniqueness");
      expect((await admin.users({})).pagination.total).toBe(before);
      expect((await scim(org.token, "GET", "/Users")).body.totalResults).toBe(1);
    });
  });

  describe("active", () => {
    it("is false whenever access is revoked, true when stated, absent when the identity provider removed it", async () => {
      const org = await organization("active-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("active@example.org"))).body;
      await admin.revokeAccess({ user_id: user.id });
      expect((await scim(org.token, "GET", `/Users/${user.id}`)).body.active).toBe(false);
      await admin.enableAccess({ user_id: user.id });
      expect((await scim(org.token, "GET", `/Users/${user.id}`)).body.active).toBe(true);
      const removed = await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: "active" }] });
      expect(removed.status).toBe(200);
      expect(removed.body.active).toBeUndefined();
      expect((await admin.user({ id: user.id })).revoked_timestamp).toBeNull();
    });

    it("left out after provisioning deactivated the user gives access back; after an admin revoked it, it stays revoked", async () => {
      const org = await organization("active-org-2");
      const deactivated = (await scim(org.token, "POST", "/Users", newUser("deactivated@example.org", { active: false }))).body;
      expect((await admin.user({ id: deactivated.id })).revoked_timestamp).not.toBeNull();
      const removed = await scim(org.token, "PATCH", `/Users/${deactivated.id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: "active" }] });
      expect(removed.body.active).toBeUndefined();
      expect((await admin.user({ id: deactivated.id })).revoked_timestamp).toBeNull();
      const revoked = (await scim(org.token, "POST", "/Users", newUser("revoked@example.org"))).body;
      await admin.revokeAccess({ user_id: revoked.id });
      const put = await scim(org.token, "PUT", `/Users/${revoked.id}`, { schemas: [USER_SCHEMA], userName: "revoked@example.org" });
      expect(put.body.active).toBe(false);
      expect((await admin.user({ id: revoked.id })).revoked_timestamp).not.toBeNull();
    });
  });

  describe("searching", () => {
    it("POST .search takes a SearchRequest, on a resource type and at the root", async () => {
      const org = await organization("search-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("search@example.org"))).body;
      const group = (await scim(org.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Searchers", members: [{ value: user.id }] })).body;
      const request = { schemas: ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"], attributes: ["userName", "displayName"], startIndex: 1, count: 10 };
      const users = await scim(org.token, "POST", "/Users/.search", { ...request, filter: 'userName eq "search@example.org"' });
      expect(users.body).toMatchObject({ totalResults: 1, Resources: [{ id: user.id, userName: "search@example.org" }] });
      expect(users.body.Resources[0].emails).toBeUndefined();
      const both = await scim(org.token, "POST", "/.search", request);
      expect(both.body.totalResults).toBe(2);
      expect(both.body.Resources.map((resource: any) => resource.id)).toEqual([user.id, group.id]);
      expectScimError(await scim(org.token, "POST", "/Users/.search", { ...request, count: "ten" }), 400, "invalidValue");
      expectScimError(await scim(org.token, "GET", "/Users/.search"), 405);
    });
  });

  describe("groups", () => {
    it("creates, lists, patches members, shows them on the users, and deletes", async () => {
      const org = await organization("groups-org");
      const [ann, bob] = await Promise.all(["ann@groups.example", "bob@groups.example"].map(async (name) => (await scim(org.token, "POST", "/Users", newUser(name))).body));
      const created = await scim(org.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Engineering", externalId: "eng", members: [{ value: ann.id }] });
      expect(created.status).toBe(201);
      const group = created.body;
      expect(group).toMatchObject({ displayName: "Engineering", externalId: "eng", members: [{ value: ann.id, display: "ann@groups.example" }], meta: { resourceType: "Group", version: 'W/"1"' } });
      expectScimError(await scim(org.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "engineering" }), 409, "uniqueness");
      const added = await scim(org.token, "PATCH", `/Groups/${group.id}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: bob.id }] }] });
      expect(added.body.members.map((member: any) => member.value).sort()).toEqual([ann.id, bob.id].sort());
      expect((await scim(org.token, "GET", `/Users/${bob.id}`)).body.groups).toEqual([{ value: group.id, display: "Engineering", $ref: `${base}/scim/v2/Groups/${group.id}`, type: "direct" }]);
      const removed = await scim(org.token, "PATCH", `/Groups/${group.id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${ann.id}"]` }] });
      expect(removed.body.members.map((member: any) => member.value)).toEqual([bob.id]);
      const listed = await scim(org.token, "GET", `/Groups?filter=${encodeURIComponent('displayName eq "ENGINEERING"')}`);
      expect(listed.body).toMatchObject({ totalResults: 1, Resources: [{ id: group.id }] });
      // Deprovisioning a member takes them out of the group.
      await scim(org.token, "DELETE", `/Users/${bob.id}`);
      expect((await scim(org.token, "GET", `/Groups/${group.id}`)).body.members ?? []).toEqual([]);
      expect((await scim(org.token, "DELETE", `/Groups/${group.id}`)).status).toBe(204);
      expectScimError(await scim(org.token, "GET", `/Groups/${group.id}`), 404);
    });
  });

  describe("discovery", () => {
    it("answers ServiceProviderConfig, ResourceTypes and Schemas as announced", async () => {
      const { token } = await organization("discovery-org");
      const config = (await scim(token, "GET", "/ServiceProviderConfig")).body;
      expect(config).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, etag: { supported: true }, bulk: { supported: false }, sort: { supported: false } });
      expect(config.authenticationSchemes[0].type).toBe("oauthbearertoken");
      const types = (await scim(token, "GET", "/ResourceTypes")).body;
      expect(types.Resources.map((type: any) => [type.name, type.endpoint])).toEqual([
        ["User", "/Users"],
        ["Group", "/Groups"],
      ]);
      expect((await scim(token, "GET", "/ResourceTypes/User")).body.schema).toBe(USER_SCHEMA);
      const schemas = (await scim(token, "GET", "/Schemas")).body;
      expect(schemas.Resources.map((s: any) => s.id)).toEqual(expect.arrayContaining([USER_SCHEMA, GROUP_SCHEMA]));
      expect((await scim(token, "GET", `/Schemas/${USER_SCHEMA}`)).body.attributes.some((a: any) => a.name === "userName")).toBe(true);
    });
  });

  describe("bad input: a SCIM error each, nothing written", () => {
    it("answers each with its status and scimType", async () => {
      const org = await organization("bad-org");
      const count = async () => (await scim(org.token, "GET", "/Users")).body.totalResults;
      expectScimError(await scim(org.token, "GET", `/Users?filter=${encodeURIComponent("userName eq")}`), 400, "invalidFilter");
      expectScimError(await scim(org.token, "GET", `/Users?filter=${encodeURIComponent('userName zz "a"')}`), 400, "invalidFilter");
      expectScimError(await scim(org.token, "GET", "/Users?startIndex=first"), 400, "invalidValue");
      expectScimError(await scim(org.token, "POST", "/Users", { schemas: [USER_SCHEMA], userName: 7 }), 400, "invalidValue");
      expectScimError(await scim(org.token, "POST", "/Users", { schemas: [USER_SCHEMA], name: { givenName: "x" } }), 400, "invalidValue");
      expectScimError(await scim(org.token, "POST", "/Users", "{not json"), 400, "invalidSyntax");
      expectScimError(await scim(org.token, "POST", "/Users", "[1]"), 400, "invalidSyntax");
      expectScimError(await scim(org.token, "POST", "/Users", JSON.stringify(newUser("form@example.org")), { "content-type": "text/plain" }), 415);
      expectScimError(await scim(org.token, "POST", "/Users", { ...newUser("big@example.org"), title: "x".repeat(2 * 1024 * 1024) }), 413);
      expectScimError(await scim(org.token, "GET", "/Users/no-such-user"), 404);
      expectScimError(await scim(org.token, "GET", "/Widgets"), 404);
      expectScimError(await scim(org.token, "GET", "/Users/a/b"), 404);
      expectScimError(await scim(org.token, "POST", "/Bulk", { schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], Operations: [] }), 501);
      const wrongMethod = await scim(org.token, "DELETE", "/Users");
      expectScimError(wrongMethod, 405);
      expect(wrongMethod.headers.get("allow")).toBe("GET, POST");
      expect(await count()).toBe(0);
    });

    it("accepts plain JSON as well as application/scim+json", async () => {
      const org = await organization("json-org");
      expect((await scim(org.token, "POST", "/Users", newUser("json@example.org"), { "content-type": "application/json" })).status).toBe(201);
    });
  });

  // The security review's attack: 8,000 addresses in one PATCH took 12.2 s of the event loop, every
  // later PATCH of that user 9-13 s, and another client's /healthz waited 8.65 s.
  describe("bounded work: multi-valued attributes, PATCH operations and resources are capped", () => {
    const address = (i: number, size = 20) => ({ type: "work", streetAddress: `${i} ${"x".repeat(size)}` });
    const patchOp = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

    it("refuses 8,000 addresses in one PATCH at once, the record unchanged, while another client is answered", async () => {
      const org = await organization("cap-patch-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("cap@example.org"))).body;
      const started = performance.now();
      const [refused, health] = await Promise.all([
        scim(org.token, "PATCH", `/Users/${user.id}`, patchOp({ op: "add", path: "addresses", value: Array.from({ length: 8000 }, (_, i) => address(i, 80)) })),
        fetch(`${base}/healthz`).then((answer) => answer.status),
      ]);
      expectScimError(refused, 400, "invalidValue");
      expect(refused.body.detail).toBe("Operations[0]: addresses: at most 100 values, not 8000");
      expect(health).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_000);
      const after = await scim(org.token, "GET", `/Users/${user.id}`);
      expect(after.body.addresses).toBeUndefined();
      expect(after.body.meta.version).toBe(user.meta.version);
    });

    it("refuses the PATCH that would grow a list past its cap across requests, keeping what was there", async () => {
      const org = await organization("cap-grow-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("grow@example.org"))).body;
      const first = await scim(org.token, "PATCH", `/Users/${user.id}`, patchOp({ op: "add", path: "addresses", value: Array.from({ length: 60 }, (_, i) => address(i)) }));
      expect(first.status).toBe(200);
      expect(first.body.addresses).toHaveLength(60);
      const second = await scim(org.token, "PATCH", `/Users/${user.id}`, patchOp({ op: "add", path: "addresses", value: Array.from({ length: 60 }, (_, i) => address(60 + i)) }));
      expectScimError(second, 400, "invalidValue");
      expect(second.body.detail).toBe("addresses: at most 100 values, not 120");
      // One value an operation, many operations: the same cap on what they make together.
      const oneByOne = await scim(org.token, "PATCH", `/Users/${user.id}`, patchOp(...Array.from({ length: 41 }, (_, i) => ({ op: "add", path: "addresses", value: [address(200 + i)] }))));
      expectScimError(oneByOne, 400, "invalidValue");
      const after = await scim(org.token, "GET", `/Users/${user.id}`);
      expect(after.body.addresses).toHaveLength(60);
      expect(after.body.meta.version).toBe(first.body.meta.version);
    });

    it("refuses more than 100 operations in a PATCH, and a user or group sent whole past its cap, creating nothing", async () => {
      const org = await organization("cap-whole-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("whole@example.org"))).body;
      const many = await scim(org.token, "PATCH", `/Users/${user.id}`, patchOp(...Array.from({ length: 101 }, () => ({ op: "replace", path: "displayName", value: "x" }))));
      expectScimError(many, 400, "invalidValue");
      expect(many.body.detail).toBe("a PATCH carries at most 100 operations, not 101");
      const emails = Array.from({ length: 101 }, (_, i) => ({ value: `e${i}@example.org`, type: "work" }));
      const created = await scim(org.token, "POST", "/Users", newUser("many@example.org", { emails }));
      expectScimError(created, 400, "invalidValue");
      expect(created.body.detail).toBe("emails: at most 100 values, not 101");
      expectScimError(await scim(org.token, "PUT", `/Users/${user.id}`, newUser("whole@example.org", { emails })), 400, "invalidValue");
      const members = Array.from({ length: 1001 }, () => ({ value: user.id }));
      const group = await scim(org.token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "crowd", members });
      expectScimError(group, 400, "invalidValue");
      expect(group.body.detail).toBe("members: at most 1000 values, not 1001");
      expect((await scim(org.token, "GET", "/Users")).body.totalResults).toBe(1);
      expect((await scim(org.token, "GET", "/Groups")).body.totalResults).toBe(0);
      expect((await scim(org.token, "GET", `/Users/${user.id}`)).body.meta.version).toBe(user.meta.version);
    });

    it("refuses a PATCH that would make a resource larger than 256 KiB, though each request is under the body limit", async () => {
      const org = await organization("cap-size-org");
      const user = (await scim(org.token, "POST", "/Users", newUser("size@example.org"))).body;
      const big = (from: number) => patchOp({ op: "add", path: "addresses", value: Array.from({ length: 30 }, (_, i) => address(from + i, 4000)) });
      const first = await scim(org.token, "PATCH", `/Users/${user.id}`, big(0));
      expect(first.status).toBe(200);
      const second = await scim(org.token, "PATCH", `/Users/${user.id}`, big(30));
      expect(second.status).toBe(200);
      const third = await scim(org.token, "PATCH", `/Users/${user.id}`, big(60));
      expectScimError(third, 413);
      expect(third.body.detail).toMatch(/^the resource would be \d+ bytes as JSON; the most it may be is 262144$/);
      expect((await scim(org.token, "GET", `/Users/${user.id}`)).body.addresses).toHaveLength(60);
    });
  });

  describe("the lows of the security review", () => {
    it("holds a SCIM password to the manifest's 12-character minimum, on create, replace and PATCH", async () => {
      const org = await organization("password-org");
      const short = await scim(org.token, "POST", "/Users", newUser("short@example.org", { password: "Short-1" }));
      expectScimError(short, 400, "invalidValue");
      expect(short.body.detail).toBe("password: must be at least 12 characters");
      expect((await scim(org.token, "GET", "/Users")).body.totalResults).toBe(0);
      const user = (await scim(org.token, "POST", "/Users", newUser("long@example.org", { password: "Long-enough-password-1" }))).body;
      expectScimError(await scim(org.token, "PUT", `/Users/${user.id}`, newUser("long@example.org", { password: "Short-2" })), 400, "invalidValue");
      expectScimError(await scim(org.token, "PATCH", `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "password", value: "Short-3" }] }), 400, "invalidValue");
      const users = reference.userClient();
      try {
        expect((await users.login({ email: "long@example.org", password: "Long-enough-password-1" })).access_token).toBeTruthy();
      } finally {
        await users.close();
      }
    });

    it("refuses attributes that are no attribute names (__proto__) with a SCIM error of its own, not a JavaScript message", async () => {
      const org = await organization("proto-org");
      for (const parameter of ["attributes", "excludedAttributes"]) {
        const answer = await scim(org.token, "GET", `/Users?${parameter}=userName,__proto__`);
        expectScimError(answer, 400, "invalidValue");
        expect(answer.body.detail).toBe(`${parameter}: "__proto__" is not an attribute name`);
      }
      expect((await scim(org.token, "GET", "/Users?attributes=userName,emails.value,urn:ietf:params:scim:schemas:core:2.0:User:name.givenName")).status).toBe(200);
    });
  });
});

describe("the SCIM example of docs/server.md", () => {
  beforeAll(() => start());
  afterAll(() => stop());

  it("runs as printed: provisions a user, then finds it by userName", async () => {
    ensureDebianProgram("curl", "/usr/bin/curl", "the SCIM example of docs/server.md");
    const page = readFileSync(join(REPO_ROOT, "docs", "server.md"), "utf8");
    const heading = page.indexOf("\n## SCIM provisioning\n");
    expect(heading).toBeGreaterThan(-1);
    const section = page.slice(heading);
    const script = /```sh\n([\s\S]*?)\n```/.exec(section)![1]!;
    const { token } = await organization("readme-org");
    const { stdout: output } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", script], { env: { PATH: process.env.PATH ?? "", SERVICE_URL: base, SCIM_TOKEN: token }, encoding: "utf8" });
    const [created, found] = output
      .replace("}{", "}\n{")
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(created).toMatchObject({ userName: "ada@example.com", active: true });
    expect(found).toMatchObject({ totalResults: 1, Resources: [{ id: created.id }] });
    expect((await admin.user({ id: created.id })).email).toBe("ada@example.com");
  });
});

describe("SCIM on a SQLite file", () => {
  it("keeps provisioned users and groups across a restart", async () => {
    const file = join(tempDir("scim-restart-"), "identity.sqlite");
    const serveFile = async () => serve({ storage: (await openStorage(`sqlite:${file}`)).storage });
    await serveFile();
    const { token } = await organization("restart-org");
    const user = (await scim(token, "POST", "/Users", newUser("restart@example.org"))).body;
    const group = (await scim(token, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Kept", members: [{ value: user.id }] })).body;
    await stop();
    await serveFile();
    // The same records, at the new address.
    expect((await scim(token, "GET", `/Users/${user.id}`)).body).toMatchObject({
      userName: "restart@example.org",
      emails: user.emails,
      active: true,
      meta: { created: user.meta.created, version: 'W/"1"' },
      groups: [{ value: group.id, display: "Kept" }],
    });
    expect((await scim(token, "GET", `/Groups/${group.id}`)).body).toMatchObject({
      displayName: "Kept",
      members: [{ value: user.id }],
      meta: { created: group.meta.created, version: 'W/"1"', location: `${base}/scim/v2/Groups/${group.id}` },
    });
    await stop();
  });
});

describe("SCIM under rate limits", () => {
  beforeAll(() => start({ rateLimit: { read: { perSecond: 2, burst: 0 }, write: false, token: false } }));
  afterAll(() => stop());

  it("counts SCIM reads with the other reads: 429 with Retry-After and a SCIM error", async () => {
    const { token } = await organization("limited-org");
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await scim(token, "GET", "/Users"));
    const refused = answers.find((answer) => answer.status === 429)!;
    expectScimError(refused, 429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
