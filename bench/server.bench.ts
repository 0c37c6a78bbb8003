// Requests per second of one cheap read (admin_meta) through the generated stubs, over REST and
// GraphQL, against bare baselines measured in the same run:
//   REST stub vs plain node:http answering the same JSON (target: at least 80% of it);
//   GraphQL stub vs the REST stub (target: at least 50%).
// gRPC is measured by bench/grpc.bench.ts, with ghz (`npm run bench:server` runs both).
// Servers run bundled, each in its own process. Load comes from autocannon, with the same
// concurrency on both sides of each ratio. On a shared 2-core machine single runs vary by ±30%, so
// each pair is measured in ROUNDS interleaved rounds and the figures are medians.
import autocannon from "autocannon";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, startTarget } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 16;

type Load = () => Promise<number>;

function http(port: number, path: string, body: string): Load {
  return async () => {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      method: "POST",
      headers: { "content-type": "application/json", "x-service-admin-secret": ADMIN_SECRET },
      body,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.total / SECONDS;
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

const stubs = await startTarget("stubs");
const bareHttp = await startTarget("bare-http");
try {
  const graphqlBody = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const stubRest = http(stubs.http!, "/v1/admin/admin_meta", "{}");
  const [baselineRest, restRps] = await pair(http(bareHttp.http!, "/v1/admin/admin_meta", "{}"), stubRest);
  const [restAgain, graphqlRps] = await pair(stubRest, http(stubs.http!, "/graphql", graphqlBody));

  const row = (name: string, rps: number, ratio: number, of: string, target: number) =>
    `${name.padEnd(14)} ${rps.toFixed(0).padStart(7)} req/s   ${(ratio * 100).toFixed(0).padStart(3)}% of ${of.padEnd(26)} target ${target}%: ${ratio * 100 >= target ? "met" : "MISSED"}`;
  console.log(`admin_meta, ${CONNECTIONS} concurrent, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  console.log(`baseline: bare node:http ${baselineRest.toFixed(0)} req/s`);
  console.log(row("REST stub", restRps, restRps / baselineRest, "bare node:http", 80));
  console.log(row("GraphQL stub", graphqlRps, graphqlRps / restAgain, "the REST stub", 50));
} finally {
  for (const target of [stubs, bareHttp]) target.child.kill();
}
