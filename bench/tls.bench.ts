// What TLS costs on each protocol: the generated stubs answering admin_meta in two processes, one
// in plaintext and one over TLS (a certificate of a test CA, made by openssl), loaded by tools
// nobody here wrote over keep-alive connections, so the handshake is amortised as in production:
// wrk over HTTP/1.1 for REST and GraphQL, ghz over HTTP/2 for gRPC; then REST and GraphQL again
// with a handshake per request (Connection: close: a new TCP connection and a full TLS handshake
// each time, as a client without keep-alive pays; gRPC keeps its one HTTP/2 connection by design).
// The two servers take turns, round after round; the figures are medians of ROUNDS rounds after a
// warm-up round each.
// Target: TLS costs each protocol no more than it costs bare node:https in the same run, within 3
// points. Each HTTP/1.1 row is followed by bare node:https spending the stubs' plaintext CPU per
// call, to tell the stubs' own TLS cost from what Node's costs a server of that weight.
import { announce } from "./banner.js";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { graphqlDocument } from "../runtime/graphql-document.js";
import { schema } from "../generated/schema.js";
import { descriptorSet } from "../generated/server/descriptor-set.js";
import { ensureDebianProgram } from "../test/helpers/apt.js";
import { makeCertificates } from "../test/helpers/certs.js";
import { ensureGoTool, GHZ } from "../test/helpers/go-tools.js";
import { REPO_ROOT } from "../test/helpers/project.js";
import { cpuMicros, ghzAdminMeta } from "./load.js";
import { BENCH_ADMIN_SECRET, startTarget, type Target } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
/** How far below bare node:https's TLS / plain a protocol's may be: 3 points. */
const ALLOWANCE = 0.03;
const WRK = "/usr/bin/wrk";
const BENCH_DIR = join(REPO_ROOT, "dist", "bench");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Requests a second of wrk posting `body` to `url` (one thread, CONNECTIONS keep-alive connections; `close`: a new connection per request). */
function wrk(url: string, body: string, close = false): number {
  const script = join(mkdtempSync(join(tmpdir(), "wrk-")), "post.lua");
  const headers = { "content-type": "application/json", [schema.adminSecretHeader]: BENCH_ADMIN_SECRET, ...(close ? { connection: "close" } : {}) };
  writeFileSync(
    script,
    [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(body)}`, ...Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)].join("\n"),
  );
  const output = execFileSync(WRK, ["-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "-s", script, url], { encoding: "utf8" });
  const failed = /Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)/.exec(output);
  if (failed) throw new Error(`${url}: wrk saw ${failed[0]}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]);
}

/** Requests a second of ghz calling AdminMeta on `endpoint`, trusting `ca` (or in plaintext), over one connection. */
const ghz = (ghzPath: string, protoset: string, endpoint: string, ca: string | undefined): number =>
  ghzAdminMeta(ghzPath, protoset, endpoint, { concurrency: CONNECTIONS, seconds: SECONDS, connections: 1, ...(ca ? { ca } : {}) }).rps;

ensureDebianProgram("wrk", WRK, "npm run bench:tls");
mkdirSync(BENCH_DIR, { recursive: true });
const { path: ghzPath } = await ensureGoTool(GHZ);
const protoset = join(BENCH_DIR, "identity.binpb");
writeFileSync(protoset, Buffer.from(descriptorSet, "base64"));
const certs = makeCertificates();
const graphqlBody = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta!) });

const started: Target[] = [];
const start = async (mode: string, variant?: object) => {
  const target = await startTarget(mode, variant);
  started.push(target);
  return target;
};
try {
  const tls = { cert: certs.serverCert, key: certs.serverKey };
  const plain = await start("stubs");
  const secure = await start("stubs", { tls });
  // Bare node:http and node:https answering the same JSON: what TLS costs Node itself, the ceiling of any server on it.
  const barePlain = await start("bare-http");
  const bareSecure = await start("bare-http", { tls });
  const restUrl = (t: Target, secured: boolean) => `${secured ? "https" : "http"}://127.0.0.1:${t.http}${schema.operations.admin_meta!.rest!.path}`;
  type Run = (target: Target, secured: boolean) => number;
  type Measure = ReturnType<typeof measure>;
  // The server's CPU per call and how busy it was: on two cores the load generator's own TLS work
  // competes with the server's, so a server below ~95% busy was waiting for its load generator.
  const measure = (run: Run, target: Target, secured: boolean) => {
    const cpuBefore = cpuMicros([target.child.pid!]);
    const began = performance.now();
    const rps = run(target, secured);
    const cpu = cpuMicros([target.child.pid!]) - cpuBefore;
    const elapsed = (performance.now() - began) * 1000;
    return { rps, cpuPerCall: cpu / (rps * SECONDS), busy: cpu / elapsed };
  };
  /** ROUNDS interleaved rounds of the plaintext and the TLS server of a pair, after a warm-up round. */
  const measurePair = (name: string, [plainTarget, secureTarget]: [Target, Target], run: Run) => {
    const ratios: number[] = [];
    const runs = { plain: [] as Measure[], tls: [] as Measure[] };
    for (let round = -1; round < ROUNDS; round++) {
      announce(`${name}: ${round < 0 ? "warming up" : `round ${round + 1} of ${ROUNDS}`}`);
      const a = measure(run, plainTarget, false);
      const b = measure(run, secureTarget, true);
      if (round < 0) continue; // warms up JIT, connections and session caches
      runs.plain.push(a);
      runs.tls.push(b);
      ratios.push(b.rps / a.rps);
    }
    return { ratio: median(ratios), runs, plainCpu: median(runs.plain.map((r) => r.cpuPerCall)) };
  };
  const cpu = (list: Measure[]) => `${median(list.map((r) => r.cpuPerCall)).toFixed(0)} µs ${(median(list.map((r) => r.busy)) * 100).toFixed(0)}%`;
  const line = (name: string, pair: ReturnType<typeof measurePair>, verdict: string) =>
    `${name.padEnd(24)} ${median(pair.runs.plain.map((r) => r.rps))
      .toFixed(0)
      .padStart(11)} ${median(pair.runs.tls.map((r) => r.rps))
      .toFixed(0)
      .padStart(10)}  ${(pair.ratio * 100).toFixed(0).padStart(4)}% ${verdict.padEnd(44)} ${cpu(pair.runs.plain)} | ${cpu(pair.runs.tls)}`;
  console.log(`admin_meta in plaintext and over TLS, ${CONNECTIONS} keep-alive connections (gRPC: ${CONNECTIONS} concurrent calls on one), medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  console.log(
    `target: TLS costs each protocol no more than it costs bare node:https in the same run (at most ${ALLOWANCE * 100} points below node:http's TLS / plain); each HTTP/1.1 row is followed by node:https spending that row's plaintext CPU per call`,
  );
  console.log(`${"protocol".padEnd(24)} ${"plain req/s".padStart(11)} ${"TLS req/s".padStart(10)}  TLS / plain ${"".padEnd(33)} server CPU per call and busy: plain | TLS`);
  const bare = measurePair("node:http (wrk)", [barePlain, bareSecure], (t, secured) => wrk(restUrl(t, secured), "{}"));
  console.log(line("node:http (wrk)", bare, "(Node's own cost)"));
  let missed = 0;
  const rows: { name: string; run: Run; calibrate: boolean }[] = [
    { name: "REST (wrk)", run: (t, secured) => wrk(restUrl(t, secured), "{}"), calibrate: true },
    { name: "GraphQL (wrk)", run: (t, secured) => wrk(`${secured ? "https" : "http"}://127.0.0.1:${t.http}/graphql`, graphqlBody), calibrate: true },
    { name: "gRPC (ghz)", run: (t, secured) => ghz(ghzPath, protoset, `127.0.0.1:${t.grpc}`, secured ? certs.ca : undefined), calibrate: false },
  ];
  for (const row of rows) {
    const stubs = measurePair(row.name, [plain, secure], row.run);
    const met = stubs.ratio >= bare.ratio - ALLOWANCE;
    if (!met) missed++;
    console.log(line(row.name, stubs, `(at least ${((bare.ratio - ALLOWANCE) * 100).toFixed(0)}%: ${met ? "met" : "MISSED"})`));
    // Whether a gap is the stubs' or what Node's TLS costs a server doing their work per call: bare
    // node:https spending, per request, the CPU the stubs spend in plaintext (a busy loop of the
    // difference), measured right after.
    if (row.calibrate) {
      const busyMicros = Math.max(0, Math.round(stubs.plainCpu - bare.plainCpu));
      const name = `  node:http + ${busyMicros} µs`;
      const weighted = measurePair(name, [await start("bare-http", { busyMicros }), await start("bare-http", { tls, busyMicros })], (t, secured) => wrk(restUrl(t, secured), "{}"));
      console.log(line(name, weighted, "(Node's own cost at the stubs' CPU per call)"));
    }
  }
  // A handshake per request: what TLS costs a client that does not keep its connections.
  console.log(`with a handshake per request (Connection: close), ${CONNECTIONS} connections at a time:`);
  const bareClose = measurePair("node:http, close", [barePlain, bareSecure], (t, secured) => wrk(restUrl(t, secured), "{}", true));
  console.log(line("node:http, close", bareClose, "(Node's own cost)"));
  const closeRows: { name: string; run: Run }[] = [
    { name: "REST, close", run: (t, secured) => wrk(restUrl(t, secured), "{}", true) },
    { name: "GraphQL, close", run: (t, secured) => wrk(`${secured ? "https" : "http"}://127.0.0.1:${t.http}/graphql`, graphqlBody, true) },
  ];
  for (const row of closeRows) {
    const stubs = measurePair(row.name, [plain, secure], row.run);
    const met = stubs.ratio >= bareClose.ratio - ALLOWANCE;
    if (!met) missed++;
    console.log(line(row.name, stubs, `(at least ${((bareClose.ratio - ALLOWANCE) * 100).toFixed(0)}%: ${met ? "met" : "MISSED"})`));
  }
  if (missed > 0) process.exitCode = 1;
} finally {
  for (const target of started) target.child.kill();
}
