// The manifest's validation rules, checked by the one validator before any implementation runs:
// the same INVALID_ARGUMENT message on every protocol that can carry the input, the value never
// echoed, and nothing reaching the implementation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { AdminClient, ApiError, UserClient } from "../../generated/client/index.js";
import { rules } from "../../generated/server/rules.js";
import { loadIr } from "../../generators/generate.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { REPO_ROOT } from "../helpers/project.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
const SECRET = "rules-secret";
const ir = loadIr(REPO_ROOT);

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET);
});
afterAll(async () => {
  await service.close();
});

const admin = (protocol: (typeof PROTOCOLS)[number]) =>
  new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });
const user = (protocol: (typeof PROTOCOLS)[number]) =>
  new UserClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, clientId: "app", protocol, serverVersion: schema.version, retry: false });

async function refusal(call: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { code: (error as ApiError).code, message: (error as ApiError).message };
}

const PASSWORD = "correct-horse-1";
const deep = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe.each(PROTOCOLS)("rules of the manifest over %s", (protocol) => {
  const cases: [string, () => Promise<unknown>, string][] = [
    ["a value below the minimum", () => admin(protocol).users({ pagination: { limit: 0 } }), "pagination.limit: must be between 1 and 1000"],
    ["a value above the maximum", () => admin(protocol).fgaReadTuples({ page_size: 1001 }), "page_size: must be between 1 and 1000"],
    ["a string shorter than its minimum", () => user(protocol).signup({ email: "ada@example.com", password: "short", confirm_password: "short" }), "password: must be at least 12 characters"],
    [
      "a string longer than its maximum",
      () => user(protocol).signup({ email: "ada@example.com", password: "x".repeat(257), confirm_password: "x".repeat(257) }),
      "password: must be at most 256 characters",
    ],
    ["a confirmation that differs", () => user(protocol).signup({ email: "ada@example.com", password: PASSWORD, confirm_password: "other-password" }), "confirm_password: does not match password"],
    ["neither of two alternatives", () => user(protocol).signup({ password: PASSWORD, confirm_password: PASSWORD }), "give at least one of email, phone_number"],
    [
      "a value outside a declared set",
      () => admin(protocol).addWebhook({ event_name: "user.exploded", endpoint: "https://hooks.example.com", enabled: true }),
      "event_name: must be one of user.signup, user.created, user.login, user.deleted, user.access_revoked, user.access_enabled",
    ],
    ["a value that misses a declared pattern", () => admin(protocol).fgaExpand({ relation: "viewer", object: "no-colon" }), "object: must be an FGA object, type:id"],
    ["a list item in the wrong format", () => admin(protocol).inviteMembers({ emails: ["ada@example.com", "not-an-email"] }), "emails[1]: must be an email address"],
    // JSON Schema's email format refuses these, so the server must too (the OpenAPI states both).
    ["an email address with a control character", () => admin(protocol).user({ email: "ada\b@example.com" }), "email: must be an email address"],
    ["an email address with a non-ASCII character", () => user(protocol).forgotPassword({ email: "þ@example.com" }), "email: must be an email address"],
    ["an email address whose local part is over 64 characters", () => user(protocol).magicLinkLogin({ email: `${"a".repeat(65)}@example.com` }), "email: must be an email address"],
    [
      "a field required by another one's value",
      () =>
        admin(protocol).addTrustedIssuer({
          service_account_id: "c1",
          name: "ci",
          issuer_url: "https://issuer.example.com",
          key_source_type: "jwks_url",
          expected_aud: "identity",
          issuer_type: "kubernetes",
        }),
      "jwks_url: is required when key_source_type is jwks_url",
    ],
    ["a field required by another one's presence", () => user(protocol).resetPassword({ otp: "123456", password: PASSWORD, confirm_password: PASSWORD }), "phone_number: is required with otp"],
    [
      "a JSON value nested too deep",
      () => admin(protocol).updateUser({ id: "u1", app_data: deep(rules.limits.jsonDepth + 1) as never }),
      `app_data: must be nested at most ${rules.limits.jsonDepth} levels deep`,
    ],
    [
      "a JSON value too large",
      () => admin(protocol).updateUser({ id: "u1", app_data: { blob: "x".repeat(rules.limits.jsonBytes) } }),
      `app_data: must be at most ${rules.limits.jsonBytes} bytes as JSON`,
    ],
  ];

  it.each(cases)("%s is INVALID_ARGUMENT naming the field, before the implementation", async (_name, call, message) => {
    const before = service.calls.length;
    expect(await refusal(call)).toEqual({ code: "INVALID_ARGUMENT", message });
    expect(service.calls.length).toBe(before);
  });

  it("fills defaults the manifest declares", async () => {
    await admin(protocol).users({ pagination: {} });
    await admin(protocol).users();
    const [withEmpty, withNone] = service.calls.slice(-2);
    expect(withEmpty!.input.pagination).toEqual({ limit: 10, page: 1 });
    expect(withNone!.input.pagination).toEqual({ limit: 10, page: 1 });
  });

  it("takes an empty string as a value where it may be one", async () => {
    await admin(protocol).updateWebhook({ id: "w1", event_description: "" });
    expect(service.calls.at(-1)!.input).toEqual({ id: "w1", event_description: "" });
  });
});

describe("an empty string is a value, not an absence, over JSON (GraphQL and REST)", () => {
  const rest = (path: string, body: unknown) =>
    fetch(`${service.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", [ir.api.adminSecretHeader]: SECRET }, body: JSON.stringify(body) });

  it.each([
    ["a message", "/v1/admin/users", { pagination: "" }, "pagination: must be an object"],
    ["an integer", "/v1/admin/users", { pagination: { limit: "" } }, "pagination.limit: must be an integer"],
    ["a list", "/v1/admin/update_user", { id: "u1", roles: "" }, "roles: must be a list"],
    ["a boolean", "/v1/admin/update_webhook", { id: "w1", enabled: "" }, "enabled: must be true or false"],
    ["a required string", "/v1/admin/delete_user", { id: "" }, "id: must not be empty"],
  ])("for %s it is the wrong type (REST)", async (_kind, path, body, message) => {
    const response = await rest(path, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: "INVALID_ARGUMENT", message });
  });

  it("a free-form value nested 100,000 deep is INVALID_ARGUMENT, never a 500 (REST and GraphQL)", async () => {
    const text = `{"id":"u1","app_data":${'{"a":'.repeat(100_000)}{}${"}".repeat(100_000)}}`;
    const response = await fetch(`${service.httpUrl}/v1/admin/update_user`, { method: "POST", headers: { "content-type": "application/json", [ir.api.adminSecretHeader]: SECRET }, body: text });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toBe(`app_data: must be nested at most ${rules.limits.jsonDepth} levels deep`);
    const document = "mutation($p: UpdateUserInput!) { update_user(params: $p) { id } }";
    const graphql = await fetch(`${service.httpUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", [ir.api.adminSecretHeader]: SECRET },
      body: `{"query":${JSON.stringify(document)},"variables":{"p":${text}}}`,
    });
    const answer = (await graphql.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(answer.errors[0]).toMatchObject({ message: `app_data: must be nested at most ${rules.limits.jsonDepth} levels deep`, extensions: { code: "INVALID_ARGUMENT" } });
  });
});

describe("the rules as the generator derives them", () => {
  it("make the implied rules explicit: required strings and lists are not empty, integers stay in their type's range", () => {
    const deleteUser = ir.operations.find((op) => op.name === "delete_user")!;
    expect(deleteUser.input.fields[0]!.constraints).toEqual({ minLength: 1 });
    const writeTuples = ir.operations.find((op) => op.name === "fga_write_tuples")!;
    expect(writeTuples.input.fields[0]!.constraints).toEqual({ minItems: 1 });
    const pagination = ir.messages.find((m) => m.name === "PaginationInput")!;
    expect(pagination.fields.map((f) => f.constraints)).toEqual([
      { minimum: 1, maximum: 1000, default: 10 },
      { minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 },
    ]);
  });

  it("are stated in every rule-bearing contract: the server module, the OpenAPI document and the tool catalogue", () => {
    expect(rules.fields.SignupRequest).toMatchObject({ password: { minLength: 12, maxLength: 256 }, confirm_password: { sameAs: "password" } });
    expect(rules.atLeastOneOf.signup).toEqual(["email", "phone_number"]);
    expect(rules.formats.webhook_event!.values).toContain("user.login");
  });
});
