// `npm run compat [-- --base <ref>] [--report <file>]`: backward compatibility proven by running it.
// The TypeScript SDK as it was at the last release (the release gate's base: $APIGEN_RELEASE_BASE,
// the newest v* tag, or release.json) and at the release before it, each packed from its own
// commit and installed outside the repository, replays the compatibility scenarios
// (test/compat/scenarios.ts) on every protocol it speaks, against the service of its own release
// and against today's; every step must answer the same code with the same fields. The other
// direction too: today's SDK against each release's service, where an operation newer than that
// service must be refused by the client before anything is sent. The report (Markdown, beside the
// contract diff's) lists SDK version × service × protocol, and each failure with its scenario and
// both answers. Without a release there is nothing to compare: the run says so and passes.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { releaseBase } from "../../scripts/release-gate.mjs";
import { COMPAT_SCENARIOS, type CompatScenario, type CompatValues } from "./scenarios.js";
import type { Plant } from "./plants.js";

const execFileAsync = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(HERE, "..", "..");
const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
type Protocol = (typeof PROTOCOLS)[number];
const ADMIN_SECRET = "compat-admin-secret";
export const DEFAULT_REPORT = "dist/compat-report.md";

const run = async (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> => {
  try {
    return (await execFileAsync(file, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${failed.stderr ?? ""}${failed.stdout ?? ""}`);
  }
};

/** One tree the run uses: today's working tree, or a release checked out beside it. */
interface Tree {
  label: string;
  root: string;
  version: string;
}

/** An SDK packed from a tree and installed in a folder of its own, driven through sdk-runner.mjs. */
interface InstalledSdk {
  tree: Tree;
  dir: string;
  packageName: string;
}

interface Service {
  tree: Tree;
  plant?: Plant;
  httpUrl: string;
  grpcEndpoint: string;
  stop(): Promise<void>;
}

/** What a call answered, reduced to what must not change: the code, or each field's presence, kind and emptiness. */
export type Outcome = { ok: true; answer: unknown } | { ok: false; code: string; refused: boolean; message: string } | { skipped: string };

/**
 * An answer reduced to its shape: strings as "" or "<text>", numbers as "<number>", booleans and
 * nulls as they are, arrays element by element (so their lengths count), objects key by key. Ids,
 * times and tokens differ between two services; their presence, kind and emptiness may not.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value === "" ? "" : "<text>";
  if (typeof value === "number") return "<number>";
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, field]) => [key, shapeOf(field)]));
  return value;
}

/** The differences of two shapes, as "path: old → new" lines (none when they agree). */
export function shapeDifferences(before: unknown, after: unknown, path = ""): string[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const at = path || "answer";
  if (Array.isArray(before) && Array.isArray(after) && before.length !== after.length) return [`${at}: ${before.length} items → ${after.length}`];
  if (before && after && typeof before === "object" && typeof after === "object") {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => shapeDifferences((before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key], `${path}${path ? "." : ""}${key}`));
  }
  return [`${at}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`];
}

/** The outcome a step is compared by: errors by code alone (messages may be reworded). */
function comparable(outcome: Outcome): unknown {
  if ("skipped" in outcome) return { skipped: true };
  return outcome.ok ? { ok: true, answer: shapeOf(outcome.answer) } : { ok: false, code: outcome.code };
}

const shown = (outcome: Outcome | undefined): string => {
  if (!outcome) return "(not run)";
  if ("skipped" in outcome) return `skipped: ${outcome.skipped}`;
  return outcome.ok ? JSON.stringify(shapeOf(outcome.answer)) : `${outcome.code}${outcome.refused ? " (refused by the client)" : ""}: ${outcome.message}`;
};

/** An outcome in a word: "ok", its code, or "skipped". */
const headline = (outcome: Outcome | undefined): string => (!outcome ? "(not run)" : "skipped" in outcome ? "skipped" : outcome.ok ? "ok" : outcome.code);

/** One SDK's process, answering calls one at a time. */
class SdkRunner {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (outcome: Outcome) => void>();
  private nextId = 1;
  private stderr = "";

  constructor(readonly sdk: InstalledSdk) {
    this.child = spawn(process.execPath, [join(sdk.dir, "sdk-runner.mjs"), sdk.packageName], { cwd: sdk.dir, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const { id, ...outcome } = JSON.parse(line) as { id: number } & Outcome;
      this.pending.get(id)?.(outcome as Outcome);
      this.pending.delete(id);
    });
    this.child.on("exit", () => {
      for (const resolve of this.pending.values()) resolve({ ok: false, code: "CRASH", refused: false, message: `the runner ended: ${this.stderr.slice(-2000)}` });
      this.pending.clear();
    });
  }

  call(request: Record<string, unknown>): Promise<Outcome> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    await exited;
  }
}

/** A scenario's outcomes over one protocol, step by step; a failed step ends it. */
async function replay(runner: SdkRunner, service: Service, scenario: CompatScenario, protocol: Protocol, tag: string): Promise<Outcome[]> {
  const values: CompatValues = {};
  const outcomes: Outcome[] = [];
  for (const step of scenario.steps) {
    const outcome = await runner.call({
      surface: step.surface,
      operation: step.operation,
      protocol,
      input: step.input(values, tag),
      accessToken: step.accessToken ? (values[step.accessToken] ?? null) : null,
      config: { serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: ADMIN_SECRET, clientId: "compat" },
    });
    outcomes.push(outcome);
    if (!("skipped" in outcome) && outcome.ok && step.keep) Object.assign(values, step.keep(outcome.answer as Record<string, unknown>));
    if (!("skipped" in outcome) && !outcome.ok && step !== scenario.steps.at(-1)) break;
    if ("skipped" in outcome) break;
  }
  return outcomes;
}

export interface CompatRow {
  sdk: string;
  service: string;
  protocol: Protocol;
  passed: number;
  failed: number;
  skipped: number;
}

export interface CompatFailure {
  sdk: string;
  service: string;
  protocol: Protocol;
  scenario: string;
  step: string;
  expected: string;
  actual: string;
  differences: string[];
}

export interface CompatResult {
  bases: string[];
  rows: CompatRow[];
  failures: CompatFailure[];
  /** Operations today's SDK refused before sending, as newer than a release's service. */
  refusedAsNewer: string[];
  seconds: number;
}

/** A checkout of `ref` beside the repository, its dependencies linked from today's (its own runtime in place of today's). */
async function checkout(ref: string, label: string, workDir: string): Promise<Tree> {
  const root = join(workDir, `tree-${label.replace(/[^a-z0-9.-]+/gi, "_")}`);
  await run("git", ["worktree", "add", "--detach", "--force", root, ref], REPO_ROOT);
  mkdirSync(join(root, "node_modules", "@apigen"), { recursive: true });
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (entry === "@apigen") continue;
    symlinkSync(join(REPO_ROOT, "node_modules", entry), join(root, "node_modules", entry), "junction");
  }
  // The generated code of that release imports its own runtime by package name.
  symlinkSync(join(root, "runtime"), join(root, "node_modules", "@apigen", "runtime"), "junction");
  return { label, root, version: await apiVersionOf(root) };
}

async function apiVersionOf(root: string): Promise<string> {
  return String((parseYaml(readFileSync(join(root, "operations.yaml"), "utf8")) as { api: { version: string } }).api.version);
}

/** Packs a tree's npm SDK with that tree's own pack script and installs it in a folder outside every tree. */
async function installSdk(tree: Tree, workDir: string): Promise<InstalledSdk> {
  const packDir = join(workDir, `packed-${tree.label}`);
  const env = { ...process.env };
  delete env.APIGEN_RELEASE_BASE;
  await run(process.execPath, [join(tree.root, "scripts", "pack.mjs"), "--out", packDir, "--only", "npm", "--first-release"], tree.root, env);
  const tarball = readdirSync(packDir).find((file) => /-sdk-.*\.tgz$/.test(file));
  if (!tarball) throw new Error(`${tree.label}: pack made no SDK tarball in ${packDir}`);
  const dir = join(workDir, `sdk-${tree.label}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `compat-${tree.label.replace(/[^a-z0-9.-]+/gi, "-").toLowerCase()}`, private: true, type: "module" }));
  await run("npm", ["install", join(packDir, tarball), "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir);
  copyFileSync(join(HERE, "sdk-runner.mjs"), join(dir, "sdk-runner.mjs"));
  const { name: packageName } = JSON.parse(readFileSync(join(tree.root, "generated", "packages", "sdk", "package.json"), "utf8")) as { name: string };
  return { tree, dir, packageName };
}

/** Starts a tree's service (test/compat/service.ts of today's tree, loading that tree's code). */
async function startService(tree: Tree, plant?: Plant): Promise<Service> {
  const child = spawn(process.execPath, ["--import", "tsx", join(HERE, "service.ts"), "--tree", tree.root, "--admin-secret", ADMIN_SECRET, ...(plant ? ["--plant", plant] : [])], {
    cwd: tree.root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the service of ${tree.label} ended (${code}) before it listened:\n${stderr}`)));
  });
  const { httpUrl, grpcEndpoint } = JSON.parse(first) as { httpUrl: string; grpcEndpoint: string };
  return {
    tree,
    ...(plant ? { plant } : {}),
    httpUrl,
    grpcEndpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

export interface CompatOptions {
  /** Release refs to compare with, newest first (default: the release gate's base and the one before it). */
  bases?: { ref: string; label: string }[];
  /** Behaviour changes planted in today's service (tests): each is one more service of today's, run beside the true one. */
  plants?: Plant[];
  report?: string;
  out?: (line: string) => void;
}

/** The release gate's base and, when tags name them, the release before it. */
export async function releaseBases(): Promise<{ ref: string; label: string }[]> {
  const base = releaseBase(REPO_ROOT);
  if (!base) return [];
  const tags = (await run("git", ["tag", "--list", "v*", "--sort=-v:refname"], REPO_ROOT)).split("\n").filter((tag) => tag.trim() !== "");
  const index = tags.indexOf(base.ref);
  return index >= 0 && tags[index + 1] ? [base, { ref: tags[index + 1]!, label: tags[index + 1]! }] : [base];
}

export async function runCompat(options: CompatOptions = {}): Promise<CompatResult> {
  const started = Date.now();
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const bases = options.bases ?? (await releaseBases());
  const result: CompatResult = { bases: bases.map((b) => b.label), rows: [], failures: [], refusedAsNewer: [], seconds: 0 };
  if (bases.length === 0) {
    out("compat: no release to compare with (no APIGEN_RELEASE_BASE, v* tag or release.json); nothing to run");
    writeReport(result, options.report);
    return result;
  }
  const workDir = mkdtempSync(join(tmpdir(), "apigen-compat-"));
  const trees: Tree[] = [];
  const services: Service[] = [];
  const runners: SdkRunner[] = [];
  try {
    const today: Tree = { label: "today", root: REPO_ROOT, version: await apiVersionOf(REPO_ROOT) };
    for (const base of bases) trees.push(await checkout(base.ref, base.label, workDir));
    out(`compat: releases ${trees.map((t) => `${t.label} (${t.version})`).join(", ")} against today's tree (${today.version})`);
    const sdks = await Promise.all([...trees, today].map((tree) => installSdk(tree, workDir)));
    const todaySdk = sdks.at(-1)!;
    const todayService = await startService(today);
    const plantedServices = await Promise.all((options.plants ?? []).map((plant) => startService(today, plant)));
    services.push(todayService, ...plantedServices);
    for (const sdk of sdks) runners.push(new SdkRunner(sdk));
    const runnerOf = (sdk: InstalledSdk) => runners[sdks.indexOf(sdk)]!;

    for (const [index, tree] of trees.entries()) {
      const releaseService = await startService(tree);
      services.push(releaseService);
      const releaseSdk = sdks[index]!;
      const sdkLabel = (sdk: InstalledSdk) => `TypeScript ${sdk.tree.version} (${sdk.tree.label})`;
      // Each pair: the run that says what must hold (the release's SDK on its own service), and the one held to it.
      const pairs: { sdk: InstalledSdk; service: Service; against: Service; againstSdk: InstalledSdk }[] = [
        { sdk: releaseSdk, service: todayService, against: releaseService, againstSdk: releaseSdk },
        { sdk: todaySdk, service: releaseService, against: releaseService, againstSdk: releaseSdk },
        ...plantedServices.map((service) => ({ sdk: releaseSdk, service, against: releaseService, againstSdk: releaseSdk })),
      ];
      for (const pair of pairs) {
        for (const protocol of PROTOCOLS) {
          const serviceName = pair.service.tree === today ? `today${pair.service.plant ? ` with ${pair.service.plant} planted` : ""}` : pair.service.tree.label;
          const row: CompatRow = { sdk: sdkLabel(pair.sdk), service: `${serviceName} (${pair.service.tree.version})`, protocol, passed: 0, failed: 0, skipped: 0 };
          for (const [number, scenario] of COMPAT_SCENARIOS.entries()) {
            // Distinct names for the two runs, neither a part of the other: both may run on one service.
            const tag = `${pair.sdk.tree.label}-${pair.service.plant ?? "true"}-${protocol}-${number}`.replace(/[^a-z0-9-]+/gi, "-").toLowerCase();
            const expected = await replay(runnerOf(pair.againstSdk), pair.against, scenario, protocol, `${tag}-e`);
            const actual = await replay(runnerOf(pair.sdk), pair.service, scenario, protocol, `${tag}-a`);
            const verdict = judge(scenario, expected, actual);
            if (verdict.kind === "skipped") row.skipped++;
            else if (verdict.kind === "passed") row.passed++;
            else if (verdict.kind === "refused-as-newer") {
              // The client said, before sending, that the release's service is too old for the call: as it must.
              row.passed++;
              result.refusedAsNewer.push(`${scenario.name}, ${verdict.step} over ${protocol}`);
            } else {
              row.failed++;
              result.failures.push({
                sdk: row.sdk,
                service: row.service,
                protocol,
                scenario: scenario.name,
                step: verdict.step,
                expected: verdict.expected,
                actual: verdict.actual,
                differences: verdict.differences,
              });
            }
          }
          result.rows.push(row);
          out(`compat: ${row.sdk} → service ${row.service} over ${protocol}: ${row.passed} passed, ${row.failed} failed, ${row.skipped} skipped`);
        }
      }
    }
  } finally {
    await Promise.all(runners.map((runner) => runner.close()));
    await Promise.all(services.map((service) => service.stop()));
    for (const tree of trees) await run("git", ["worktree", "remove", "--force", tree.root], REPO_ROOT).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
  result.seconds = (Date.now() - started) / 1000;
  for (const failure of result.failures) out(`compat: FAILED ${failure.sdk} → ${failure.service} over ${failure.protocol}: "${failure.scenario}", ${failure.step}: ${failure.differences.join("; ")}`);
  writeReport(result, options.report);
  out(`compat: ${result.rows.reduce((n, r) => n + r.passed, 0)} passed, ${result.failures.length} failed, ${result.rows.reduce((n, r) => n + r.skipped, 0)} skipped in ${result.seconds.toFixed(0)} s`);
  return result;
}

type Verdict = { kind: "passed" } | { kind: "skipped" } | { kind: "refused-as-newer"; step: string } | { kind: "failed"; step: string; expected: string; actual: string; differences: string[] };

/**
 * A scenario holds when every step the release's run made answers the same now. Skipped: the
 * release's SDK could not make a call (an operation it lacks). An operation the newer SDK knows
 * but the older service lacks must be refused by the client before anything is sent.
 */
function judge(scenario: CompatScenario, expected: Outcome[], actual: Outcome[]): Verdict {
  if (expected.some((outcome) => "skipped" in outcome)) return { kind: "skipped" };
  for (const [index, want] of expected.entries()) {
    const step = `step ${index + 1} (${scenario.steps[index]!.operation})`;
    const got = actual[index];
    if (got && !("skipped" in got) && !got.ok && got.refused && /needs server .* or later/.test(got.message)) return { kind: "refused-as-newer", step };
    const before = comparable(want);
    const after = got ? comparable(got) : undefined;
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      const differences = got && "ok" in got && "ok" in want && got.ok && want.ok ? shapeDifferences(shapeOf(want.answer), shapeOf(got.answer)) : [`${headline(want)} → ${headline(got)}`];
      return { kind: "failed", step, expected: shown(want), actual: shown(got), differences };
    }
  }
  return { kind: "passed" };
}

export function reportMarkdown(result: CompatResult): string {
  const lines = ["# Compatibility run", ""];
  if (result.bases.length === 0) return `${lines.join("\n")}\nNo release to compare with: nothing was run.\n`;
  lines.push(
    `Releases: ${result.bases.join(", ")}. Every scenario of test/compat/scenarios.ts, replayed by each SDK on each protocol, must answer as the release's SDK did on the release's service (the same code; the same fields, each as empty or full; arrays as long). ${result.seconds.toFixed(0)} s.`,
    "",
    "| SDK | service | protocol | passed | failed | skipped |",
    "|---|---|---|---|---|---|",
    ...result.rows.map((row) => `| ${row.sdk} | ${row.service} | ${row.protocol} | ${row.passed} | ${row.failed} | ${row.skipped} |`),
    "",
  );
  if (result.refusedAsNewer.length > 0) lines.push(`Refused by today's SDK as newer than a release's service (as they must be): ${result.refusedAsNewer.join(", ")}.`, "");
  if (result.failures.length === 0) lines.push("No failure.");
  else {
    lines.push("## Failures", "");
    for (const failure of result.failures) {
      lines.push(
        `### ${failure.sdk} → ${failure.service}, ${failure.protocol}: ${failure.scenario}`,
        "",
        `${failure.step}: ${failure.differences.join("; ")}`,
        "",
        `- release: \`${failure.expected}\``,
        `- now: \`${failure.actual}\``,
        "",
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

function writeReport(result: CompatResult, report = join(REPO_ROOT, DEFAULT_REPORT)): void {
  mkdirSync(dirname(report), { recursive: true });
  writeFileSync(report, reportMarkdown(result));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { base: { type: "string", multiple: true }, report: { type: "string" } } });
  const result = await runCompat({
    ...(values.base ? { bases: values.base.map((ref) => ({ ref, label: ref })) } : {}),
    ...(values.report ? { report: values.report } : {}),
  });
  if (existsSync(values.report ?? join(REPO_ROOT, DEFAULT_REPORT))) process.stdout.write(`compat: report in ${values.report ?? DEFAULT_REPORT}\n`);
  if (result.failures.length > 0) process.exitCode = 1;
}
