// api.version_operation: the read each client asks for the server's version is declared, never
// guessed. The IR takes it per client, the SDKs' client tables carry it, and a client whose
// operations all have one minimum version per protocol needs none. (The refusals of a missing or
// wrong declaration are cases 94-99 of test/bad-manifests/.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadIr } from "../generators/generate.js";
import { buildIr } from "../generators/ir/build-ir.js";
import { loadManifestText } from "../generators/load/load.js";
import { emptyLock } from "../generators/load/lock.js";
import { buildSdkFacts } from "../generators/sdk/sdk-facts.js";
import { readFixture, REPO_ROOT } from "./helpers/project.js";

const minimal = readFixture("minimal.yaml");
const irOf = (text: string) => buildIr(loadManifestText(text), emptyLock());
const clientsOf = (text: string) => Object.fromEntries(buildSdkFacts(irOf(text)).clients.map((c) => [c.role, c.versionOperation]));

describe("api.version_operation", () => {
  it("gives the identity API's clients the reads it declares: admin_meta and meta", () => {
    expect(loadIr(REPO_ROOT).versionOperations).toEqual({ admin: "admin_meta", user: "meta" });
    expect(readFileSync(join(REPO_ROOT, "generated", "client", "admin-client.ts"), "utf8")).toContain('  versionOperation: () => import("./operations/adminMeta.js"),');
    expect(readFileSync(join(REPO_ROOT, "generated", "client", "user-client.ts"), "utf8")).toContain('  versionOperation: () => import("./operations/meta.js"),');
  });

  it("takes one name or a list, each read going to the client of its surface", () => {
    expect(irOf(minimal).versionOperations).toEqual({ admin: "server_info" });
    expect(irOf(minimal.replace("  version_operation: server_info\n", "  version_operation: [server_info]\n")).versionOperations).toEqual({ admin: "server_info" });
    // meta, a public read of the user client, answering a version too.
    const both = minimal
      .replace("  version_operation: server_info\n", "  version_operation: [meta, server_info]\n")
      .replace(/( {2}meta:\n[\s\S]*?)output: Response\n/, "$1output:\n      version: string!\n");
    expect(clientsOf(both)).toEqual({ admin: "server_info", user: "meta" });
  });

  it("is not guessed: a read answering a version is no client's version read unless declared, and a client whose minimums agree needs none", () => {
    // The organization operations at 2.3.0-rc.9 everywhere: no operation is above the lowest minimum.
    const agreeing = minimal.replaceAll("{ graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }", "{ graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }");
    const undeclared = agreeing.replace("  version_operation: server_info\n", "");
    expect(irOf(undeclared).versionOperations).toEqual({});
    expect(clientsOf(undeclared)).toEqual({ admin: null, user: null });
    // The bookstore declares none, and its operations agree.
    expect(loadIr(join(REPO_ROOT, "examples", "bookstore")).versionOperations).toEqual({});
  });

  it("gives an org-admin's admin client the declared read anyone may call, since the admin's own needs the secret", () => {
    expect(loadIr(REPO_ROOT).tokenVersionOperation).toBe("meta");
    expect(readFileSync(join(REPO_ROOT, "generated", "client", "admin-client.ts"), "utf8")).toContain('  tokenVersionOperation: () => import("./operations/meta.js"),');
    // The minimal API's org-admins call the admin client with their token; it declares server_info alone (the secret's): nothing to ask instead.
    expect(irOf(minimal).tokenVersionOperation).toBeNull();
    const both = minimal
      .replace("  version_operation: server_info\n", "  version_operation: [meta, server_info]\n")
      .replace(/( {2}meta:\n[\s\S]*?)output: Response\n/, "$1output:\n      version: string!\n");
    expect(irOf(both).tokenVersionOperation).toBe("meta");
    // No operation takes an org-admin's token: the admin client always holds the secret.
    const secretOnly = both.replaceAll("auth: org_admin", "auth: admin_secret");
    expect(irOf(secretOnly).tokenVersionOperation).toBeNull();
  });
});
