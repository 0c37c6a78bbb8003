// What TLS costs on each protocol: the generated stubs answering admin_meta in two processes, one
// in plaintext and one over TLS (a certificate of a test CA, made by openssl), loaded by tools
// nobody here wrote over keep-alive connections, so the handshake is amortised as in production:
// wrk over HTTP/1.1 for REST and GraphQL, ghz over HTTP/2 for gRPC. The two servers take turns,
// round after round; the figures are medians of ROUNDS rounds after a warm-up round each.
// Target: TLS at least 85% of plaintext on each protocol.
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
const TARGET = 0.85;
const WRK = "/usr/bin/wrk";
const BENCH_DIR = join(REPO_ROOT, "dist", "bench");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Requests a second of wrk posting `body` to `url` (one thread, CONNECTIONS keep-alive connections). */
function wrk(url: string, body: string): number {
  const script = join(mkdtempSync(join(tmpdir(), "wrk-")), "post.lua");
  const headers = { "content-type": "application/json", [schema.adminSecretHeader]: BENCH_ADMIN_SECRET };
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

let plain: Target | undefined;
let secure: Target | undefined;
let barePlain: Target | undefined;
let bareSecure: Target | undefined;
try {
  const tls = { cert: certs.serverCert, key: certs.serverKey };
  plain = await startTarget("stubs");
  secure = await startTarget("stubs", { tls });
  // Bare node:http and node:https answering the same JSON: what TLS costs Node itself, the ceiling of any server on it.
  barePlain = await startTarget("bare-http");
  bareSecure = await startTarget("bare-http", { tls });
  const loads: { name: string; targets?: [Target, Target]; run(target: Target, tls: boolean): number }[] = [
    { name: "node:http (wrk)", targets: [barePlain, bareSecure], run: (t, tls) => wrk(`${tls ? "https" : "http"}://127.0.0.1:${t.http}${schema.operations.admin_meta!.rest!.path}`, "{}") },
    { name: "REST (wrk)", run: (t, tls) => wrk(`${tls ? "https" : "http"}://127.0.0.1:${t.http}${schema.operations.admin_meta!.rest!.path}`, "{}") },
    { name: "GraphQL (wrk)", run: (t, tls) => wrk(`${tls ? "https" : "http"}://127.0.0.1:${t.http}/graphql`, graphqlBody) },
    { name: "gRPC (ghz)", run: (t, tls) => ghz(ghzPath, protoset, `127.0.0.1:${t.grpc}`, tls ? certs.ca : undefined) },
  ];
  console.log(`admin_meta in plaintext and over TLS, ${CONNECTIONS} keep-alive connections (gRPC: ${CONNECTIONS} concurrent calls on one), medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  // The server's CPU per call and how busy it was: on two cores the load generator's own TLS work
  // competes with the server's, so a server below ~95% busy was waiting for its load generator.
  const measure = (load: (typeof loads)[number], target: Target, tls: boolean) => {
    const cpuBefore = cpuMicros([target.child.pid!]);
    const started = performance.now();
    const rps = load.run(target, tls);
    const cpu = cpuMicros([target.child.pid!]) - cpuBefore;
    const elapsed = (performance.now() - started) * 1000;
    return { rps, cpuPerCall: cpu / (rps * SECONDS), busy: cpu / elapsed };
  };
  console.log(`${"protocol".padEnd(16)} ${"plain req/s".padStart(11)} ${"TLS req/s".padStart(10)}  TLS / plain   server CPU per call and busy: plain | TLS`);
  let missed = 0;
  for (const load of loads) {
    const ratios: number[] = [];
    const runs = { plain: [] as ReturnType<typeof measure>[], tls: [] as ReturnType<typeof measure>[] };
    for (let round = -1; round < ROUNDS; round++) {
      announce(`${load.name}: ${round < 0 ? "warming up" : `round ${round + 1} of ${ROUNDS}`}`);
      const [plainTarget, secureTarget] = load.targets ?? [plain, secure];
      const a = measure(load, plainTarget, false);
      const b = measure(load, secureTarget, true);
      if (round < 0) continue; // warms up JIT, connections and session caches
      runs.plain.push(a);
      runs.tls.push(b);
      ratios.push(b.rps / a.rps);
    }
    const ratio = median(ratios);
    if (ratio < TARGET && !load.targets) missed++;
    const cpu = (list: ReturnType<typeof measure>[]) => `${median(list.map((r) => r.cpuPerCall)).toFixed(0)} µs ${(median(list.map((r) => r.busy)) * 100).toFixed(0)}%`;
    console.log(
      `${load.name.padEnd(16)} ${median(runs.plain.map((r) => r.rps))
        .toFixed(0)
        .padStart(11)} ${median(runs.tls.map((r) => r.rps))
        .toFixed(0)
        .padStart(
          10,
        )}  ${(ratio * 100).toFixed(0).padStart(4)}% ${load.targets ? "(Node's own cost)   " : `(target ${TARGET * 100}%: ${ratio >= TARGET ? "met" : "MISSED"})`}   ${cpu(runs.plain)} | ${cpu(runs.tls)}`,
    );
  }
  if (missed > 0) process.exitCode = 1;
} finally {
  for (const target of [plain, secure, barePlain, bareSecure]) target?.child.kill();
}
