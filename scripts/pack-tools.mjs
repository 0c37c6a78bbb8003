// What `apigen pack` builds its own tools from in a project where this repository is not at hand:
// the module-zip helper (test/go/modzip) as a module of its own, requiring golang.org/x/mod alone at
// the version test/go pins, with those go.sum lines; and the pinned Python build tools (hatchling,
// build, twine) of test/python/requirements-dev.txt. Read from this repository here; the bundled
// CLI holds the same texts, written in when it is built (scripts/build-cli.mjs).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRequirements } from "./python-env.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MODZIP_MODULE = "apigen.tools/modzip";
const X_MOD = "golang.org/x/mod";

/** `{ modzip: { "main.go", "go.mod", "go.sum" }, pythonBuild: <requirements text> }`. */
export function packToolSources(root = PROJECT_ROOT) {
  const goMod = readFileSync(join(root, "test", "go", "go.mod"), "utf8");
  const goVersion = /^go (\S+)$/m.exec(goMod)?.[1];
  const xMod = new RegExp(`^\\s*(?:require\\s+)?${X_MOD.replace(/\./g, "\\.")} (v\\S+)`, "m").exec(goMod)?.[1];
  const sums = readFileSync(join(root, "test", "go", "go.sum"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith(`${X_MOD} ${xMod} `) || line.startsWith(`${X_MOD} ${xMod}/go.mod `));
  if (!goVersion || !xMod || sums.length !== 2) throw new Error(`test/go/go.mod and go.sum must pin ${X_MOD} (the module-zip helper's one requirement)`);
  return {
    modzip: {
      "main.go": readFileSync(join(root, "test", "go", "modzip", "main.go"), "utf8"),
      "go.mod": `module ${MODZIP_MODULE}\n\ngo ${goVersion}\n\nrequire ${X_MOD} ${xMod}\n`,
      "go.sum": `${sums.join("\n")}\n`,
    },
    pythonBuild: buildRequirements(root),
  };
}
