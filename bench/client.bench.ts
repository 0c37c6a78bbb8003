// Per-call latency of adminMeta() through the generated AdminClient over each protocol, against
// the same request made by hand in the same run: a raw fetch for REST and GraphQL, a raw
// connect-node client for gRPC. Target: at most 10% overhead. Calls are sequential, against the
// generated stubs running in their own process; the figure is the median of ROUNDS rounds.
import "./banner.js";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AdminClient } from "../generated/client/index.js";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { schema } from "../generated/schema.js";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { BENCH_ADMIN_SECRET, startTarget } from "./targets.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const ROUNDS = 7;
const headers = { "x-service-admin-secret": BENCH_ADMIN_SECRET };

/** Microseconds per call of one round of CALLS sequential calls. */
async function round(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  return ((performance.now() - start) * 1000) / CALLS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median per-call latency of both, their rounds interleaved so that drift in the machine hits both alike. */
async function compare(baseline: () => Promise<unknown>, subject: () => Promise<unknown>): Promise<[number, number]> {
  await round(baseline); // warm-up: JIT, connections
  await round(subject);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await round(baseline));
    b.push(await round(subject));
  }
  return [median(a), median(b)];
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
  console.log(`adminMeta(), ${CALLS} sequential calls per round, median of ${ROUNDS} rounds`);
  for (const protocol of ["rest", "graphql", "grpc"] as const) {
    const admin = new AdminClient({ serviceUrl, grpcEndpoint, adminSecret: BENCH_ADMIN_SECRET, protocol });
    const [baseline, generated] = await compare(raw[protocol], () => admin.adminMeta());
    await admin.close();
    const overhead = generated / baseline - 1;
    console.log(
      `${protocol.padEnd(8)} raw ${baseline.toFixed(0).padStart(6)} µs   AdminClient ${generated.toFixed(0).padStart(6)} µs   ` +
        `ratio ${(generated / baseline).toFixed(3)} (overhead ${(overhead * 100).toFixed(1)}%, target <= 10%: ${overhead <= 0.1 ? "met" : "MISSED"})`,
    );
  }
} finally {
  target.child.kill();
}
