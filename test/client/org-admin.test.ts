// An org-admin through the TypeScript SDK with their own access token instead of the admin secret
// (`accessToken`; Python's access_token and Go's WithAdminAccessToken run the org_admin cells of
// the conformance matrix): the operations of their organization on every protocol, a refusal that
// names the organization and the role for another one, a client refused before sending with
// neither credential or both, and bearer tokens that never count toward the admin-secret lockout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { PROTOCOLS } from "../helpers/raw-calls.js";
import { startReferenceHarness, type ReferenceHarness } from "../helpers/reference-harness.js";

const SECRET = "org-admin-test-secret";
const PASSWORD = "org-admin-password-1";

let reference: ReferenceHarness;
let url: string;
let grpcEndpoint: string;
let token: string;
let ownOrg: string;
let otherOrg: string;

const admin = (credentials: { adminSecret?: string; accessToken?: string }, protocol: (typeof PROTOCOLS)[number] = "rest") =>
  new AdminClient({ serviceUrl: url, grpcEndpoint, serverVersion: schema.version, retry: false, protocol, ...credentials });

async function refusal(call: () => Promise<unknown>): Promise<ApiError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

beforeAll(async () => {
  reference = await startReferenceHarness({ adminSecret: SECRET, service: { features: { is_email_verification_enabled: false } } });
  ({ httpUrl: url, grpcEndpoint } = reference);
  const user = reference.userClient();
  const { user: signedUp } = await user.signup({ email: "olga@example.com", password: PASSWORD, confirm_password: PASSWORD });
  token = (await user.login({ email: "olga@example.com", password: PASSWORD })).access_token!;
  await user.close();
  const root = admin({ adminSecret: SECRET });
  ownOrg = (await root.createOrganization({ name: "olgas-org" })).id;
  otherOrg = (await root.createOrganization({ name: "someone-elses" })).id;
  await root.addOrgMember({ org_id: ownOrg, user_id: signedUp!.id, roles: [schema.orgAdminRole] });
  await root.close();
});

afterAll(async () => {
  await reference?.stop();
});

describe("an org-admin's admin client, with their access token", () => {
  it.each(PROTOCOLS)("manages their own organization over %s, and is refused another naming the organization and the role", async (protocol) => {
    const client = admin({ accessToken: token }, protocol);
    try {
      expect((await client.updateOrganization({ id: ownOrg, display_name: `Olga's (${protocol})` })).display_name).toBe(`Olga's (${protocol})`);
      expect((await client.orgMembers({ org_id: ownOrg })).members.map((member) => member.email)).toEqual(["olga@example.com"]);
      const refused = await refusal(() => client.updateOrganization({ id: otherOrg, display_name: "taken over" }));
      expect(refused.code).toBe("PERMISSION_DENIED");
      expect(refused.message).toContain(`not ${schema.orgAdminRole} of organization ${otherOrg}`);
      // A super-admin's operation stays the super-admin's.
      expect((await refusal(() => client.organizations({}))).code).toBe("PERMISSION_DENIED");
    } finally {
      await client.close();
    }
  });

  it("is refused before sending without a credential, or with both", () => {
    expect(() => admin({})).toThrow(/adminSecret is required \(or the environment variable IDENTITY_ADMIN_SECRET\), or accessToken: the access token of a user who is an org-admin/);
    expect(() => admin({ adminSecret: SECRET, accessToken: token })).toThrow(/give adminSecret or accessToken, not both/);
  });

  it("never counts toward the admin-secret lockout, however often it is refused", async () => {
    const client = admin({ accessToken: token });
    try {
      // More refusals than the lockout's 10 wrong secrets from this address.
      for (let n = 0; n < 15; n++) expect((await refusal(() => client.updateOrganization({ id: otherOrg, display_name: "no" }))).code).toBe("PERMISSION_DENIED");
    } finally {
      await client.close();
    }
    const root = admin({ adminSecret: SECRET });
    try {
      expect((await root.organizations({})).organizations.length).toBe(2);
    } finally {
      await root.close();
    }
  });
});

describe("an org-admin's admin client without serverVersion", () => {
  it.each(PROTOCOLS)("learns the server's version from the public version read over %s, since the admin's needs the secret", async (protocol) => {
    const client = new AdminClient({ serviceUrl: url, grpcEndpoint, retry: false, protocol, accessToken: token });
    try {
      // Organizations need 2.4.0 over REST and gRPC: the client asks the server's version first.
      expect((await client.getOrganization({ id: ownOrg })).id).toBe(ownOrg);
    } finally {
      await client.close();
    }
  });
});
