// Go programs that tests and benchmarks drive (grpcurl, ghz): pinned versions, installed with
// `go install` into a cache folder the first time they are needed, so a fresh machine needs only Go.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../../scripts/run-process.mjs";

export interface GoTool {
  /** The command's name, also its file name once installed. */
  name: string;
  module: string;
  version: string;
}

export const GRPCURL: GoTool = { name: "grpcurl", module: "github.com/fullstorydev/grpcurl/cmd/grpcurl", version: "v1.9.3" };
export const GHZ: GoTool = { name: "ghz", module: "github.com/bojand/ghz/cmd/ghz", version: "v0.93.0" };

/** $APIGEN_TOOLS_CACHE, else ~/.cache/apigen/go-tools (XDG_CACHE_HOME respected); one folder per tool and version. */
export const GO_TOOLS_DIR = process.env.APIGEN_TOOLS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "apigen", "go-tools");

export function goToolPath(tool: GoTool): string {
  return join(GO_TOOLS_DIR, `${tool.name}-${tool.version}`, tool.name);
}

/**
 * The path of `tool`, installing it first when it is missing (about a minute on first use: the
 * module and its dependencies come from the Go module proxy). `installedMs` is set when it was installed now.
 */
export async function ensureGoTool(tool: GoTool): Promise<{ path: string; installedMs?: number }> {
  const path = goToolPath(tool);
  if (existsSync(path)) return { path };
  const started = performance.now();
  mkdirSync(GO_TOOLS_DIR, { recursive: true });
  // Installed into a fresh folder and renamed into place, so that a run cut short leaves nothing half-written.
  const staging = mkdtempSync(join(GO_TOOLS_DIR, `.${tool.name}-`));
  try {
    const result = await runProcess("go", ["install", `${tool.module}@${tool.version}`], { env: { ...process.env, GOBIN: staging, GOFLAGS: "-buildvcs=false" } }).catch((error: Error) => ({
      code: null,
      output: error.message,
    }));
    if (result.code !== 0) {
      const why = result.code === null ? `go could not be started (${result.output.trim()}); install Go 1.22 or later` : result.output.trim().split("\n").slice(-10).join("\n");
      throw new Error(`could not install ${tool.name} with \`go install ${tool.module}@${tool.version}\`:\n${why}`);
    }
    try {
      renameSync(staging, join(GO_TOOLS_DIR, `${tool.name}-${tool.version}`));
    } catch (error) {
      // Another run installed it meanwhile.
      if (!existsSync(path)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { path, installedMs: performance.now() - started };
}
