// Test helpers: throwaway project folders and runs of the real apigen command.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const APIGEN = join(REPO_ROOT, "bin", "apigen.js");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `apigen <args>` with `root` as the project root. */
export function apigen(root: string, ...args: string[]): RunResult {
  const result = spawnSync(process.execPath, [APIGEN, ...args, "--root", root], { encoding: "utf8" });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `step`, recording in `timings` how many milliseconds it took under `label`. */
export async function timed<T>(timings: Record<string, number>, label: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

/** A new empty folder under the system temp dir. */
export function tempDir(prefix = "apigen-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A temp project holding `manifest` as operations.yaml (and nothing else). */
export function projectWithManifest(manifest: string): string {
  const root = tempDir();
  writeFileSync(join(root, "operations.yaml"), manifest);
  return root;
}

/** A temp copy of this repository's manifest, lock and generated files. */
export function copyOfRepo(): string {
  const root = tempDir();
  for (const entry of ["operations.yaml", "proto", "generated"]) {
    cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
  }
  return root;
}

/** Every file below `root` with its content, keyed by relative path. */
export function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return files;
}

export function readFixture(name: string): string {
  return readFileSync(join(REPO_ROOT, "test", "fixtures", name), "utf8");
}

/** minimal.yaml (admin and user operations) with its surfaces named: OwnerClient / OwnerService, ShopClient / ShopService. */
export function namedSurfacesManifest(): string {
  return readFixture("minimal.yaml").replace(
    /^ {2}proto_package: mini\.v1\n/m,
    "  proto_package: mini.v1\n  surfaces:\n    admin: { client: OwnerClient, service: OwnerService }\n    user: { client: ShopClient, service: ShopService }\n",
  );
}
