// Wall time of `apigen generate` (from scratch: every contract and the TS messages), of a generate
// that finds nothing to do, and of `generate --check`, against `buf generate` alone on the same
// .proto files, measured in the same run. Median of RUNS runs each.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { REPO_ROOT } from "../test/helpers/project.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_GENERATE_S = 1.5;
const TARGET_CHECK_S = 1.0;
const BIN = join(REPO_ROOT, "node_modules", ".bin");

function timed(command: string, args: string[], cwd: string, before?: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    before?.();
    const start = performance.now();
    const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, PATH: `${BIN}:${process.env.PATH}` } });
    samples.push((performance.now() - start) / 1000);
    if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stderr}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const work = mkdtempSync(join(tmpdir(), "apigen-bench-"));
for (const entry of ["operations.yaml", "proto", "generated"]) cpSync(join(REPO_ROOT, entry), join(work, entry), { recursive: true });
const apigen = (...args: string[]) => [join(REPO_ROOT, "bin", "apigen.js"), ...args, "--root", work];
// Make sure the bundled CLI is built before timing anything.
spawnSync(process.execPath, apigen("generate", "--check"));

const template = join(work, "buf.gen.bench.yaml");
writeFileSync(template, ["version: v2", "plugins:", "  - local: protoc-gen-es", `    out: ${join(work, "buf-out")}`, "    opt: target=ts,import_extension=js", ""].join("\n"));
const bufGenerate = timed(join(BIN, "buf"), ["generate", "--template", template], join(work, "proto"));

const fromScratch = timed(process.execPath, apigen("generate"), REPO_ROOT, () => {
  rmSync(join(work, "generated"), { recursive: true, force: true });
  rmSync(join(work, "proto", "identity"), { recursive: true, force: true });
});
const nothingToDo = timed(process.execPath, apigen("generate"), REPO_ROOT);
const check = timed(process.execPath, apigen("generate", "--check"), REPO_ROOT);
rmSync(work, { recursive: true, force: true });

const row = (name: string, seconds: number, target?: number) =>
  `${name.padEnd(44)} ${seconds.toFixed(3).padStart(7)} s   ${(seconds / bufGenerate).toFixed(2).padStart(5)}x buf generate${target ? `   target ${target} s: ${seconds <= target ? "met" : "MISSED"}` : ""}`;
console.log(`median of ${RUNS} runs, ${(await import("node:os")).cpus().length} cores`);
console.log(row("baseline: buf generate (protoc-gen-es only)", bufGenerate));
console.log(row("apigen generate, from scratch", fromScratch, TARGET_GENERATE_S));
console.log(row("apigen generate, nothing to do", nothingToDo, TARGET_GENERATE_S));
console.log(row("apigen generate --check", check, TARGET_CHECK_S));
