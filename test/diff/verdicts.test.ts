// How verdicts are reached: the manifest rule is primary and a contract finding only raises it for
// an effect the rule does not model (the report shows both); the SDKs' surfaces count for their
// language; the version a report calls for.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIr } from "../../generators/ir/build-ir.js";
import { ruleChange } from "../../generators/diff/change.js";
import { diffSides } from "../../generators/diff/command.js";
import type { Finding } from "../../generators/diff/contracts.js";
import { mergeFindings } from "../../generators/diff/merge.js";
import { renderJson, renderMarkdown, renderText, wireSeverity } from "../../generators/diff/report.js";
import { goSurface, pythonSurface, surfaceFindings, typescriptSurface, type SurfaceEntry } from "../../generators/diff/sdk-surface.js";
import { checkVersion, requiredBump } from "../../generators/diff/version.js";
import type { Ir } from "../../generators/ir/ir.js";
import { loadManifestFile, loadManifestText } from "../../generators/load/load.js";
import { emptyLock, readLock } from "../../generators/load/lock.js";
import { CASES } from "./cases.js";
import { applyEdits, BASE_MANIFEST, sidesOf } from "./corpus.js";

const finding = (over: Partial<Finding>): Finding => ({
  source: "openapi",
  protocol: "rest",
  kind: "security-tightened",
  severity: "breaking",
  message: "users no longer accepts adminSecret",
  subject: "users",
  anchors: ["auth:users", "op:users"],
  ...over,
});

describe("contract findings against the manifest rule", () => {
  it("keep the rule's verdict when the rule models what they see, and are kept as overruled", () => {
    const loosened = ruleChange("auth-loosened", "users", "safe", ["graphql", "rest", "grpc"], "auth changed", ["op:users", "auth:users"], "users");
    const [change] = mergeFindings([loosened], [finding({})]);
    expect(change).toMatchObject({ id: "auth-loosened:users", severity: "safe", sources: ["manifest", "openapi"] });
    expect(change!.ruleSeverity).toBeUndefined();
    expect(change!.evidence).toEqual([{ source: "openapi", kind: "security-tightened", severity: "breaking", message: "users no longer accepts adminSecret", verdict: "overruled" }]);
  });

  it("raise the change for an effect the rule does not model, keeping the rule's own verdict", () => {
    const described = ruleChange("description-changed", "users", "safe", ["graphql", "rest", "grpc"], "description changed", ["op:users"], "users");
    const [change] = mergeFindings([described], [finding({ source: "buf", protocol: "grpc", kind: "FIELD_SAME_TYPE", message: "field 1 changed type", anchors: ["op:users"] })]);
    expect(change).toMatchObject({ severity: "breaking", ruleSeverity: "safe" });
    expect(change!.evidence[0]!.verdict).toBe("raised");
    expect(renderText({ ...report(), changes: [change!] })).toContain("buf makes it breaking (the rule alone says safe): field 1 changed type");
  });

  it("fold only into changes their protocol's clients see", () => {
    const grpcOnly = ruleChange("rpc-renamed", "users", "breaking", ["grpc"], "renamed", ["op:users"], "users");
    const changes = mergeFindings([grpcOnly], [finding({ kind: "operation-removed", anchors: ["op:users"] })]);
    expect(changes.map((c) => c.id)).toEqual(["rpc-renamed:users", "openapi-operation-removed:users"]);
  });

  it("a real case: an enum value added to an enum only inputs use is safe; graphql-inspector's 'dangerous' shows, overruled", async () => {
    const { oldSide, newSide } = sidesOf(CASES.find((c) => c.name === "enum value added to an enum only inputs use")!);
    const result = await diffSides(newSide, oldSide);
    const change = result.changes.find((c) => c.id === "enum-value-added:Color.blue")!;
    expect(change.severity).toBe("safe");
    expect(change.evidence).toContainEqual(expect.objectContaining({ source: "graphql-inspector", kind: "ENUM_VALUE_ADDED", severity: "dangerous", verdict: "overruled" }));
    expect(renderText(result)).toMatch(/safe {2}enum-value-added:Color\.blue[^\n]*\n.*\n.*\n {6}graphql-inspector says dangerous, overruled by the manifest rule, which models this: /);
    expect(renderMarkdown(result)).toContain("<br>graphql-inspector says dangerous, overruled by the manifest rule");
  });

  it("a real case: pagination removed is breaking for each SDK, each named, and stays dangerous on the wire", async () => {
    const { oldSide, newSide } = sidesOf(CASES.find((c) => c.name === "pagination removed: the SDK loses its iterator")!);
    const result = await diffSides(newSide, oldSide);
    const change = result.changes.find((c) => c.id === "pagination-changed:users")!;
    expect(change).toMatchObject({ severity: "breaking", ruleSeverity: "dangerous" });
    expect(wireSeverity(change)).toBe("dangerous");
    const text = renderText(result);
    expect(text).toContain("graphql: 0 breaking, 1 dangerous, 0 safe; rest: 0 breaking, 1 dangerous, 0 safe; grpc: 0 breaking, 1 dangerous, 0 safe");
    expect(text).toContain("sdk typescript: 1 breaking, 0 dangerous, 0 safe; python: 1 breaking, 0 dangerous, 0 safe; go: 1 breaking, 0 dangerous, 0 safe");
    for (const language of ["typescript", "python", "go"]) {
      expect(text).toMatch(new RegExp(`the SDK surface makes it breaking \\(the rule alone says dangerous\\): iterator \\S+ was removed from the ${language} SDK`));
    }
    expect(JSON.parse(renderJson(result))).toMatchObject({ protocols: { rest: { breaking: 0, dangerous: 1 } }, sdks: { go: { breaking: 1 } } });
  });
});

function report() {
  return {
    against: "old",
    manifest: "new",
    changes: [],
    unusedAcceptances: [],
    summary: { breaking: 0, accepted: 0, dangerous: 0, safe: 0 },
    version: checkVersion("1.0.0", "1.0.0", "none"),
    failed: false,
  };
}

const irOf = (text: string): Ir => buildIr(loadManifestText(text), emptyLock());

describe("SDK surfaces", () => {
  const base = irOf(BASE_MANIFEST);

  it("name the TypeScript SDK's package, methods, iterators, exported types and fields as the emitters write them", () => {
    const names = typescriptSurface(base).map((e) => `${e.kind} ${e.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "package mini-sdk",
        "method AdminClient.users",
        "iterator AdminClient.iterateUsers",
        "method AdminClient.deleteOrgOIDCConnection",
        "method UserClient.meta",
        "type UsersInput",
        "field UsersInput.query",
        "type User",
        "field User.email",
        "type KeyStatus",
        "type KeyStatusOrUnknown",
        "enum-value KeyStatus.retired",
      ]),
    );
    // A shared type only answers use has no input shape in types.ts.
    expect(names).not.toContain("type UserInput");
  });

  it("report a removed name as breaking for its language and an added one as safe, leaving out fields of types that come or go", () => {
    const renamed = irOf(applyEdits(BASE_MANIFEST, [["  rotate_key:\n", "  turn_key:\n"]]));
    const findings = surfaceFindings(base, renamed, { typescript: typescriptSurface });
    expect(findings.map((f) => [f.kind, f.subject, f.severity])).toEqual([
      ["method-removed", "typescript.AdminClient.rotateKey", "breaking"],
      ["type-removed", "typescript.RotateKeyInput", "breaking"],
      ["method-added", "typescript.AdminClient.turnKey", "safe"],
      ["type-added", "typescript.TurnKeyInput", "safe"],
    ]);
    expect(findings[0]!.message).toBe("method AdminClient.rotateKey was removed from the typescript SDK: code that uses it breaks");
  });

  it("name the Python SDK's distribution, module, client options, methods, keyword arguments, iterators and types as its emitter writes them", () => {
    const names = pythonSurface(base).map((e) => `${e.kind} ${e.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "package mini-sdk",
        "package import mini_sdk",
        "option AdminClient.admin_secret",
        "method AdminClient.users",
        "method AsyncAdminClient.users",
        "argument AdminClient.users.query",
        "iterator AdminClient.iter_users",
        "iterator AsyncAdminClient.iter_users",
        "method UserClient.meta",
        "type User",
        "field User.email",
        "type PaginationInput",
        "enum-value KeyStatus.retired",
      ]),
    );
    // A Python keyword as a field name is escaped in the argument, as the emitter escapes it.
    const keyword = irOf(applyEdits(BASE_MANIFEST, [["      org_id: string!\n    output: Key\n", "      org_id: string!\n      from: string\n    output: Key\n"]]));
    expect(pythonSurface(keyword)).toContainEqual({ kind: "argument", name: "AdminClient.rotate_key.from_", anchors: ["in:RotateKeyRequest.from", "op:rotate_key"] });
  });

  it("report a removed keyword argument of a Python method, not the arguments of a removed method", () => {
    const removed = irOf(
      applyEdits(BASE_MANIFEST, [
        ["      pagination: PaginationInput\n      query: string\n", "      pagination: PaginationInput\n"],
        ["  rotate_key:\n", "  turn_key:\n"],
      ]),
    );
    const findings = surfaceFindings(base, removed, { python: pythonSurface }).filter((f) => f.kind.endsWith("-removed"));
    expect(findings.map((f) => f.subject)).toEqual(["python.AdminClient.users.query", "python.AdminClient.rotate_key", "python.AsyncAdminClient.users.query", "python.AsyncAdminClient.rotate_key"]);
  });

  it("name the Go SDK's module, clients, methods, iterators, structs, fields and enum constants as its emitter writes them", () => {
    const names = goSurface(base).map((e) => `${e.kind} ${e.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "package example.com/mini-go (package mini)",
        "method AdminClient.Users",
        "iterator AdminClient.AllUsers",
        "method AdminClient.DeleteOrgOIDCConnection",
        "method UserClient.Meta",
        "type UsersInput",
        "field UsersInput.Query",
        "field User.ID",
        "field RotateKeyInput.OrgID",
        "enum-value KeyStatus.KeyStatusRetired",
      ]),
    );
    // The module's /vN suffix follows api.version: a major bump is the version line, not a vanished package.
    const bumped = irOf(BASE_MANIFEST.replace(/version: \d+\./, "version: 9."));
    expect([base.api.go.modulePath, bumped.api.go.modulePath]).toEqual(["example.com/mini-go/v2", "example.com/mini-go/v9"]);
    expect(surfaceFindings(base, bumped, { go: goSurface })).toEqual([]);
    // An acronym renames Go identifiers; the finding carries the acronyms anchor so it folds into that change.
    const acronym = irOf(applyEdits(BASE_MANIFEST, [["  acronyms: [OIDC, SAML]\n", "  acronyms: [OIDC, SAML, ORG]\n"]]));
    const removed = surfaceFindings(base, acronym, { go: goSurface }).find((f) => f.subject === "go.RotateKeyInput.OrgID");
    expect(removed).toMatchObject({ kind: "field-removed", severity: "breaking" });
    expect(removed!.anchors).toContain("api:acronyms");
  });

  it("name only what the generated Go code declares", () => {
    const ir = buildIr(loadManifestFile("operations.yaml"), readLock("."));
    const code = readdirSync("generated/go")
      .filter((f) => f.endsWith(".go"))
      .map((f) => readFileSync(join("generated/go", f), "utf8"))
      .join("\n");
    const module = readFileSync("generated/go/go.mod", "utf8");
    const missing = goSurface(ir).filter((entry) => {
      const last = entry.name.split(".").at(-1)!;
      if (entry.kind === "package") return !module.includes(`module ${ir.api.go.modulePath}`);
      if (entry.kind === "client" || entry.kind === "type") return !new RegExp(`^type ${last} `, "m").test(code);
      if (entry.kind === "method" || entry.kind === "iterator") return !new RegExp(`^func \\(\\w+ \\*${entry.name.split(".")[0]}\\) ${last}\\(`, "m").test(code);
      if (entry.kind === "enum-value") return !new RegExp(`^\\s+${last}\\b`, "m").test(code);
      return !new RegExp(`^\\s+${last}\\s`, "m").test(code);
    });
    expect(missing).toEqual([]);
  });

  it("take another language with one function", () => {
    const pythonLike = (ir: Ir): SurfaceEntry[] => ir.operations.map((op) => ({ kind: "method", name: `Client.${op.name}`, anchors: [`op:${op.name}`] }));
    const without = irOf(applyEdits(BASE_MANIFEST, [["  meta:\n    surface: user\n", "  about:\n    surface: user\n"]]));
    const findings = surfaceFindings(base, without, { python: pythonLike });
    expect(findings.map((f) => [f.language, f.kind, f.subject])).toEqual([
      ["python", "method-removed", "python.Client.meta"],
      ["python", "method-added", "python.Client.about"],
    ]);
  });
});

describe("version check", () => {
  it("asks for the bump the changes call for", () => {
    const change = (rule: string, severity: "breaking" | "dangerous" | "safe") => ruleChange(rule, "x", severity, [], "", []);
    expect(requiredBump([])).toBe("none");
    expect(requiredBump([change("description-changed", "safe"), change("operation-destructive", "dangerous")])).toBe("patch");
    expect(requiredBump([change("description-changed", "safe"), change("operation-added", "safe")])).toBe("minor");
    expect(requiredBump([change("enum-value-added", "dangerous")])).toBe("minor");
    expect(requiredBump([change("operation-added", "safe"), change("operation-removed", "breaking")])).toBe("major");
  });

  it.each([
    ["2.4.0", "3.0.0", "major", true, "3.0.0"],
    ["2.4.0", "2.5.0", "major", false, "3.0.0"],
    ["2.4.0", "3.0.0-rc.1", "major", true, "3.0.0"],
    ["0.4.2", "0.5.0", "major", true, "0.5.0"],
    ["0.4.2", "0.4.3", "major", false, "0.5.0"],
    ["2.4.0", "2.5.0", "minor", true, "2.5.0"],
    ["2.4.0", "2.4.1", "minor", false, "2.5.0"],
    ["2.4.0", "2.4.1", "patch", true, "2.4.1"],
    ["2.4.0", "2.4.0", "patch", false, "2.4.1"],
    ["3.0.0-rc.1", "3.0.0-rc.2", "major", true, "above 3.0.0-rc.1"],
    ["3.0.0-rc.1", "3.0.0-rc.1", "patch", false, "above 3.0.0-rc.1"],
  ] as const)("%s -> %s for a %s bump: ok %s (at least %s)", (previous, next, bump, ok, minimum) => {
    expect(checkVersion(previous, next, bump)).toMatchObject({ ok, minimum });
  });

  it("refuses a version that went down, and lets an unchanged contract keep its version", () => {
    expect(checkVersion("2.4.0", "2.3.0", "none")).toMatchObject({ ok: false, message: "api.version went down from 2.4.0 to 2.3.0" });
    expect(checkVersion("2.4.0", "2.4.0", "none")).toMatchObject({ ok: true });
  });
});
