// The Python SDK's wheel and sdist (generated/python), built with `python -m build` in a
// virtualenv of scripts/python-env.mjs (hatchling, no build isolation: nothing is downloaded at
// build time) and checked with `twine check --strict`, the metadata check of PyPI uploads.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePythonEnv } from "./python-env.mjs";
import { runProcess } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PYTHON_PROJECT = "generated/python";

async function run(python, args) {
  const result = await runProcess(python, args);
  if (result.code !== 0) throw new Error(`python ${args.join(" ")} failed (${result.code}):\n${(result.stderr || result.stdout).trim()}`);
  return result.stdout;
}

/**
 * Builds the wheel and the sdist into `outDir`; answers each with its path and size. `python`: the
 * interpreter of a virtualenv with the build tools (by default the tests' virtualenv of this
 * repository, whatever project is packed; `apigen pack` passes its own, ensurePythonBuildEnv).
 */
export async function packPython({ root = PROJECT_ROOT, outDir = join(root, "dist", "packages"), python } = {}) {
  python ??= (await ensurePythonEnv()).python;
  // Built aside first, so that outDir only ever holds checked artifacts.
  const staging = mkdtempSync(join(tmpdir(), "apigen-pack-python-"));
  try {
    await run(python, ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", staging, join(root, PYTHON_PROJECT)]);
    const built = readdirSync(staging)
      .sort()
      .map((file) => join(staging, file));
    await run(python, ["-m", "twine", "check", "--strict", ...built]);
    mkdirSync(outDir, { recursive: true });
    return built.map((path) => {
      const file = path.slice(path.lastIndexOf("/") + 1);
      const target = join(outDir, file);
      rmSync(target, { force: true });
      renameSync(path, target);
      return { file, kind: file.endsWith(".whl") ? "wheel" : "sdist", path: target, bytes: statSync(target).size };
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
