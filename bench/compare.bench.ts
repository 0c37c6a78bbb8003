// npm run bench:compare -- --against <ref>: this tree's stubs against those of another commit, in
// one run. The commit is checked out beside the repository (test/helpers/worktree.ts) and its
// bench/server-target.ts started from its own generated code and runtime; each row then loads both
// servers at once on one core (pairAtOnce), round after round, and prints the tree's rate over the
// commit's with the spread of its rounds. A control row loads the commit against a second process
// of itself: how far apart two processes of the same code land, the margin a row must clear before
// it says faster or slower. The table goes to --report (dist/bench-compare.md), the chart to
// --chart (dist/bench-compare.svg). BENCH_ROUNDS and BENCH_SECONDS set the rounds (bench/load.ts).
import "./banner.js";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";
import { graphqlDocument } from "../runtime/client/graphql.js";
import { schema } from "../generated/schema.js";
import { REPO_ROOT } from "../test/helpers/project.js";
import { commitOf, linkedWorktree, removeWorktrees } from "../test/helpers/worktree.js";
import { AT_ONCE_TEXT, UPDATE_USER, http, pairAtOnce, type Load } from "./load.js";
import { compareChart, compareTable, noiseMargin, percent, summarize, verdict, type RowSummary } from "./compare-report.js";
import { separateCores, startTarget, type Target } from "./targets.js";

const { values } = parseArgs({
  options: {
    against: { type: "string" },
    report: { type: "string", default: "dist/bench-compare.md" },
    chart: { type: "string", default: "dist/bench-compare.svg" },
  },
});
if (!values.against) {
  process.stderr.write("usage: npm run bench:compare -- --against <commit, branch or tag> [--report file.md] [--chart file.svg]\n");
  process.exit(2);
}
const against = values.against;
const commit = await commitOf(against).catch((error: Error) => {
  process.stderr.write(`bench:compare: ${error.message}\n`);
  process.exit(1);
});
const short = (id: string) => id.slice(0, 9);
const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: REPO_ROOT, encoding: "utf8" }).trim() !== "";
const treeName = `${short(head)}${dirty ? "+changes" : ""}`;

const META = "/v1/admin/admin_meta";
const metaQuery = JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta) });
const updateBody = JSON.stringify(UPDATE_USER);
const updateMutation = JSON.stringify({ query: graphqlDocument(schema, schema.operations.update_user), variables: { params: UPDATE_USER } });
/** The rows: a cheap read and a write validated by every rule of its input, over REST and GraphQL. */
const ROWS: { name: string; load: (target: Target) => Load }[] = [
  { name: "REST read", load: (t) => http(t, META, "{}") },
  { name: "REST write", load: (t) => http(t, "/v1/admin/update_user", updateBody) },
  { name: "GraphQL read", load: (t) => http(t, "/graphql", metaQuery) },
  { name: "GraphQL write", load: (t) => http(t, "/graphql", updateMutation) },
];

const work = mkdtempSync(join(tmpdir(), "bench-compare-"));
const worktrees: string[] = [];
const targets: Target[] = [];
try {
  const other = await linkedWorktree(commit, join(work, "tree"), (root) => worktrees.push(root));
  if (!existsSync(join(other, "bench", "server-target.ts"))) throw new Error(`${against} (${short(commit)}) has no bench/server-target.ts to start: it predates the benchmarks`);
  const cores = separateCores();
  const [mine, theirs, theirsAgain] = await Promise.all([startTarget("stubs"), startTarget("stubs", undefined, process.execPath, other), startTarget("stubs", undefined, process.execPath, other)]);
  targets.push(mine, theirs, theirsAgain);
  console.log(`bench:compare: ${treeName} against ${against} (${short(commit)}); ${AT_ONCE_TEXT}${cores ? `; servers on core ${cores.server}, load on ${cores.load}` : ""}`);
  // Every server meets every row before any is measured: the control's second process is as warm
  // (its JIT, its pools) as the first, which four rows of measuring would otherwise warm alone.
  for (let pass = 0; pass < 2; pass++) for (const { load } of ROWS) await Promise.all(targets.map((target) => load(target)()));
  const summaries: RowSummary[] = [];
  for (const { name, load } of ROWS) {
    const [, measured] = await pairAtOnce(load(theirs), load(mine));
    summaries.push(summarize({ name, roundRatios: measured.paired!.roundRatios, rps: measured.rps }));
  }
  const [, again] = await pairAtOnce(ROWS[0]!.load(theirs), ROWS[0]!.load(theirsAgain));
  const control = summarize({ name: `control: ${short(commit)} twice`, roundRatios: again.paired!.roundRatios, rps: again.rps });
  for (const s of summaries) {
    console.log(
      `${s.name.padEnd(14)} ${percent(s.median).padStart(7)} of ${short(commit)}  middle half ${percent(s.q1)}–${percent(s.q3)}, rounds ${percent(s.low)}–${percent(s.high)}  ${verdict(s, control)}`,
    );
  }
  console.log(
    `${"control".padEnd(14)} ${percent(control.median).padStart(7)}  rounds ${percent(control.low)}–${percent(control.high)}: two processes of ${short(commit)}, a noise margin of ±${(noiseMargin(control) * 100).toFixed(1)} points`,
  );
  const rows = [...summaries, control];
  const title = `${treeName} against ${against} (${short(commit)}): requests a second, ratio per round`;
  for (const [file, content] of [
    [values.report!, `# bench:compare\n\n${AT_ONCE_TEXT}.\n\n${compareTable(rows, treeName, `${against} (${short(commit)})`, control)}\n`],
    [values.chart!, compareChart(rows, title)],
  ] as const) {
    const path = resolve(REPO_ROOT, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    console.log(`bench:compare: wrote ${file}`);
  }
} finally {
  for (const target of targets) target.child.kill();
  await removeWorktrees(worktrees);
  rmSync(work, { recursive: true, force: true });
}
