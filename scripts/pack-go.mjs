// The Go SDK as a module zip (generated/go): the file the Go module proxy serves as
// <module>/@v/<version>.zip, written and checked by golang.org/x/mod/zip (test/go/modzip), then
// extracted aside and built there with the committed go.sum only (-mod=readonly), so that a zip in
// dist/packages is one a user can build.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { goBinary, runGo } from "./go-env.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const GO_MODULE_DIR = "generated/go";

/** The module path (go.mod) and version (the ServiceVersion the module was generated for) of the generated module. */
export function goModule(root = PROJECT_ROOT) {
  const goMod = readFileSync(join(root, GO_MODULE_DIR, "go.mod"), "utf8");
  const facts = readFileSync(join(root, GO_MODULE_DIR, "facts.go"), "utf8");
  const path = /^module\s+(\S+)/m.exec(goMod)?.[1];
  const version = /^const ServiceVersion = "([^"]+)"/m.exec(facts)?.[1];
  if (!path || !version) throw new Error(`${GO_MODULE_DIR} has no module path or ServiceVersion; run \`npm run generate\``);
  // github.com/acme/identity-go/v2 -> identity-go
  const name = path
    .split("/")
    .filter((part) => !/^v\d+$/.test(part))
    .at(-1);
  return { path, version: `v${version}`, zipName: `${name}-${version}.zip` };
}

function modzip(binary, args) {
  const result = spawnSync(binary, args, { encoding: "utf8" });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`modzip ${args[0]} failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout;
}

/**
 * Writes the module zip into `outDir` after building an extracted copy of it; answers its path,
 * size and file count. `modzipBinary`: the module-zip helper's binary (by default test/go/modzip of this
 * repository, built by goBinary; `apigen pack` builds its own copy, goToolFromSource).
 */
export async function packGo({ root = PROJECT_ROOT, outDir = join(root, "dist", "packages"), modzipBinary } = {}) {
  const binary = modzipBinary ?? (await goBinary("modzip")).binary;
  const module = goModule(root);
  const staging = mkdtempSync(join(tmpdir(), "apigen-pack-go-"));
  try {
    const zip = join(staging, module.zipName);
    const files = modzip(binary, ["create", "-module", module.path, "-version", module.version, "-dir", join(root, GO_MODULE_DIR), "-zip", zip])
      .trim()
      .split("\n");
    const extracted = join(staging, "module");
    modzip(binary, ["extract", "-module", module.path, "-version", module.version, "-zip", zip, "-dir", extracted]);
    // What a user's build does: the module's own go.sum only, nothing added.
    await runGo(["build", "./..."], { cwd: extracted, env: { GOFLAGS: "-mod=readonly" } });
    await runGo(["mod", "verify"], { cwd: extracted });
    mkdirSync(outDir, { recursive: true });
    const target = join(outDir, module.zipName);
    rmSync(target, { force: true });
    renameSync(zip, target);
    return { ...module, zip: target, files: files.length, bytes: statSync(target).size };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
