// Starting the benchmark servers of bench/server-target.ts: bundled once, each in its own process.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { REPO_ROOT } from "../test/helpers/project.js";

export const BENCH_ADMIN_SECRET = "bench-secret";

// Inside the repository (dist/ is ignored) so that its imports resolve to node_modules.
const targetBundle = join(REPO_ROOT, "dist", "bench", "server-target.mjs");
let built: Promise<unknown> | undefined;

/** The runtime is this repository's runtime/ (generated code imports it by package name): bundled, as its TypeScript cannot run as it is. */
const bundleRuntime: Plugin = {
  name: "bundle-runtime",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@apigen\/runtime\// }, (args) => ({ path: join(REPO_ROOT, "runtime", args.path.slice("@apigen/runtime/".length).replace(/\.js$/, ".ts")) }));
  },
};

export interface Target {
  child: ChildProcess;
  http?: number;
  grpc?: number;
}

/** Starts a target (a mode of server-target.ts) as a deployed service would run: bundled JS, no TS loader. */
export async function startTarget(mode: string, variant?: object): Promise<Target> {
  built ??= build({
    entryPoints: [join(REPO_ROOT, "bench", "server-target.ts")],
    outfile: targetBundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    plugins: [bundleRuntime],
    absWorkingDir: REPO_ROOT,
    logLevel: "warning",
  });
  await built;
  const child = spawn(process.execPath, [targetBundle, mode, ...(variant ? [JSON.stringify(variant)] : [])], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  return { child, ...JSON.parse(line.toString()) };
}
