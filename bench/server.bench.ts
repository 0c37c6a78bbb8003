// Requests per second through the generated stubs against the peers a user would pick instead,
// measured in the same run, on a cheap read (admin_meta) and on a write whose 15-field input is
// validated by every rule of the manifest (update_user):
//   REST stub vs fastify 5 with the OpenAPI document's schemas (ajv, fast-json-stringify) and an
//   onRequest hook checking the admin secret, what a careful team writes by hand (target: at least
//   as fast), and vs plain node:http answering the same JSON, the ceiling (target: 85% on the read,
//   80% on the write), with wrk (Debian package, installed when missing) as a cross-check of
//   autocannon on the read, and, without a target, vs bare node:http ending its answers in one burst
//   a turn of the event loop as the stubs do (what the bursts are worth);
//   GraphQL stub, sent the documents the generated clients send, vs fastify + mercurius with
//   graphql-jit serving the same SDL and answers (target: at least as fast);
//   the REST stub with its state in Redis vs in memory, admin secret in the header (target: 90%);
//   and, reported without a target, admin_login (opens a session in the store) and admin_meta
//   authenticated by the session cookie (reads it), in memory and in Redis;
//   the REST stub with metrics on vs off (target 97%); with tracing on at the default sampling,
//   calls that start their own trace, vs off (target: within 2 points of what the same tracing
//   costs bare node:http in the same run, the "bare, tracing" row); with an OpenTelemetry SDK registered and
//   the stubs' tracing off vs no SDK (target 97%); and, without a target, with tracing on and
//   nothing sampled (sampleRatio 0) and with every call sampled by its caller (the span's own cost);
//   Node's async-context hooks turned on (as the first traced call turns them on), in the stub and
//   in bare node:http, and bare node:http traced by the same SDK at the same sampling, the tracing
//   row's yardstick: the part of its cost that is Node's and the SDK's;
//   and a second process of the baseline's very code against it: how far apart this run's method
//   leaves two processes that differ in nothing (no target; the margin every other row has to beat).
//   The reference service on its databases: reference.bench.ts.
// Each row loads its two servers at the same time, sharing one core (pairAtOnce, separateCores):
// this machine's other tenants slow a core down at random, and only two servers measured at once
// on the same core meet the same slowdown.
import "./banner.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { ensureDebianProgram } from "../test/helpers/apt.js";
import { olderNode } from "../test/helpers/node-lines.js";
import { startRedis } from "../test/helpers/redis.js";
import { AT_ONCE_TEXT, CONNECTIONS, ROUNDS, SECONDS, SECRET_HEADER, UPDATE_USER, base, http, measured, pairAtOnce, ratioOf, row, type Load } from "./load.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, separateCores, startTarget, type Target } from "./targets.js";

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

/** The same load from wrk, a load generator nobody here wrote (one thread, the same connections). */
function wrk(target: Target, path: string, body: string, headers: Record<string, string> = SECRET_HEADER): Load {
  const script = join(mkdtempSync(join(tmpdir(), "wrk-")), "post.lua");
  const lua = (value: string) => JSON.stringify(value);
  writeFileSync(
    script,
    [`wrk.method = "POST"`, `wrk.body = ${lua(body)}`, ...Object.entries({ "content-type": "application/json", ...headers }).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)].join(
      "\n",
    ),
  );
  return measured([target.child.pid!], async () => {
    const { stdout: output } = await runFile(WRK, ["-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "-s", script, `http://127.0.0.1:${target.http}${path}`], { encoding: "utf8" });
    const failed = /Non-2xx or 3xx responses: (\d+)/.exec(output);
    if (failed) throw new Error(`${path}: wrk saw ${failed[1]} non-2xx answers`);
    return Number(/(\d+) requests in/.exec(output)![1]);
  });
}

const WRK = "/usr/bin/wrk";
const runFile = promisify(execFile);
ensureDebianProgram("wrk", WRK, "npm run bench:server");

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

// Before anything starts: the servers on one core, the load (and redis-server) on the others.
const cores = separateCores();
const redis = await startRedis();
const stubs = await startTarget("stubs");
const bareHttp = await startTarget("bare-http");
// Bare node:http ending its answers as the stubs do, in one burst a turn of the event loop (endThisTurn).
const bareBursts = await startTarget("bare-http", { endPerTurn: true });
const fastify = await startTarget("fastify");
const mercurius = await startTarget("mercurius");

const META = "/v1/admin/admin_meta";

/**
 * A row of two servers started for it and stopped after it: both sides then have the same history
 * (started together, warmed up and loaded together), and the row measures what their code differs
 * in. Started up front, the subject of a late row would have idled for minutes while its baseline
 * served other rows, and a process that idles while something talks to it (a Redis client's
 * heartbeat, or a health check polling an in-memory stub) comes out 14% slower for a while after
 * (docs/benchmarks.md): a row would measure that, whatever its feature.
 */
async function freshPair(
  baseline: [mode: string, variant?: object, node?: string],
  subject: [mode: string, variant?: object, node?: string],
  loads: (baseline: Target, subject: Target) => [Load, Load] | Promise<[Load, Load]>,
  rounds = ROUNDS,
) {
  const [a, b] = await Promise.all([startTarget(...baseline), startTarget(...subject)]);
  try {
    return await pairAtOnce(...(await loads(a, b)), rounds);
  } finally {
    a.child.kill();
    b.child.kill();
  }
}
/**
 * The other Nodes to compare this one with: $BENCH_OTHER_NODES (node executables, comma-separated),
 * else the older line the packages are tested on and the machine's own node when it is another line
 * (Node 20 where the system ships it).
 */
async function otherNodes(): Promise<{ path: string; version: string }[]> {
  const versionOf = async (path: string) => (await promisify(execFile)(path, ["-p", "process.version"], { encoding: "utf8" })).stdout.trim();
  const paths = process.env.BENCH_OTHER_NODES?.split(",").filter(Boolean) ?? [(await olderNode()).path, ...["/usr/bin/node", "/usr/local/bin/node"].filter((path) => existsSync(path))];
  const found = new Map<string, { path: string; version: string }>();
  for (const path of paths) {
    const version = await versionOf(path);
    if (version !== process.version && !found.has(version)) found.set(version, { path, version });
  }
  return [...found.values()];
}
/** A row of a server with a feature (a variant of its mode) against the same without: admin_meta on each. */
const featureRow = (subject: object, { mode = "stubs", headers = SECRET_HEADER, alsoPids = [] as readonly number[], rounds = ROUNDS } = {}) =>
  freshPair([mode], [mode, subject], (plain, featured) => [http(plain, META, "{}", headers), http(featured, META, "{}", headers, alsoPids)], rounds);
/**
 * Rounds of the rows whose margin is 3 points or less (tracing within 2 points of another row's
 * figure; metrics and an SDK registered at 97%): at 15 rounds the median of two processes of the
 * same code moves ±3 points from run to run, as much as the margin; three times as many rounds
 * halve that.
 */
const CLOSE_ROUNDS = ROUNDS * 3;
try {
  const metaQuery = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const updateBody = JSON.stringify(UPDATE_USER);
  const updateMutation = JSON.stringify({ query: graphqlDocument(schema, schema.operations.update_user), variables: { params: UPDATE_USER } });
  await sameAnswers(stubs, mercurius, [metaQuery, updateMutation]);
  await sameRestAnswers(stubs, fastify, [
    [META, "{}"],
    ["/v1/admin/update_user", updateBody],
  ]);
  const stubRest = http(stubs, META, "{}");
  const stubRestWrite = http(stubs, "/v1/admin/update_user", updateBody);
  const [baselineRest, rest] = await pairAtOnce(http(bareHttp, META, "{}"), stubRest);
  const [fastifyRest, restAgain] = await pairAtOnce(http(fastify, META, "{}"), stubRest);
  const [baselineRestWrite, restWrite] = await pairAtOnce(http(bareHttp, "/v1/admin/update_user", updateBody), stubRestWrite);
  const [fastifyRestWrite, restWriteAgain] = await pairAtOnce(http(fastify, "/v1/admin/update_user", updateBody), stubRestWrite);
  const [wrkBaseline, wrkRest] = await pairAtOnce(wrk(bareHttp, META, "{}"), wrk(stubs, META, "{}"));
  const [burstsBaseline, restAgainstBursts] = await pairAtOnce(http(bareBursts, META, "{}"), stubRest);
  const [mercuriusRead, graphql] = await pairAtOnce(http(mercurius, "/graphql", metaQuery, {}), http(stubs, "/graphql", metaQuery));
  const [mercuriusWrite, graphqlWrite] = await pairAtOnce(http(mercurius, "/graphql", updateMutation, {}), http(stubs, "/graphql", updateMutation));
  // Redis: the stub's CPU plus redis-server's (a call by secret makes no command while its address
  // has no failure; the login and cookie rows below make one each).
  const [memoryRest, redisRest] = await featureRow({ redis: redis.url }, { alsoPids: [redis.pid] });
  const [plainForMetrics, meteredRest] = await featureRow({ metrics: true }, { rounds: CLOSE_ROUNDS });
  // A write that sends no Idempotency-Key pays for the feature being on: one header look-up.
  const [keysIgnored, keysHonoured] = await freshPair(["stubs", { idempotency: false }], ["stubs"], (off, on) => [
    http(off, "/v1/admin/update_user", updateBody),
    http(on, "/v1/admin/update_user", updateBody),
  ]);
  // Calls that start a trace of their own, at the default sampling (DEFAULT_SAMPLE_RATIO).
  const [plainForTracing, tracedRest] = await featureRow({ tracing: true }, { rounds: CLOSE_ROUNDS });
  // Tracing on, nothing sampled: no span ever makes a context active, so Node's AsyncLocalStorage
  // never turns its promise hooks on; the gap to the row above is theirs (docs/server.md, traces).
  const [plainForUnsampled, unsampledRest] = await featureRow({ tracing: { sampleRatio: 0 } });
  // An SDK registered (its context manager enabled, no span ever made active) with the stubs' tracing off.
  const [plainForSdk, sdkOnly] = await featureRow({ sdk: true }, { rounds: CLOSE_ROUNDS });
  // Node's hooks alone, as the first span made active turns them on, in the stub and in bare node:http.
  const [plainForHooks, hooked] = await featureRow({ asyncContext: true });
  const [bareForHooks, bareHooked] = await featureRow({ asyncContext: true }, { mode: "bare-http" });
  // The same SDK in bare node:http, a span made active around a request's handling at the same
  // sampling: what tracing costs a server that does nothing else (Node's hooks and the SDK's spans).
  const [bareForTracing, bareTraced] = await featureRow({ tracing: true }, { mode: "bare-http", rounds: CLOSE_ROUNDS });
  // Two processes of one code.
  const [plainForTwin, twin] = await featureRow({});
  // Every call sampled by its caller: what a span costs when there is one.
  const sampledByCaller = { ...SECRET_HEADER, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
  const [sdkForSpans, everyCallTraced] = await freshPair(["stubs", { sdk: true }], ["stubs", { tracing: true }], (sdk, traced) => [
    http(sdk, META, "{}", sampledByCaller),
    http(traced, META, "{}", sampledByCaller),
  ]);
  const loginBody = JSON.stringify({ admin_secret: ADMIN_SECRET });
  const [memoryLogin, redisLogin] = await freshPair(["stubs"], ["stubs", { redis: redis.url }], (memory, inRedis) => [
    http(memory, "/v1/admin/admin_login", loginBody, {}),
    http(inRedis, "/v1/admin/admin_login", loginBody, {}, [redis.pid]),
  ]);
  const [memorySession, redisSession] = await freshPair(["stubs"], ["stubs", { redis: redis.url }], async (memory, inRedis) => [
    http(memory, META, "{}", { cookie: await sessionCookie(memory.http!) }),
    http(inRedis, META, "{}", { cookie: await sessionCookie(inRedis.http!) }, [redis.pid]),
  ]);
  // The same bundle on each other Node line against this one, and the tracing row on that line.
  const nodeRows: string[] = [];
  for (const other of await otherNodes()) {
    const [onOther, onThis] = await freshPair(["stubs", undefined, other.path], ["stubs"], (a, b) => [http(a, META, "{}"), http(b, META, "{}")]);
    const [plainOnOther, tracedOnOther] = await freshPair(["stubs", undefined, other.path], ["stubs", { tracing: true }, other.path], (a, b) => [http(a, META, "{}"), http(b, META, "{}")]);
    const major = (version: string) => version.split(".")[0]!;
    nodeRows.push(
      row(`Node ${major(process.version)}`, onThis, onOther, `the REST stub on ${other.version}`),
      row(`tracing, ${major(other.version)}`, tracedOnOther, plainOnOther, `without, on ${other.version}`),
    );
  }
  const placement = cores ? `both servers of a pair on core ${cores.server}, the load on ${cores.load}` : "servers and load on any core";
  console.log(`${CONNECTIONS} concurrent, ${AT_ONCE_TEXT}; ${placement}; "of it": the baseline's CPU per call over this one's`);
  console.log(`REST, admin_meta (read):`);
  console.log(base("bare node:http", baselineRest));
  console.log(row("REST stub", rest, baselineRest, "bare node:http", 85));
  console.log(base("fastify+ajv", fastifyRest));
  console.log(row("REST stub", restAgain, fastifyRest, "fastify with the OpenAPI schemas", 100));
  console.log(`REST, update_user (write, ${Object.keys(UPDATE_USER).length} fields):`);
  console.log(base("bare node:http", baselineRestWrite));
  console.log(row("REST stub", restWrite, baselineRestWrite, "bare node:http", 80));
  console.log(base("fastify+ajv", fastifyRestWrite));
  console.log(row("REST stub", restWriteAgain, fastifyRestWrite, "fastify with the OpenAPI schemas", 100));
  console.log(`REST, admin_meta, load from wrk (cross-check):`);
  console.log(base("bare node:http", wrkBaseline));
  console.log(row("REST stub", wrkRest, wrkBaseline, "bare node:http", 85));
  console.log(`REST, admin_meta, against bare node:http ending its answers in bursts too (no target: what the bursts are worth):`);
  console.log(base("bare, bursts", burstsBaseline));
  console.log(row("REST stub", restAgainstBursts, burstsBaseline, "bare node:http, bursts"));
  console.log(`GraphQL, admin_meta (read), the document the clients send:`);
  console.log(base("mercurius+jit", mercuriusRead));
  console.log(row("GraphQL stub", graphql, mercuriusRead, "mercurius with graphql-jit", 100));
  console.log(`GraphQL, update_user (write, ${Object.keys(UPDATE_USER).length} fields in variables):`);
  console.log(base("mercurius+jit", mercuriusWrite));
  console.log(row("GraphQL stub", graphqlWrite, mercuriusWrite, "mercurius with graphql-jit", 100));
  console.log(
    `the REST stub with its state in Redis (admin secret in the header; CPU of the stub and redis-server), metrics, tracing (the rows of metrics, tracing, the SDK and bare traced: ${CLOSE_ROUNDS} rounds):`,
  );
  console.log(base("in memory", memoryRest));
  console.log(row("REST, Redis", redisRest, memoryRest, "the REST stub in memory", 90));
  console.log(row("REST, metrics", meteredRest, plainForMetrics, "the REST stub without", 97));
  console.log(row("write, no key", keysHonoured, keysIgnored, "idempotency: false", 97));
  // Tracing may cost the stub 2 points more than it costs bare node:http traced alike in this run.
  console.log(row("REST, tracing", tracedRest, plainForTracing, "without (default sampling)", Math.round(ratioOf(bareTraced, bareForTracing) * 100) - 2));
  console.log(row("none sampled", unsampledRest, plainForUnsampled, "without (sampleRatio 0)"));
  console.log(row("SDK, no tracing", sdkOnly, plainForSdk, "without an SDK", 97));
  console.log(row("hooks on", hooked, plainForHooks, "without (Node's async context)"));
  console.log(row("bare, hooks on", bareHooked, bareForHooks, "bare node:http without"));
  console.log(row("bare, tracing", bareTraced, bareForTracing, "bare node:http without"));
  console.log(row("same code", twin, plainForTwin, "a second process of it"));
  console.log(row("every call", everyCallTraced, sdkForSpans, "SDK, tracing off (all sampled)"));
  console.log(`admin sessions (REST):`);
  console.log(base("login, memory", memoryLogin));
  console.log(row("login, Redis", redisLogin, memoryLogin, "admin_login in memory"));
  console.log(base("cookie, memory", memorySession));
  console.log(row("cookie, Redis", redisSession, memorySession, "admin_meta by cookie in memory"));
  if (nodeRows.length > 0) {
    console.log(`Node lines, REST admin_meta (the stubs on ${process.version} above):`);
    for (const line of nodeRows) console.log(line);
  }
} finally {
  for (const target of [stubs, bareHttp, bareBursts, fastify, mercurius]) target.child.kill();
  await redis.stop();
}
