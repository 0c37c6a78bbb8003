// `npm run bench:go`: per-call latency of AdminMeta through the generated Go client over each
// protocol, against a raw net/http or grpc-go call doing the same in the same process (see
// test/go/bench). The server is the generated stubs in their own process, as for bench:client.
// Rounds interleave raw calls and client calls, alternating which goes first. Printed: the median
// of each side, and the median of the ratios of adjacent rounds (which cancels the drift of a
// machine shared with other work), with the CPU time per call of the client process beside them.
// Target: at most 10% overhead.
import "./banner.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { goBinary } from "../scripts/go-env.mjs";
import { BENCH_ADMIN_SECRET, startTarget } from "./targets.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const TARGET = 0.1;

interface Sample {
  wall: number;
  cpu: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percent = (ratio: number) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)}%`;

const { binary } = await goBinary("bench");
const target = await startTarget("stubs");
try {
  const args = [`http://127.0.0.1:${target.http}`, `127.0.0.1:${target.grpc}`, BENCH_ADMIN_SECRET, String(CALLS), String(ROUNDS)];
  const { stdout } = await promisify(execFile)(binary, args, { maxBuffer: 16 * 1024 * 1024 });
  console.log(`AdminMeta through the Go client vs a raw call doing the same, ${ROUNDS} interleaved rounds of ${CALLS} calls (µs per call, medians):`);
  console.log("protocol  raw      client   client/raw  paired   CPU raw  CPU client");
  let missed = false;
  for (const line of stdout.trim().split("\n")) {
    const { protocol, raw, sdk } = JSON.parse(line) as { protocol: string; raw: Sample[]; sdk: Sample[] };
    const rawWall = median(raw.map((s) => s.wall));
    const sdkWall = median(sdk.map((s) => s.wall));
    const paired = median(sdk.map((s, i) => s.wall / raw[i]!.wall));
    missed ||= paired > 1 + TARGET;
    const cells = [
      protocol.padEnd(9),
      rawWall.toFixed(1).padStart(7),
      sdkWall.toFixed(1).padStart(7),
      percent(sdkWall / rawWall).padStart(10),
      percent(paired).padStart(7),
      median(raw.map((s) => s.cpu))
        .toFixed(1)
        .padStart(8),
      median(sdk.map((s) => s.cpu))
        .toFixed(1)
        .padStart(10),
    ];
    console.log(cells.join("  "));
  }
  console.log(`target: at most ${TARGET * 100}% overhead (paired): ${missed ? "missed" : "met"}`);
} finally {
  target.child.kill();
}
