// The manifest holds every operation of the spec with the protocols, versions and flags it states.
import { beforeAll, describe, expect, it } from "vitest";
import { loadIr } from "../generators/generate.js";
import type { Ir, IrOperation } from "../generators/ir/ir.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSdkFacts, iteratorPageSize } from "../generators/sdk/sdk-facts.js";
import { emitTypescript } from "../generators/emit/typescript.js";
import { readFixture, REPO_ROOT, tempDir } from "./helpers/project.js";

// Spec §4.3, table by table, transcribed independently of the manifest.
const ADMIN_TABLES: Record<string, string[]> = {
  auth: ["admin_login", "admin_logout", "admin_session", "admin_meta"],
  users: ["users", "user", "update_user", "delete_user", "verification_requests", "revoke_access", "enable_access", "invite_members"],
  webhooks: ["add_webhook", "update_webhook", "delete_webhook", "get_webhook", "webhooks", "webhook_logs", "test_endpoint"],
  email_templates: ["add_email_template", "update_email_template", "delete_email_template", "email_templates"],
  audit: ["audit_logs"],
  fga: ["fga_get_model", "fga_write_model", "fga_write_tuples", "fga_delete_tuples", "fga_read_tuples", "fga_list_users", "fga_expand", "fga_reset"],
  clients: ["create_client", "update_client", "delete_client", "rotate_client_secret", "get_client", "clients"],
  trusted_issuers: ["add_trusted_issuer", "update_trusted_issuer", "delete_trusted_issuer", "get_trusted_issuer", "trusted_issuers"],
  saml_idp: [
    "create_saml_service_provider",
    "update_saml_service_provider",
    "delete_saml_service_provider",
    "get_saml_service_provider",
    "list_saml_service_providers",
    "rotate_saml_idp_cert",
    "retire_saml_idp_key",
    "list_saml_idp_keys",
    "import_saml_sp_metadata",
  ],
  organizations: ["create_organization", "update_organization", "delete_organization", "get_organization", "organizations", "add_org_member", "remove_org_member", "org_members", "user_organizations"],
  org_domains: ["request_org_domain", "verify_org_domain", "add_verified_org_domain", "delete_org_domain", "org_domains"],
  org_sso: [
    "create_org_oidc_connection",
    "update_org_oidc_connection",
    "delete_org_oidc_connection",
    "get_org_oidc_connection",
    "create_org_saml_connection",
    "update_org_saml_connection",
    "delete_org_saml_connection",
    "get_org_saml_connection",
  ],
  scim: ["create_scim_endpoint", "rotate_scim_token", "delete_scim_endpoint", "get_scim_endpoint"],
};
const GRAPHQL_ONLY = ["admin_signup", "update_env", "generate_jwt_keys"];
const VERSIONED_GROUPS = ["organizations", "org_domains", "org_sso", "scim"];
const USER_OPERATIONS = [
  "signup",
  "login",
  "magic_link_login",
  "logout",
  "session",
  "profile",
  "update_profile",
  "verify_email",
  "resend_verify_email",
  "forgot_password",
  "reset_password",
  "revoke",
  "verify_otp",
  "resend_otp",
  "meta",
  "validate_jwt_token",
  "validate_session",
  "check_permissions",
];
const DESTRUCTIVE = [
  "delete_user",
  "delete_webhook",
  "delete_email_template",
  "fga_write_model",
  "fga_delete_tuples",
  "fga_reset",
  "delete_client",
  "rotate_client_secret",
  "rotate_scim_token",
  "delete_trusted_issuer",
  "delete_organization",
  "delete_org_oidc_connection",
  "delete_org_saml_connection",
  "delete_saml_service_provider",
  "retire_saml_idp_key",
  "delete_org_domain",
  "delete_scim_endpoint",
];
const SUPER_ADMIN_ONLY = ["organizations", "create_organization", "delete_organization", "add_verified_org_domain"];

let ir: Ir;
const op = (name: string): IrOperation => {
  const found = ir.operations.find((o) => o.name === name);
  if (!found) throw new Error(`operation ${name} is missing from the manifest`);
  return found;
};
const versions = (o: IrOperation) => Object.fromEntries(o.protocols.map((p) => [p, o[p]!.since]));

beforeAll(() => {
  ir = loadIr(REPO_ROOT);
});

describe("operations.yaml", () => {
  const tableOps = Object.values(ADMIN_TABLES).flat();

  // The manifest may grow (a service adds operations of its own); it must keep every one the spec names.
  it("holds the 81 admin operations of spec §4.3, the 18 user operations and the 2 token routes", () => {
    expect(tableOps.length + GRAPHQL_ONLY.length).toBe(81);
    const bySurface = (surface: string) =>
      ir.operations
        .filter((o) => o.surface === surface)
        .map((o) => o.name)
        .sort();
    expect(bySurface("admin")).toEqual(expect.arrayContaining([...tableOps, ...GRAPHQL_ONLY]));
    expect(bySurface("user")).toEqual(expect.arrayContaining([...USER_OPERATIONS]));
    expect(bySurface("oauth")).toEqual(expect.arrayContaining(["oauth_revoke", "oauth_token"]));
  });

  it.each(Object.entries(ADMIN_TABLES))("puts the %s table in its own group", (group, names) => {
    for (const name of names) expect(op(name).group).toBe(group);
  });

  it("carries organization, SSO, SCIM and domain operations over graphql from 2.3.0-rc.9 and rest/grpc from 2.4.0", () => {
    for (const name of VERSIONED_GROUPS.flatMap((g) => ADMIN_TABLES[g]!)) {
      expect(versions(op(name)), name).toEqual({ graphql: "2.3.0-rc.9", rest: "2.4.0", grpc: "2.4.0" });
    }
  });

  it("carries every other table operation and every user operation over all three protocols from 2.3.0-rc.9", () => {
    const others = Object.entries(ADMIN_TABLES)
      .filter(([group]) => !VERSIONED_GROUPS.includes(group))
      .flatMap(([, names]) => names);
    for (const name of [...others, ...USER_OPERATIONS]) {
      expect(versions(op(name)), name).toEqual({ graphql: "2.3.0-rc.9", rest: "2.3.0-rc.9", grpc: "2.3.0-rc.9" });
    }
  });

  it("carries the GraphQL-only extras over graphql alone and the token routes over rest alone", () => {
    for (const name of GRAPHQL_ONLY) expect(op(name).protocols, name).toEqual(["graphql"]);
    expect(op("oauth_token").rest).toMatchObject({ method: "POST", path: "/oauth/token", body: "form_or_json" });
    expect(op("oauth_revoke").rest).toMatchObject({ method: "POST", path: "/oauth/revoke", body: "form_or_json" });
    expect(op("oauth_token").protocols).toEqual(["rest"]);
  });

  it("marks the spec's 17 destructive operations, all of them writes, and no other operation of the spec", () => {
    const destructive = ir.operations.filter((o) => o.destructive).map((o) => o.name);
    expect(destructive).toEqual(expect.arrayContaining(DESTRUCTIVE));
    const spec = new Set([...tableOps, ...GRAPHQL_ONLY, ...USER_OPERATIONS]);
    expect(destructive.filter((name) => spec.has(name)).sort()).toEqual([...DESTRUCTIVE].sort());
    for (const name of DESTRUCTIVE) expect(op(name).kind).toBe("write");
  });

  it("states who may call each operation (spec §5)", () => {
    for (const name of SUPER_ADMIN_ONLY) expect(op(name).auth, name).toBe("super_admin");
    const orgScoped = VERSIONED_GROUPS.flatMap((g) => ADMIN_TABLES[g]!).filter((n) => !SUPER_ADMIN_ONLY.includes(n));
    for (const name of orgScoped) expect(op(name).auth, name).toBe("org_admin");
    expect(op("admin_login").auth).toBe("public");
    for (const name of ["users", "delete_user", "fga_reset", "create_client", "admin_meta"]) expect(op(name).auth).toBe("admin_secret");
    for (const name of ["signup", "login", "meta"]) expect(op(name).auth).toBe("public");
    expect(op("profile").auth).toBe("user");
  });

  it("routes public operations to POST /v1/<op> (GET for meta and profile) and admin ones to POST /v1/admin/<op>", () => {
    expect(op("meta").rest).toMatchObject({ method: "GET", path: "/v1/meta" });
    expect(op("profile").rest).toMatchObject({ method: "GET", path: "/v1/profile" });
    expect(op("login").rest).toMatchObject({ method: "POST", path: "/v1/login" });
    expect(op("delete_org_oidc_connection").rest).toMatchObject({ method: "POST", path: "/v1/admin/delete_org_oidc_connection" });
  });

  it("derives RPC and client method names with acronyms", () => {
    expect(op("admin_meta").grpc?.rpc).toBe("AdminMeta");
    expect(op("delete_org_oidc_connection").grpc?.rpc).toBe("DeleteOrgOIDCConnection");
    expect(op("delete_org_oidc_connection").camelName).toBe("deleteOrgOIDCConnection");
    expect(op("fga_get_model").grpc?.rpc).toBe("FGAGetModel");
    expect(op("fga_get_model").camelName).toBe("fgaGetModel");
    expect(op("get_scim_endpoint").grpc?.serviceTypeName).toBe("identity.v1.AdminService");
    expect(op("login").grpc?.serviceTypeName).toBe("identity.v1.UserService");
  });

  it("takes pagination {limit, page} on list operations and answers pagination plus the items", () => {
    const paged = ir.operations.filter((o) => o.pagination.style === "page");
    expect(paged.map((o) => o.name)).toEqual(expect.arrayContaining(["users", "organizations", "org_members", "org_domains", "clients", "trusted_issuers"]));
    for (const o of paged) {
      const inputField = o.input.fields.find((f) => f.name === "pagination");
      expect(inputField?.type, o.name).toEqual({ kind: "message", name: "PaginationInput" });
      expect(o.output.fields.find((f) => f.name === "pagination")?.type, o.name).toEqual({ kind: "message", name: "Pagination" });
    }
    const org = op("org_members");
    expect(org.input.fields.map((f) => f.name)).toContain("org_id");
  });

  it("requires exactly-one-of id and org_id on the org SSO gets by leaving both optional", () => {
    for (const name of ["get_org_oidc_connection", "get_org_saml_connection"]) {
      const fields = op(name).input.fields.filter((f) => f.name === "id" || f.name === "org_id");
      expect(fields.map((f) => [f.name, f.required])).toEqual([
        ["id", false],
        ["org_id", false],
      ]);
    }
  });

  it("marks secrets and keeps them out of get answers", () => {
    const secretFields = (name: string) =>
      op(name)
        .output.fields.filter((f) => f.secret)
        .map((f) => f.name);
    expect(secretFields("create_client")).toEqual(["client_secret"]);
    expect(secretFields("rotate_client_secret")).toEqual(["client_secret"]);
    expect(secretFields("create_scim_endpoint")).toEqual(["token"]);
    expect(secretFields("rotate_scim_token")).toEqual(["token"]);
    for (const name of ["get_client", "clients", "get_scim_endpoint", "get_org_oidc_connection"]) {
      const reachable = JSON.stringify(op(name).output.fields.map((f) => f.name));
      expect(reachable, name).not.toMatch(/secret|"token"/);
    }
  });

  it("declares shared types once and references them by name", () => {
    const shared = ir.messages.filter((m) => m.shared).map((m) => m.name);
    expect(new Set(shared).size).toBe(shared.length);
    for (const name of ["User", "Organization", "Pagination", "PaginationInput", "Client", "SAMLIDPKey", "ScimEndpoint"]) {
      expect(shared).toContain(name);
    }
    expect(op("user").output.name).toBe("User");
    expect(op("update_user").output.name).toBe("User");
  });
});

describe("the manifest schema", () => {
  it("offers exactly the error table's codes under errors:", async () => {
    const { ERROR_CODES } = await import("../runtime/errors.js");
    const manifestSchema = (await import("../generators/load/manifest.schema.json", { with: { type: "json" } })).default as {
      $defs: { operation: { properties: { errors: { items: { enum: string[] } } } } };
    };
    expect(manifestSchema.$defs.operation.properties.errors.items.enum).toEqual([...ERROR_CODES]);
  });
});

describe("the page size of iterators", () => {
  /** The minimal fixture with `limit` of PaginationInput capped at `maximum`, built into an IR. */
  const irWithLimit = (maximum: number | undefined): Ir => {
    const root = tempDir("apigen-page-size-");
    const limit = maximum === undefined ? "limit: int64" : `limit: { type: int64, minimum: 1, maximum: ${maximum} }`;
    writeFileSync(join(root, "operations.yaml"), readFixture("minimal.yaml").replace("limit: int64\n      page: int64", `${limit}\n      page: int64`));
    return loadIr(root);
  };
  const pageSize = (ir: Ir) => {
    const paginated = ir.operations.find((o) => o.pagination.style === "page")!;
    return { ir: iteratorPageSize(paginated.pagination), facts: buildSdkFacts(ir).operations.find((o) => o.name === paginated.name)!.pagination!.pageSize };
  };

  it("is the clients' default (100) unless the manifest's maximum is lower, and the same in every SDK's facts", () => {
    expect(pageSize(irWithLimit(undefined))).toEqual({ ir: 100, facts: 100 });
    expect(pageSize(irWithLimit(1000))).toEqual({ ir: 100, facts: 100 });
    // A list whose maximum is 50 would refuse the default page of 100.
    expect(pageSize(irWithLimit(50))).toEqual({ ir: 50, facts: 50 });
  });
});

describe("generated/types.ts", () => {
  const typesOf = (manifest: string) => {
    const root = tempDir("apigen-json-import-");
    writeFileSync(join(root, "operations.yaml"), manifest);
    return emitTypescript(loadIr(root)).find((file) => file.path.endsWith("types.ts"))!.content;
  };

  it("imports JsonObject only when a field is JSON (an unused import fails noUnusedLocals), and exports it either way", () => {
    const withJson = typesOf(readFixture("minimal.yaml"));
    expect(withJson).toContain('import type { JsonObject } from "@apigen/runtime/json.js";');
    const withoutJson = typesOf(readFixture("minimal.yaml").replace(/\n\s+app_data: json/, ""));
    expect(withoutJson).not.toContain("import type { JsonObject }");
    expect(withoutJson).not.toMatch(/\bJsonObject\b(?!.*from)/);
    expect(withoutJson).toContain('export type { JsonObject } from "@apigen/runtime/json.js";');
  });
});
