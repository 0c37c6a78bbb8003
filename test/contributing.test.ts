// CONTRIBUTING's recipes for a field type and a client option cannot miss a place: every file of the
// generators, the runtimes and the SDK templates that handles field kinds, or lists the client
// options, must be named in its recipe, and every path a recipe names must exist.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/project.js";

const contributing = readFileSync(join(REPO_ROOT, "CONTRIBUTING.md"), "utf8");

/** The text of a recipe: from its bold title to the next bold title at the start of a paragraph. */
function recipe(title: string): string {
  const start = contributing.indexOf(`**${title}**`);
  expect(start, `CONTRIBUTING.md has no recipe '${title}'`).toBeGreaterThanOrEqual(0);
  const end = contributing.indexOf("\n\n**", start + 1);
  return contributing.slice(start, end === -1 ? undefined : end);
}

/** The files a recipe names: paths in backticks or links, and `_x.py`-style names of the folder named just before. */
function namedFiles(text: string): Set<string> {
  const paths = [...text.matchAll(/`([\w./-]+\.(?:ts|py|go|hbs|json|md))`|\]\(([\w./-]+\.md)\)/g)].map((m) => (m[1] ?? m[2])!);
  const named = new Set<string>();
  let folder = "";
  for (const path of paths) {
    if (path.includes("/")) {
      folder = path.slice(0, path.lastIndexOf("/") + 1);
      named.add(path);
    } else named.add(`${folder}${path}`);
  }
  return named;
}

const sources = execFileSync("git", ["ls-files", "generators", "runtime", "templates", "docs"], { cwd: REPO_ROOT, encoding: "utf8" })
  .split("\n")
  .filter((path) => /\.(ts|py|go|hbs|md)$/.test(path) && !path.endsWith("README.md"));
const text = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

/** Files that handle field kinds: a kind's name as a string in TypeScript or Python, or the Go transport's kind constant. */
const handlesKinds = (path: string) => /["']float64["']|\bkindFloat64\b/.test(text(path));

/** Files that list the client options: four of them in one language's spelling. */
const OPTION_SPELLINGS = [
  ["grpcEndpoint", "serverVersion", "readOnly", "maxResponseBytes"],
  ["grpc_endpoint", "server_version", "read_only", "max_response_bytes"],
  ["GRPCEndpoint", "ServerVersion", "ReadOnly", "MaxResponse"],
];
const listsOptions = (path: string) => OPTION_SPELLINGS.some((names) => names.every((name) => text(path).includes(name)));

describe("CONTRIBUTING's recipes", () => {
  for (const [title, probe] of [
    ["A field type", handlesKinds],
    ["A client option", listsOptions],
  ] as const) {
    it(`'${title}' names every file that must change with it, and only files that exist`, () => {
      const named = namedFiles(recipe(title));
      const places = sources.filter(probe);
      expect(places.length).toBeGreaterThan(3);
      expect(places.filter((path) => !named.has(path))).toEqual([]);
      expect([...named].filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
    });
  }

  it("finds a place the recipe would miss", () => {
    const named = namedFiles("`runtime/validate.ts`, `templates/python/package/_shape.py` and `_grpc.py`");
    expect([...named]).toEqual(["runtime/validate.ts", "templates/python/package/_shape.py", "templates/python/package/_grpc.py"]);
    expect(sources.filter(handlesKinds).filter((path) => !named.has(path))).toContain("runtime/shape.ts");
  });
});
