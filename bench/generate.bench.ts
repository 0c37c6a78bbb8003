// Wall time of `apigen generate` against `buf generate` of the same .proto files, measured in the
// same run, on the real manifest and on one 16 times larger (every operation copied 15 times under
// new names, made here from the real one): from scratch (every contract and the TS messages), with
// nothing to do, and `generate --check`. Median of RUNS runs each; time per operation at both sizes.
import "./banner.js";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parse, stringify } from "yaml";
import { REPO_ROOT } from "../test/helpers/project.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCALE = 16;
const TARGET_CHECK_S = 1.0;
const BIN = join(REPO_ROOT, "node_modules", ".bin");

function timed(command: string, args: string[], cwd: string, before?: () => void, runs = RUNS): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    before?.();
    const start = performance.now();
    const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, PATH: `${BIN}:${process.env.PATH}` }, maxBuffer: 64 * 1024 * 1024 });
    samples.push((performance.now() - start) / 1000);
    if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stderr}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** The real manifest with every operation copied `scale - 1` times under new names (routes with a fixed path are not copied). */
function scaledManifest(scale: number): string {
  const manifest = parse(readFileSync(join(REPO_ROOT, "operations.yaml"), "utf8")) as { operations: Record<string, { route?: { path?: string } }> };
  const operations: Record<string, unknown> = { ...manifest.operations };
  for (let copy = 2; copy <= scale; copy++) {
    for (const [name, operation] of Object.entries(manifest.operations)) {
      if (operation.route?.path) continue;
      operations[`${name}_c${copy}`] = operation;
    }
  }
  return stringify({ ...manifest, operations }, { lineWidth: 0 });
}

interface Figures {
  operations: number;
  buf: number;
  fromScratch: number;
  nothingToDo: number;
  check: number;
}

function measure(manifestText: string): Figures {
  const work = mkdtempSync(join(tmpdir(), "apigen-bench-"));
  try {
    writeFileSync(join(work, "operations.yaml"), manifestText);
    cpSync(join(REPO_ROOT, "proto"), join(work, "proto"), { recursive: true });
    const apigen = (...args: string[]) => [join(REPO_ROOT, "bin", "apigen.js"), ...args, "--root", work];
    // Generate once: builds the bundled CLI if needed, and the .proto files buf generate reads.
    const first = spawnSync(process.execPath, apigen("generate"), { encoding: "utf8" });
    if (first.status !== 0) throw new Error(`apigen generate failed:\n${first.stderr}`);
    const operations = Number(/operations: (\d+)/.exec(first.stdout)![1]);
    const template = join(work, "buf.gen.bench.yaml");
    writeFileSync(template, ["version: v2", "plugins:", "  - local: protoc-gen-es", `    out: ${join(work, "buf-out")}`, "    opt: target=ts,import_extension=js", ""].join("\n"));
    const buf = timed(join(BIN, "buf"), ["generate", "--template", template], join(work, "proto"));
    const fromScratch = timed(process.execPath, apigen("generate"), REPO_ROOT, () => {
      rmSync(join(work, "generated"), { recursive: true, force: true });
      rmSync(join(work, "proto", "identity"), { recursive: true, force: true });
    });
    const nothingToDo = timed(process.execPath, apigen("generate"), REPO_ROOT);
    const check = timed(process.execPath, apigen("generate", "--check"), REPO_ROOT);
    return { operations, buf, fromScratch, nothingToDo, check };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const sizes = [
  { label: "1x", figures: measure(readFileSync(join(REPO_ROOT, "operations.yaml"), "utf8")) },
  { label: `${SCALE}x`, figures: measure(scaledManifest(SCALE)) },
];

console.log(`median of ${RUNS} runs, ${cpus().length} cores`);
for (const { label, figures } of sizes) {
  const perOp = (seconds: number) => `${((seconds * 1000) / figures.operations).toFixed(2).padStart(6)} ms/op`;
  const row = (name: string, seconds: number, note = "") =>
    `  ${name.padEnd(36)} ${seconds.toFixed(3).padStart(7)} s  ${perOp(seconds)}  ${(seconds / figures.buf).toFixed(2).padStart(5)}x buf generate${note}`;
  console.log(`${label}: ${figures.operations} operations`);
  console.log(row("baseline: buf generate (protoc-gen-es)", figures.buf));
  console.log(row("apigen generate, from scratch", figures.fromScratch, `   target <= buf generate: ${figures.fromScratch <= figures.buf ? "met" : "MISSED"}`));
  console.log(row("apigen generate, nothing to do", figures.nothingToDo));
  console.log(row("apigen generate --check", figures.check, label === "1x" ? `   target ${TARGET_CHECK_S} s: ${figures.check <= TARGET_CHECK_S ? "met" : "MISSED"}` : ""));
}
