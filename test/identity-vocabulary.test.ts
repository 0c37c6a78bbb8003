// Nothing of the identity API in another API's outputs: the bookstore's generated files as they are
// on disk (every path of its generated/files.json), the `apigen init` starter's and a third API's
// (a bearer scheme and an API key, no secret), both generated in memory, hold none of the identity
// API's names, options, exports or doc lines. A hit fails the test naming file:line and the word.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { init } from "../generators/cli/init.js";
import { emitAll, loadIr } from "../generators/generate.js";
import { projectWithManifest, REPO_ROOT, tempDir } from "./helpers/project.js";

/**
 * The identity API's vocabulary: its schemes (the admin secret and its session, the org-admin and
 * super-admin rules, SCIM tokens), the OAuth client id of its token routes, its domain (users'
 * organizations, SSO) and the names the runtime once gave them. Honest generic words stay out:
 * "secret" (a kind of scheme), "session", "role", "token", "admin" alone (a surface any API may declare).
 */
const VOCABULARY: readonly [string, RegExp][] = [
  ["admin secret", /admin[\s_-]?secret/i],
  ["admin session", /admin[\s_-]?sessions?\b/i],
  ["super admin", /super[\s_-]?admin/i],
  ["org admin", /org[\s_-]?admin/i],
  ["SCIM", /scim/i],
  ["client id", /client[\s_-]?id\b/i],
  // The OpenAPI scheme name; the server's verifyUserToken (a bearer scheme's signed-in user) is generic.
  ["userToken", /\buserToken\b/],
  ["NO_ADMIN", /NO_ADMIN|no admin is configured/],
  ["AdminBootstrap", /admin[\s_-]?bootstrap/i],
  ["admin signup/login", /admin[\s_-]?(sign[\s_-]?up|log[\s_-]?in|log[\s_-]?out)/i],
  ["organization", /organi[sz]ation/i],
  ["identity", /\bidentity\b/i],
  ["SSO, SAML, OIDC", /\b(sso|saml|oidc)\b/i],
];

/**
 * Keys of the schema value that runtime/schema.ts declares (ServiceFacts, ApiFeatures) with the
 * identity API's words: generated/schema.ts and the clients' generated/client/service.ts spell them
 * whatever the API. Only these keys, and only in those files, are passed over; a test below fails once runtime/schema.ts declares one no more,
 * so the list shrinks as they are renamed there.
 */
const SCHEMA_KEYS = ["adminSecretHeader", "orgAdminRole", "adminSessionCookie", "adminSecret", "adminSession", "clientId", "orgAdmin"];
const SCHEMA_KEY = new RegExp(`\\b(${SCHEMA_KEYS.join("|")}):`, "g");

interface Hit {
  where: string;
  word: string;
  line: string;
}

function hitsIn(files: Iterable<[string, string]>): Hit[] {
  const hits: Hit[] = [];
  for (const [path, content] of files) {
    const schemaValue = path.endsWith("generated/schema.ts") || path.endsWith("generated/client/service.ts");
    content.split("\n").forEach((raw, index) => {
      const line = schemaValue ? raw.replace(SCHEMA_KEY, "") : raw;
      for (const [word, pattern] of VOCABULARY) {
        if (pattern.test(line)) hits.push({ where: `${path}:${index + 1}`, word, line: raw.trim().slice(0, 160) });
      }
    });
  }
  return hits;
}

const report = (hits: Hit[]) => hits.map((hit) => `${hit.where}: ${hit.word}: ${hit.line}`).join("\n");

/** The text files `emitAll` produces for the manifest under `root`, derived groups (descriptor sets, message classes) included. */
function emitted(root: string): [string, string][] {
  const { files, groups } = emitAll(loadIr(root));
  return [...files, ...groups.flatMap((group) => group.produce())].map((file) => [file.path, file.content]);
}

const cleanup: string[] = [];
let helpdeskFiles: [string, string][] | undefined;
/** The third API's files, generated once. */
function helpdesk(): [string, string][] {
  if (!helpdeskFiles) {
    const root = projectWithManifest(THIRD_API);
    cleanup.push(root);
    helpdeskFiles = emitted(root);
  }
  return helpdeskFiles;
}
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe("no identity vocabulary outside the identity API", () => {
  it("passes over only the keys of the schema value that runtime/schema.ts still declares", () => {
    const declared = readFileSync(join(REPO_ROOT, "runtime", "schema.ts"), "utf8");
    expect(SCHEMA_KEYS.filter((key) => !new RegExp(`readonly ${key}: `).test(declared))).toEqual([]);
  });

  it("the word list finds the identity API's own outputs", () => {
    const words = new Set(hitsIn([["generated/schema.ts", readFileSync(join(REPO_ROOT, "generated", "schema.ts"), "utf8")]]).map((hit) => hit.word));
    expect([...words].sort()).toEqual(expect.arrayContaining(["admin secret", "super admin", "org admin"]));
  });

  it("the bookstore's generated files", () => {
    const root = join(REPO_ROOT, "examples", "bookstore");
    const record = JSON.parse(readFileSync(join(root, "generated", "files.json"), "utf8")) as { files: Record<string, string> };
    const paths = Object.keys(record.files);
    expect(paths.length).toBeGreaterThan(50);
    const hits = hitsIn(paths.map((path) => [`examples/bookstore/${path}`, readFileSync(join(root, path), "utf8")]));
    expect(report(hits)).toBe("");
  });

  it("the apigen init starter's generated files", () => {
    const dir = join(tempDir("apigen-vocabulary-"), "tasks");
    cleanup.push(dir);
    init({ dir, version: "0.0.0" });
    const files = emitted(dir);
    expect(files.length).toBeGreaterThan(50);
    expect(report(hitsIn(files))).toBe("");
  });

  it("a third API's generated files: a bearer scheme and an API key", () => {
    const files = helpdesk();
    expect(files.length).toBeGreaterThan(50);
    expect(report(hitsIn(files))).toBe("");
  });

  it("names the OpenAPI security schemes after the declared schemes, and the identity API's as they were", () => {
    const schemesOf = (text: string) => (parse(text) as { components: { securitySchemes: Record<string, { type: string }> } }).components.securitySchemes;
    const requirementsOf = (text: string) =>
      Object.values((parse(text) as { paths: Record<string, Record<string, { operationId?: string; security?: unknown }>> }).paths).flatMap((item) =>
        Object.values(item).flatMap((op) => (op.operationId ? [[op.operationId, op.security]] : [])),
      );
    const contract = helpdesk().find(([path]) => path === "generated/openapi/openapi.yaml")![1];
    expect(Object.keys(schemesOf(contract))).toEqual(["agentToken", "robotKey"]);
    expect(Object.fromEntries(requirementsOf(contract))).toEqual({ open_ticket: [{ robotKey: [] }], get_ticket: [{ agentToken: [] }], version: [] });
    const bookstore = readFileSync(join(REPO_ROOT, "examples", "bookstore", "generated", "openapi", "openapi.yaml"), "utf8");
    expect(Object.keys(schemesOf(bookstore))).toEqual(["readerToken", "staffKey"]);
    const identity = readFileSync(join(REPO_ROOT, "generated", "openapi", "openapi.yaml"), "utf8");
    expect(Object.keys(schemesOf(identity))).toEqual(["adminSecret", "adminSession", "userToken", "clientBasic"]);
    const identityRequirements = new Set(requirementsOf(identity).map(([, security]) => JSON.stringify(security)));
    expect(identityRequirements).toContain(JSON.stringify([{ adminSecret: [] }, { adminSession: [] }, { userToken: [] }]));
  });
});

const THIRD_API = `manifest_version: 1
api:
  name: helpdesk
  title: Helpdesk
  description: Tickets of a helpdesk.
  version: 1.0.0
  proto_package: helpdesk.v1
  grpc_port: 9292
  surfaces:
    user: { client: DeskClient, service: DeskService }
  auth_schemes:
    anyone: { kind: none }
    agent: { kind: bearer, token: access, description: "a signed-in agent (bearer token)" }
    robot: { kind: api_key, header: x-desk-key }
  groups:
    tickets: Tickets
types:
  Ticket:
    description: A question to the desk.
    fields:
      id: string!
      subject: string!
      open: bool!
operations:
  open_ticket:
    surface: user
    group: tickets
    description: Open a ticket.
    kind: write
    auth: robot
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    input:
      subject: { type: string!, max_length: 200 }
    output: Ticket
  get_ticket:
    surface: user
    group: tickets
    description: One ticket, by id.
    kind: read
    auth: agent
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    route: { method: GET, path: "/v1/tickets/{id}" }
    errors: [NOT_FOUND]
    input:
      id: string!
    output: Ticket
  version:
    surface: user
    group: tickets
    description: The service's version.
    kind: read
    auth: anyone
    protocols: { graphql: 1.0.0, rest: 1.0.0, grpc: 1.0.0 }
    output:
      version: string!
`;
