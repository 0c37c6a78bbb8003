// Admin operations outside the §3 table: admin login/session/logout, meta, the GraphQL-only extras,
// users, webhooks and their logs, email templates, audit logs, and FGA.
import { createPrivateKey, createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import type { WebhookRequest } from "../../reference/core.js";
import { ADMIN_SECRET, createHarness, expectCode, signUp } from "./context.js";

describe("admin auth and meta", () => {
  it("admin_login opens a session cookie that admin_session reads and admin_logout ends", async () => {
    const h = createHarness();
    await expectCode(h.call("adminLogin", { admin_secret: "wrong" }, { principal: { kind: "anonymous" } }), "UNAUTHENTICATED");
    const login = await h.call("adminLogin", { admin_secret: ADMIN_SECRET }, { principal: { kind: "anonymous" } });
    const cookie = h.cookiesSet.at(-1)!;
    expect(cookie).toMatchObject({ name: schema.adminSessionCookie, options: { maxAgeSeconds: 24 * 3600 } });
    expect(login.expires_at - login.created_at).toBe(24 * 3600);

    const session = await h.call("adminSession", {}, { cookies: { [cookie.name]: cookie.value } });
    expect(session).toMatchObject({ created_at: login.created_at, expires_at: login.expires_at });
    await h.call("adminLogout", {}, { cookies: { [cookie.name]: cookie.value } });
    expect(h.cookiesSet.at(-1)).toMatchObject({ name: cookie.name, value: "", options: { maxAgeSeconds: 0 } });
    expect(await h.adminSessions.get(cookie.value)).toBeUndefined();
    expect((await h.call("adminSession", {})).message).toContain("header");
  });

  it("admin_meta answers version, protocols, gRPC port and feature flags", async () => {
    const h = createHarness({ grpcPort: 7000 });
    expect(await h.call("adminMeta", {})).toMatchObject({ version: schema.version, enabled_protocols: ["graphql", "rest", "grpc"], grpc_port: 7000, is_scim_enabled: true });
    h.service.setAddresses({ grpcPort: 7001 });
    expect((await h.call("adminMeta", {})).grpc_port).toBe(7001);
  });

  it("update_env always fails and admin_signup refuses: configuration is by CLI flags", async () => {
    const h = createHarness();
    const error = await expectCode(h.call("updateEnv", { config: { SOME: "value" } }), "FAILED_PRECONDITION");
    expect(error.message).toContain("configuration is by CLI flags");
    await expectCode(h.call("adminSignup", { admin_secret: "a-long-enough-secret" }), "FAILED_PRECONDITION");
  });

  it("generate_jwt_keys answers a secret for HMAC and a matching PEM pair otherwise", async () => {
    const h = createHarness();
    const hmac = await h.call("generateJWTKeys", { type: "HS384" });
    expect(Buffer.from(hmac.secret!, "base64url")).toHaveLength(48);
    expect(hmac.private_key ?? null).toBeNull();
    for (const type of ["RS256", "ES384"] as const) {
      const pair = await h.call("generateJWTKeys", { type });
      const derived = createPublicKey(createPrivateKey(pair.private_key!)).export({ type: "spki", format: "pem" });
      expect(derived).toBe(pair.public_key);
    }
  });
});

describe("users", () => {
  it("lists with a query and pages, gets by id or email, updates and deletes with what hangs off the user", async () => {
    const h = createHarness();
    const alice = await signUp(h, "alice@example.com");
    await signUp(h, "bob@example.com");
    await signUp(h, "carol@example.com");
    const page = await h.call("users", { pagination: { limit: 2, page: 1 } });
    expect(page.pagination).toEqual({ limit: 2, page: 1, offset: 0, total: 3 });
    expect(page.users).toHaveLength(2);
    expect((await h.call("users", { query: "BOB" })).users.map((u) => u.email)).toEqual(["bob@example.com"]);
    expect(JSON.stringify(page)).not.toContain("scrypt");

    expect((await h.call("user", { email: "alice@example.com" })).id).toBe(alice.userId);
    await expectCode(h.call("user", {}), "INVALID_ARGUMENT");
    await expectCode(h.call("user", { id: "nope" }), "NOT_FOUND");
    await expectCode(h.call("updateUser", { id: alice.userId, email: "bob@example.com" }), "ALREADY_EXISTS");
    expect(await h.call("updateUser", { id: alice.userId, roles: ["user", "editor"], given_name: "Al" })).toMatchObject({ roles: ["user", "editor"], given_name: "Al", email: "alice@example.com" });

    const org = await h.call("createOrganization", { name: "acme" });
    await h.call("addOrgMember", { org_id: org.id, user_id: alice.userId });
    await h.call("deleteUser", { id: alice.userId });
    expect(await h.service.serverOptions.verifyUserToken(alice.accessToken)).toBeNull();
    expect((await h.call("orgMembers", { org_id: org.id })).members).toEqual([]);
    await expectCode(h.call("deleteUser", { id: alice.userId }), "NOT_FOUND");
  });

  it("invite_members creates users and emails them a token that sets their password", async () => {
    const h = createHarness();
    await signUp(h, "old@example.com");
    const answer = await h.call("inviteMembers", { emails: ["new@example.com", "old@example.com"] });
    expect(answer.message).toBe("1 invited; 1 already had an account");
    const invitation = h.service.state.outbox.find((m) => m.purpose === "invite_member")!;
    await h.call("resetPassword", { token: invitation.secret, password: "welcome-12345", confirm_password: "welcome-12345" });
    expect((await h.call("login", { email: "new@example.com", password: "welcome-12345" })).user?.email_verified).toBe(true);
    expect((await expectCode(h.call("inviteMembers", { emails: ["not-an-email"] }), "INVALID_ARGUMENT")).field).toBe("emails[0]");
  });
});

describe("webhooks, email templates and audit logs", () => {
  function recordingSender(status = 200) {
    const sent: WebhookRequest[] = [];
    return { sent, sender: async (request: WebhookRequest) => (sent.push(request), { status, body: "ok" }) };
  }

  it("delivers events to enabled webhooks and logs each delivery without the webhook's headers", async () => {
    const { sent, sender } = recordingSender();
    const h = createHarness({ webhookSender: sender });
    const hook = await h.call("addWebhook", { event_name: "user.login", endpoint: "https://hooks.example.com/in", enabled: true, headers: { authorization: "Bearer hook-secret" } });
    await h.call("addWebhook", { event_name: "user.login", endpoint: "https://off.example.com", enabled: false });
    const { password } = await signUp(h, "alice@example.com");
    await h.call("login", { email: "alice@example.com", password });
    await h.service.state.settled();

    // Sign-up signs in too, so two logins.
    expect(sent.map((r) => r.url)).toEqual(["https://hooks.example.com/in", "https://hooks.example.com/in"]);
    expect(sent[0]!.headers.authorization).toBe("Bearer hook-secret");
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ event_name: "user.login", data: { user: { email: "alice@example.com" } } });
    const logs = await h.call("webhookLogs", { webhook_id: hook.id });
    expect(logs.pagination.total).toBe(2);
    expect(logs.webhook_logs[0]).toMatchObject({ webhook_id: hook.id, http_status: 200, response: "ok" });
    expect(JSON.stringify(logs)).not.toContain("hook-secret");
    expect(JSON.stringify(logs)).not.toContain(password);

    await expectCode(h.call("addWebhook", { event_name: "no.such.event", endpoint: "https://x.example.com", enabled: true }), "INVALID_ARGUMENT");
    expect(await h.call("updateWebhook", { id: hook.id, enabled: false })).toMatchObject({ enabled: false, endpoint: hook.endpoint });
    await h.call("deleteWebhook", { id: hook.id });
    await expectCode(h.call("getWebhook", { id: hook.id }), "NOT_FOUND");
    expect((await h.call("webhookLogs", { webhook_id: hook.id })).webhook_logs).toEqual([]);
  });

  it("test_endpoint answers the endpoint's status, and FAILED_PRECONDITION when it cannot be reached", async () => {
    const { sent, sender } = recordingSender(202);
    const h = createHarness({ webhookSender: sender });
    expect(await h.call("testEndpoint", { endpoint: "https://hooks.example.com/in", event_name: "user.signup" })).toEqual({ http_status: 202, response: "ok" });
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ test: true, event_name: "user.signup" });
    const down = createHarness({ webhookSender: async () => Promise.reject(Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } })) });
    const error = await expectCode(down.call("testEndpoint", { endpoint: "https://down.example.com", event_name: "user.signup" }), "FAILED_PRECONDITION");
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("email templates are one per event and give the subject of the emails sent", async () => {
    const h = createHarness();
    const template = await h.call("addEmailTemplate", { event_name: "forgot_password", subject: "Reset it", template: "<p>{{link}}</p>" });
    await expectCode(h.call("addEmailTemplate", { event_name: "forgot_password", subject: "x", template: "y" }), "ALREADY_EXISTS");
    await signUp(h, "alice@example.com");
    await h.call("forgotPassword", { email: "alice@example.com" });
    expect(h.service.state.outbox.at(-1)?.subject).toBe("Reset it");
    expect(await h.call("updateEmailTemplate", { id: template.id, subject: "Reset" })).toMatchObject({ subject: "Reset", template: "<p>{{link}}</p>" });
    expect((await h.call("emailTemplates", {})).email_templates).toHaveLength(1);
    await h.call("deleteEmailTemplate", { id: template.id });
    await expectCode(h.call("deleteEmailTemplate", { id: template.id }), "NOT_FOUND");
  });

  it("audit logs record admin writes and sign-ins, never the inputs", async () => {
    const h = createHarness();
    const { client_secret } = await h.call("createClient", { name: "ci", allowed_scopes: ["read"] });
    await signUp(h, "alice@example.com");
    const logs = await h.call("auditLogs", {});
    expect(logs.audit_logs.map((l) => [l.action, l.actor_type])).toEqual([
      ["signup", "user"],
      ["create_client", "admin"],
    ]);
    expect(logs.audit_logs[1]).toMatchObject({ resource_type: "client", ip_address: "127.0.0.1", user_agent: "vitest" });
    expect(JSON.stringify(logs)).not.toContain(client_secret);
    expect(JSON.stringify(logs)).not.toContain("correct-horse-1");
    expect((await h.call("auditLogs", { action: "create_client" })).pagination.total).toBe(1);
    expect((await h.call("auditLogs", { from_timestamp: Math.floor(h.now() / 1000) + 1 })).audit_logs).toEqual([]);
  });
});

describe("FGA", () => {
  it("write_model overwrites the one current model; reset wipes model and tuples", async () => {
    const h = createHarness();
    await expectCode(h.call("fgaGetModel", {}), "NOT_FOUND");
    await h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user" });
    const second = await h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]" });
    expect(await h.call("fgaGetModel", {})).toEqual(second);
    await h.call("fgaWriteTuples", { tuples: [{ user: "user:1", relation: "viewer", object: "doc:1" }] });
    await h.call("fgaReset", {});
    await expectCode(h.call("fgaGetModel", {}), "NOT_FOUND");
    expect((await h.call("fgaReadTuples", {})).tuples).toEqual([]);
  });

  it("tuples: write is idempotent, read filters and pages with a continuation token, delete removes", async () => {
    const h = createHarness();
    const tuples = Array.from({ length: 5 }, (_, i) => ({ user: `user:${i}`, relation: "viewer", object: "doc:1" }));
    await h.call("fgaWriteTuples", { tuples: [...tuples, tuples[0]!, { user: "user:0", relation: "editor", object: "doc:2" }] });
    const first = await h.call("fgaReadTuples", { object: "doc:1", page_size: 3 });
    expect(first.tuples).toEqual(tuples.slice(0, 3));
    const second = await h.call("fgaReadTuples", { object: "doc:1", page_size: 3, continuation_token: first.continuation_token! });
    expect(second).toEqual({ tuples: tuples.slice(3), continuation_token: "" });
    expect((await h.call("fgaReadTuples", { user: "user:0" })).tuples).toHaveLength(2);
    await expectCode(h.call("fgaReadTuples", { continuation_token: "garbage" }), "INVALID_ARGUMENT");

    await h.call("fgaDeleteTuples", { tuples: [tuples[0]!] });
    expect((await h.call("fgaReadTuples", { object: "doc:1" })).tuples).toHaveLength(4);
    expect((await expectCode(h.call("fgaWriteTuples", { tuples: [{ user: "alice", relation: "viewer", object: "doc:1" }] }), "INVALID_ARGUMENT")).field).toBe("tuples[0].user");
  });

  it("list_users follows usersets; expand answers the direct subjects", async () => {
    const h = createHarness();
    await h.call("fgaWriteTuples", {
      tuples: [
        { user: "user:anne", relation: "viewer", object: "doc:1" },
        { user: "group:eng#member", relation: "viewer", object: "doc:1" },
        { user: "user:bob", relation: "member", object: "group:eng" },
        { user: "group:ops#member", relation: "member", object: "group:eng" },
        { user: "user:carl", relation: "member", object: "group:ops" },
      ],
    });
    expect((await h.call("fgaListUsers", { object: "doc:1", relation: "viewer", user_type: "user" })).users.sort()).toEqual(["user:anne", "user:bob", "user:carl"]);
    const expanded = await h.call("fgaExpand", { object: "doc:1", relation: "viewer" });
    expect(expanded.users).toEqual(["user:anne", "group:eng#member"]);
    expect(expanded.tree).toMatchObject({ root: { name: "doc:1#viewer" } });
  });
});

describe("an empty string is a value, as the contract says, never 'not given'", () => {
  it("names no record and matches no filter", async () => {
    const h = createHarness();
    await signUp(h, "alice@example.com");
    const webhook = await h.call("addWebhook", { event_name: "user.login", endpoint: "https://hooks.example.com/a", enabled: true });
    await h.call("fgaWriteTuples", { tuples: [{ user: "user:anne", relation: "viewer", object: "doc:1" }] });
    const org = await h.call("createOrganization", { name: "acme" });
    await h.call("createOrgOIDCConnection", { org_id: org.id, name: "okta", issuer_url: "https://acme.okta.example", client_id: "app", client_secret: "s" });

    // A lookup by an id "" finds nothing (it used to fall through to the other key, or fail).
    expect((await expectCode(h.call("user", { id: "" }), "NOT_FOUND")).message).toBe("user not found");
    expect((await expectCode(h.call("getOrgOIDCConnection", { id: "" }), "NOT_FOUND")).message).toBe("OIDC connection not found");
    // A filter "" matches what equals "": nothing here.
    expect((await h.call("webhookLogs", { webhook_id: "" })).pagination.total).toBe(0);
    expect((await h.call("auditLogs", { action: "" })).pagination.total).toBe(0);
    expect((await h.call("trustedIssuers", { service_account_id: "" })).pagination.total).toBe(0);
    expect((await h.call("fgaReadTuples", { user: "" })).tuples).toEqual([]);
    // Not given, the same filters match everything.
    expect((await h.call("auditLogs", {})).pagination.total).toBeGreaterThan(0);
    expect((await h.call("fgaReadTuples", {})).tuples).toHaveLength(1);
    expect(webhook.id).toBeTruthy();
  });
});
