// The layout of generators/ by pipeline stage (generators/README.md): every folder says in a README
// what enters it, what leaves it and the rule that holds there, generate.ts is the only module at
// the top, and the stage rules hold as imports, read from each module's syntax tree (so that the
// import lines emitters write into generated code, inside template strings, are not taken for
// their own). An exception to a rule is listed by name with its reason, and must still be needed.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleSpecifiers } from "./helpers/module-specifiers.js";
import { REPO_ROOT } from "./helpers/project.js";

const GENERATORS = "generators";

interface Entry {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  directory: boolean;
}

function entriesUnder(dir: string): Entry[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? [{ path, directory: true }, ...entriesUnder(path)] : [{ path, directory: false }];
  });
}

const ENTRIES = entriesUnder(GENERATORS);
const MODULES = ENTRIES.filter((e) => !e.directory && /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.path) && !e.path.endsWith(".d.ts")).map((e) => e.path);

/**
 * The folders of generators/, itself included. A folder that holds no file at any depth is left
 * out: git keeps no empty folder, so it is not part of the repository (a move can leave one
 * behind in a working tree).
 */
const FOLDERS = [GENERATORS, ...ENTRIES.filter((e) => e.directory).map((e) => e.path)].filter((dir) => ENTRIES.some((e) => !e.directory && e.path.startsWith(`${dir}/`)));

/** Every module a file imports: static and dynamic imports, re-exports, require() and import("...") types. */
const importsOf = (path: string) => moduleSpecifiers(path, readFileSync(join(REPO_ROOT, path), "utf8"), { calls: true });

const IMPORTS = new Map(MODULES.map((path) => [path, importsOf(path)]));

/** A relative import as a path from the repository root; a package name as it is. */
const target = (from: string, specifier: string) => (specifier.startsWith(".") ? posix.normalize(posix.join(posix.dirname(from), specifier)) : specifier);

const under = (path: string, ...folders: string[]) => folders.some((folder) => path.startsWith(`${GENERATORS}/${folder}/`));

/** `file -> import` for every import of a module `inScope` takes that `forbidden` refuses. */
function violations(inScope: (path: string) => boolean, forbidden: (target: string) => boolean): string[] {
  return [...IMPORTS].filter(([path]) => inScope(path)).flatMap(([path, specifiers]) => specifiers.filter((s) => forbidden(target(path, s))).map((s) => `${path} -> ${s}`));
}

const isYaml = (t: string) => t === "yaml" || t.startsWith("yaml/");
const isFs = (t: string) => ["fs", "fs/promises", "node:fs", "node:fs/promises"].includes(t);

/** The modules of emit/, sdk/ and ir/ that may touch the file system, each with why. */
const FILE_SYSTEM_EXCEPTIONS: Record<string, string> = {
  "generators/sdk/templates.ts": "reads and compiles the handlebars templates of templates/<language>/ (the bundled CLI replaces it with them precompiled)",
};

/** A README paragraph: a block of prose (no heading, list, table, quote or code) of a sentence or more. */
function paragraphs(markdown: string): string[] {
  return markdown
    .replace(/```[\s\S]*?```/g, "")
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== "" && !/^(#|[-*+] |\d+\. |\||>)/.test(block))
    .filter((block) => block.split(/\s+/).length >= 12 && /[.:]$/.test(block));
}

describe("generators/ by pipeline stage", () => {
  it("finds the stage folders and their modules", () => {
    for (const folder of ["load", "ir", "ir/passes", "emit", "sdk", "diff", "write", "cli"]) expect(FOLDERS).toContain(`${GENERATORS}/${folder}`);
    expect(IMPORTS.get("generators/load/load.ts")).toContain("yaml");
  });

  it("has a README.md of at least one paragraph in every folder", () => {
    const missing = FOLDERS.filter((dir) => {
      const readme = ENTRIES.find((e) => e.path === `${dir}/README.md`);
      return readme === undefined || paragraphs(readFileSync(join(REPO_ROOT, readme.path), "utf8")).length === 0;
    });
    expect(missing, "folders without a README.md of at least one paragraph").toEqual([]);
  });

  it("holds no TypeScript module at the top but generate.ts", () => {
    const top = ENTRIES.filter((e) => !e.directory && posix.dirname(e.path) === GENERATORS && /\.[cm]?ts$/.test(e.path)).map((e) => e.path);
    expect(top).toEqual([`${GENERATORS}/generate.ts`]);
  });

  it("reads YAML in load/ only: no other module imports the yaml package", () => {
    // Tests, scripts and benchmarks parse generated YAML documents with it; the rule is the generators'.
    expect(violations((path) => !under(path, "load"), isYaml)).toEqual([]);
  });

  it("keeps emit/, sdk/ and ir/ off the file system, but for the exceptions named with their reasons", () => {
    const found = violations((path) => under(path, "emit", "sdk", "ir"), isFs);
    expect(found.filter((v) => !(v.split(" -> ")[0]! in FILE_SYSTEM_EXCEPTIONS))).toEqual([]);
    // Every exception is still needed: a module that no longer touches the file system leaves the list.
    for (const path of Object.keys(FILE_SYSTEM_EXCEPTIONS))
      expect(
        found.some((v) => v.startsWith(`${path} -> `)),
        path,
      ).toBe(true);
  });

  it("keeps load/ free of later stages: it imports nothing from emit/, sdk/, diff/, write/ or cli/", () => {
    expect(
      violations(
        (path) => under(path, "load"),
        (t) => under(t, "emit", "sdk", "diff", "write", "cli"),
      ),
    ).toEqual([]);
  });
});
