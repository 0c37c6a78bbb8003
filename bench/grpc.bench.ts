// Requests per second of AdminMeta over gRPC, driven by ghz (a Go load generator, installed with
// `go install` into a cache folder when missing), against four servers in the same run:
//   bare connect-node   a connect-node handler on node:http2 answering the same message
//   bare grpc-js        @grpc/grpc-js with @grpc/proto-loader, from the same .proto files
//   stub                the generated stubs' gRPC port (grpc-js, the whole call pipeline behind it)
//   grpc-go (ceiling)   bench/grpc-go, a minimal grpc-go server answering the same bytes
// Target: the stub at least 90% of bare grpc-js. Each server runs in its own process; ghz runs
// CONCURRENCY calls at a time for SECONDS per round; the servers take turns round after round, and
// the figures are medians of ROUNDS rounds after one warm-up round each.
import { announce } from "./banner.js";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { schema } from "../generated/schema.js";
import { descriptorSet } from "../generated/server/descriptor-set.js";
import { toProtoInit } from "../runtime/shape.js";
import { ensureGoTool, GHZ } from "../test/helpers/go-tools.js";
import { REPO_ROOT } from "../test/helpers/project.js";
import { sampleMessage } from "../test/helpers/recording-service.js";
import { ghzAdminMeta } from "./load.js";
import { startTarget, type Target } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;
const BENCH_DIR = join(REPO_ROOT, "dist", "bench");

interface Round {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
}

/** One ghz run against `endpoint`; throws on any failed call. */
const ghz = (ghzPath: string, protoset: string, endpoint: string): Round => ghzAdminMeta(ghzPath, protoset, endpoint, { concurrency: CONCURRENCY, seconds: SECONDS });

/** Builds bench/grpc-go (its modules come from the Go module proxy on first build) and starts it. */
async function startGrpcGo(answerFile: string): Promise<Target> {
  const binary = join(BENCH_DIR, "grpc-go-server");
  const built = spawnSync("go", ["build", "-o", binary, "."], { cwd: join(REPO_ROOT, "bench", "grpc-go"), encoding: "utf8" });
  if (built.status !== 0) throw new Error(`go build of bench/grpc-go failed: ${built.error?.message ?? built.stderr}`);
  const child = spawn(binary, [answerFile], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  return { child, ...JSON.parse(line.toString()) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

mkdirSync(BENCH_DIR, { recursive: true });
const { path: ghzPath, installedMs } = await ensureGoTool(GHZ);
if (installedMs !== undefined) console.log(`installed ghz ${GHZ.version} in ${(installedMs / 1000).toFixed(1)} s`);
// The FileDescriptorSet the generator builds (what `buf build -o` writes): ghz's own .proto parser refuses proto3 `optional`.
const protoset = join(BENCH_DIR, "identity.binpb");
writeFileSync(protoset, Buffer.from(descriptorSet, "base64"));
const output = AdminService.method.adminMeta.output;
const answerFile = join(BENCH_DIR, "admin-meta.bin");
writeFileSync(answerFile, toBinary(output, create(output, toProtoInit(schema, "AdminMeta", sampleMessage(schema, "AdminMeta")) as never)));

const servers: { name: string; target: Target }[] = [];
try {
  servers.push({ name: "bare connect-node", target: await startTarget("bare-connect") });
  servers.push({ name: "bare grpc-js", target: await startTarget("bare-grpc-js") });
  servers.push({ name: "stub", target: await startTarget("stubs") });
  servers.push({ name: "grpc-go (ceiling)", target: await startGrpcGo(answerFile) });

  const rounds = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
  for (let round = -1; round < ROUNDS; round++) {
    announce(round < 0 ? "warming up" : `round ${round + 1} of ${ROUNDS}`);
    for (const { name, target } of servers) {
      const result = ghz(ghzPath, protoset, `127.0.0.1:${target.grpc}`);
      if (round >= 0) rounds.get(name)!.push(result); // round -1 warms up JIT and connections
    }
  }
  const figures = new Map([...rounds].map(([name, results]) => [name, { rps: median(results.map((r) => r.rps)), p50: median(results.map((r) => r.p50)), p99: median(results.map((r) => r.p99)) }]));
  const ceiling = figures.get("grpc-go (ceiling)")!.rps;
  const grpcJs = figures.get("bare grpc-js")!.rps;
  console.log(`AdminMeta over gRPC, ghz ${GHZ.version}, ${CONCURRENCY} concurrent, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  console.log(`${"server".padEnd(20)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)}  of ceiling`);
  for (const [name, { rps, p50, p99 }] of figures) {
    console.log(`${name.padEnd(20)} ${rps.toFixed(0).padStart(7)} ${p50.toFixed(2).padStart(7)} ${p99.toFixed(2).padStart(7)}  ${((rps / ceiling) * 100).toFixed(0).padStart(5)}%`);
  }
  // Also per round, where both ran within seconds of each other: steadier on a shared machine.
  const perRound = median(rounds.get("stub")!.map((r, i) => r.rps / rounds.get("bare grpc-js")![i]!.rps));
  const ratio = figures.get("stub")!.rps / grpcJs;
  console.log(`stub / bare grpc-js: ${(ratio * 100).toFixed(0)}% of the medians, ${(perRound * 100).toFixed(0)}% median of the rounds (target 90%: ${ratio >= 0.9 ? "met" : "MISSED"})`);
} finally {
  for (const { target } of servers) target.child.kill();
}
