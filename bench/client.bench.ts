// Per-call latency of adminMeta() through the generated AdminClient over each protocol, against
// the same request made by hand in the same run: a raw fetch for REST and GraphQL, a raw
// connect-node client for gRPC. Target: at most 10% overhead. Calls are sequential, against the
// generated stubs running in their own process, in ROUNDS pairs of short rounds (CALLS calls each,
// the pair's order alternating): the figure is the median of the pairs' own ratios, with the middle
// half beside it, so that the machine's drift, which moves whole rounds by ±15% here, hits both
// sides of a pair alike.
import "./banner.js";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AdminClient } from "../generated/client/index.js";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { schema } from "../generated/schema.js";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { BENCH_ADMIN_SECRET, startTarget } from "./targets.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const headers = { "x-service-admin-secret": BENCH_ADMIN_SECRET };

/** Microseconds per call of one round of CALLS sequential calls. */
async function round(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  return ((performance.now() - start) * 1000) / CALLS;
}

/** The value at fraction \`at\` of the sorted values (0.5: the median). */
const quantile = (values: number[], at: number) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * at)]!;

interface Comparison {
  baseline: number;
  subject: number;
  /** The pairs' ratios (subject over baseline): median and middle half. */
  ratio: number;
  low: number;
  high: number;
}

/** Both sides in pairs of rounds, the pair's order alternating: median latencies, and the median and middle half of the pairs' ratios. */
async function compare(baseline: () => Promise<unknown>, subject: () => Promise<unknown>): Promise<Comparison> {
  // Warm-up: JIT, connections.
  for (let i = 0; i < 4; i++) {
    await round(baseline);
    await round(subject);
  }
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [first, second] = i % 2 === 0 ? [baseline, subject] : [subject, baseline];
    const one = await round(first);
    const other = await round(second);
    const [base, sub] = i % 2 === 0 ? [one, other] : [other, one];
    a.push(base);
    b.push(sub);
    ratios.push(sub / base);
  }
  return { baseline: quantile(a, 0.5), subject: quantile(b, 0.5), ratio: quantile(ratios, 0.5), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) };
}

const target = await startTarget("stubs");
try {
  const serviceUrl = `http://127.0.0.1:${target.http}`;
  const grpcEndpoint = `127.0.0.1:${target.grpc}`;
  const query = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
  const raw = {
    rest: async () => (await fetch(`${serviceUrl}/v1/admin/admin_meta`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" })).json(),
    graphql: async () => (await fetch(`${serviceUrl}/graphql`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: query })).json(),
    grpc: (() => {
      const client = createClient(AdminService, createGrpcTransport({ baseUrl: `http://${grpcEndpoint}` }));
      return () => client.adminMeta({}, { headers });
    })(),
  };
  console.log(`adminMeta(), ${ROUNDS} pairs of rounds of ${CALLS} sequential calls, the pair's order alternating; the median of the pairs' ratios, the middle half in brackets`);
  for (const protocol of ["rest", "graphql", "grpc"] as const) {
    const admin = new AdminClient({ serviceUrl, grpcEndpoint, adminSecret: BENCH_ADMIN_SECRET, protocol });
    const measured = await compare(raw[protocol], () => admin.adminMeta());
    await admin.close();
    const overhead = measured.ratio - 1;
    console.log(
      `${protocol.padEnd(8)} raw ${measured.baseline.toFixed(0).padStart(6)} µs   AdminClient ${measured.subject.toFixed(0).padStart(6)} µs   ` +
        `ratio ${measured.ratio.toFixed(3)} [${measured.low.toFixed(3)}-${measured.high.toFixed(3)}] (overhead ${(overhead * 100).toFixed(1)}%, target <= 10%: ${overhead <= 0.1 ? "met" : "MISSED"})`,
    );
  }
} finally {
  target.child.kill();
}
