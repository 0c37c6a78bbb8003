// Starting the benchmark servers of bench/server-target.ts: bundled once, each in its own process.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { REPO_ROOT } from "../test/helpers/project.js";

export const BENCH_ADMIN_SECRET = "bench-secret";

// Inside the tree (dist/ is ignored) so that its imports resolve to node_modules.
const targetBundle = (root: string) => join(root, "dist", "bench", "server-target.mjs");
/** The bundle of each tree's server-target.ts: this repository's, and another commit's (bench:compare). */
const built = new Map<string, Promise<unknown>>();

/** The runtime is the tree's own runtime/ (generated code imports it by package name): bundled, as its TypeScript cannot run as it is. */
const bundleRuntime = (root: string): Plugin => ({
  name: "bundle-runtime",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@apigen\/runtime\// }, (args) => ({ path: join(root, "runtime", args.path.slice("@apigen/runtime/".length).replace(/\.js$/, ".ts")) }));
  },
});

export interface Target {
  child: ChildProcess;
  http?: number;
  grpc?: number;
}

/** The core the servers started by startTarget run on, once separateCores() has set one. */
let serverCore: number | undefined;

/**
 * Gives the servers started from now on the last core, together, and this process (the load
 * generator, and the programs it starts: wrk, redis-server) the others, on Linux with two cores or
 * more: a server then never shares its core with the load, nor moves between cores mid-round.
 * Answers the cores it chose, or undefined where it cannot (one core, no taskset).
 */
export function separateCores(): { server: number; load: string } | undefined {
  const cores = availableParallelism();
  if (process.platform !== "linux" || cores < 2) return undefined;
  const load = cores === 2 ? "0" : `0-${cores - 2}`;
  try {
    execFileSync("taskset", ["--all-tasks", "--cpu-list", "--pid", load, String(process.pid)], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  serverCore = cores - 1;
  return { server: serverCore, load };
}

/**
 * Starts a target (a mode of server-target.ts) as a deployed service would run: bundled JS, no TS
 * loader, on this process's Node or on the node executable `node` (another Node line, compared in
 * the same run), from this repository or from the tree at `root` (another commit, bench:compare).
 */
export async function startTarget(mode: string, variant?: object, node: string = process.execPath, root: string = REPO_ROOT): Promise<Target> {
  let bundle = built.get(root);
  if (!bundle) {
    bundle = build({
      entryPoints: [join(root, "bench", "server-target.ts")],
      outfile: targetBundle(root),
      bundle: true,
      platform: "node",
      format: "esm",
      // Node 20 too, which bench:server compares with when the machine has it.
      target: "node20",
      packages: "external",
      plugins: [bundleRuntime(root)],
      absWorkingDir: root,
      logLevel: "warning",
    });
    built.set(root, bundle);
  }
  await bundle;
  const command = [node, targetBundle(root), mode, ...(variant ? [JSON.stringify(variant)] : [])];
  // taskset runs node in its own process (same pid), bound to the core before its first thread starts.
  if (serverCore !== undefined) command.unshift("taskset", "--cpu-list", String(serverCore));
  const child = spawn(command[0]!, command.slice(1), { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  return { child, ...JSON.parse(line.toString()) };
}
