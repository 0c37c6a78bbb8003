// Wall time of `apigen diff` (every check: manifest rules, buf breaking, graphql-inspector,
// OpenAPI) of the full operations.yaml against a copy with 10 edits, against `apigen validate` of
// the same manifest measured in the same run. Median of RUNS runs each.
import "./banner.js";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildIr } from "../generators/ir/build-ir.js";
import type { Ir, IrOperation } from "../generators/ir/ir.js";
import { loadManifestText } from "../generators/load/load.js";
import { readLock } from "../generators/load/lock.js";
import { REPO_ROOT } from "../test/helpers/project.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_S = 1.5;

/**
 * Ten edits of the manifest, found through the IR's source positions so that they keep applying
 * while the manifest grows: an operation's block runs from its key to the next two-space key.
 */
function tenEdits(text: string, ir: Ir): string {
  const lines = text.split("\n");
  const blockEnd = (start: number) => {
    let end = start + 1;
    while (end < lines.length && !/^ {2}\S/.test(lines[end]!) && !/^\S/.test(lines[end]!)) end++;
    return end;
  };
  const lineOf = (op: IrOperation) => op.position.line - 1;
  const inBlock = (op: IrOperation, pattern: RegExp) => {
    const start = lineOf(op);
    for (let i = start; i < blockEnd(start); i++) if (pattern.test(lines[i]!)) return i;
    throw new Error(`no line matching ${pattern} in operation ${op.name}`);
  };
  const carried = ir.operations.filter((op) => op.surface !== "oauth");
  const pick = (what: string, predicate: (op: IrOperation) => boolean, skip = 0) => {
    const found = carried.filter(predicate)[skip];
    if (!found) throw new Error(`no operation for edit: ${what}`);
    return found;
  };
  const withInput = (op: IrOperation) => op.input.fields.length > 0;
  const removed = pick("remove", (op) => op.kind === "write" && op.grpc !== undefined, 3);
  const renamed = pick("rename", (op) => op.kind === "read" && op !== removed, 2);
  const optionalInput = pick("optional input", (op) => withInput(op) && op !== renamed, 5);
  const requiredInput = pick("required input", (op) => withInput(op) && op.kind === "write" && op !== removed, 7);
  const described = pick("description", (op) => op !== removed && op !== renamed, 10);
  const readToWrite = pick("read to write", (op) => op.kind === "read" && op.pagination.style === "none" && op !== renamed && op.rest?.method !== "GET", 4);
  const grpcDropped = pick("drop grpc", (op) => op.grpc !== undefined && op.protocols.length > 1 && op !== removed && op !== readToWrite, 12);
  const madeDestructive = pick("destructive", (op) => op.kind === "write" && !op.destructive && op !== removed && op !== requiredInput, 2);

  // Edit bottom-up by line so that earlier line numbers stay valid.
  const edits: [number, (line: string) => string[]][] = [
    [inBlock(optionalInput, /^ {4}input:$/), (l) => [l, "      bench_note: string"]],
    [inBlock(requiredInput, /^ {4}input:$/), (l) => [l, "      bench_reason: string!"]],
    [inBlock(described, /^ {4}description: /), () => ["    description: Edited by the diff benchmark."]],
    [inBlock(readToWrite, /^ {4}kind: read$/), () => ["    kind: write"]],
    [inBlock(grpcDropped, /^ {4}protocols: /), (l) => [l.replace(/,\s*grpc: [^,}]+/, "")]],
    [inBlock(madeDestructive, /^ {4}kind: write$/), (l) => [l, "    destructive: true"]],
    [lineOf(renamed), () => [`  ${renamed.name}_renamed:`]],
  ];
  edits.sort((a, b) => b[0] - a[0]);
  for (const [index, edit] of edits) lines.splice(index, 1, ...edit(lines[index]!));
  // Block removal and the new operation last: they shift lines.
  const start = lines.findIndex((l) => l === `  ${removed.name}:`);
  lines.splice(start, blockEnd(start) - start);
  const operationsLine = lines.findIndex((l) => l === "operations:");
  lines.splice(
    operationsLine + 1,
    0,
    "  bench_added:",
    "    surface: admin",
    `    group: ${carried[0]!.group}`,
    "    description: Added by the diff benchmark.",
    "    kind: read",
    "    auth: admin_secret",
    `    protocols: { graphql: ${ir.api.version}, rest: ${ir.api.version}, grpc: ${ir.api.version} }`,
    "    output:",
    "      ok: bool!",
  );
  // The tenth edit: a field added to the first shared type's answer shape.
  const typesLine = lines.findIndex((l) => l === "types:");
  const fieldsLine = lines.findIndex((l, i) => i > typesLine && l === "    fields:");
  lines.splice(fieldsLine + 1, 0, "      bench_extra: string");
  return lines.join("\n");
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(args: string[], expectedStatus: number): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "apigen.js"), ...args], { encoding: "utf8" });
    samples.push((performance.now() - start) / 1000);
    if (result.status !== expectedStatus) throw new Error(`apigen ${args.join(" ")} exited ${result.status}:\n${result.stderr}${result.stdout}`);
  }
  return median(samples);
}

const text = readFileSync(join(REPO_ROOT, "operations.yaml"), "utf8");
const ir = buildIr(loadManifestText(text), readLock(REPO_ROOT));
const work = mkdtempSync(join(tmpdir(), "apigen-bench-diff-"));
for (const entry of ["operations.yaml", "proto"]) cpSync(join(REPO_ROOT, entry), join(work, entry), { recursive: true });
writeFileSync(join(work, "operations.yaml"), tenEdits(text, ir));

const diffArgs = ["diff", "--root", work, "--against", REPO_ROOT, "--format", "json"];
// Build the bundled CLI once, and show what the diff reports.
const probe = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "apigen.js"), ...diffArgs], { encoding: "utf8" });
if (probe.status !== 1) throw new Error(`expected the edited manifest to break (exit 1), got ${probe.status}:\n${probe.stderr}`);
const report = JSON.parse(probe.stdout) as { summary: Record<string, number>; changes: unknown[] };

const validate = timed(["validate", "--root", work], 0);
const diff = timed(diffArgs, 1);
rmSync(work, { recursive: true, force: true });

const row = (name: string, seconds: number, target?: number) =>
  `${name.padEnd(52)} ${seconds.toFixed(3).padStart(7)} s   ${(seconds / validate).toFixed(2).padStart(5)}x validate${target ? `   target ${target} s: ${seconds <= target ? "met" : "MISSED"}` : ""}`;
console.log(`median of ${RUNS} runs, ${cpus().length} cores; ${ir.operations.length} operations, 10 edits -> ${report.changes.length} changes (${JSON.stringify(report.summary)})`);
console.log(row("baseline: apigen validate (one manifest)", validate));
console.log(row("apigen diff, all checks (manifest, buf, graphql, openapi)", diff, TARGET_S));
