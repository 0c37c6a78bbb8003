// The reference service as a deployment runs it: `npm run serve` in a process of its own, for tests
// of several replicas on one store and of shutdown on a signal.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./project.js";
import { TEST_PASSWORD_HASH_COST } from "./password-hash-cost.js";

export interface Replica {
  child: ChildProcess;
  httpUrl: string;
  grpcEndpoint: string;
  /** Every line it printed so far, stdout and stderr. */
  lines: string[];
  /** Sends `signal` and answers the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `npm run serve -- <args>` on free ports and answers once it prints its addresses. */
export async function startReplica(args: readonly string[], env: Record<string, string> = {}): Promise<Replica> {
  // A throwaway database unless the test names one.
  const database = args.includes("--database-url") ? [] : ["--database-url", "sqlite::memory:"];
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "reference", "main.ts"), "--port", "0", "--grpc-port", "0", "--no-explorer", ...database, ...args], {
    cwd: REPO_ROOT,
    // Replicas sign many users up: the tests' cheap scrypt cost (a test may name another).
    env: { ...process.env, PASSWORD_HASH_COST: `${TEST_PASSWORD_HASH_COST.N},${TEST_PASSWORD_HASH_COST.r},${TEST_PASSWORD_HASH_COST.p}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => lines.push(line));
  const addresses = new Promise<{ httpUrl: string; grpcEndpoint: string }>((resolve, reject) => {
    let httpUrl = "";
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      httpUrl ||= /GraphQL\s+POST (\S+)\/graphql/.exec(line)?.[1] ?? "";
      const grpc = /gRPC\s+(\S+:\d+)/.exec(line)?.[1];
      if (grpc) resolve({ httpUrl, grpcEndpoint: grpc });
    });
    child.once("exit", (code) => reject(new Error(`the reference service exited (${code}) before listening:\n${lines.join("\n")}`)));
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill(signal);
    const [code] = (await once(child, "exit")) as [number | null];
    return code;
  };
  return { child, lines, stop, ...(await addresses) };
}
