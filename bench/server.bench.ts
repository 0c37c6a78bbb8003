// Requests per second of one cheap read (admin_meta) through the generated stubs, over each
// protocol, against bare baselines measured in the same run:
//   REST stub vs plain node:http answering the same JSON (target: at least 80% of it);
//   GraphQL stub vs the REST stub (target: at least 50%);
//   the REST stub with its state in Redis vs in memory, admin secret in the header (target: at
//   most 5% below); and, reported without a target, admin_login (opens a session in the store)
//   and admin_meta authenticated by the session cookie (reads it), in memory and in Redis;
//   the REST stub with metrics on, and with tracing on (an SDK whose exporter drops the spans),
//   vs the REST stub without (target: at most 5% below each).
// A redis-server (Debian package, installed when missing) is started on a free port for the run.
// Each row also gives the CPU time the server spent per call (Linux /proc), steadier than req/s on
// a machine shared with other jobs.
// gRPC is measured by bench/grpc.bench.ts, with ghz (`npm run bench:server` runs both).
// Servers run bundled, each in its own process. HTTP load comes from autocannon, with the same
// concurrency on both sides of each ratio. On a shared 2-core
// machine single runs vary by ±30%, so each pair is measured in ROUNDS interleaved rounds and the
// figures are medians.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { startRedis } from "../test/helpers/redis.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, startTarget, type Target } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 16;

/**
 * One round of load: requests per second, and the CPU time the server processes spent per call.
 * The machine is shared, so req/s move with other jobs; CPU per call moves much less, which makes
 * it the steadier measure of what a feature costs.
 */
interface Measure {
  rps: number;
  cpuMicrosPerCall: number;
}
type Load = () => Promise<Measure>;

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of processes so far, in microseconds (Linux /proc; 0 elsewhere). */
function cpuMicros(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  }
  return (ticks / CLOCK_TICKS) * 1e6;
}

/** Measures `run` (which answers the calls it made) against the CPU of `pids`. */
function measured(pids: readonly number[], run: () => Promise<number>): Load {
  return async () => {
    const cpuBefore = cpuMicros(pids);
    const calls = await run();
    return { rps: calls / SECONDS, cpuMicrosPerCall: (cpuMicros(pids) - cpuBefore) / calls };
  };
}

const SECRET_HEADER = { "x-service-admin-secret": ADMIN_SECRET };

function http(target: Target, path: string, body: string, auth: Record<string, string> = SECRET_HEADER, alsoPids: readonly number[] = []): Load {
  return measured([target.child.pid!, ...alsoPids], async () => {
    const result = await autocannon({
      url: `http://127.0.0.1:${target.http}${path}`,
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.total;
  });
}


const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medianMeasure = (measures: Measure[]): Measure => ({ rps: median(measures.map((m) => m.rps)), cpuMicrosPerCall: median(measures.map((m) => m.cpuMicrosPerCall)) });

/** Medians of `baseline` and `subject` over interleaved rounds, after one warm-up round each. */
async function pair(baseline: Load, subject: Load): Promise<[Measure, Measure]> {
  await baseline();
  await subject();
  const a: Measure[] = [];
  const b: Measure[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await baseline());
    b.push(await subject());
  }
  return [medianMeasure(a), medianMeasure(b)];
}

/** Opens an admin session on a target and answers its cookie. */
async function sessionCookie(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/admin/admin_login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ admin_secret: ADMIN_SECRET }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 200 || !cookie) throw new Error(`admin_login answered ${response.status} without a session cookie`);
  return cookie;
}

const redis = await startRedis();
const stubs = await startTarget("stubs");
const bareHttp = await startTarget("bare-http");
const redisStubs = await startTarget("stubs", { redis: redis.url });
const meteredStubs = await startTarget("stubs", { metrics: true });
const tracedStubs = await startTarget("stubs", { tracing: true });
const sdkStubs = await startTarget("stubs", { sdk: true });
try {
  const graphqlBody = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const stubRest = http(stubs, "/v1/admin/admin_meta", "{}");
  const [baselineRest, rest] = await pair(http(bareHttp, "/v1/admin/admin_meta", "{}"), stubRest);
  const [restAgain, graphql] = await pair(stubRest, http(stubs, "/graphql", graphqlBody));
  // Redis: the stub's CPU plus redis-server's, since each call makes Redis work too.
  const [memoryRest, redisRest] = await pair(stubRest, http(redisStubs, "/v1/admin/admin_meta", "{}", SECRET_HEADER, [redis.pid]));
  const [plainForMetrics, meteredRest] = await pair(stubRest, http(meteredStubs, "/v1/admin/admin_meta", "{}"));
  const traced = { ...SECRET_HEADER, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
  const tracedLoad = http(tracedStubs, "/v1/admin/admin_meta", "{}", traced);
  const [plainForTracing, tracedRest] = await pair(stubRest, tracedLoad);
  // The same SDK registered (async context on every promise of the process) with the stubs' tracing off: the stubs' own share.
  const [sdkOnly, tracedAgain] = await pair(http(sdkStubs, "/v1/admin/admin_meta", "{}", traced), tracedLoad);
  const loginBody = JSON.stringify({ admin_secret: ADMIN_SECRET });
  const [memoryLogin, redisLogin] = await pair(http(stubs, "/v1/admin/admin_login", loginBody, {}), http(redisStubs, "/v1/admin/admin_login", loginBody, {}, [redis.pid]));
  const [memorySession, redisSession] = await pair(
    http(stubs, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(stubs.http!) }),
    http(redisStubs, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(redisStubs.http!) }, [redis.pid]),
  );

  const percent = (ratio: number) => `${(ratio * 100).toFixed(0).padStart(3)}%`;
  /** Throughput against the baseline, with a target; and the CPU each call cost the server. */
  const row = (name: string, subject: Measure, baseline: Measure, of: string, target?: number) => {
    const ratio = subject.rps / baseline.rps;
    const verdict = target === undefined ? "" : `target ${target}%: ${ratio * 100 >= target ? "met" : "MISSED"}`;
    const cpu = subject.cpuMicrosPerCall > 0 ? `cpu ${subject.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call (${percent(baseline.cpuMicrosPerCall / subject.cpuMicrosPerCall).trim()} of it)` : "";
    return `${name.padEnd(14)} ${subject.rps.toFixed(0).padStart(7)} req/s  ${percent(ratio)} of ${of.padEnd(30)} ${verdict.padEnd(18)} ${cpu}`;
  };
  const base = (name: string, measure: Measure) => `${name.padEnd(14)} ${measure.rps.toFixed(0).padStart(7)} req/s${measure.cpuMicrosPerCall > 0 ? `  cpu ${measure.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call` : ""}`;
  console.log(`admin_meta, ${CONNECTIONS} concurrent, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s; "of it": the baseline's CPU per call over this one's`);
  console.log(base("bare node:http", baselineRest));
  console.log(row("REST stub", rest, baselineRest, "bare node:http", 80));
  console.log(row("GraphQL stub", graphql, restAgain, "the REST stub", 50));
  console.log(`the REST stub with its state in Redis (admin secret in the header; CPU of the stub and redis-server), metrics, tracing:`);
  console.log(base("in memory", memoryRest));
  console.log(row("REST, Redis", redisRest, memoryRest, "the REST stub in memory", 95));
  console.log(row("REST, metrics", meteredRest, plainForMetrics, "the REST stub without", 95));
  console.log(row("REST, tracing", tracedRest, plainForTracing, "the REST stub without", 95));
  console.log(row("  spans only", tracedAgain, sdkOnly, "SDK registered, tracing off", 95));
  console.log(`admin sessions (REST):`);
  console.log(base("login, memory", memoryLogin));
  console.log(row("login, Redis", redisLogin, memoryLogin, "admin_login in memory"));
  console.log(base("cookie, memory", memorySession));
  console.log(row("cookie, Redis", redisSession, memorySession, "admin_meta by cookie in memory"));
} finally {
  for (const target of [stubs, bareHttp, redisStubs, meteredStubs, tracedStubs, sdkStubs]) target.child.kill();
  await redis.stop();
}
