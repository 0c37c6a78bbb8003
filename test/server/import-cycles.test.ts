// No import cycles among the modules of runtime/: a cycle makes the evaluation order depend on
// which module is imported first, and even a type-only one ties two modules that should be read
// (and changed) apart. Edges are the static import and export-from declarations, `import type`
// and `export type` included, and import("...") types; a dynamic import() call is left out, being
// a load at call time, after every module has been evaluated.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleSpecifiers } from "../helpers/module-specifiers.js";
import { REPO_ROOT } from "../helpers/project.js";

const RUNTIME = "runtime";

function modulesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : modulesUnder(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/** The modules of `sources` each imports; a specifier that names no module of them (a package, a file elsewhere) is no edge. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const resolve = (from: string, specifier: string) => posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, ".ts");
  return new Map(
    [...sources].map(([path, text]) => [
      path,
      [
        ...new Set(
          moduleSpecifiers(path, text, { calls: false })
            .filter((specifier) => specifier.startsWith("."))
            .map((specifier) => resolve(path, specifier))
            .filter((target) => sources.has(target)),
        ),
      ],
    ]),
  );
}

/**
 * One cycle per strongly connected component that has one (Tarjan's algorithm), each written as
 * `a -> b -> a`, starting from its first module in alphabetical order.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (module: string) => {
    index.set(module, index.size);
    lowLink.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(module, Math.min(lowLink.get(module)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(module, Math.min(lowLink.get(module)!, index.get(next)!));
      }
    }
    if (lowLink.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    components.push(component);
  };
  for (const module of [...graph.keys()].sort()) if (!index.has(module)) connect(module);

  return components
    .filter((component) => component.length > 1 || graph.get(component[0]!)!.includes(component[0]!))
    .map((component) => {
      // The shortest way from the component's first module back to itself, within the component.
      const members = new Set(component);
      const start = [...component].sort()[0]!;
      const cameFrom = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0) {
        const module = queue.shift()!;
        const next = (graph.get(module) ?? []).filter((target) => members.has(target) && !cameFrom.has(target));
        for (const target of next) cameFrom.set(target, module);
        if (cameFrom.has(start)) break;
        queue.push(...next);
      }
      const between: string[] = [];
      for (let module = cameFrom.get(start)!; module !== start; module = cameFrom.get(module)!) between.unshift(module);
      return [start, ...between, start].join(" -> ");
    })
    .sort();
}

describe("import cycles", () => {
  it("are found through type-only imports and re-exports", () => {
    const graph = importGraph(
      new Map([
        ["lib/a.ts", 'import type { B } from "./b.js";\nexport type A = B;\n'],
        ["lib/b.ts", 'export type { C as B } from "./c.js";\n'],
        ["lib/c.ts", 'export type C = import("./a.js").A | string;\n'],
        ["lib/d.ts", 'import { readFileSync } from "node:fs";\nimport type { A } from "./a.js";\n'],
      ]),
    );
    expect(importCycles(graph)).toEqual(["lib/a.ts -> lib/b.ts -> lib/c.ts -> lib/a.ts"]);
  });

  it("do not occur among the modules of runtime/", () => {
    const modules = modulesUnder(RUNTIME);
    expect(modules).toContain("runtime/server/index.ts");
    const graph = importGraph(new Map(modules.map((path) => [path, readFileSync(join(REPO_ROOT, path), "utf8")])));
    expect(importCycles(graph), "import cycles among the modules of runtime/").toEqual([]);
  });
});
