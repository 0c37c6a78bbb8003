// `npm run bench:python`: per-call latency of admin_meta() through the generated Python clients
// (sync and async) over each protocol, against raw httpx / grpcio calls in the same run (see
// bench/python_bench.py). The server is the generated stubs in their own process, as for
// bench:client. Target: at most 10% overhead.
import "./banner.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { ensurePythonEnv } from "../scripts/python-env.mjs";
import { REPO_ROOT } from "../test/helpers/project.js";
import { BENCH_ADMIN_SECRET, startTarget } from "./targets.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);

const { python } = await ensurePythonEnv();
const target = await startTarget("stubs");
try {
  const child = spawn(python, [join(REPO_ROOT, "bench", "python_bench.py"), `http://127.0.0.1:${target.http}`, `127.0.0.1:${target.grpc}`, BENCH_ADMIN_SECRET, String(CALLS), String(ROUNDS)], {
    cwd: REPO_ROOT,
    stdio: "inherit",
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) process.exitCode = 1;
} finally {
  target.child.kill();
}
