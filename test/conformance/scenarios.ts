// One scenario per operation of the manifest: what to create first (over REST, on a fresh
// service), the call (input built from what the setup answered, and who makes it), and what it
// must answer: success with a few checks on the flat answer, or an error code. The matrix runs each
// scenario over every protocol that carries the operation and compares the answers.
import { generateKeyPairSync } from "node:crypto";
import { expect } from "vitest";
import type { AdminClient, UserClient } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import type { ReferenceState } from "../../reference/service.js";
import { selfSignedCertificate } from "../../reference/x509.js";
import type { ErrorCode } from "../../runtime/errors.js";
import { ADMIN_SECRET, ciClusterIssuer, EXTERNAL_ISSUER, START_S } from "../helpers/reference-server.js";

export type { OperationName } from "../../generated/client/index.js";
import type { OperationName } from "../../generated/client/index.js";

/** Who makes the call: the admin secret, an org-admin's bearer token on the admin surface, a signed-in user, nobody. */
export type Caller = "admin" | "org_admin" | "user" | "anonymous";

/** What a setup answers: ids, emails, tokens. `accessToken` is the caller's for "user" and "org_admin". */
export type Values = Record<string, string>;

/** A flat answer, checked loosely here: its exact equality across protocols is the matrix's job. */
export type Answer = Record<string, any>;

/** What a setup may use: REST clients on the fresh service, its state, and a few shortcuts. */
export interface SetupContext {
  /** Admin client over REST. */
  admin: AdminClient;
  /** A user client over REST, signed in with `accessToken` when given. */
  user(accessToken?: string): UserClient;
  state: ReferenceState;
  /** Moves the service's clock. */
  advance(seconds: number): void;
  /** Signs up over REST and answers the user id and tokens. */
  signUp(email: string, password?: string): Promise<{ userId: string; accessToken: string; refreshToken: string }>;
  /** Invites a user (no password, so no slow hash) and answers the id. */
  invite(email: string): Promise<string>;
  createOrg(name: string): Promise<string>;
  /** The secret (token or one-time password) of the last message sent to `to`. */
  lastSecretSentTo(to: string): string;
  /** Logs in over REST and answers the session cookie the answer set. */
  sessionCookie(email: string, password: string): Promise<string>;
  /** Publishes a TXT record in the DNS the service looks domains up in. */
  publishTxt(name: string, value: string): void;
}

export type Expectation = { ok: (answer: Answer, values: Values) => void } | { error: ErrorCode; message?: string | RegExp };

export interface Scenario {
  /** What the scenario shows, in a few words. */
  about: string;
  /** Default: the admin on the admin surface; a signed-in user for user-auth operations; nobody otherwise. */
  as?: Caller;
  setup?: (context: SetupContext) => Promise<Values>;
  input: (values: Values) => Record<string, unknown>;
  expect: Expectation;
  /** Checks of the state the call left behind (run after the call, on the same service). */
  after?: (state: ReferenceState, values: Values) => Promise<void>;
}

export const PASSWORD = "matrix-password-1";
const ORG_ADMIN = schema.orgAdminRole;

/** A PEM certificate to use as input (an SP certificate, an upstream IdP certificate). */
function makeCertificate(commonName: string): string {
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return selfSignedCertificate({ ...pair, commonName, notBefore: new Date(START_S * 1000), notAfter: new Date((START_S + 365 * 86400) * 1000) });
}
const CERTIFICATE = makeCertificate("matrix.example.com");
const CERTIFICATE_BODY = CERTIFICATE.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");

const SP_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://sp.example.com/metadata">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${CERTIFICATE_BODY}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example.com/acs" index="0"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;

// ---- setups shared by several scenarios ----

const withOrg = async (c: SetupContext) => ({ orgId: await c.createOrg("acme") });

/** An organization and a signed-in user who is its org-admin. */
async function withOrgAdmin(c: SetupContext): Promise<Values> {
  const orgId = await c.createOrg("acme");
  const { userId, accessToken } = await c.signUp("owner@acme.com");
  await c.admin.addOrgMember({ org_id: orgId, user_id: userId, roles: [ORG_ADMIN] });
  return { orgId, userId, accessToken };
}

async function withSignedInUser(c: SetupContext): Promise<Values> {
  const { userId, accessToken, refreshToken } = await c.signUp("ada@example.com");
  return { userId, accessToken, refreshToken, email: "ada@example.com" };
}

async function withClient(c: SetupContext): Promise<{ id: string; clientId: string; clientSecret: string }> {
  const { client, client_secret } = await c.admin.createClient({ name: "billing", description: "billing jobs", allowed_scopes: ["invoices:read", "invoices:write"] });
  return { id: client.id, clientId: client.client_id, clientSecret: client_secret };
}

/** The S256 challenge of RFC 7636's example verifier. */
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** A client that signs users in, with its redirect and post-logout addresses. */
async function withRedirectClient(c: SetupContext): Promise<Values> {
  const { client, client_secret } = await c.admin.createClient({
    name: "portal",
    allowed_scopes: ["invoices:read"],
    redirect_uris: ["https://app.example.com/cb"],
    post_logout_redirect_uris: ["https://app.example.com/bye"],
  });
  return { id: client.id, clientId: client.client_id, clientSecret: client_secret };
}

async function withTrustedIssuer(c: SetupContext): Promise<Values> {
  const { id: clientRecordId, clientId } = await withClient(c);
  const issuer = await c.admin.addTrustedIssuer(ciClusterIssuer(clientRecordId));
  return { id: issuer.id, clientRecordId, clientId };
}

async function withServiceProvider(c: SetupContext): Promise<Values> {
  const orgId = await c.createOrg("acme");
  const sp = await c.admin.createSAMLServiceProvider({
    org_id: orgId,
    name: "wiki",
    entity_id: "https://wiki.example.com/saml",
    acs_url: "https://wiki.example.com/saml/acs",
    mapped_attributes: { email: "mail", name: "displayName" },
  });
  return { orgId, id: sp.id };
}

async function withOidcConnection(c: SetupContext): Promise<Values> {
  const orgId = await c.createOrg("acme");
  const connection = await c.admin.createOrgOIDCConnection({ org_id: orgId, name: "okta", issuer_url: "https://acme.okta.example", client_id: "acme-app", client_secret: "upstream-secret-1" });
  return { orgId, id: connection.id };
}

async function withSamlConnection(c: SetupContext): Promise<Values> {
  const orgId = await c.createOrg("acme");
  const connection = await c.admin.createOrgSAMLConnection({
    org_id: orgId,
    name: "adfs",
    idp_entity_id: "https://adfs.acme.example/adfs",
    idp_sso_url: "https://adfs.acme.example/adfs/ls",
    idp_certificate: CERTIFICATE,
    attribute_mapping: { email: "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress" },
  });
  return { orgId, id: connection.id };
}

async function withScimEndpoint(c: SetupContext): Promise<Values> {
  const orgId = await c.createOrg("acme");
  const { token } = await c.admin.createSCIMEndpoint({ org_id: orgId });
  return { orgId, token };
}

/** A user with multi-factor authentication whose login is waiting for the one-time password. */
async function withPendingOtp(c: SetupContext): Promise<Values> {
  const { accessToken } = await c.signUp("mfa@example.com");
  await c.user(accessToken).updateProfile({ is_multi_factor_auth_enabled: true });
  const answer = await c.user().login({ email: "mfa@example.com", password: PASSWORD });
  expect(answer.should_show_email_otp_screen).toBe(true);
  return { email: "mfa@example.com", otp: c.lastSecretSentTo("mfa@example.com") };
}

/** A model that allows TUPLES. */
export const FGA_MODEL = "model\n  schema 1.1\ntype user\ntype group\n  relations\n    define member: [user, group#member]\ntype doc\n  relations\n    define viewer: [user, group#member]";

const TUPLES = [
  { user: "user:anne", relation: "viewer", object: "doc:roadmap" },
  { user: "group:eng#member", relation: "viewer", object: "doc:roadmap" },
  { user: "user:bob", relation: "member", object: "group:eng" },
];

const message = (text: string | RegExp) => ({ ok: (answer: Answer) => expect(answer.message).toMatch(text) });

export const scenarios: Record<OperationName, Scenario> = {
  // ---- admin session and meta ----
  admin_login: {
    about: "the admin secret opens an admin session",
    input: () => ({ admin_secret: ADMIN_SECRET }),
    expect: { ok: (a) => expect(a).toEqual({ message: "admin session opened", created_at: START_S, expires_at: expect.any(Number) }) },
  },
  admin_logout: {
    about: "ends the admin session (none open: still answers)",
    input: () => ({}),
    expect: message("admin session closed"),
  },
  admin_session: {
    about: "the admin secret header is its own session",
    input: () => ({}),
    expect: { ok: (a) => expect(a).toMatchObject({ created_at: START_S, expires_at: START_S, message: expect.stringContaining("admin secret header") }) },
  },
  admin_meta: {
    about: "version, protocols, gRPC port and feature flags",
    input: () => ({}),
    expect: { ok: (a) => expect(a).toMatchObject({ version: schema.version, client_id: "reference", enabled_protocols: ["graphql", "rest", "grpc"], is_fga_enabled: true }) },
  },
  admin_signup: {
    about: "refused: the admin secret is a server flag",
    input: () => ({ admin_secret: "another-secret" }),
    expect: { error: "FAILED_PRECONDITION", message: /use admin_login/ },
  },
  update_env: {
    about: "always fails (spec §7.2)",
    input: () => ({ config: { SMTP_HOST: "mail.example.com" } }),
    expect: { error: "FAILED_PRECONDITION", message: /update_env is deprecated and always fails/ },
  },
  generate_jwt_keys: {
    about: "an HMAC secret, no PEM pair",
    input: () => ({ type: "HS256" }),
    expect: { ok: (a) => expect(a).toEqual({ secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), public_key: null, private_key: null }) },
  },

  // ---- users ----
  users: {
    about: "second page of one, with a query",
    setup: async (c) => {
      for (const email of ["ann@example.com", "bob@example.com", "cat@other.org"]) await c.invite(email);
      return {};
    },
    input: () => ({ pagination: { limit: 1, page: 2 }, query: "example.com" }),
    expect: {
      ok: (a) => {
        expect(a.pagination).toEqual({ limit: 1, page: 2, offset: 1, total: 2 });
        expect(a.users.map((u: Answer) => u.email)).toEqual(["bob@example.com"]);
      },
    },
  },
  user: {
    about: "by email: every User field present",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: () => ({ email: "ANN@example.com" }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, email: "ann@example.com", email_verified: false, revoked_timestamp: null, app_data: null, roles: ["user"] }) },
  },
  update_user: {
    about: "profile fields, roles and JSON app_data",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: (v) => ({ id: v.id, given_name: "Ann", roles: ["user", "editor"], email_verified: true, app_data: { team: "core", level: 3, tags: ["a", "b"], nested: { on: true } } }),
    expect: {
      ok: (a) => expect(a).toMatchObject({ given_name: "Ann", roles: ["user", "editor"], email_verified: true, app_data: { team: "core", level: 3, tags: ["a", "b"], nested: { on: true } } }),
    },
  },
  delete_user: {
    about: "deletes the user",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: (v) => ({ id: v.id }),
    expect: message(/^user id-\d+ deleted$/),
  },
  verification_requests: {
    about: "pending invitations, without their tokens",
    setup: async (c) => {
      await c.admin.inviteMembers({ emails: ["ann@example.com", "bob@example.com"], redirect_uri: "https://app.example.com/welcome" });
      return {};
    },
    input: () => ({ pagination: { limit: 10 } }),
    expect: {
      ok: (a) => {
        expect(a.pagination).toEqual({ limit: 10, page: 1, offset: 0, total: 2 });
        expect(a.verification_requests).toHaveLength(2);
        expect(a.verification_requests[0]).toMatchObject({ identifier: "invite_member", token: null, redirect_uri: "https://app.example.com/welcome" });
      },
    },
  },
  revoke_access: {
    about: "revokes a user's access",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: (v) => ({ user_id: v.id }),
    expect: message(/^access of user id-\d+ revoked$/),
  },
  enable_access: {
    about: "re-enables a revoked user",
    setup: async (c) => {
      const id = await c.invite("ann@example.com");
      await c.admin.revokeAccess({ user_id: id });
      return { id };
    },
    input: (v) => ({ user_id: v.id }),
    expect: message(/^access of user id-\d+ enabled$/),
  },
  invite_members: {
    about: "invites new addresses, skips existing users",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: () => ({ emails: ["ann@example.com", "bob@example.com", "cat@example.com"], redirect_uri: "https://app.example.com/welcome" }),
    expect: message("2 invited; 1 already had an account"),
  },

  // ---- webhooks, email templates, audit logs ----
  add_webhook: {
    about: "with a headers map",
    input: () => ({ event_name: "user.login", event_description: "logins", endpoint: "https://hooks.example.com/login", enabled: true, headers: { "x-hook-token": "abc", "x-env": "test" } }),
    expect: {
      ok: (a) =>
        expect(a).toEqual({
          id: "id-1",
          event_name: "user.login",
          event_description: "logins",
          endpoint: "https://hooks.example.com/login",
          enabled: true,
          headers: { "x-hook-token": "abc", "x-env": "test" },
          created_at: START_S,
          updated_at: START_S,
        }),
    },
  },
  update_webhook: {
    about: "disables it, moves it and clears its headers with an empty map",
    setup: async (c) => ({ id: (await c.admin.addWebhook({ event_name: "user.login", endpoint: "https://hooks.example.com/a", enabled: true, headers: { a: "1" } })).id }),
    input: (v) => ({ id: v.id, enabled: false, endpoint: "https://hooks.example.com/b", headers: {} }),
    expect: { ok: (a) => expect(a).toMatchObject({ enabled: false, endpoint: "https://hooks.example.com/b", headers: {}, event_name: "user.login" }) },
  },
  delete_webhook: {
    about: "deletes it",
    setup: async (c) => ({ id: (await c.admin.addWebhook({ event_name: "user.login", endpoint: "https://hooks.example.com/a", enabled: true })).id }),
    input: (v) => ({ id: v.id }),
    expect: message(/^webhook id-\d+ deleted$/),
  },
  get_webhook: {
    about: "unset optional fields are null, the empty map is {}",
    setup: async (c) => ({ id: (await c.admin.addWebhook({ event_name: "user.signup", endpoint: "https://hooks.example.com/a", enabled: false })).id }),
    input: (v) => ({ id: v.id }),
    expect: { ok: (a) => expect(a).toMatchObject({ event_description: null, headers: {}, enabled: false }) },
  },
  webhooks: {
    about: "a page of two",
    setup: async (c) => {
      await c.admin.addWebhook({ event_name: "user.login", endpoint: "https://hooks.example.com/a", enabled: true });
      await c.admin.addWebhook({ event_name: "user.signup", endpoint: "https://hooks.example.com/b", enabled: true });
      return {};
    },
    input: () => ({}),
    expect: { ok: (a) => expect(a.webhooks.map((w: Answer) => w.event_name)).toEqual(["user.login", "user.signup"]) },
  },
  webhook_logs: {
    about: "the delivery an invitation caused",
    setup: async (c) => {
      const { id } = await c.admin.addWebhook({ event_name: "user.created", endpoint: "https://hooks.example.com/created", enabled: true });
      await c.invite("ann@example.com");
      await c.state.settled();
      return { id };
    },
    input: (v) => ({ webhook_id: v.id }),
    expect: {
      ok: (a, v) => {
        expect(a.pagination.total).toBe(1);
        expect(a.webhook_logs[0]).toMatchObject({ webhook_id: v.id, http_status: 200, response: "received user.created" });
      },
    },
  },
  test_endpoint: {
    about: "sends a test event and answers the endpoint's reply",
    input: () => ({ endpoint: "https://hooks.example.com/test", event_name: "user.login", headers: { "x-hook-token": "abc" } }),
    expect: { ok: (a) => expect(a).toEqual({ http_status: 200, response: "received user.login" }) },
  },
  add_email_template: {
    about: "unset design is null",
    input: () => ({ event_name: "magic_link_login", subject: "Sign in", template: "<p>{{link}}</p>" }),
    expect: { ok: (a) => expect(a).toEqual({ id: "id-1", event_name: "magic_link_login", subject: "Sign in", template: "<p>{{link}}</p>", design: null, created_at: START_S, updated_at: START_S }) },
  },
  update_email_template: {
    about: "changes the subject only",
    setup: async (c) => ({ id: (await c.admin.addEmailTemplate({ event_name: "forgot_password", subject: "Reset", template: "<p>reset</p>", design: "{}" })).id }),
    input: (v) => ({ id: v.id, subject: "Reset your password" }),
    expect: { ok: (a) => expect(a).toMatchObject({ subject: "Reset your password", template: "<p>reset</p>", design: "{}" }) },
  },
  delete_email_template: {
    about: "deletes it",
    setup: async (c) => ({ id: (await c.admin.addEmailTemplate({ event_name: "forgot_password", subject: "Reset", template: "<p>reset</p>" })).id }),
    input: (v) => ({ id: v.id }),
    expect: message(/^email template id-\d+ deleted$/),
  },
  email_templates: {
    about: "a page of two",
    setup: async (c) => {
      await c.admin.addEmailTemplate({ event_name: "forgot_password", subject: "Reset", template: "a" });
      await c.admin.addEmailTemplate({ event_name: "invite_member", subject: "Welcome", template: "b" });
      return {};
    },
    input: () => ({ pagination: { limit: 5, page: 1 } }),
    expect: { ok: (a) => expect(a.pagination).toEqual({ limit: 5, page: 1, offset: 0, total: 2 }) },
  },
  audit_logs: {
    about: "admin writes of the setup, newest first, with JSON metadata",
    setup: async (c) => {
      await withClient(c);
      await c.admin.addWebhook({ event_name: "user.login", endpoint: "https://hooks.example.com/a", enabled: true });
      return {};
    },
    input: () => ({ from_timestamp: START_S, to_timestamp: START_S + 60 }),
    expect: {
      ok: (a) => {
        expect(a.audit_logs.map((l: Answer) => l.action)).toEqual(["add_webhook", "create_client"]);
        expect(a.audit_logs[0]).toMatchObject({ actor_type: "admin", metadata: { protocol: "rest" }, created_at: START_S });
      },
    },
  },

  // ---- FGA ----
  fga_get_model: {
    about: "no model written yet",
    input: () => ({}),
    expect: { error: "NOT_FOUND", message: "FGA model (none written yet) not found" },
  },
  fga_write_model: {
    about: "stores the model as written",
    input: () => ({ dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]" }),
    expect: { ok: (a) => expect(a).toEqual({ id: "id-1", dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]", created_at: START_S }) },
  },
  fga_write_tuples: {
    about: "writes three tuples",
    input: () => ({ tuples: TUPLES }),
    expect: message("3 tuple(s) written"),
  },
  fga_delete_tuples: {
    about: "deletes the one that exists",
    setup: async (c) => {
      await c.admin.fgaWriteTuples({ tuples: TUPLES });
      return {};
    },
    input: () => ({ tuples: [TUPLES[0]!, { user: "user:zed", relation: "viewer", object: "doc:roadmap" }] }),
    expect: message("1 tuple(s) deleted"),
  },
  fga_read_tuples: {
    about: "a page of two with a continuation token",
    setup: async (c) => {
      await c.admin.fgaWriteTuples({ tuples: TUPLES });
      return {};
    },
    input: () => ({ page_size: 2 }),
    expect: {
      ok: (a) => {
        expect(a.tuples).toEqual(TUPLES.slice(0, 2));
        expect(a.continuation_token).not.toBe("");
      },
    },
  },
  fga_list_users: {
    about: "direct and through a userset",
    setup: async (c) => {
      await c.admin.fgaWriteTuples({ tuples: TUPLES });
      return {};
    },
    input: () => ({ object: "doc:roadmap", relation: "viewer", user_type: "user" }),
    expect: { ok: (a) => expect(a).toEqual({ users: ["user:anne", "user:bob"] }) },
  },
  fga_expand: {
    about: "the userset tree as JSON",
    setup: async (c) => {
      await c.admin.fgaWriteTuples({ tuples: TUPLES });
      return {};
    },
    input: () => ({ object: "doc:roadmap", relation: "viewer" }),
    expect: {
      ok: (a) =>
        expect(a).toEqual({
          relation: "viewer",
          object: "doc:roadmap",
          users: ["user:anne", "group:eng#member"],
          tree: { root: { name: "doc:roadmap#viewer", leaf: { users: { users: ["user:anne", "group:eng#member"] } } } },
        }),
    },
  },
  fga_reset: {
    about: "removes the model and the tuples",
    setup: async (c) => {
      await c.admin.fgaWriteModel({ dsl: FGA_MODEL });
      await c.admin.fgaWriteTuples({ tuples: TUPLES });
      return {};
    },
    input: () => ({}),
    expect: message("FGA data reset: the model and 3 tuple(s) removed"),
  },

  // ---- clients ----
  create_client: {
    about: "answers the secret once",
    input: () => ({ name: "billing", allowed_scopes: ["invoices:read", "invoices:read", "invoices:write"] }),
    expect: {
      ok: (a) => {
        expect(a.client).toMatchObject({ name: "billing", description: null, allowed_scopes: ["invoices:read", "invoices:write"], is_active: true });
        expect(a.client_secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
      },
    },
  },
  update_client: {
    about: "deactivates it; an empty list means 'not given' on every protocol, so the scopes stay",
    setup: withClient,
    input: (v) => ({ id: v.id, is_active: false, allowed_scopes: [] }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, client_id: v.clientId, is_active: false, allowed_scopes: ["invoices:read", "invoices:write"], description: "billing jobs" }) },
  },
  delete_client: {
    about: "deletes it",
    setup: withClient,
    input: (v) => ({ id: v.id }),
    expect: message(/^client id-\d+ deleted$/),
    after: async (state, v) => expect(await state.storage.clients.get(v.id!)).toBeUndefined(),
  },
  rotate_client_secret: {
    about: "a new secret, answered once",
    setup: withClient,
    input: (v) => ({ id: v.id }),
    expect: {
      ok: (a, v) => {
        expect(a.client.id).toBe(v.id);
        expect(a.client_secret).toMatch(/^cs_/);
        expect(a.client_secret).not.toBe(v.clientSecret);
      },
    },
  },
  get_client: {
    about: "an unknown id",
    input: () => ({ id: "no-such-client" }),
    expect: { error: "NOT_FOUND", message: "client not found" },
  },
  clients: {
    about: "a page without secrets",
    setup: withClient,
    input: () => ({ pagination: { limit: 10, page: 1 } }),
    expect: { ok: (a) => expect(a.clients[0]).not.toHaveProperty("client_secret") },
  },

  // ---- trusted issuers ----
  add_trusted_issuer: {
    about: "enums and lists on the way in and out",
    setup: withClient,
    input: (v) => ({
      service_account_id: v.id,
      name: "spiffe",
      issuer_url: "https://spiffe.example.com",
      key_source_type: "oidc_discovery",
      expected_aud: "identity",
      subject_claim: "sub",
      allowed_subjects: ["spiffe://example.com/ns/ci/*"],
      issuer_type: "spiffe",
    }),
    expect: { ok: (a) => expect(a).toMatchObject({ key_source_type: "oidc_discovery", issuer_type: "spiffe", jwks_url: null, allowed_subjects: ["spiffe://example.com/ns/ci/*"], is_active: true }) },
  },
  update_trusted_issuer: {
    about: "deactivates it and changes its subjects",
    setup: withTrustedIssuer,
    input: (v) => ({ id: v.id, is_active: false, allowed_subjects: ["system:serviceaccount:deploy:*"], issuer_type: "oidc" }),
    expect: { ok: (a) => expect(a).toMatchObject({ is_active: false, allowed_subjects: ["system:serviceaccount:deploy:*"], issuer_type: "oidc", key_source_type: "jwks_url" }) },
  },
  delete_trusted_issuer: {
    about: "deletes it",
    setup: withTrustedIssuer,
    input: (v) => ({ id: v.id }),
    expect: message(/^trusted issuer id-\d+ deleted$/),
  },
  get_trusted_issuer: {
    about: "by id",
    setup: withTrustedIssuer,
    input: (v) => ({ id: v.id }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, service_account_id: v.clientRecordId, issuer_type: "kubernetes", subject_claim: null }) },
  },
  trusted_issuers: {
    about: "filtered by service account",
    setup: async (c) => {
      const values = await withTrustedIssuer(c);
      const other = await c.admin.createClient({ name: "other", allowed_scopes: ["jobs:run"] });
      await c.admin.addTrustedIssuer({
        service_account_id: other.client.id,
        name: "other",
        issuer_url: EXTERNAL_ISSUER,
        key_source_type: "oidc_discovery",
        expected_aud: "other",
        issuer_type: "oidc",
      });
      return values;
    },
    input: (v) => ({ service_account_id: v.clientRecordId }),
    expect: { ok: (a, v) => expect(a.trusted_issuers.map((i: Answer) => i.id)).toEqual([v.id]) },
  },

  // ---- SAML IdP ----
  create_saml_service_provider: {
    about: "with mapped attributes",
    setup: withOrg,
    input: (v) => ({
      org_id: v.orgId,
      name: "wiki",
      entity_id: "https://wiki.example.com/saml",
      acs_url: "https://wiki.example.com/saml/acs",
      sp_cert_pem: CERTIFICATE,
      mapped_attributes: { email: "mail" },
      allow_idp_initiated: true,
    }),
    expect: { ok: (a) => expect(a).toMatchObject({ sp_cert_pem: CERTIFICATE, mapped_attributes: { email: "mail" }, allow_idp_initiated: true, is_active: true, name_id_format: null }) },
  },
  update_saml_service_provider: {
    about: "deactivates it",
    setup: withServiceProvider,
    input: (v) => ({ id: v.id, is_active: false, name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" }),
    expect: {
      ok: (a) => expect(a).toMatchObject({ is_active: false, name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress", mapped_attributes: { email: "mail", name: "displayName" } }),
    },
  },
  delete_saml_service_provider: {
    about: "deletes it",
    setup: withServiceProvider,
    input: (v) => ({ id: v.id }),
    expect: message(/^SAML service provider id-\d+ deleted$/),
  },
  get_saml_service_provider: {
    about: "by id",
    setup: withServiceProvider,
    input: (v) => ({ id: v.id }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, org_id: v.orgId, sp_cert_pem: null, allow_idp_initiated: false }) },
  },
  list_saml_service_providers: {
    about: "those of one organization",
    setup: withServiceProvider,
    input: (v) => ({ org_id: v.orgId }),
    expect: { ok: (a, v) => expect(a.saml_service_providers.map((s: Answer) => s.id)).toEqual([v.id]) },
  },
  rotate_saml_idp_cert: {
    about: "a second rotation: the new key is current",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const first = await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      return { orgId, firstKeyId: first.id, firstCertificate: first.certificate_pem };
    },
    input: (v) => ({ org_id: v.orgId }),
    expect: {
      ok: (a, v) => {
        expect(a).toMatchObject({ org_id: v.orgId, status: "current", retired_at: null, created_at: START_S });
        expect(a.certificate_pem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
        expect(a.certificate_pem).not.toBe(v.firstCertificate);
      },
    },
  },
  retire_saml_idp_key: {
    about: "refused for the current key (spec §7.3)",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      return { orgId, id: (await c.admin.rotateSAMLIDPCert({ org_id: orgId })).id };
    },
    input: (v) => ({ id: v.id }),
    expect: { error: "FAILED_PRECONDITION", message: /is the current signing key and cannot be retired/ },
  },
  list_saml_idp_keys: {
    about: "retired, published and current keys",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const first = await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      await c.admin.retireSAMLIDPKey({ id: first.id });
      await c.admin.rotateSAMLIDPCert({ org_id: orgId });
      return { orgId };
    },
    input: (v) => ({ org_id: v.orgId }),
    expect: { ok: (a) => expect(a.keys.map((k: Answer) => k.status)).toEqual(["retired", "published", "current"]) },
  },
  import_saml_sp_metadata: {
    about: "parses pasted metadata",
    input: () => ({ metadata_xml: SP_METADATA }),
    expect: {
      ok: (a) =>
        expect(a).toEqual({
          entity_id: "https://sp.example.com/metadata",
          acs_url: "https://sp.example.com/acs",
          sp_cert_pem: expect.stringContaining("-----BEGIN CERTIFICATE-----"),
          name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        }),
    },
  },

  // ---- organizations ----
  create_organization: {
    about: "refused: the name is taken",
    setup: withOrg,
    input: () => ({ name: "acme", display_name: "Acme again" }),
    expect: { error: "ALREADY_EXISTS", message: "an organization with this name already exists" },
  },
  update_organization: {
    about: "by the organization's own org-admin, a minute later",
    as: "org_admin",
    setup: async (c) => {
      const values = await withOrgAdmin(c);
      c.advance(60);
      return values;
    },
    input: (v) => ({ id: v.orgId, display_name: "Acme Corp", enabled: false }),
    expect: { ok: (a, v) => expect(a).toEqual({ id: v.orgId, name: "acme", display_name: "Acme Corp", enabled: false, created_at: START_S, updated_at: START_S + 60 }) },
  },
  delete_organization: {
    about: "deletes it with what belongs to it",
    setup: withServiceProvider,
    input: (v) => ({ id: v.orgId }),
    expect: message(/^organization id-\d+ deleted with its members/),
  },
  get_organization: {
    about: "unset display name is null",
    setup: withOrg,
    input: (v) => ({ id: v.orgId }),
    expect: { ok: (a, v) => expect(a).toEqual({ id: v.orgId, name: "acme", display_name: null, enabled: true, created_at: START_S, updated_at: START_S }) },
  },
  organizations: {
    about: "refused to an org-admin: super-admin only",
    as: "org_admin",
    setup: withOrgAdmin,
    input: () => ({}),
    expect: { error: "PERMISSION_DENIED" },
  },
  add_org_member: {
    about: "default member role",
    setup: async (c) => ({ orgId: await c.createOrg("acme"), userId: await c.invite("ann@acme.com") }),
    input: (v) => ({ org_id: v.orgId, user_id: v.userId }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ org_id: v.orgId, user_id: v.userId, email: "ann@acme.com", roles: ["member"], given_name: null }) },
  },
  remove_org_member: {
    about: "removes the membership",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const userId = await c.invite("ann@acme.com");
      await c.admin.addOrgMember({ org_id: orgId, user_id: userId });
      return { orgId, userId };
    },
    input: (v) => ({ org_id: v.orgId, user_id: v.userId }),
    expect: message(/^user id-\d+ removed from organization id-\d+$/),
  },
  org_members: {
    about: "members with their current names",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      const userId = await c.invite("ann@acme.com");
      await c.admin.addOrgMember({ org_id: orgId, user_id: userId, roles: ["member", "billing"] });
      await c.admin.updateUser({ id: userId, given_name: "Ann" });
      return { orgId, userId };
    },
    input: (v) => ({ org_id: v.orgId, pagination: { limit: 2 } }),
    expect: { ok: (a) => expect(a.members[0]).toMatchObject({ given_name: "Ann", roles: ["member", "billing"] }) },
  },
  user_organizations: {
    about: "an org-admin sees only the organizations they administer",
    as: "org_admin",
    setup: async (c) => {
      const values = await withOrgAdmin(c);
      const other = await c.createOrg("globex");
      const memberId = await c.invite("ann@acme.com");
      await c.admin.addOrgMember({ org_id: values.orgId!, user_id: memberId, roles: ["member"] });
      await c.admin.addOrgMember({ org_id: other, user_id: memberId, roles: ["owner"] });
      return { ...values, memberId };
    },
    input: (v) => ({ user_id: v.memberId }),
    expect: {
      ok: (a, v) => {
        expect(a.organizations).toEqual([{ organization: expect.objectContaining({ id: v.orgId, name: "acme" }), roles: ["member"] }]);
        expect(a.pagination.total).toBe(1);
      },
    },
  },

  // ---- org domains ----
  request_org_domain: {
    about: "pending, with the TXT record to publish",
    setup: withOrg,
    input: (v) => ({ org_id: v.orgId, domain: "Acme.COM" }),
    expect: {
      ok: (a, v) => {
        expect(a.domain).toEqual({ domain: "acme.com", org_id: v.orgId, status: "pending", verified_at: null, created_at: START_S, updated_at: START_S });
        expect(a.txt_record).toEqual({ record_type: "TXT", name: "_service-challenge.acme.com", value: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      },
    },
  },
  verify_org_domain: {
    about: "refused while the TXT record is missing",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      await c.admin.requestOrgDomain({ org_id: orgId, domain: "acme.com" });
      return { orgId };
    },
    input: (v) => ({ org_id: v.orgId, domain: "acme.com" }),
    expect: { error: "FAILED_PRECONDITION", message: "no TXT record at _service-challenge.acme.com yet (ENOTFOUND)" },
  },
  add_verified_org_domain: {
    about: "the super-admin skips the challenge",
    setup: withOrg,
    input: (v) => ({ org_id: v.orgId, domain: "acme.com" }),
    expect: { ok: (a, v) => expect(a).toEqual({ domain: "acme.com", org_id: v.orgId, status: "verified", verified_at: START_S, created_at: START_S, updated_at: START_S }) },
  },
  delete_org_domain: {
    about: "removes a verified domain",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      await c.admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.com" });
      return { orgId };
    },
    input: () => ({ domain: "acme.com" }),
    expect: message("domain acme.com deleted"),
  },
  org_domains: {
    about: "verified only: a pending domain is not listed",
    setup: async (c) => {
      const orgId = await c.createOrg("acme");
      await c.admin.addVerifiedOrgDomain({ org_id: orgId, domain: "acme.com" });
      await c.admin.requestOrgDomain({ org_id: orgId, domain: "acme.io" });
      return { orgId };
    },
    input: (v) => ({ org_id: v.orgId }),
    expect: {
      ok: (a) => {
        expect(a.domains.map((d: Answer) => [d.domain, d.status])).toEqual([["acme.com", "verified"]]);
        expect(a.pagination.total).toBe(1);
      },
    },
  },

  // ---- org SSO ----
  create_org_oidc_connection: {
    about: "the client secret is write-only; default scopes",
    setup: withOrg,
    input: (v) => ({ org_id: v.orgId, name: "okta", issuer_url: "https://acme.okta.example", client_id: "acme-app", client_secret: "upstream-secret-1" }),
    expect: {
      ok: (a) => {
        expect(a).toMatchObject({ name: "okta", scopes: ["openid", "email", "profile"], redirect_uri: null });
        expect(a).not.toHaveProperty("client_secret");
      },
    },
  },
  update_org_oidc_connection: {
    about: "renames it; the secret stays",
    setup: withOidcConnection,
    input: (v) => ({ id: v.id, name: "okta-prod", scopes: ["openid", "email"] }),
    expect: { ok: (a) => expect(a).toMatchObject({ name: "okta-prod", scopes: ["openid", "email"], client_id: "acme-app" }) },
  },
  delete_org_oidc_connection: {
    about: "deletes it",
    setup: withOidcConnection,
    input: (v) => ({ id: v.id }),
    expect: message(/^OIDC connection id-\d+ deleted$/),
  },
  get_org_oidc_connection: {
    about: "refused: both id and org_id (spec §7.4)",
    setup: withOidcConnection,
    input: (v) => ({ id: v.id, org_id: v.orgId }),
    expect: { error: "INVALID_ARGUMENT", message: "give exactly one of id, org_id (got id and org_id)" },
  },
  create_org_saml_connection: {
    about: "with an attribute mapping",
    setup: withOrg,
    input: (v) => ({
      org_id: v.orgId,
      name: "adfs",
      idp_entity_id: "https://adfs.acme.example/adfs",
      idp_sso_url: "https://adfs.acme.example/adfs/ls",
      idp_certificate: CERTIFICATE,
      attribute_mapping: { email: "mail" },
      allow_idp_initiated: true,
    }),
    expect: { ok: (a) => expect(a).toMatchObject({ attribute_mapping: { email: "mail" }, allow_idp_initiated: true, sp_entity_id: null, acs_url: null }) },
  },
  update_org_saml_connection: {
    about: "changes the SSO URL; the certificate stays",
    setup: withSamlConnection,
    input: (v) => ({ id: v.id, idp_sso_url: "https://adfs2.acme.example/adfs/ls", sp_entity_id: "https://id.example.com/saml/acme" }),
    expect: { ok: (a) => expect(a).toMatchObject({ idp_sso_url: "https://adfs2.acme.example/adfs/ls", sp_entity_id: "https://id.example.com/saml/acme", name: "adfs" }) },
  },
  delete_org_saml_connection: {
    about: "deletes it",
    setup: withSamlConnection,
    input: (v) => ({ id: v.id }),
    expect: message(/^SAML connection id-\d+ deleted$/),
  },
  get_org_saml_connection: {
    about: "by organization",
    setup: withSamlConnection,
    input: (v) => ({ org_id: v.orgId }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.id, org_id: v.orgId, allow_idp_initiated: false }) },
  },

  // ---- SCIM ----
  create_scim_endpoint: {
    about: "answers the token once",
    setup: withOrg,
    input: (v) => ({ org_id: v.orgId }),
    expect: {
      ok: (a, v) => {
        expect(a.scim_endpoint).toMatchObject({ org_id: v.orgId, enabled: true });
        expect(a.token).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
      },
    },
  },
  rotate_scim_token: {
    about: "a new token",
    setup: withScimEndpoint,
    input: (v) => ({ org_id: v.orgId }),
    expect: {
      ok: (a, v) => {
        expect(a.token).toMatch(/^scim_/);
        expect(a.token).not.toBe(v.token);
      },
    },
  },
  delete_scim_endpoint: {
    about: "deletes it",
    setup: withScimEndpoint,
    input: (v) => ({ org_id: v.orgId }),
    expect: message(/^SCIM endpoint id-\d+ of organization id-\d+ deleted$/),
  },
  get_scim_endpoint: {
    about: "without the token",
    setup: withScimEndpoint,
    input: (v) => ({ org_id: v.orgId }),
    expect: { ok: (a, v) => expect(a).toEqual({ id: expect.any(String), org_id: v.orgId, enabled: true, created_at: START_S, updated_at: START_S }) },
  },

  // ---- user operations ----
  signup: {
    about: "signed in at once: tokens and the user",
    input: () => ({ email: "Ada@Example.com", password: PASSWORD, confirm_password: PASSWORD, given_name: "Ada", app_data: { plan: "pro" } }),
    expect: {
      ok: (a) => {
        expect(a).toMatchObject({ message: "signed up", expires_in: 1800, should_show_email_otp_screen: false, user: { email: "ada@example.com", given_name: "Ada", app_data: { plan: "pro" } } });
        expect(a.access_token).toMatch(/^ey/);
        expect(a.refresh_token).toMatch(/^rt_/);
      },
    },
  },
  login: {
    about: "tokens for the right password",
    setup: withSignedInUser,
    input: () => ({ email: "ada@example.com", password: PASSWORD, scope: ["openid", "email"] }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ message: "logged in", user: { id: v.userId }, id_token: expect.stringMatching(/^ey/) }) },
  },
  magic_link_login: {
    about: "the same answer whether or not the address exists",
    input: () => ({ email: "new@example.com", redirect_uri: "https://app.example.com/cb" }),
    expect: message("if the address can sign in, a sign-in link was sent to it"),
  },
  logout: {
    about: "ends the session",
    setup: withSignedInUser,
    input: () => ({}),
    expect: message("logged out"),
    after: async (state, v) => expect(await state.verifyAccessToken(v.accessToken!)).toBeNull(),
  },
  session: {
    about: "fresh tokens for the session",
    setup: withSignedInUser,
    input: () => ({ scope: ["openid"] }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ message: "session", user: { id: v.userId }, should_show_totp_screen: null }) },
  },
  profile: {
    about: "the signed-in user",
    setup: withSignedInUser,
    input: () => ({}),
    expect: { ok: (a, v) => expect(a).toMatchObject({ id: v.userId, email: "ada@example.com", signup_methods: "basic_auth", email_verified: false }) },
  },
  update_profile: {
    about: "names and JSON app_data",
    setup: withSignedInUser,
    input: () => ({ given_name: "Ada", family_name: "Lovelace", app_data: { theme: "dark", beta: true } }),
    expect: message("profile updated"),
  },
  verify_email: {
    about: "a magic-link token signs the user in",
    setup: async (c) => {
      await c.user().magicLinkLogin({ email: "link@example.com" });
      return { token: c.lastSecretSentTo("link@example.com") };
    },
    input: (v) => ({ token: v.token, state: "xyz" }),
    expect: { ok: (a) => expect(a).toMatchObject({ message: "email verified", user: { email: "link@example.com", email_verified: true, signup_methods: "magic_link_login" } }) },
  },
  resend_verify_email: {
    about: "refused: not a resendable identifier",
    input: () => ({ email: "ada@example.com", identifier: "forgot_password" }),
    expect: { error: "INVALID_ARGUMENT", message: "identifier: must be one of basic_auth_signup, magic_link_login, update_email" },
  },
  forgot_password: {
    about: "by email",
    setup: async (c) => ({ id: await c.invite("ann@example.com") }),
    input: () => ({ email: "ann@example.com", redirect_uri: "https://app.example.com/reset" }),
    expect: { ok: (a) => expect(a).toEqual({ message: "if an account uses this address, a reset link was sent to it", should_show_mobile_otp_screen: false }) },
  },
  reset_password: {
    about: "an invitation token sets the first password",
    setup: async (c) => {
      await c.invite("ann@example.com");
      return { token: c.lastSecretSentTo("ann@example.com") };
    },
    input: (v) => ({ token: v.token, password: "a-new-password", confirm_password: "a-new-password" }),
    expect: message("password updated; sign in with the new password"),
  },
  revoke: {
    about: "refused: not a refresh token of this user",
    setup: withSignedInUser,
    input: () => ({ refresh_token: "rt_not-a-token-of-this-user" }),
    expect: { error: "NOT_FOUND", message: "refresh token not found" },
  },
  verify_otp: {
    about: "the one-time password completes the login",
    setup: withPendingOtp,
    input: (v) => ({ email: v.email, otp: v.otp }),
    expect: { ok: (a) => expect(a).toMatchObject({ message: "one-time password verified", user: { email: "mfa@example.com", is_multi_factor_auth_enabled: true } }) },
  },
  resend_otp: {
    about: "sends a new one-time password",
    setup: withPendingOtp,
    input: (v) => ({ email: v.email }),
    expect: message("if a one-time password is pending, a new one was sent"),
  },
  meta: {
    about: "public metadata",
    input: () => ({}),
    expect: { ok: (a) => expect(a).toMatchObject({ version: schema.version, client_id: "reference", is_sign_up_enabled: true, is_email_verification_enabled: false }) },
  },
  validate_jwt_token: {
    about: "a valid access token and its claims (JSON)",
    setup: withSignedInUser,
    input: (v) => ({ token_type: "access_token", token: v.accessToken, roles: ["user"] }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ is_valid: true, claims: { sub: v.userId, token_type: "access_token", roles: ["user"], iat: START_S } }) },
  },
  validate_session: {
    about: "a session cookie and its user",
    setup: async (c) => {
      const { userId } = await c.signUp("ada@example.com");
      return { userId, cookie: await c.sessionCookie("ada@example.com", PASSWORD) };
    },
    input: (v) => ({ cookie: v.cookie }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ is_valid: true, user: { id: v.userId } }) },
  },
  check_permissions: {
    about: "the signed-in user's relations, through a userset",
    setup: async (c) => {
      const values = await withSignedInUser(c);
      await c.admin.fgaWriteTuples({
        tuples: [
          { user: "group:eng#member", relation: "viewer", object: "doc:roadmap" },
          { user: `user:${values.userId}`, relation: "member", object: "group:eng" },
        ],
      });
      return values;
    },
    input: () => ({
      checks: [
        { relation: "viewer", object: "doc:roadmap" },
        { relation: "editor", object: "doc:roadmap" },
      ],
    }),
    expect: {
      ok: (a) =>
        expect(a).toEqual({
          results: [
            { relation: "viewer", object: "doc:roadmap", allowed: true },
            { relation: "editor", object: "doc:roadmap", allowed: false },
          ],
        }),
    },
  },

  // ---- token routes (REST only) ----
  oauth_token: {
    about: "client_credentials with a narrower scope",
    setup: withClient,
    input: (v) => ({ grant_type: "client_credentials", client_id: v.clientId, client_secret: v.clientSecret, scope: "invoices:read" }),
    expect: { ok: (a) => expect(a).toMatchObject({ token_type: "Bearer", expires_in: 1800, scope: "invoices:read", refresh_token: null, id_token: null }) },
  },
  oauth_revoke: {
    about: "revokes a client's access token",
    setup: async (c) => {
      const client = await withClient(c);
      const { access_token } = await c.user().oauthToken({ grant_type: "client_credentials", client_id: client.clientId, client_secret: client.clientSecret });
      return { ...client, token: access_token };
    },
    input: (v) => ({ token: v.token, client_id: v.clientId }),
    expect: { ok: (a) => expect(a).toEqual({}) },
    after: async (state, v) => expect(await state.verifyAccessToken(v.token!)).toBeNull(),
  },
  openid_configuration: {
    about: "names the issuer, every endpoint, S256 and the signing algorithm",
    input: () => ({}),
    expect: {
      ok: (a) => {
        expect(a.authorization_endpoint).toBe(`${a.issuer}/oauth/authorize`);
        expect(a.jwks_uri).toBe(`${a.issuer}/.well-known/jwks.json`);
        expect(a).toMatchObject({ code_challenge_methods_supported: ["S256"], response_types_supported: ["code"], id_token_signing_alg_values_supported: ["RS256"] });
      },
    },
  },
  oauth_authorization_server_metadata: {
    about: "the same metadata at the RFC 8414 address",
    input: () => ({}),
    expect: { ok: (a) => expect(a).toMatchObject({ token_endpoint: `${a.issuer}/oauth/token`, introspection_endpoint: `${a.issuer}/oauth/introspect` }) },
  },
  oauth_jwks: {
    about: "publishes the signing key the service's tokens name",
    input: () => ({}),
    expect: { ok: (a) => expect(a.keys).toEqual([expect.objectContaining({ kty: "RSA", alg: "RS256", use: "sig", e: "AQAB" })]) },
  },
  oauth_protected_resource: {
    about: "names the service as its own authorization server",
    input: () => ({}),
    expect: { ok: (a) => expect(a.authorization_servers).toEqual([a.resource]) },
  },
  oauth_authorize: {
    about: "SDKs answer the URL to send a browser to, with every parameter",
    setup: withRedirectClient,
    input: (v) => ({ response_type: "code", client_id: v.clientId, redirect_uri: "https://app.example.com/cb", code_challenge: CHALLENGE, state: "s-1", scope: "openid email" }),
    expect: {
      ok: (a, v) => {
        const url = new URL(a.location);
        expect(url.pathname).toBe("/oauth/authorize");
        expect(Object.fromEntries(url.searchParams)).toEqual({
          response_type: "code",
          client_id: v.clientId,
          redirect_uri: "https://app.example.com/cb",
          code_challenge: CHALLENGE,
          state: "s-1",
          scope: "openid email",
        });
      },
    },
  },
  oauth_sso_callback: {
    about: "SDKs answer the callback's URL (the upstream IdP sends browsers there)",
    input: () => ({ state: "sso_unknown", error: "access_denied" }),
    expect: { ok: (a) => expect(Object.fromEntries(new URL(a.location).searchParams)).toEqual({ state: "sso_unknown", error: "access_denied" }) },
  },
  oauth_userinfo: {
    about: "answers the signed-in user's claims",
    as: "user",
    setup: withSignedInUser,
    input: () => ({}),
    expect: { ok: (a, v) => expect(a).toMatchObject({ sub: v.userId, email: "ada@example.com", email_verified: false }) },
  },
  oauth_introspect: {
    about: "a registered client learns that a user's access token is active",
    setup: async (c) => ({ ...(await withClient(c)), ...(await withSignedInUser(c)) }),
    input: (v) => ({ token: v.accessToken, client_id: v.clientId, client_secret: v.clientSecret }),
    expect: { ok: (a, v) => expect(a).toMatchObject({ active: true, sub: v.userId, token_type: "Bearer" }) },
  },
  oauth_logout: {
    about: "SDKs answer the logout URL with the registered post-logout address",
    setup: withRedirectClient,
    input: (v) => ({ client_id: v.clientId, post_logout_redirect_uri: "https://app.example.com/bye", state: "s-2" }),
    expect: { ok: (a, v) => expect(Object.fromEntries(new URL(a.location).searchParams)).toEqual({ client_id: v.clientId, post_logout_redirect_uri: "https://app.example.com/bye", state: "s-2" }) },
  },
};
