// Auth schemes declared in the manifest (api.auth_schemes): the names are the API's own, the
// kinds the server's mechanisms. A shop that calls its admin secret `owner` and lets managers in by
// a rule gets contracts, docs and a server that speak of owner and manager, enforce the declared
// header, role and refusal words, and a contract diff that compares schemes by whom they let in.
import { afterAll, describe, expect, it } from "vitest";
import { buildIr } from "../../generators/ir/build-ir.js";
import { manifestChanges } from "../../generators/diff/rules.js";
import { emitAll } from "../../generators/generate.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { schema } from "../../generated/schema.js";
import { descriptorSet } from "../../generated/server/descriptor-set.js";
import { graphqlSchemaText } from "../../generated/server/graphql-schema.js";
import { rules } from "../../generated/server/rules.js";
import type { ApiSchema } from "../../runtime/schema.js";
import { createServiceServer, type ServiceServer } from "../../runtime/server/index.js";
import { sampleMessage } from "../helpers/recording-service.js";

const shop = (schemes: string) => `manifest_version: 1
api:
  name: shop
  title: Shop
  version: 1.0.0
  proto_package: shop.v1
  groups:
    items: Items
  auth_schemes:
${schemes}
types:
  Item:
    fields:
      id: string!
      name: string!
operations:
  get_item:
    surface: user
    group: items
    description: Get an item.
    kind: read
    auth: open
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      id: string!
    output: Item
  owner_login:
    surface: admin
    group: items
    description: Open an owner session.
    kind: write
    auth: open
    protocols: { rest: 1.0.0 }
    input:
      secret: { type: string!, secret: true }
    output: Item
  close_shop:
    surface: admin
    group: items
    description: Close the shop.
    kind: write
    auth: owner
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      reason: string!
    output: Item
  rename_branch:
    surface: admin
    group: items
    description: Rename a branch.
    kind: write
    auth: manager
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      org_id: string!
      name: string!
    output: Item
`;

const SCHEMES = `    open: { kind: none, description: "anyone at all" }
    owner:
      kind: secret
      header: x-shop-secret
      session: { cookie: shop_session, opened_by: owner_login }
      callers: the shop's owners
    manager: { kind: rule, of: owner, org_role: "shop:manager", callers: "owners and the branch's managers" }`;

const irOf = (schemes: string) => buildIr(loadManifestText(shop(schemes)), emptyLock());

describe("a manifest's own auth schemes", () => {
  const ir = irOf(SCHEMES);
  const files = new Map(emitAll(ir).files.map((f) => [f.path, f.content]));

  it("are resolved in the IR: a rule takes its secret scheme's header and session, and adds its org role", () => {
    expect(ir.api.authSchemes.map((s) => [s.name, s.kind])).toEqual([
      ["open", "none"],
      ["owner", "secret"],
      ["manager", "secret"],
    ]);
    expect(ir.api.authSchemes[2]).toMatchObject({
      header: "x-shop-secret",
      session: { cookie: "shop_session", openedBy: "owner_login" },
      orgRole: "shop:manager",
      callers: "owners and the branch's managers",
    });
    expect(ir.api).toMatchObject({ adminSecretHeader: "x-shop-secret", orgAdminRole: "shop:manager", adminSessionCookie: "shop_session", apiKeyHeader: "" });
    expect(ir.api.features).toMatchObject({ adminSecret: true, adminSession: true, apiKey: false });
    // The opening operation sets the session's cookie, whether or not sets_cookies lists it.
    expect(ir.operations.find((op) => op.name === "owner_login")!.setsCookies).toEqual(["shop_session"]);
  });

  it("are what the OpenAPI, the docs and the server README say, in the manifest's words", () => {
    const openapi = files.get("generated/openapi/openapi.yaml")!;
    expect(openapi).toContain("x-auth: manager");
    expect(openapi).toContain("name: x-shop-secret");
    expect(openapi).toContain("name: shop_session");
    expect(openapi).toContain("Auth: anyone at all.");
    const docs = files.get("generated/docs/README.md")!;
    expect(docs).toContain("| `owner` | the admin (admin secret header or admin session) |");
    expect(docs).toContain("| `manager` | the admin, or a user who holds the role shop:manager for the organization concerned |");
    const serverReadme = files.get("generated/packages/server/README.md")!;
    expect(serverReadme).toContain("auth `manager` (the admin, or a user who holds the role shop:manager");
    const generatedSchema = files.get("generated/schema.ts")!;
    expect(generatedSchema).toContain(`manager: { kind: "secret", session: true, orgRole: true, callers: "owners and the branch's managers" },`);
    // The names of the credentials come from the schemes: the owner's secret and session, and the token a manager calls with.
    expect(ir.api.authSchemes.map((s) => [s.name, s.securityName, s.session?.securityName, s.roleTokenName])).toEqual([
      ["open", "", undefined, undefined],
      ["owner", "ownerSecret", "ownerSession", undefined],
      ["manager", "ownerSecret", "ownerSession", "managerToken"],
    ]);
    expect(openapi).toMatch(/securitySchemes:\n {4}ownerSecret:\n[\s\S]*\n {4}ownerSession:\n[\s\S]*\n {4}managerToken:\n/);
    expect(openapi).toContain("- ownerSecret: []\n      - ownerSession: []\n      - managerToken: []");
    const server = files.get("generated/server/index.ts")!;
    expect(server).toContain('ownerSecret: NonNullable<ServerOptions["secret"]>;');
    expect(server).toContain('secretWords: { secret: "owner secret", session: "owner session" },');
    expect(serverReadme).toContain("ownerSecret: process.env.OWNER_SECRET!");
    // Nothing of the identity API's schemes.
    for (const [path, content] of files) {
      if (path.startsWith("generated/") && !path.includes("/runtime/")) expect(content, path).not.toMatch(/service:org_admin|x-service-admin-secret|service_admin_session|super_admin/);
    }
  });

  it("are compared by the callers they let in: a rename is safe, a rule without its org role is breaking", () => {
    const renamedIr = buildIr(loadManifestText(shop(SCHEMES.replace("    manager:", "    branch_manager:")).replace("auth: manager", "auth: branch_manager")), emptyLock());
    const rename = manifestChanges(ir, renamedIr).filter((c) => c.rule.startsWith("auth-"));
    expect(rename.map((c) => [c.rule, c.severity])).toEqual([["auth-changed", "safe"]]);
    const narrowed = manifestChanges(ir, irOf(SCHEMES.replace(`, org_role: "shop:manager"`, ""))).filter((c) => c.rule.startsWith("auth-"));
    expect(narrowed.map((c) => [c.rule, c.severity])).toEqual([["auth-tightened", "breaking"]]);
    expect(narrowed[0]!.message).toContain("auth scheme manager redeclared, tightened: org admin user callers are now refused");
  });
});

describe("the server, by the declared schemes", () => {
  const servers: ServiceServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const SECRET = "a-long-enough-admin-secret";

  /**
   * The identity schema with its schemes redeclared: another header's secret, other refusal words,
   * another role rule; the session stands in for the secret of org_admin only.
   */
  const redeclared: ApiSchema = {
    ...schema,
    adminSecretHeader: "x-shop-secret",
    authSchemes: {
      ...schema.authSchemes,
      admin_secret: { kind: "secret", callers: "the shop's owners" },
      org_admin: { kind: "secret", session: true, orgRole: true, callers: "owners and the branch's managers" },
    },
  };
  const orgAdminOperation = Object.values(schema.operations).find((op) => op.auth === "org_admin" && op.rest)!;
  const adminOperation = Object.values(schema.operations).find((op) => op.auth === "admin_secret" && op.rest?.method === "POST" && op.kind === "read")!;

  const serve = async (holdsRole: boolean, opened?: (server: ServiceServer) => void) => {
    const server = createServiceServer(
      { schema: redeclared, rules, graphqlSchemaText, grpcServices: [], descriptorSet, explorer: { openapiDocument: async () => "", firstOperation: "meta" } },
      {
        [orgAdminOperation.method]: async () => sampleMessage(redeclared, orgAdminOperation.output),
        [adminOperation.method]: async () => sampleMessage(redeclared, adminOperation.output),
      },
      {
        secret: SECRET,
        port: 0,
        grpcPort: 0,
        rateLimit: false,
        partial: true,
        onWarning: () => {},
        verifyUserToken: async (token) => (token === "member" ? { userId: "u1", roles: [] } : null),
        hasRole: async () => holdsRole,
      },
    );
    servers.push(server);
    opened?.(server);
    return (await server.listen()).httpUrl;
  };
  const post = (url: string, op: { rest: { path: string } | null }, headers: Record<string, string>, body: unknown = {}) =>
    fetch(url + op.rest!.path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  it("takes the secret in the declared header, and refuses a signed-in user in the declared words", async () => {
    const url = await serve(false);
    expect((await post(url, adminOperation, { "x-shop-secret": SECRET })).status).toBe(200);
    const oldHeader = await post(url, adminOperation, { "x-service-admin-secret": SECRET });
    expect(oldHeader.status).toBe(401);
    expect(((await oldHeader.json()) as { message: string }).message).toContain("the secret in header x-shop-secret");
    const member = await post(url, adminOperation, { authorization: "Bearer member" });
    expect(member.status).toBe(403);
    expect(((await member.json()) as { message: string }).message).toBe(`${adminOperation.pascalName} is for the shop's owners only`);
  });

  it("takes the admin session only for the schemes that declare it", async () => {
    let server: ServiceServer | undefined;
    const url = await serve(false, (s) => (server = s));
    const session = await server!.pipeline.sessions.open();
    const cookie = `${schema.adminSessionCookie}=${session.id}`;
    const input = sampleMessage(redeclared, orgAdminOperation.input);
    expect((await post(url, orgAdminOperation, { cookie }, input)).status).toBe(200);
    const refused = await post(url, adminOperation, { cookie });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { message: string }).message).toContain(`${adminOperation.pascalName} needs`);
  });

  it("lets a user in by the rule's org role only where the service says the user holds it", async () => {
    const input = sampleMessage(redeclared, orgAdminOperation.input);
    const refused = await post(await serve(false), orgAdminOperation, { authorization: "Bearer member" }, input);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toBe(`${orgAdminOperation.pascalName} is for owners and the branch's managers only`);
    expect((await post(await serve(true), orgAdminOperation, { authorization: "Bearer member" }, input)).status).toBe(200);
  });
});

describe("the standalone MCP server's credential check, by the declared schemes", () => {
  it("asks a read that needs exactly the credential and takes no input, the version's first", async () => {
    const { probeOf } = await import("../../runtime/mcp/cli.js");
    const { schema: bookstore } = await import("../../examples/bookstore/generated/schema.js");
    expect([probeOf(schema, "admin"), probeOf(schema, "user"), probeOf(schema, "api_key")]).toEqual(["admin_meta", "profile", undefined]);
    // The bookstore's keyed operations are all writes: its keys are left to the service's refusal.
    expect([probeOf(bookstore, "admin"), probeOf(bookstore, "user"), probeOf(bookstore, "api_key")]).toEqual([undefined, undefined, undefined]);
    // With a keyed read that takes no input, a key is checked by it.
    const keyed: ApiSchema = {
      ...bookstore,
      messages: { ...bookstore.messages, Empty: { name: "Empty", fields: [] } },
      operations: { ...bookstore.operations, count_books: { ...bookstore.operations.list_books, name: "count_books", auth: "staff_key", input: "Empty" } },
    };
    expect(probeOf(keyed, "api_key")).toBe("count_books");
  });
});
