// Auth schemes declared in the manifest (api.auth_schemes): the names are the API's own, the
// kinds the server's mechanisms. A shop that calls its admin secret `owner` and lets managers in by
// a rule gets contracts, docs and a server that speak of owner and manager, enforce the declared
// header, role and refusal words, and a contract diff that compares schemes by whom they let in.
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
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

describe("the server, for an operation of several schemes", () => {
  const servers: ServiceServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const SECRET = "a-long-enough-admin-secret";
  const operation = Object.values(schema.operations).find((op) => op.auth === "org_admin" && op.rest?.method === "POST")!;
  /** The identity schema with one org_admin operation taking the secret alone (admin_secret, no session) or the rule (its session, its role). */
  const anyOf: ApiSchema = {
    ...schema,
    authSchemes: { ...schema.authSchemes, admin_secret: { kind: "secret", callers: "admins" }, org_admin: { kind: "secret", session: true, orgRole: true, callers: "admins and org-admins" } },
    operations: { ...schema.operations, [operation.name]: { ...operation, auth: "admin_secret", authAnyOf: [{ scheme: "admin_secret" }, { scheme: "org_admin" }] } },
  };
  const seen: string[] = [];
  const serve = async (holdsRole: boolean) => {
    const server = createServiceServer(
      { schema: anyOf, rules, graphqlSchemaText, grpcServices: [], descriptorSet, explorer: { openapiDocument: async () => "", firstOperation: "meta" } },
      {
        [operation.method]: async (_input: unknown, context: { principal: { kind: string } }) => {
          seen.push(context.principal.kind);
          return sampleMessage(anyOf, operation.output);
        },
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
    const { httpUrl } = await server.listen();
    const post = async (headers: Record<string, string>) => {
      const answer = await fetch(httpUrl + operation.rest!.path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(sampleMessage(anyOf, operation.input)),
      });
      return [answer.status, answer.status === 200 ? "" : ((await answer.json()) as { message: string }).message] as const;
    };
    return { server, post };
  };

  it("lets in any one scheme's caller: the secret, the session one of them opens, or a user holding the role", async () => {
    const { server, post } = await serve(false);
    const session = await server.pipeline.sessions.open();
    seen.length = 0;
    expect(await post({ [schema.adminSecretHeader]: SECRET })).toEqual([200, ""]);
    expect(await post({ cookie: `${schema.adminSessionCookie}=${session.id}` })).toEqual([200, ""]);
    expect(seen).toEqual(["secret", "secret"]);
    // A signed-in user without the role is known but may not: the rule's refusal, not the secret's.
    expect(await post({ authorization: "Bearer member" })).toEqual([403, `${operation.pascalName} is for admins only`]);
    const { post: withRole } = await serve(true);
    seen.length = 0;
    expect(await withRole({ authorization: "Bearer member" })).toEqual([200, ""]);
    expect(seen).toEqual(["user"]);
  });

  it("refuses a wrong credential even beside a right one, and names every credential that would do when none is sent", async () => {
    const { server, post } = await serve(true);
    const session = await server.pipeline.sessions.open();
    const cookie = `${schema.adminSessionCookie}=${session.id}`;
    expect(await post({ [schema.adminSecretHeader]: "not-the-admin-secret", cookie })).toEqual([401, `wrong secret in header ${schema.adminSecretHeader}`]);
    expect(await post({ [schema.adminSecretHeader]: SECRET, authorization: "Bearer stolen" })).toEqual([401, "the bearer token is not valid or has expired"]);
    const [status, message] = await post({});
    expect(status).toBe(401);
    expect(message).toBe(`${operation.pascalName} needs the secret in header ${schema.adminSecretHeader} (or a session)`);
    // Both right: the first scheme listed that lets the caller in names the principal.
    seen.length = 0;
    expect(await post({ [schema.adminSecretHeader]: SECRET, authorization: "Bearer member" })).toEqual([200, ""]);
    expect(seen).toEqual(["secret"]);
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

/**
 * A helpdesk whose operations take several schemes (any one lets a caller in) and scopes of a
 * bearer scheme: agents with a key, end users with a token whose scopes say what they may do.
 */
const DESK = `manifest_version: 1
api:
  name: desk
  title: Desk
  version: 1.0.0
  proto_package: desk.v1
  groups:
    tickets: Tickets
  auth_schemes:
    anyone: { kind: none }
    agent: { kind: api_key, header: x-desk-key, description: "an agent of the desk (API key)" }
    end_user: { kind: bearer, description: "a signed-in end user (bearer token)" }
types:
  Ticket:
    fields:
      id: string!
      subject: string!
operations:
  list_tickets:
    surface: user
    group: tickets
    description: List tickets.
    kind: read
    auth: [end_user, agent]
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    output:
      tickets: Ticket[]!
  read_ticket:
    surface: user
    group: tickets
    description: Read a ticket.
    kind: read
    auth: { scheme: end_user, scopes: ["tickets:read"] }
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      id: string!
    output: Ticket
  close_ticket:
    surface: user
    group: tickets
    description: Close a ticket.
    kind: write
    auth:
      - agent
      - { scheme: end_user, scopes: ["tickets:write", "tickets:close"] }
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      id: string!
    output: Ticket
  ping:
    surface: user
    group: tickets
    description: Ping the desk.
    kind: read
    auth: [anyone, end_user]
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    output:
      version: string!
`;

describe("operations of several auth schemes, and scopes of bearer schemes", () => {
  const ir = buildIr(loadManifestText(DESK), emptyLock());
  const files = new Map(emitAll(ir).files.map((f) => [f.path, f.content]));
  const op = (name: string) => ir.operations.find((o) => o.name === name)!;
  const file = (suffix: string) => [...files].find(([path]) => path.endsWith(suffix))![1];

  it("keeps every scheme in the IR, in the manifest's order, the first as the primary, with each one's scopes", () => {
    expect(op("list_tickets")).toMatchObject({
      auth: "end_user",
      authAnyOf: [
        { scheme: "end_user", scopes: [] },
        { scheme: "agent", scopes: [] },
      ],
    });
    expect(op("read_ticket")).toMatchObject({ auth: "end_user", authAnyOf: [{ scheme: "end_user", scopes: ["tickets:read"] }] });
    expect(op("close_ticket").authAnyOf).toEqual([
      { scheme: "agent", scopes: [] },
      { scheme: "end_user", scopes: ["tickets:write", "tickets:close"] },
    ]);
    // A scheme named second is in use all the same; a token without a scope is PERMISSION_DENIED.
    expect(ir.api.features.apiKey).toBe(true);
    expect(op("list_tickets").errorCodes).toEqual(["INVALID_ARGUMENT", "UNAUTHENTICATED", "TOO_MANY_REQUESTS"]);
    expect(op("read_ticket").errorCodes).toContain("PERMISSION_DENIED");
    expect(op("close_ticket").errorCodes).toContain("PERMISSION_DENIED");
  });

  it("states each alternative in the OpenAPI security, the scopes in the requirements, and 'any one of' in the descriptions", () => {
    const openapi = parse(files.get("generated/openapi/openapi.yaml")!) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const operations = Object.fromEntries(Object.values(openapi.paths).flatMap((item) => Object.values(item).map((o) => [o.operationId as string, o])));
    expect(operations.list_tickets!.security).toEqual([{ endUserToken: [] }, { agentKey: [] }]);
    expect(operations.read_ticket!.security).toEqual([{ endUserToken: ["tickets:read"] }]);
    expect(operations.close_ticket!.security).toEqual([{ agentKey: [] }, { endUserToken: ["tickets:write", "tickets:close"] }]);
    // Anyone, or an end user who identifies: the credentials are optional.
    expect(operations.ping!.security).toEqual([{}, { endUserToken: [] }]);
    expect(operations.close_ticket!["x-auth"]).toBe("agent");
    expect(operations.close_ticket!["x-auth-any-of"]).toEqual(["agent", "end_user"]);
    expect(operations.read_ticket!["x-auth-any-of"]).toBeUndefined();
    const closing = "Auth: any one of: an agent of the desk (API key); a signed-in end user (bearer token), with the scopes tickets:write and tickets:close.";
    expect(operations.close_ticket!.description).toContain(closing);
    expect(operations.read_ticket!.description).toContain("Auth: a signed-in end user (bearer token), with the scope tickets:read.");
    expect(JSON.stringify(operations.list_tickets!.responses)).toContain("ListTickets needs an access token (Authorization: Bearer <token>) or an API key in header x-desk-key");
    expect(files.get("generated/graphql/schema.graphql")).toContain(`Close a ticket. ${closing}`);
    expect([...files].filter(([path]) => path.endsWith(".proto")).some(([, text]) => text.includes(`// Close a ticket. ${closing}`))).toBe(true);
    // One scheme without scopes says nothing more in GraphQL and proto than before.
    const desk = buildIr(loadManifestText(DESK.replace("auth: [end_user, agent]", "auth: end_user")), emptyLock());
    const sdl = emitAll(desk).files.find((f) => f.path === "generated/graphql/schema.graphql")!.content;
    expect(sdl).toMatch(/"""List tickets\."""\n {2}list_tickets/);
  });

  it("says every scheme in the docs, the schema value, the SDK facts and the MCP tools", () => {
    expect(files.get("generated/docs/README.md")).toContain("| `agent` or `end_user` |");
    expect(files.get("generated/docs/tickets.md")).toContain(
      "Auth `agent` or `end_user`: any one of: an agent of the desk (API key); a signed-in end user (bearer token), with the scopes tickets:write and tickets:close.",
    );
    expect(files.get("generated/schema.ts")).toContain('authAnyOf: [{ scheme: "agent" }, { scheme: "end_user", scopes: ["tickets:write", "tickets:close"] }],');
    // The schema value of an operation of one scheme without scopes reads `auth` alone.
    expect(files.get("generated/schema.ts")!.match(/authAnyOf/g)).toHaveLength(4);
    expect(file("/_schema.py")).toContain('auth="agent",\n        auth_any_of=("agent", "end_user"),');
    expect(file("go/internal/transport/facts.go")).toMatch(/authAnyOf: +\[\]string\{"agent", "end_user"\},/);
    expect(file("go/methods.go")).toContain("Auth: agent or end_user (scopes tickets:write, tickets:close).");
    const { tools } = JSON.parse(files.get("generated/mcp/tools.json")!) as { tools: { name: string; "x-auth": string; "x-auth-any-of"?: string[] }[] };
    expect(tools.find((t) => t.name === "close_ticket")).toMatchObject({ "x-auth": "agent", "x-auth-any-of": ["agent", "end_user"] });
    expect(files.get("generated/packages/server/README.md")).toContain("one that is wrong refuses the call (UNAUTHENTICATED) even beside one that is right");
    expect(files.get("generated/packages/server/README.md")).toContain("`{ userId, roles, scopes }` of the signed-in user; `scopes`, what the token grants");
  });

  it("are compared by the callers any scheme lets in, and by scopes: one more is breaking, one fewer safe", () => {
    const changes = (from: string, to: string) =>
      manifestChanges(ir, buildIr(loadManifestText(DESK.replace(from, to)), emptyLock()))
        .filter((c) => c.rule.startsWith("auth-"))
        .map((c) => [c.id, c.severity]);
    expect(changes("auth: [end_user, agent]", "auth: end_user")).toEqual([["auth-tightened:list_tickets", "breaking"]]);
    expect(changes('auth: { scheme: end_user, scopes: ["tickets:read"] }', 'auth: [{ scheme: end_user, scopes: ["tickets:read"] }, agent]')).toEqual([["auth-loosened:read_ticket", "safe"]]);
    expect(changes('scopes: ["tickets:read"]', 'scopes: ["tickets:read", "tickets:list"]')).toEqual([["auth-scope-added:read_ticket", "breaking"]]);
    expect(changes('scopes: ["tickets:write", "tickets:close"]', 'scopes: ["tickets:write"]')).toEqual([["auth-scope-removed:close_ticket", "safe"]]);
    // The order of the schemes changes nothing of who may call.
    expect(changes("auth: [end_user, agent]", "auth: [agent, end_user]")).toEqual([["auth-changed:list_tickets", "safe"]]);
  });

  it("refuses what cannot be served, naming the place", () => {
    const errors = (to: string) => {
      try {
        buildIr(loadManifestText(DESK.replace("auth: [end_user, agent]", to)), emptyLock());
        return [];
      } catch (error) {
        return (error as { diagnostics: { code: string; message: string }[] }).diagnostics.map((d) => `${d.code}: ${d.message}`);
      }
    };
    expect(errors('auth: [agent, { scheme: agent, scopes: ["x"] }]')).toEqual([
      "invalid-operation-auth: auth names 'agent' twice; name each scheme once (with all its scopes)",
      "invalid-operation-auth: scopes are granted to bearer tokens, and 'agent' is an api_key scheme; name the scopes on a bearer scheme, or drop them",
    ]);
    expect(errors("auth: [end_user, agnet]")).toEqual([
      "unknown-auth-scheme: auth 'agnet' is not an auth scheme of this API; did you mean 'agent'?; declare it under api.auth_schemes or use one of anyone, agent, end_user",
    ]);
    expect(errors("auth: [anyone, { scheme: anyone, scopes: [a] }]").at(-1)).toMatch(/^invalid-operation-auth: scopes are granted to bearer tokens, and 'anyone' is a none scheme/);
  });
});
