// Requests per second of one cheap read (admin_meta) through the generated stubs, over each
// protocol, against bare baselines measured in the same run:
//   REST stub vs plain node:http answering the same JSON (target: at least 80% of it);
//   GraphQL stub vs the REST stub (target: at least 50%);
//   gRPC stub vs a bare connect-node handler answering the same message (target: at least 90%);
//   the REST stub with its state in Redis vs in memory, admin secret in the header (target: at
//   most 5% below); and, reported without a target, admin_login (opens a session in the store)
//   and admin_meta authenticated by the session cookie (reads it), in memory and in Redis;
//   the REST stub with metrics on, and with tracing on (an SDK whose exporter drops the spans),
//   vs the REST stub without (target: at most 5% below each).
// A redis-server (Debian package, installed when missing) is started on a free port for the run.
// Servers run bundled, each in its own process. HTTP load comes from autocannon, gRPC load from a
// connect-node client, with the same concurrency on both sides of each ratio. On a shared 2-core
// machine single runs vary by ±30%, so each pair is measured in ROUNDS interleaved rounds and the
// figures are medians.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import autocannon from "autocannon";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { startRedis } from "../test/helpers/redis.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, startTarget } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 16;

type Load = () => Promise<number>;

const SECRET_HEADER = { "x-service-admin-secret": ADMIN_SECRET };

function http(port: number, path: string, body: string, auth: Record<string, string> = SECRET_HEADER): Load {
  return async () => {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.total / SECONDS;
  };
}

function grpc(port: number): Load {
  const client = createClient(AdminService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }));
  const headers = { "x-service-admin-secret": ADMIN_SECRET };
  return async () => {
    let count = 0;
    const deadline = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          await client.adminMeta({}, { headers });
          count++;
        }
      }),
    );
    return count / SECONDS;
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Medians of `baseline` and `subject` over interleaved rounds, after one warm-up round each. */
async function pair(baseline: Load, subject: Load): Promise<[number, number]> {
  await baseline();
  await subject();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await baseline());
    b.push(await subject());
  }
  return [median(a), median(b)];
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
const bareConnect = await startTarget("bare-connect");
const redisStubs = await startTarget("stubs", { redis: redis.url });
const meteredStubs = await startTarget("stubs", { metrics: true });
const tracedStubs = await startTarget("stubs", { tracing: true });
const sdkStubs = await startTarget("stubs", { sdk: true });
try {
  const graphqlBody = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const stubRest = http(stubs.http!, "/v1/admin/admin_meta", "{}");
  const [baselineRest, restRps] = await pair(http(bareHttp.http!, "/v1/admin/admin_meta", "{}"), stubRest);
  const [restAgain, graphqlRps] = await pair(stubRest, http(stubs.http!, "/graphql", graphqlBody));
  const [baselineGrpc, grpcRps] = await pair(grpc(bareConnect.grpc!), grpc(stubs.grpc!));
  const [memoryRest, redisRest] = await pair(stubRest, http(redisStubs.http!, "/v1/admin/admin_meta", "{}"));
  const loginBody = JSON.stringify({ admin_secret: ADMIN_SECRET });
  const [memoryLogin, redisLogin] = await pair(http(stubs.http!, "/v1/admin/admin_login", loginBody, {}), http(redisStubs.http!, "/v1/admin/admin_login", loginBody, {}));
  const [plainForMetrics, meteredRest] = await pair(stubRest, http(meteredStubs.http!, "/v1/admin/admin_meta", "{}"));
  const traced = { ...SECRET_HEADER, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
  const tracedLoad = http(tracedStubs.http!, "/v1/admin/admin_meta", "{}", traced);
  const [plainForTracing, tracedRest] = await pair(stubRest, tracedLoad);
  // The same SDK registered (async context on every promise of the process) with the stubs' tracing off: the stubs' own share.
  const [sdkOnly, tracedAgain] = await pair(http(sdkStubs.http!, "/v1/admin/admin_meta", "{}", traced), tracedLoad);
  const [memorySession, redisSession] = await pair(
    http(stubs.http!, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(stubs.http!) }),
    http(redisStubs.http!, "/v1/admin/admin_meta", "{}", { cookie: await sessionCookie(redisStubs.http!) }),
  );

  const row = (name: string, rps: number, ratio: number, of: string, target: number) =>
    `${name.padEnd(14)} ${rps.toFixed(0).padStart(7)} req/s   ${(ratio * 100).toFixed(0).padStart(3)}% of ${of.padEnd(26)} target ${target}%: ${ratio * 100 >= target ? "met" : "MISSED"}`;
  console.log(`admin_meta, ${CONNECTIONS} concurrent, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  console.log(`baselines: bare node:http ${baselineRest.toFixed(0)} req/s, bare connect-node ${baselineGrpc.toFixed(0)} req/s`);
  console.log(row("REST stub", restRps, restRps / baselineRest, "bare node:http", 80));
  console.log(row("GraphQL stub", graphqlRps, graphqlRps / restAgain, "the REST stub", 50));
  console.log(row("gRPC stub", grpcRps, grpcRps / baselineGrpc, "bare connect-node", 90));
  console.log(`state in Redis vs in memory (REST, admin secret in the header): in memory ${memoryRest.toFixed(0)} req/s`);
  console.log(row("REST, Redis", redisRest, redisRest / memoryRest, "the REST stub in memory", 95));
  console.log(row("REST, metrics", meteredRest, meteredRest / plainForMetrics, "the REST stub without", 95));
  console.log(row("REST, tracing", tracedRest, tracedRest / plainForTracing, "the REST stub without", 95));
  console.log(row("  spans only", tracedAgain, tracedAgain / sdkOnly, "SDK registered, tracing off", 95));
  const plain = (name: string, rps: number, ratio: number, of: string) => `${name.padEnd(14)} ${rps.toFixed(0).padStart(7)} req/s   ${(ratio * 100).toFixed(0).padStart(3)}% of ${of}`;
  console.log(`admin sessions (REST): in memory admin_login ${memoryLogin.toFixed(0)} req/s, admin_meta by cookie ${memorySession.toFixed(0)} req/s`);
  console.log(plain("login, Redis", redisLogin, redisLogin / memoryLogin, "admin_login in memory"));
  console.log(plain("cookie, Redis", redisSession, redisSession / memorySession, "admin_meta by cookie in memory"));
} finally {
  for (const target of [stubs, bareHttp, bareConnect, redisStubs, meteredStubs, tracedStubs, sdkStubs]) target.child.kill();
  await redis.stop();
}
