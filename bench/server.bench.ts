// Requests per second through the generated stubs against the peers a user would pick instead,
// measured in the same run, on a cheap read (admin_meta) and on a write whose 15-field input is
// validated by every rule of the manifest (update_user):
//   REST stub vs fastify 5 with the OpenAPI document's schemas (ajv, fast-json-stringify) and an
//   onRequest hook checking the admin secret, what a careful team writes by hand (target: at least
//   as fast), and vs plain node:http answering the same JSON, the ceiling (target: 80% on the read,
//   75% on the write), with wrk (Debian package, installed when missing) as a cross-check of
//   autocannon on the read;
//   GraphQL stub, sent the documents the generated clients send, vs fastify + mercurius with
//   graphql-jit serving the same SDL and answers (target: at least as fast);
//   the REST stub with its state in Redis vs in memory, admin secret in the header (target: 90%);
//   and, reported without a target, admin_login (opens a session in the store) and admin_meta
//   authenticated by the session cookie (reads it), in memory and in Redis;
//   the REST stub with metrics on vs off (target 95%); with tracing on at the default sampling,
//   calls that start their own trace, vs off (target 90%); with an OpenTelemetry SDK registered and
//   the stubs' tracing off vs no SDK (target 97%); and, without a target, with every call sampled by
//   its caller (the span's own cost);
//   the reference service on SQLite (a file, WAL) and on PostgreSQL vs on the in-memory store, a
//   read (get one user) and a write (update_user, which also writes its audit log row) over REST
//   (target: reads on SQLite 70% of memory); and, in this process, the p50 of the first and the
//   last page of `users` among 100,000 (target: under 5 ms on SQLite).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { ensureDebianProgram } from "../test/helpers/apt.js";
import { startPostgres } from "../test/helpers/postgres.js";
import { startRedis } from "../test/helpers/redis.js";
import { createReferenceService } from "../reference/service.js";
import type { UserRecord } from "../reference/storage.js";
import { openStorage } from "../reference/store/open.js";
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

/** update_user with every field of its input set, each valid under the manifest's rules. */
const UPDATE_USER = {
  id: "user-1",
  email: "ada@example.com",
  email_verified: true,
  given_name: "Ada",
  family_name: "Lovelace",
  middle_name: "King",
  nickname: "ada",
  gender: "female",
  birthdate: "1815-12-10",
  phone_number: "+441234567890",
  phone_number_verified: false,
  picture: "https://example.com/ada.png",
  roles: ["user", "admin"],
  is_multi_factor_auth_enabled: true,
  app_data: { team: "analytics", since: 1843 },
};

/** Both servers give the same GraphQL answer to each request, so the ratio compares equal work. */
async function sameAnswers(a: Target, b: Target, bodies: string[]): Promise<void> {
  for (const body of bodies) {
    const [left, right] = await Promise.all(
      [a, b].map(async (target) => {
        const response = await fetch(`http://127.0.0.1:${target.http}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...SECRET_HEADER }, body });
        return JSON.stringify(await response.json());
      }),
    );
    if (left !== right) throw new Error(`the GraphQL servers answer differently to ${body.slice(0, 60)}…:\n${left}\n${right}`);
  }
}

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

/** The same load from wrk, a load generator nobody here wrote (one thread, the same connections). */
function wrk(target: Target, path: string, body: string, headers: Record<string, string> = SECRET_HEADER): Load {
  const script = join(mkdtempSync(join(tmpdir(), "wrk-")), "post.lua");
  const lua = (value: string) => JSON.stringify(value);
  writeFileSync(script, [`wrk.method = "POST"`, `wrk.body = ${lua(body)}`, ...Object.entries({ "content-type": "application/json", ...headers }).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)].join("\n"));
  return measured([target.child.pid!], async () => {
    const output = execFileSync(WRK, ["-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "-s", script, `http://127.0.0.1:${target.http}${path}`], { encoding: "utf8" });
    const failed = /Non-2xx or 3xx responses: (\d+)/.exec(output);
    if (failed) throw new Error(`${path}: wrk saw ${failed[1]} non-2xx answers`);
    return Number(/(\d+) requests in/.exec(output)![1]);
  });
}

const WRK = "/usr/bin/wrk";
ensureDebianProgram("wrk", WRK, "npm run bench:server");

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

/** Both servers give the same REST answer to each request, so the ratio compares equal work. */
async function sameRestAnswers(a: Target, b: Target, requests: [path: string, body: string][]): Promise<void> {
  for (const [path, body] of requests) {
    const [left, right] = await Promise.all(
      [a, b].map(async (target) => {
        const response = await fetch(`http://127.0.0.1:${target.http}${path}`, { method: "POST", headers: { "content-type": "application/json", ...SECRET_HEADER }, body });
        return `${response.status} ${JSON.stringify(await response.json())}`;
      }),
    );
    if (left !== right) throw new Error(`the REST servers answer differently to ${path}:\n${left}\n${right}`);
  }
}

/** p50 and p99 of `samples` calls of `call`, in milliseconds. */
async function latency(call: () => Promise<unknown>, samples = 200): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(samples / 2)]!, p99: times[Math.floor(samples * 0.99)]! };
}

/** The first and the last page (10 a page) of the `users` operation among 100,000 users, on `database`. */
async function userPages(database: string): Promise<{ seedSeconds: number; first: { p50: number; p99: number }; last: { p50: number; p99: number } }> {
  const { storage } = await openStorage(database);
  const service = createReferenceService({ storage });
  const started = Date.now();
  await storage.transaction(async () => {
    for (let i = 0; i < 100_000; i++) {
      const user: UserRecord = {
        id: `user-${i}`, email: `user${i}@example.com`, email_verified: true, signup_methods: "basic_auth", given_name: `Given${i}`, family_name: "Family", middle_name: null,
        nickname: null, preferred_username: null, gender: null, birthdate: null, phone_number: null, phone_number_verified: false, picture: null, roles: ["user"],
        created_at: 1_700_000_000 + i, updated_at: 1_700_000_000 + i, revoked_timestamp: null, is_multi_factor_auth_enabled: null, app_data: { plan: "pro" }, password_hash: `scrypt$${"x".repeat(100)}`,
      };
      await storage.users.insert(user);
    }
  });
  const seedSeconds = (Date.now() - started) / 1000;
  // The context an admin call over REST has, as far as the operation reads it.
  const context = { operation: schema.operations.users, protocol: "rest", principal: { kind: "super_admin" }, headers: {}, remoteAddress: "127.0.0.1" };
  const page = (number: number) => () => service.implementation.users({ pagination: { limit: 10, page: number } } as never, context as never);
  const result = { seedSeconds, first: await latency(page(1)), last: await latency(page(10_000)) };
  await storage.close();
  return result;
}

// In this process, before the servers start: the pages of 100,000 users.
const pagesFolder = mkdtempSync(join(tmpdir(), "bench-pages-"));
const sqlitePages = await userPages(`sqlite:${join(pagesFolder, "pages.sqlite")}`);
const memoryPages = await userPages("memory:");
const redis = await startRedis();
const postgres = await startPostgres();
const dataFolder = mkdtempSync(join(tmpdir(), "bench-data-"));
const referenceMemory = await startTarget("reference", { database: "memory:" });
const referenceSqlite = await startTarget("reference", { database: `sqlite:${join(dataFolder, "identity.sqlite")}` });
const referencePostgres = await startTarget("reference", { database: await postgres.createDatabase("bench") });
const stubs = await startTarget("stubs");
const bareHttp = await startTarget("bare-http");
const fastify = await startTarget("fastify");
const mercurius = await startTarget("mercurius");
const redisStubs = await startTarget("stubs", { redis: redis.url });
const meteredStubs = await startTarget("stubs", { metrics: true });
const tracedStubs = await startTarget("stubs", { tracing: true });
const sdkStubs = await startTarget("stubs", { sdk: true });
try {
  const metaQuery = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const updateBody = JSON.stringify(UPDATE_USER);
  const updateMutation = JSON.stringify({ query: graphqlDocument(schema, schema.operations.update_user), variables: { params: UPDATE_USER } });
  await sameAnswers(stubs, mercurius, [metaQuery, updateMutation]);
  await sameRestAnswers(stubs, fastify, [["/v1/admin/admin_meta", "{}"], ["/v1/admin/update_user", updateBody]]);
  const stubRest = http(stubs, "/v1/admin/admin_meta", "{}");
  const stubRestWrite = http(stubs, "/v1/admin/update_user", updateBody);
  const [baselineRest, rest] = await pair(http(bareHttp, "/v1/admin/admin_meta", "{}"), stubRest);
  const [fastifyRest, restAgain] = await pair(http(fastify, "/v1/admin/admin_meta", "{}"), stubRest);
  const [baselineRestWrite, restWrite] = await pair(http(bareHttp, "/v1/admin/update_user", updateBody), stubRestWrite);
  const [fastifyRestWrite, restWriteAgain] = await pair(http(fastify, "/v1/admin/update_user", updateBody), stubRestWrite);
  const [wrkBaseline, wrkRest] = await pair(wrk(bareHttp, "/v1/admin/admin_meta", "{}"), wrk(stubs, "/v1/admin/admin_meta", "{}"));
  const [mercuriusRead, graphql] = await pair(http(mercurius, "/graphql", metaQuery, {}), http(stubs, "/graphql", metaQuery));
  const [mercuriusWrite, graphqlWrite] = await pair(http(mercurius, "/graphql", updateMutation, {}), http(stubs, "/graphql", updateMutation));
  // Redis: the stub's CPU plus redis-server's, since each call makes Redis work too.
  const [memoryRest, redisRest] = await pair(stubRest, http(redisStubs, "/v1/admin/admin_meta", "{}", SECRET_HEADER, [redis.pid]));
  const [plainForMetrics, meteredRest] = await pair(stubRest, http(meteredStubs, "/v1/admin/admin_meta", "{}"));
  // Calls that start a trace of their own, at the default sampling (DEFAULT_SAMPLE_RATIO).
  const [plainForTracing, tracedRest] = await pair(stubRest, http(tracedStubs, "/v1/admin/admin_meta", "{}"));
  // An SDK registered (async context on every promise of the process) with the stubs' tracing off.
  const sdkOnlyLoad = http(sdkStubs, "/v1/admin/admin_meta", "{}");
  const [plainForSdk, sdkOnly] = await pair(stubRest, sdkOnlyLoad);
  // Every call sampled by its caller: what a span costs when there is one.
  const sampledByCaller = { ...SECRET_HEADER, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
  const [sdkForSpans, everyCallTraced] = await pair(http(sdkStubs, "/v1/admin/admin_meta", "{}", sampledByCaller), http(tracedStubs, "/v1/admin/admin_meta", "{}", sampledByCaller));
  const loginBody = JSON.stringify({ admin_secret: ADMIN_SECRET });
  const [memoryLogin, redisLogin] = await pair(http(stubs, "/v1/admin/admin_login", loginBody, {}), http(redisStubs, "/v1/admin/admin_login", loginBody, {}, [redis.pid]));
  const [memorySession, redisSession] = await pair(
    http(stubs, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(stubs.http!) }),
    http(redisStubs, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(redisStubs.http!) }, [redis.pid]),
  );

  const userRead = JSON.stringify({ id: "user-1" });
  const [memoryRead, sqliteRead] = await pair(http(referenceMemory, "/v1/admin/user", userRead), http(referenceSqlite, "/v1/admin/user", userRead));
  const [memoryReadAgain, postgresRead] = await pair(http(referenceMemory, "/v1/admin/user", userRead), http(referencePostgres, "/v1/admin/user", userRead));
  const [memoryWrite, sqliteWrite] = await pair(http(referenceMemory, "/v1/admin/update_user", updateBody), http(referenceSqlite, "/v1/admin/update_user", updateBody));
  const [memoryWriteAgain, postgresWrite] = await pair(http(referenceMemory, "/v1/admin/update_user", updateBody), http(referencePostgres, "/v1/admin/update_user", updateBody));
  for (const target of [referenceMemory, referenceSqlite, referencePostgres]) target.child.kill();

  const percent = (ratio: number) => `${(ratio * 100).toFixed(0).padStart(3)}%`;
  /** Throughput against the baseline, with a target; and the CPU each call cost the server. */
  const row = (name: string, subject: Measure, baseline: Measure, of: string, target?: number) => {
    const ratio = subject.rps / baseline.rps;
    const verdict = target === undefined ? "" : `target ${target}%: ${ratio * 100 >= target ? "met" : "MISSED"}`;
    const cpu = subject.cpuMicrosPerCall > 0 ? `cpu ${subject.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call (${percent(baseline.cpuMicrosPerCall / subject.cpuMicrosPerCall).trim()} of it)` : "";
    return `${name.padEnd(14)} ${subject.rps.toFixed(0).padStart(7)} req/s  ${percent(ratio)} of ${of.padEnd(30)} ${verdict.padEnd(18)} ${cpu}`;
  };
  const base = (name: string, measure: Measure) => `${name.padEnd(14)} ${measure.rps.toFixed(0).padStart(7)} req/s${measure.cpuMicrosPerCall > 0 ? `  cpu ${measure.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call` : ""}`;
  console.log(`${CONNECTIONS} concurrent, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s; "of it": the baseline's CPU per call over this one's`);
  console.log(`REST, admin_meta (read):`);
  console.log(base("bare node:http", baselineRest));
  console.log(row("REST stub", rest, baselineRest, "bare node:http", 80));
  console.log(base("fastify+ajv", fastifyRest));
  console.log(row("REST stub", restAgain, fastifyRest, "fastify with the OpenAPI schemas", 100));
  console.log(`REST, update_user (write, ${Object.keys(UPDATE_USER).length} fields):`);
  console.log(base("bare node:http", baselineRestWrite));
  console.log(row("REST stub", restWrite, baselineRestWrite, "bare node:http", 75));
  console.log(base("fastify+ajv", fastifyRestWrite));
  console.log(row("REST stub", restWriteAgain, fastifyRestWrite, "fastify with the OpenAPI schemas", 100));
  console.log(`REST, admin_meta, load from wrk (cross-check):`);
  console.log(base("bare node:http", wrkBaseline));
  console.log(row("REST stub", wrkRest, wrkBaseline, "bare node:http", 80));
  console.log(`GraphQL, admin_meta (read), the document the clients send:`);
  console.log(base("mercurius+jit", mercuriusRead));
  console.log(row("GraphQL stub", graphql, mercuriusRead, "mercurius with graphql-jit", 100));
  console.log(`GraphQL, update_user (write, ${Object.keys(UPDATE_USER).length} fields in variables):`);
  console.log(base("mercurius+jit", mercuriusWrite));
  console.log(row("GraphQL stub", graphqlWrite, mercuriusWrite, "mercurius with graphql-jit", 100));
  console.log(`the REST stub with its state in Redis (admin secret in the header; CPU of the stub and redis-server), metrics, tracing:`);
  console.log(base("in memory", memoryRest));
  console.log(row("REST, Redis", redisRest, memoryRest, "the REST stub in memory", 90));
  console.log(row("REST, metrics", meteredRest, plainForMetrics, "the REST stub without", 95));
  console.log(row("REST, tracing", tracedRest, plainForTracing, "without (default sampling)", 90));
  console.log(row("SDK, no tracing", sdkOnly, plainForSdk, "without an SDK", 97));
  console.log(row("every call", everyCallTraced, sdkForSpans, "SDK, tracing off (all sampled)"));
  console.log(`admin sessions (REST):`);
  console.log(base("login, memory", memoryLogin));
  console.log(row("login, Redis", redisLogin, memoryLogin, "admin_login in memory"));
  console.log(base("cookie, memory", memorySession));
  console.log(row("cookie, Redis", redisSession, memorySession, "admin_meta by cookie in memory"));
  console.log(`the reference service on its databases (REST; CPU of the service alone, not of PostgreSQL's processes):`);
  console.log(base("get user, mem", memoryRead));
  console.log(row("get user, SQLite", sqliteRead, memoryRead, "the in-memory store", 70));
  console.log(row("get user, PG", postgresRead, memoryReadAgain, "the in-memory store"));
  console.log(base("update, mem", memoryWrite));
  console.log(row("update, SQLite", sqliteWrite, memoryWrite, "the in-memory store"));
  console.log(row("update, PG", postgresWrite, memoryWriteAgain, "the in-memory store"));
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  console.log(`the users operation among 100,000 users, 10 a page (in process; seeding took ${sqlitePages.seedSeconds.toFixed(1)} s on SQLite):`);
  for (const [name, pages] of [["SQLite", sqlitePages], ["memory", memoryPages]] as const) {
    const verdict = name === "SQLite" ? `target p50 under 5 ms: ${Math.max(pages.first.p50, pages.last.p50) < 5 ? "met" : "MISSED"}` : "";
    console.log(`${name.padEnd(8)} first page p50 ${ms(pages.first.p50)} (p99 ${ms(pages.first.p99)}), last page p50 ${ms(pages.last.p50)} (p99 ${ms(pages.last.p99)})  ${verdict}`);
  }
} finally {
  for (const target of [referenceMemory, referenceSqlite, referencePostgres]) target.child.kill();
  await postgres.destroy();
  for (const target of [stubs, bareHttp, fastify, mercurius, redisStubs, meteredStubs, tracedStubs, sdkStubs]) target.child.kill();
  await redis.stop();
}
