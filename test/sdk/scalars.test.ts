// The table of field types (generators/sdk/scalars.ts) against what the compiler cannot check: the
// manifest's JSON Schema, the Go and Python runtimes, and the spellings a manifest may use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SCALAR_KINDS, type ScalarKind } from "../../runtime/schema.js";
import { customGraphqlScalars, SCALAR_SPECS, scalarOfAlias, type ScalarSpec } from "../../generators/sdk/scalars.js";
import { MANIFEST_SCALARS } from "../../generators/ir/ir.js";
import { loadManifestText } from "../../generators/load/load.js";
import { buildIr } from "../../generators/ir/build-ir.js";
import { emptyLock } from "../../generators/load/lock.js";
import { REPO_ROOT } from "../helpers/project.js";

// A kind of the runtime without an entry does not compile.
// @ts-expect-error every kind but string is missing
const incomplete: Record<ScalarKind, ScalarSpec> = { string: SCALAR_SPECS.string };
void incomplete;

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

describe("the table of field types", () => {
  it("has an entry per kind of the runtime, and no other", () => {
    expect(Object.keys(SCALAR_SPECS)).toEqual([...SCALAR_KINDS]);
  });

  it("is what the manifest's JSON Schema lists as field types", () => {
    const schema = JSON.parse(read("generators/load/manifest.schema.json")) as { $defs: { typeExpr: { description: string } } };
    // int64_string is what int64 is where api.int64_json is string: a manifest never writes it.
    expect(schema.$defs.typeExpr.description.startsWith(`${MANIFEST_SCALARS.join(" | ")} | an enum`)).toBe(true);
    expect(MANIFEST_SCALARS).toEqual(SCALAR_KINDS.filter((kind) => kind !== "int64_string"));
  });

  it("reads each other spelling as one type, never as a type's own name", () => {
    const aliases = Object.values(SCALAR_SPECS).flatMap((spec) => spec.aliases);
    expect(new Set(aliases).size).toBe(aliases.length);
    for (const alias of aliases) expect(SCALAR_KINDS as readonly string[]).not.toContain(alias);
    expect(scalarOfAlias("integer")).toBe("int64");
    expect(scalarOfAlias("date")).toBeUndefined();
  });

  it("gives every kind its constant and its cases in the Go runtime", () => {
    const shape = read("templates/go/internal/transport/shape.go");
    for (const spec of Object.values(SCALAR_SPECS)) expect(shape).toMatch(new RegExp(`^\\t${spec.go.kind}( fieldKind = iota)?$`, "m"));
  });

  it("names every kind in the Python runtime's checks", () => {
    const shape = read("templates/python/package/_shape.py");
    for (const kind of SCALAR_KINDS) expect(shape).toContain(`"${kind}"`);
  });

  it("maps the GraphQL custom scalars for graphql-codegen", () => {
    expect(customGraphqlScalars().map((s) => [s.name, s.typescript])).toEqual([
      ["Int64", "number"],
      ["UInt32", "number"],
      ["UInt64", "string"],
      ["DateTime", "string"],
      ["Date", "string"],
      ["Duration", "string"],
      ["Bytes", "string"],
      ["Map", "Record<string, string>"],
      ["JSON", "Record<string, unknown>"],
    ]);
    // Where int64 travel as strings, Int64 is a string to graphql-codegen too, and named once.
    const asStrings = customGraphqlScalars("string");
    expect(asStrings.filter((s) => s.name === "Int64")).toEqual([{ name: "Int64", typescript: "string" }]);
    expect(asStrings).toHaveLength(9);
  });

  it("answers another language's spelling of a type with the manifest's word for it", () => {
    const manifest = (type: string) => `manifest_version: 1
api: { name: mini, title: Mini, version: 1.0.0, proto_package: mini.v1, groups: { things: Things } }
operations:
  get_thing:
    surface: admin
    group: things
    description: Get a thing.
    kind: read
    auth: admin_secret
    protocols: { graphql: 1.0.0 }
    input: { count: ${type} }
    output: { ok: bool }
`;
    const ir = buildIr(loadManifestText(manifest("int64"), "operations.yaml"), emptyLock());
    expect(ir.messages.flatMap((m) => m.fields).find((f) => f.name === "count")!.type).toEqual({ kind: "scalar", scalar: "int64" });
    expect(() => buildIr(loadManifestText(manifest("long"), "operations.yaml"), emptyLock())).toThrow(/unknown type 'long'; did you mean 'int64'\?/);
    expect(() => buildIr(loadManifestText(manifest("double"), "operations.yaml"), emptyLock())).toThrow(/unknown type 'double'; did you mean 'float64'\?/);
  });
});
