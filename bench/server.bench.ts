// Requests per second of one cheap read (admin_meta) through the generated stubs, over each
// protocol, against bare baselines measured in the same run:
//   REST and GraphQL stubs vs plain node:http answering the same JSON (targets: REST >= 80% of it,
//   GraphQL >= 50% of the REST stub); gRPC stub vs a bare connect-node handler (target >= 90%).
// Servers run in child processes; HTTP load comes from autocannon, gRPC load from a connect-node
// client with the same concurrency on both sides.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import autocannon from "autocannon";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, startTarget } from "./targets.js";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 16;

async function httpRps(port: number, path: string, body: string): Promise<number> {
  const run = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      method: "POST",
      headers: { "content-type": "application/json", "x-service-admin-secret": ADMIN_SECRET },
      body,
      connections: CONNECTIONS,
      duration,
    });
  await run(1); // warm-up: JIT and caches
  const result = await run(SECONDS);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

async function grpcRps(port: number): Promise<number> {
  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` });
  const client = createClient(AdminService, transport);
  const headers = { "x-service-admin-secret": ADMIN_SECRET };
  const run = async (seconds: number) => {
    let count = 0;
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          await client.adminMeta({}, { headers });
          count++;
        }
      }),
    );
    return count / seconds;
  };
  await run(1);
  return run(SECONDS);
}

const stubs = await startTarget("stubs");
const bareHttp = await startTarget("bare-http");
const bareConnect = await startTarget("bare-connect");
try {
  const op = schema.operations.admin_meta;
  const graphqlBody = JSON.stringify({ query: graphqlDocument(schema, op) });
  const baselineRest = await httpRps(bareHttp.http!, "/v1/admin/admin_meta", "{}");
  const stubRest = await httpRps(stubs.http!, "/v1/admin/admin_meta", "{}");
  const stubGraphql = await httpRps(stubs.http!, "/graphql", graphqlBody);
  const baselineGrpc = await grpcRps(bareConnect.grpc!);
  const stubGrpc = await grpcRps(stubs.grpc!);

  const row = (name: string, rps: number, ratio: string, met: boolean) =>
    `${name.padEnd(40)} ${rps.toFixed(0).padStart(8)} req/s   ${ratio.padEnd(36)} ${met ? "met" : "MISSED"}`;
  console.log(`admin_meta, ${CONNECTIONS} concurrent, ${SECONDS} s per measurement`);
  console.log(`${"baseline: bare node:http (REST JSON)".padEnd(40)} ${baselineRest.toFixed(0).padStart(8)} req/s`);
  console.log(`${"baseline: bare connect-node (gRPC)".padEnd(40)} ${baselineGrpc.toFixed(0).padStart(8)} req/s`);
  console.log(row("REST stub", stubRest, `${((stubRest / baselineRest) * 100).toFixed(0)}% of bare node:http (target 80%)`, stubRest >= 0.8 * baselineRest));
  console.log(row("GraphQL stub", stubGraphql, `${((stubGraphql / stubRest) * 100).toFixed(0)}% of the REST stub (target 50%)`, stubGraphql >= 0.5 * stubRest));
  console.log(row("gRPC stub", stubGrpc, `${((stubGrpc / baselineGrpc) * 100).toFixed(0)}% of bare connect-node (target 90%)`, stubGrpc >= 0.9 * baselineGrpc));
} finally {
  for (const target of [stubs, bareHttp, bareConnect]) target.child.kill();
}
