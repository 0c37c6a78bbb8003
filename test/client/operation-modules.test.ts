// Each operation's schema is a module of its own (generated/client/operations/), loaded by a client
// on the operation's first call: what the generated modules hold, that a call loads its own module
// once and no other, and what a module that fails to load, an unknown operation and the version
// read of another surface do.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { loadIr } from "../../generators/generate.js";
import { ClientCore, type ClientDefinition } from "../../runtime/client/core.js";
import type { ApiError } from "../../runtime/client/errors.js";
import { defineSchema, type OperationPart } from "../../runtime/schema.js";
import { clientDefinitionOf } from "../helpers/client-definition.js";
import { REPO_ROOT } from "../helpers/project.js";

const OPERATIONS_DIR = join(REPO_ROOT, "generated", "client", "operations");

/** A definition of the identity schema whose loaders count what they load, and fail while `failing` holds a name. */
function countingDefinition(overrides: Partial<ClientDefinition> = {}) {
  const base = clientDefinitionOf(schema, ["admin"], overrides);
  const loads: string[] = [];
  const failing = new Set<string>();
  const operations = Object.fromEntries(
    Object.entries(base.operations).map(([name, load]) => [
      name,
      async () => {
        loads.push(name);
        if (failing.has(name)) throw new TypeError(`Failed to fetch dynamically imported module: ${name}.js`);
        return load();
      },
    ]),
  );
  return { definition: { ...base, ...overrides, operations }, loads, failing };
}

const answering = (body: unknown) => (async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })) as typeof fetch;

describe("the generated operation modules", () => {
  it("are one per operation, each the operation with exactly the messages and enums it reaches", async () => {
    const ir = loadIr(REPO_ROOT);
    expect(readdirSync(OPERATIONS_DIR).sort()).toEqual(ir.operations.map((op) => `${op.name}.ts`).sort());
    const { part } = (await import("../../generated/client/operations/admin_meta.js")) as { part: OperationPart };
    expect(Object.keys(part.operations)).toEqual(["admin_meta"]);
    expect(Object.keys(part.messages).sort()).toEqual(["AdminMeta", "AdminMetaRequest"]);
    expect(Object.keys(part.enums)).toEqual(["WireProtocol"]);
    // Expanded with the service's facts, it is the full schema's operation and messages.
    const expanded = defineSchema({ ...schema, ...part });
    expect(expanded.operations.admin_meta).toEqual(schema.operations.admin_meta);
    expect(expanded.messages.AdminMeta).toEqual(schema.messages.AdminMeta);
    // A message that nests others carries them all: users answers User and Pagination.
    const users = (await import("../../generated/client/operations/users.js")) as { part: OperationPart };
    expect(Object.keys(users.part.messages)).toEqual(expect.arrayContaining(["User", "Pagination", "PaginationInput"]));
  });

  it("are loaded by a client class through its table, its own and its version read's only", () => {
    const admin = readFileSync(join(REPO_ROOT, "generated", "client", "admin-client.ts"), "utf8");
    expect(admin).toContain('    admin_meta: () => import("./operations/admin_meta.js"),');
    // The org-admin's version read is the user surface's meta: loaded, not callable (below).
    expect(admin).toContain('    meta: () => import("./operations/meta.js"),');
    expect(admin).not.toContain('    login: () => import("./operations/login.js"),');
    expect(admin).not.toContain("../schema.js");
  });
});

describe("a client", () => {
  it("loads the module of the operation it calls on its first call, once, and no other", async () => {
    const { definition, loads } = countingDefinition();
    const core = new ClientCore(definition, { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch: answering({ message: "ok" }) }, () => ({}));
    expect(loads).toEqual([]);
    await Promise.all([core.call("delete_user", { id: "u1" }), core.call("delete_user", { id: "u2" })]);
    await core.call("delete_user", { id: "u3" });
    expect(loads).toEqual(["delete_user"]);
  });

  it("answers UNAVAILABLE when an operation's module does not load, sends nothing, and loads it again on the next call", async () => {
    const { definition, loads, failing } = countingDefinition();
    const sent: string[] = [];
    const fetch = (async (url: string) => (sent.push(url), new Response(JSON.stringify({ message: "ok" })))) as typeof globalThis.fetch;
    const core = new ClientCore(definition, { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch }, () => ({}));
    failing.add("delete_user");
    const error = (await core.call("delete_user", { id: "u1" }).catch((e: unknown) => e)) as ApiError;
    expect([error.name, error.code, error.message, error.operation]).toEqual(["UnavailableError", "UNAVAILABLE", "delete_user: the SDK's module of the operation did not load", "delete_user"]);
    expect((error.cause as Error).message).toBe("Failed to fetch dynamically imported module: delete_user.js");
    expect(sent).toEqual([]);
    failing.clear();
    await expect(core.call("delete_user", { id: "u1" })).resolves.toEqual({ message: "ok" });
    expect(loads).toEqual(["delete_user", "delete_user"]);
    expect(sent).toEqual(["http://127.0.0.1:9/v1/admin/delete_user"]);
  });

  it("refuses an operation it has no module for, and one of another surface, loading nothing it would send", async () => {
    const { definition } = countingDefinition();
    const sent: string[] = [];
    const fetch = (async (url: string) => (sent.push(url), new Response("{}"))) as typeof globalThis.fetch;
    const core = new ClientCore(definition, { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch }, () => ({}));
    await expect(core.call("no_such_operation", {})).rejects.toThrow(new TypeError("no operation no_such_operation on this client"));
    await expect(core.call("constructor", {})).rejects.toThrow(new TypeError("no operation constructor on this client"));
    // meta is loadable (the version read of a role holder's admin client) but belongs to the user surface.
    await expect(core.call("meta", {})).rejects.toThrow(new TypeError("no operation meta on this client"));
    expect(sent).toEqual([]);
  });

  it("loads the version read's module when a call needs the server's version, then the call's own", async () => {
    const { definition, loads } = countingDefinition({ versionOperation: "admin_meta" });
    const answers: Record<string, unknown> = { "/v1/admin/admin_meta": { version: "2.3.0" } };
    const fetch = (async (url: string) => new Response(JSON.stringify(answers[new URL(url).pathname] ?? {}))) as typeof globalThis.fetch;
    const core = new ClientCore(definition, { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch }, () => ({}));
    // rotate_scim_token is carried over REST since 2.4.0, above the lowest: refused by a 2.3.0 server.
    expect(schema.operations.rotate_scim_token!.rest!.since).toBe("2.4.0");
    const error = (await core.call("rotate_scim_token", { org_id: "o1" }).catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.refused]).toEqual(["FAILED_PRECONDITION", true]);
    expect(error.message).toContain("needs server 2.4.0 or later on rest; the server is 2.3.0");
    expect(loads).toEqual(["rotate_scim_token", "admin_meta"]);
  });
});
