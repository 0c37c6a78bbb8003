// The bundled CLI memoizes protoplugin's name derivation (scripts/build-cli.mjs): it must give every
// descriptor the very name the unpatched module gives, and refuse to build on a source it does not know.
import { readFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { memoizedAllNames } from "../scripts/build-cli.mjs";
import { descriptorSet } from "../generated/server/descriptor-set.js";

type Names = {
  generatedDescName(desc: unknown): string;
  generatedShapeName(desc: unknown): string;
  generatedJsonTypeName(desc: unknown): string;
  generatedValidTypeName(desc: unknown): string;
};

const require = createRequire(import.meta.url);
const namesPath = require.resolve("@bufbuild/protoplugin").replace(/index\.js$/, "names.js");

/** names.js compiled from `source` as if it were the file on disk, so its relative requires resolve. */
function compileNames(source: string): Names {
  const module = new Module(namesPath) as Module & { _compile(source: string, filename: string): void; paths: string[] };
  module.filename = namesPath;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(namesPath);
  module._compile(source, namesPath);
  return module.exports as Names;
}

describe("the bundled CLI's protoplugin", () => {
  it("names every file, message, enum and service of the descriptors exactly as the unpatched module does", () => {
    const source = readFileSync(namesPath, "utf8");
    const original = require(namesPath) as Names;
    const memoized = compileNames(memoizedAllNames(source, namesPath));
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorSet, "base64")));
    let compared = 0;
    for (const file of registry.files) {
      expect(memoized.generatedDescName(file)).toBe(original.generatedDescName(file));
      for (const desc of nestedTypes(file)) {
        expect(memoized.generatedDescName(desc)).toBe(original.generatedDescName(desc));
        if (desc.kind === "message" || desc.kind === "enum") {
          expect(memoized.generatedShapeName(desc)).toBe(original.generatedShapeName(desc));
          expect(memoized.generatedJsonTypeName(desc)).toBe(original.generatedJsonTypeName(desc));
          expect(memoized.generatedValidTypeName(desc)).toBe(original.generatedValidTypeName(desc));
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("refuses to build when protoplugin's source no longer has the function it memoizes", () => {
    expect(() => memoizedAllNames("function allNamesOfFile(file) {}", "names.js")).toThrow(
      'names.js: expected one "function allNames(file) {" to memoize; protoplugin changed, update scripts/build-cli.mjs',
    );
  });
});
