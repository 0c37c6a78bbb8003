// Each operation's schema is a module of its own (generated/client/operations/), named by the method
// that calls it and loaded by its first call: what the generated modules hold, that a call loads
// its own module and no other, and what a module that fails to load does.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { loadIr } from "../../generators/generate.js";
import { AdminClient, UserClient } from "../../generated/client/index.js";
import { ClientCore, type OperationModule } from "../../runtime/client/core.js";
import type { ApiError } from "../../runtime/client/errors.js";
import { expandPart, type OperationPart } from "../../runtime/schema.js";
import { clientDefinitionOf, loaderNamed, operationModulesOf } from "../helpers/client-definition.js";
import { REPO_ROOT } from "../helpers/project.js";

const OPERATIONS_DIR = join(REPO_ROOT, "generated", "client", "operations");

/** The identity schema's operation modules, each counting its loads into \`loads\` and failing while \`failing\` holds its operation. */
function countingModules() {
  const loads: string[] = [];
  const failing = new Set<string>();
  const modules: Record<string, OperationModule> = Object.fromEntries(
    Object.entries(operationModulesOf(schema)).map(([name, load]) => [
      name,
      loaderNamed(name, async () => {
        loads.push(name);
        if (failing.has(name)) throw new TypeError(`Failed to fetch dynamically imported module: ${name}.js`);
        return load();
      }),
    ]),
  );
  return { modules, loads, failing };
}

const answering = (body: unknown) => (async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })) as typeof fetch;

describe("the generated operation modules", () => {
  it("are one per operation, named by its method, each the operation with exactly the messages and enums it reaches", async () => {
    const ir = loadIr(REPO_ROOT);
    expect(readdirSync(OPERATIONS_DIR).sort()).toEqual(ir.operations.map((op) => `${op.camelName}.ts`).sort());
    // One operation a module: the one its method calls (the client takes the module's only operation).
    for (const op of ir.operations) {
      const { part } = (await import(/* @vite-ignore */ join(OPERATIONS_DIR, `${op.camelName}.ts`))) as { part: OperationPart };
      expect(Object.keys(part.operations)).toEqual([op.name]);
    }
    const { part } = (await import("../../generated/client/operations/adminMeta.js")) as { part: OperationPart };
    expect(Object.keys(part.messages).sort()).toEqual(["AdminMeta", "AdminMetaRequest"]);
    expect(Object.keys(part.enums)).toEqual(["WireProtocol"]);
    // Expanded, it is the full schema's operation and messages.
    const expanded = expandPart(part);
    expect(expanded.operations.admin_meta).toEqual(schema.operations.admin_meta);
    expect(expanded.messages.AdminMeta).toEqual(schema.messages.AdminMeta);
    // A message that nests others carries them all: users answers User and Pagination.
    const users = (await import("../../generated/client/operations/users.js")) as { part: OperationPart };
    expect(Object.keys(users.part.messages)).toEqual(expect.arrayContaining(["User", "Pagination", "PaginationInput"]));
  });

  it("are named where they are called: by each method, and by the definition for the version reads; a class has a method for each operation of its surfaces, no other", () => {
    const admin = readFileSync(join(REPO_ROOT, "generated", "client", "admin-client.ts"), "utf8");
    expect(admin).toContain('    return this.core.call(() => import("./operations/adminMeta.js"), input, options) as unknown as ApiPromise<AdminMeta>;');
    expect(admin).toContain('    return this.core.iterate(() => import("./operations/users.js"), input, options) as AsyncIterable<User>;');
    expect(admin).toContain('  versionOperation: () => import("./operations/adminMeta.js"),');
    // The org-admin's version read is the user surface's meta: asked, not a method.
    expect(admin).toContain('  tokenVersionOperation: () => import("./operations/meta.js"),');
    expect(admin).not.toContain('import("./operations/login.js")');
    expect(admin).not.toContain("../schema.js");
    expect(["adminMeta", "meta", "login"].map((method) => method in AdminClient.prototype)).toEqual([true, false, false]);
    expect(["adminMeta", "meta", "login"].map((method) => method in UserClient.prototype)).toEqual([false, true, true]);
  });
});

describe("a client", () => {
  it("loads the module of the operation it calls on its first call, and no other; a later call loads nothing", async () => {
    const { modules, loads } = countingModules();
    const core = new ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch: answering({ message: "ok" }) }, () => ({}));
    expect(loads).toEqual([]);
    await core.call(modules.delete_user!, { id: "u1" });
    expect(loads).toEqual(["delete_user"]);
    // A loader made anew by each call, as a generated method's: the same text, the same operation, already loaded.
    const again = loaderNamed("delete_user", () => Promise.reject(new Error("loaded again")));
    await Promise.all([core.call(again, { id: "u2" }), core.call(modules.delete_user!, { id: "u3" })]);
    expect(loads).toEqual(["delete_user"]);
    await core.call(modules.get_webhook!, { id: "h1" });
    expect(loads).toEqual(["delete_user", "get_webhook"]);
  });

  it("answers UNAVAILABLE when an operation's module does not load, sends nothing, and loads it again on the next call", async () => {
    const { modules, loads, failing } = countingModules();
    const sent: string[] = [];
    const fetch = (async (url: string) => (sent.push(url), new Response(JSON.stringify({ message: "ok" })))) as typeof globalThis.fetch;
    const core = new ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch }, () => ({}));
    failing.add("delete_user");
    const error = (await core.call(modules.delete_user!, { id: "u1" }).catch((e: unknown) => e)) as ApiError;
    // The operation is its module's: unknown until it loads; the cause names the module.
    expect([error.name, error.code, error.message, error.operation]).toEqual(["UnavailableError", "UNAVAILABLE", "a module of the SDK did not load", ""]);
    expect((error.cause as Error).message).toBe("Failed to fetch dynamically imported module: delete_user.js");
    expect(sent).toEqual([]);
    failing.clear();
    await expect(core.call(modules.delete_user!, { id: "u1" })).resolves.toEqual({ message: "ok" });
    expect(loads).toEqual(["delete_user", "delete_user"]);
    expect(sent).toEqual(["http://127.0.0.1:9/v1/admin/delete_user"]);
  });

  it("loads the version read's module when a call needs the server's version, then sends the call", async () => {
    const { modules, loads } = countingModules();
    const answers: Record<string, unknown> = { "/v1/admin/admin_meta": { version: "2.3.0" } };
    const fetch = (async (url: string) => new Response(JSON.stringify(answers[new URL(url).pathname] ?? {}))) as typeof globalThis.fetch;
    const core = new ClientCore(clientDefinitionOf(schema, { versionOperation: modules.admin_meta! }), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch }, () => ({}));
    // rotate_scim_token is carried over REST since 2.4.0, above the lowest: refused by a 2.3.0 server.
    expect(schema.operations.rotate_scim_token!.rest!.since).toBe("2.4.0");
    const error = (await core.call(modules.rotate_scim_token!, { org_id: "o1" }).catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.refused]).toEqual(["FAILED_PRECONDITION", true]);
    expect(error.message).toContain("needs server 2.4.0 or later on rest; the server is 2.3.0");
    expect(loads).toEqual(["rotate_scim_token", "admin_meta"]);
  });

  it("names the calling operation when the version read's module does not load, and sends nothing", async () => {
    const { modules, failing } = countingModules();
    const sent: string[] = [];
    const fetch = (async (url: string) => (sent.push(url), new Response("{}"))) as typeof globalThis.fetch;
    const core = new ClientCore(clientDefinitionOf(schema, { versionOperation: modules.admin_meta! }), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch }, () => ({}));
    failing.add("admin_meta");
    const error = (await core.call(modules.rotate_scim_token!, { org_id: "o1" }).catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.message, error.operation]).toEqual(["UNAVAILABLE", "rotate_scim_token: a module of the SDK did not load", "rotate_scim_token"]);
    expect(sent).toEqual([]);
  });
});
