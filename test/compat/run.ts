// `npm run compat [-- --base <ref>] [--report <file>]`: backward compatibility proven by running it.
// The SDKs as they were at the last release (the release gate's base: $APIGEN_RELEASE_BASE, the
// newest v* tag, or release.json) and at the release before it, each from its own commit checked
// out beside the repository (TypeScript packed by its pack script and Python built into a wheel by
// its own, each installed outside every tree; Go built from its module by its conformance runner),
// replay two sets of scenarios on every protocol they speak, against the service of their own
// release and against today's: the sequences of test/compat/scenarios.ts, and the release's
// conformance matrix (test/conformance/scenarios.ts, one per operation, each on a fresh world that
// matrix-host.ts sets up with the release's own code). Every call must answer the same code with
// the same fields. The other direction too: today's SDK against each release's service, where an
// operation newer than that service must be refused by the client before anything is sent. The
// report (Markdown, beside the contract diff's) lists SDK version × service × protocol × set of
// scenarios, and each failure with its scenario and both answers. Without a release there is
// nothing to compare: the run says so and passes.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { releaseBase } from "../../scripts/release-gate.mjs";
import { COMPAT_SCENARIOS, type CompatScenario, type CompatValues } from "./scenarios.js";
import type { Plant } from "./plants.js";
import { linkedWorktree, removeWorktrees } from "../helpers/worktree.js";

const execFileAsync = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(HERE, "..", "..");
const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
type Protocol = (typeof PROTOCOLS)[number];
const ADMIN_SECRET = "compat-admin-secret";
const CALL_TIMEOUT_MS = 90_000;
export const DEFAULT_REPORT = "dist/compat-report.md";

const run = async (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> => {
  try {
    return (await execFileAsync(file, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}: ${failed.message}\n${failed.stderr ?? ""}${failed.stdout ?? ""}`);
  }
};

/** One tree the run uses: today's working tree, or a release checked out beside it. */
interface Tree {
  label: string;
  root: string;
  version: string;
}

/** One SDK of one tree in one language (and variant), and the process that makes its calls. */
interface SdkClient {
  language: "TypeScript" | "Python" | "Go";
  /** Python's sync or async client. */
  variant?: string;
  tree: Tree;
  runner: SdkRunner;
}

const sdkLabel = (sdk: SdkClient) => `${sdk.language}${sdk.variant ? ` ${sdk.variant}` : ""} ${sdk.tree.version} (${sdk.tree.label})`;

/** A call as the compatibility run makes it. */
interface CompatCall {
  surface: "admin" | "user" | "oauth";
  operation: string;
  protocol: Protocol;
  input: Record<string, unknown>;
  accessToken: string | null;
  /** Per-call headers (the matrix's nobody on the admin surface sends an empty admin secret). */
  headers?: Record<string, string>;
  config: {
    serviceUrl: string;
    grpcEndpoint: string;
    serverVersion: string;
    adminSecret: string;
    /** An org-admin's token, carried by the admin client instead of the secret. */
    adminAccessToken?: string;
    clientId: string;
  };
}

/**
 * The request line of the conformance runners (test/conformance/runners.ts), which every tree has
 * for Python and Go: the release's own runner drives the release's own SDK.
 */
const conformanceLine = (mode: string) => (id: number, call: CompatCall) => ({
  id,
  mode,
  surface: call.surface,
  operation: call.operation,
  protocol: call.protocol,
  input: call.input,
  headers: call.headers ?? {},
  access_token: call.accessToken,
  config: {
    service_url: call.config.serviceUrl,
    grpc_endpoint: call.config.grpcEndpoint,
    server_version: call.config.serverVersion,
    ...(call.surface !== "admin"
      ? { client_id: call.config.clientId }
      : call.config.adminAccessToken
        ? { admin_access_token: call.config.adminAccessToken }
        : { admin_secret: call.config.adminSecret }),
  },
});

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
 * nulls as they are, arrays element by element (so their lengths count), objects key by key (in key order). Ids,
 * times and tokens differ between two services; their presence, kind and emptiness may not.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value === "" ? "" : "<text>";
  if (typeof value === "number") return "<number>";
  if (Array.isArray(value)) return value.map(shapeOf);
  // Keys in order: a map or a JSON object may come back in another order over another protocol or language.
  if (typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, field]) => [key, shapeOf(field)]),
    );
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

/** One SDK's process, answering calls one at a time (a line each way). */
class SdkRunner {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (outcome: Outcome) => void>();
  private nextId = 1;
  private stderr = "";

  constructor(
    command: string,
    args: string[],
    options: { cwd: string; env?: NodeJS.ProcessEnv },
    /** The request line this runner reads; the compat run's own by default (sdk-runner.mjs). */
    private readonly line: (id: number, call: CompatCall) => Record<string, unknown> = (id, call) => ({ id, ...call }),
    /** The operations and protocols its SDK has: a call it lacks is skipped without asking the runner. */
    private readonly carries?: (operation: string, protocol: Protocol) => boolean,
  ) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString("utf8")).slice(-8000)));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message: { id?: number; crash?: string } & Record<string, unknown>;
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return;
      }
      const resolve = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!resolve) return;
      this.pending.delete(message.id!);
      const { id: _id, crash, ...rest } = message;
      resolve(crash !== undefined ? { ok: false, code: "CRASH", refused: false, message: String(crash) } : (rest as unknown as Outcome));
    });
    const end = (reason: string) => {
      this.ended ??= reason;
      for (const resolve of this.pending.values()) resolve({ ok: false, code: "CRASH", refused: false, message: this.ended });
      this.pending.clear();
    };
    this.child.on("exit", (code, signal) => end(`the runner ended (${signal ?? code}): ${this.stderr.slice(-2000)}`));
    this.child.on("error", (error) => end(`the runner could not run: ${error.message}`));
    // A runner that ended takes no more lines; the write's error is its exit's, reported above.
    this.child.stdin.on("error", () => {});
  }

  /** Why the runner ended, once it has. */
  private ended: string | undefined;

  call(call: CompatCall): Promise<Outcome> {
    if (this.carries && !this.carries(call.operation, call.protocol)) return Promise.resolve({ skipped: `this SDK has no ${call.operation} over ${call.protocol}` });
    if (this.ended) return Promise.resolve({ ok: false, code: "CRASH", refused: false, message: this.ended });
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Every SDK's own deadline is 60 s: a runner silent for longer has hung.
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, code: "CRASH", refused: false, message: `no answer from the runner in ${CALL_TIMEOUT_MS / 1000} s` });
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      this.child.stdin.write(`${JSON.stringify(this.line(id, call))}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    setTimeout(() => this.child.kill("SIGKILL"), 5000).unref();
    await exited;
  }
}

/** A scenario's outcomes over one protocol, step by step; a failed step ends it. */
async function replay(runner: SdkRunner, service: Service, scenario: CompatScenario, protocol: Protocol, tag: string): Promise<Outcome[]> {
  const serverVersion = service.tree.version;
  const values: CompatValues = {};
  const outcomes: Outcome[] = [];
  for (const step of scenario.steps) {
    const outcome = await runner.call({
      surface: step.surface,
      operation: step.operation,
      protocol,
      input: step.input(values, tag),
      accessToken: step.accessToken ? (values[step.accessToken] ?? null) : null,
      config: { serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, serverVersion, adminSecret: ADMIN_SECRET, clientId: "compat" },
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
  /** The compat scenarios (test/compat/scenarios.ts) or the release's conformance matrix (test/conformance/scenarios.ts). */
  suite: "compat scenarios" | "conformance matrix";
  passed: number;
  failed: number;
  skipped: number;
  /** Differences a breaking change the manifest accepts explains. */
  accepted: number;
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
  /** Differences explained by a breaking change accepted in the manifest under the right version. */
  accepted: (CompatFailure & { change: string })[];
  /** Matrix scenarios a release's SDK did not pass at its own release: skipped, as nothing holds them now. */
  notPassedAtRelease: string[];
  /** Operations whose matrix scenario calls with another input shape today than at a release: skipped. */
  changedScenarios: Set<string>;
  seconds: number;
}

/** A checkout of `ref` beside the repository, its dependencies linked from today's (its own runtime in place of today's). */
async function checkout(ref: string, label: string, workDir: string, register: (root: string) => void): Promise<Tree> {
  const root = await linkedWorktree(ref, join(workDir, `tree-${label.replace(/[^a-z0-9.-]+/gi, "_")}`), register);
  return { label, root, version: await apiVersionOf(root) };
}

async function apiVersionOf(root: string): Promise<string> {
  return String((parseYaml(readFileSync(join(root, "operations.yaml"), "utf8")) as { api: { version: string } }).api.version);
}

/** A breaking change the manifest accepts (api.breaking_changes_accepted): its id, the version it ships in. */
export interface Acceptance {
  change: string;
  version: string;
}

function acceptancesOf(root: string): Acceptance[] {
  const manifest = parseYaml(readFileSync(join(root, "operations.yaml"), "utf8")) as { api: { breaking_changes_accepted?: Acceptance[] } };
  return manifest.api.breaking_changes_accepted ?? [];
}

const versionParts = (version: string) => version.split(/[.-]/).slice(0, 3).map(Number) as [number, number, number];

/** Whether `newer` is a breaking release after `older` by semver: a new major, or a new minor below 1.0. */
function breakingBump(older: string, newer: string): boolean {
  const [oldMajor, oldMinor] = versionParts(older);
  const [newMajor, newMinor] = versionParts(newer);
  return newMajor > oldMajor || (oldMajor === 0 && newMajor === 0 && newMinor > oldMinor);
}

/**
 * The id of the accepted breaking change that explains a difference in `operation` between the
 * release `releaseVersion` and `newerVersion`, or undefined: an acceptance naming the operation
 * (`<kind>:<operation>[.<field>]`), shipped after the release and no later than the newer version,
 * which is a breaking bump from the release. Without the bump the difference stays a failure.
 */
export function acceptanceOf(operation: string, acceptances: readonly Acceptance[], releaseVersion: string, newerVersion: string): string | undefined {
  if (!breakingBump(releaseVersion, newerVersion)) return undefined;
  const after = (a: string, b: string) => {
    const [x, y] = [versionParts(a), versionParts(b)];
    return x[0] !== y[0] ? x[0] > y[0] : x[1] !== y[1] ? x[1] > y[1] : x[2] > y[2];
  };
  return acceptances.find(({ change, version }) => {
    const subject = change.slice(change.indexOf(":") + 1).split(".")[0];
    return subject === operation && after(version, releaseVersion) && !after(version, newerVersion);
  })?.change;
}

/** The operations of a tree's manifest and the protocols each is carried on: what its SDKs have. */
function carriedBy(tree: Tree): (operation: string, protocol: Protocol) => boolean {
  const manifest = parseYaml(readFileSync(join(tree.root, "operations.yaml"), "utf8")) as { operations: Record<string, { protocols?: Record<string, unknown> }> };
  return (operation, protocol) => manifest.operations[operation]?.protocols?.[protocol] !== undefined;
}

/** The TypeScript SDK of a tree: packed with that tree's own pack script, installed in a folder outside every tree. */
async function typescriptSdk(tree: Tree, workDir: string, register: (client: SdkClient) => void): Promise<void> {
  const packDir = join(workDir, `packed-${tree.label}`);
  // The tree's own packing, without its release gate: a release is compared with nothing here, and today's tree may not be bumped yet.
  const script = `const { packPackages } = await import(${JSON.stringify(pathToFileURL(join(tree.root, "scripts", "pack.mjs")).href)}); await packPackages({ root: ${JSON.stringify(tree.root)}, outDir: ${JSON.stringify(packDir)} });`;
  await run(process.execPath, ["--input-type=module", "-e", script], tree.root);
  const tarball = readdirSync(packDir).find((file) => /-sdk-.*\.tgz$/.test(file));
  if (!tarball) throw new Error(`${tree.label}: pack made no SDK tarball in ${packDir}`);
  const dir = join(workDir, `sdk-${tree.label}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `compat-${tree.label.replace(/[^a-z0-9.-]+/gi, "-").toLowerCase()}`, private: true, type: "module" }));
  await run("npm", ["install", join(packDir, tarball), "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir);
  copyFileSync(join(HERE, "sdk-runner.mjs"), join(dir, "sdk-runner.mjs"));
  const { name: packageName } = JSON.parse(readFileSync(join(tree.root, "generated", "packages", "sdk", "package.json"), "utf8")) as { name: string };
  register({ language: "TypeScript", tree, runner: new SdkRunner(process.execPath, [join(dir, "sdk-runner.mjs"), packageName], { cwd: dir }) });
}

/**
 * The Python SDK of a tree (sync and async), driven by that tree's own conformance runner: the wheel
 * that tree's own pack-python.mjs builds, installed in a folder outside every tree and first on the
 * path of the test virtualenv's interpreter (which has the SDK's dependencies).
 */
async function pythonSdks(tree: Tree, workDir: string, register: (client: SdkClient) => void): Promise<void> {
  const { python } = await ensurePythonEnv();
  const packDir = join(workDir, `python-packed-${tree.label}`);
  const script = `const { packPython } = await import(${JSON.stringify(pathToFileURL(join(tree.root, "scripts", "pack-python.mjs")).href)}); await packPython({ root: ${JSON.stringify(tree.root)}, outDir: ${JSON.stringify(packDir)}, python: ${JSON.stringify(python)} });`;
  await run(process.execPath, ["--input-type=module", "-e", script], tree.root);
  const wheel = readdirSync(packDir).find((file) => file.endsWith(".whl"));
  if (!wheel) throw new Error(`${tree.label}: pack-python made no wheel in ${packDir}`);
  const installed = join(workDir, `python-sdk-${tree.label}`);
  await run(python, ["-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", installed, join(packDir, wheel)], workDir);
  const env = { ...process.env, PYTHONPATH: installed };
  for (const variant of ["sync", "async"]) {
    register({
      language: "Python",
      variant,
      tree,
      runner: new SdkRunner(python, [join(tree.root, "test", "python", "conformance_runner.py")], { cwd: tree.root, env }, conformanceLine(variant), carriedBy(tree)),
    });
  }
}

/** The Go SDK of a tree, driven by that tree's own conformance runner, built by that tree's own scripts/go-env.mjs against its generated module. */
async function goSdk(tree: Tree, register: (client: SdkClient) => void): Promise<void> {
  const script = `const { goBinary } = await import(${JSON.stringify(pathToFileURL(join(tree.root, "scripts", "go-env.mjs")).href)}); process.stdout.write(JSON.stringify(await goBinary("runner", { log: () => {} })));`;
  const { binary } = JSON.parse(await run(process.execPath, ["--input-type=module", "-e", script], tree.root)) as { binary: string };
  register({ language: "Go", tree, runner: new SdkRunner(binary, [], { cwd: tree.root }, conformanceLine("sync"), carriedBy(tree)) });
}

/** Every SDK of a tree, in a fixed order (TypeScript, Python sync and async, Go); each is registered as soon as its runner starts, so that a failure stops them all. */
async function sdksOf(tree: Tree, workDir: string, register: (client: SdkClient) => void): Promise<SdkClient[]> {
  const started: SdkClient[] = [];
  const add = (client: SdkClient) => {
    started.push(client);
    register(client);
  };
  const settled = await Promise.allSettled([typescriptSdk(tree, workDir, add), pythonSdks(tree, workDir, add), goSdk(tree, add)]);
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failed) throw failed.reason;
  const order = (client: SdkClient) => ["TypeScript", "Python sync", "Python async", "Go"].indexOf(`${client.language}${client.variant ? ` ${client.variant}` : ""}`);
  return started.sort((a, b) => order(a) - order(b));
}

/** Starts a tree's service (test/compat/service.ts of today's tree, loading that tree's code). */
/**
 * Starts one of today's scripts of this folder (`script`) on a tree, and answers it once it has
 * printed its first line (its addresses, as JSON). Its stdin is the run's: when the run ends,
 * however it ends, the process does too. `what` names it in errors.
 */
async function startTreeProcess(script: string, args: readonly string[], tree: Tree, what: string) {
  const child = spawn(process.execPath, ["--import", "tsx", join(HERE, script), "--tree", tree.root, ...args], { cwd: tree.root, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-8000)));
  child.stdin.on("error", () => {});
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the ${what} of ${tree.label} ended (${code}) before it listened:\n${stderr}`)));
    child.once("error", (error) => reject(new Error(`the ${what} of ${tree.label} could not start: ${error.message}`)));
  });
  return { child, lines, first, stderr: () => stderr };
}

async function startService(tree: Tree, plant?: Plant): Promise<Service> {
  const { child, first } = await startTreeProcess("service.ts", ["--admin-secret", ADMIN_SECRET, ...(plant ? ["--plant", plant] : [])], tree, "service");
  const { httpUrl, grpcEndpoint } = JSON.parse(first) as { httpUrl: string; grpcEndpoint: string };
  return {
    tree,
    ...(plant ? { plant } : {}),
    httpUrl,
    grpcEndpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      }),
  };
}

/** One scenario of a tree's conformance matrix: its operation, what it shows, the code it fails with (null: it succeeds). */
interface MatrixScenario {
  operation: string;
  about: string;
  fails: string | null;
}

/** A call of the matrix as a tree's host prepared it: a fresh world set up, the input and the caller's credentials. */
interface PreparedCall {
  surface: CompatCall["surface"];
  input: Record<string, unknown>;
  headers: Record<string, string>;
  accessToken: string | null;
  adminAccessToken: string | null;
}

/**
 * A tree's conformance matrix, hosted by test/compat/matrix-host.ts (today's, loading that tree's
 * code and scenarios): one fresh deterministic world per prepared call, as the tree's own matrix runs.
 */
class MatrixHost {
  private readonly pending = new Map<number, (answer: PreparedCall | { error: string }) => void>();
  private nextId = 1;
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** The end of what the host wrote on stderr, to explain its end. */
    stderr: () => string,
    readonly tree: Tree,
    readonly httpUrl: string,
    readonly grpcEndpoint: string,
    readonly adminSecret: string,
    readonly scenarios: ReadonlyMap<string, MatrixScenario>,
  ) {
    child.on("exit", (code, signal) => {
      for (const resolve of this.pending.values()) resolve({ error: `the matrix host of ${tree.label} ended (${signal ?? code}): ${stderr().slice(-2000)}` });
      this.pending.clear();
    });
  }

  static async start(tree: Tree): Promise<MatrixHost> {
    const { child, lines, first, stderr } = await startTreeProcess("matrix-host.ts", [], tree, "matrix host");
    const { httpUrl, grpcEndpoint, adminSecret, scenarios } = JSON.parse(first) as { httpUrl: string; grpcEndpoint: string; adminSecret: string; scenarios: MatrixScenario[] };
    const host = new MatrixHost(child, stderr, tree, httpUrl, grpcEndpoint, adminSecret, new Map(scenarios.map((scenario) => [scenario.operation, scenario])));
    lines.on("line", (line) => {
      const { id, ...answer } = JSON.parse(line) as { id: number } & (PreparedCall | { error: string });
      host.pending.get(id)?.(answer);
      host.pending.delete(id);
    });
    return host;
  }

  /** A fresh world set up for the scenario of `operation`; throws when its setup failed. */
  async prepare(operation: string): Promise<PreparedCall> {
    const id = this.nextId++;
    const answer = await new Promise<PreparedCall | { error: string }>((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, operation })}\n`);
    });
    if ("error" in answer) throw new Error(`the setup of ${operation} on ${this.tree.label} failed: ${answer.error}`);
    return answer;
  }

  /** The call an SDK makes for a prepared scenario. */
  call(operation: string, prepared: PreparedCall, protocol: Protocol): CompatCall {
    return {
      surface: prepared.surface,
      operation,
      protocol,
      input: prepared.input,
      accessToken: prepared.accessToken,
      headers: prepared.headers,
      config: {
        serviceUrl: this.httpUrl,
        grpcEndpoint: this.grpcEndpoint,
        serverVersion: this.tree.version,
        adminSecret: this.adminSecret,
        ...(prepared.adminAccessToken ? { adminAccessToken: prepared.adminAccessToken } : {}),
        // The client every tree's matrix setup signs its users in with.
        clientId: "reference",
      },
    };
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.stdin.end();
      setTimeout(() => this.child.kill("SIGKILL"), 10_000).unref();
    });
  }
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
  const result: CompatResult = { bases: bases.map((b) => b.label), rows: [], failures: [], refusedAsNewer: [], accepted: [], notPassedAtRelease: [], changedScenarios: new Set(), seconds: 0 };
  const acceptances = acceptancesOf(REPO_ROOT);
  // A run that stops before its end leaves no report of an earlier one behind.
  rmSync(options.report ?? join(REPO_ROOT, DEFAULT_REPORT), { force: true });
  if (bases.length === 0) {
    out("compat: no release to compare with (no APIGEN_RELEASE_BASE, v* tag or release.json); nothing to run");
    writeReport(result, options.report);
    return result;
  }
  const workDir = mkdtempSync(join(tmpdir(), "apigen-compat-"));
  const trees: Tree[] = [];
  const worktrees: string[] = [];
  const services: Service[] = [];
  const clients: SdkClient[] = [];
  /** Each tree's conformance matrix, and what each release SDK answered to it on its release's matrix (by SDK, protocol and operation). */
  const hosts = new Map<Tree, MatrixHost>();
  const releaseRuns = new Map<string, { prepared: PreparedCall; outcome: Outcome }>();
  try {
    const today: Tree = { label: "today", root: REPO_ROOT, version: await apiVersionOf(REPO_ROOT) };
    for (const base of bases) trees.push(await checkout(base.ref, base.label, workDir, (root) => worktrees.push(root)));
    out(`compat: releases ${trees.map((t) => `${t.label} (${t.version})`).join(", ")} against today's tree (${today.version})`);
    // One tree at a time: each build of a tree's SDKs is CPU-bound already.
    const sdksByTree = new Map<Tree, SdkClient[]>();
    for (const tree of [...trees, today]) sdksByTree.set(tree, await sdksOf(tree, workDir, (client) => clients.push(client)));
    const todayService = await startService(today);
    services.push(todayService);
    const plantedServices: Service[] = [];
    for (const plant of options.plants ?? []) {
      const service = await startService(today, plant);
      services.push(service);
      plantedServices.push(service);
    }

    for (const tree of [...trees, today]) hosts.set(tree, await MatrixHost.start(tree));
    for (const tree of trees) {
      const releaseService = await startService(tree);
      services.push(releaseService);
      // For each language (and variant): the release's SDK against today's services, and today's against the release's;
      // each held to what the release's SDK answers on the release's service.
      const pairs: { sdk: SdkClient; service: Service; against: Service; againstSdk: SdkClient }[] = [];
      for (const [index, releaseSdk] of sdksByTree.get(tree)!.entries()) {
        const todaySdk = sdksByTree.get(today)![index]!;
        pairs.push(
          { sdk: releaseSdk, service: todayService, against: releaseService, againstSdk: releaseSdk },
          { sdk: todaySdk, service: releaseService, against: releaseService, againstSdk: releaseSdk },
          ...plantedServices.map((service) => ({ sdk: releaseSdk, service, against: releaseService, againstSdk: releaseSdk })),
        );
      }
      for (const pair of pairs) {
        for (const protocol of PROTOCOLS) {
          const serviceName = pair.service.tree === today ? `today${pair.service.plant ? ` with ${pair.service.plant} planted` : ""}` : pair.service.tree.label;
          const newRow = (suite: CompatRow["suite"]): CompatRow => ({
            sdk: sdkLabel(pair.sdk),
            service: `${serviceName} (${pair.service.tree.version})`,
            protocol,
            suite,
            passed: 0,
            failed: 0,
            skipped: 0,
            accepted: 0,
          });
          /** Counts a verdict in `row`; a failure is listed, or reported as accepted when the manifest accepts the change under the right version. */
          const record = (row: CompatRow, scenario: string, verdict: Verdict) => {
            if (verdict.kind === "skipped") row.skipped++;
            else if (verdict.kind === "passed") row.passed++;
            else if (verdict.kind === "refused-as-newer") {
              // The client said, before sending, that the release's service is too old for the call: as it must.
              row.passed++;
              result.refusedAsNewer.push(`${row.sdk}: ${scenario}, ${verdict.step} over ${protocol}`);
            } else {
              const failure: CompatFailure = {
                sdk: row.sdk,
                service: row.service,
                protocol,
                scenario,
                step: verdict.step,
                expected: verdict.expected,
                actual: verdict.actual,
                differences: verdict.differences,
              };
              // A change the manifest accepts as breaking, shipped under the major version it calls for, is reported, not failed.
              const operation = /\(([a-z0-9_]+)\)$/.exec(verdict.step)?.[1] ?? "";
              const newer = pair.service.tree === today ? today : pair.sdk.tree;
              const acceptance = verdict.compared ? acceptanceOf(operation, acceptances, tree.version, newer.version) : undefined;
              if (acceptance) {
                row.accepted++;
                result.accepted.push({ ...failure, change: acceptance });
              } else {
                row.failed++;
                result.failures.push(failure);
              }
            }
          };
          const finish = (row: CompatRow) => {
            result.rows.push(row);
            out(
              `compat: ${row.sdk} → service ${row.service} over ${protocol}, ${row.suite}: ${row.passed} passed, ${row.failed} failed, ${row.skipped} skipped${row.accepted > 0 ? `, ${row.accepted} accepted` : ""}`,
            );
          };

          const row = newRow("compat scenarios");
          for (const [number, scenario] of COMPAT_SCENARIOS.entries()) {
            // Distinct names for the two runs, neither a part of the other: both may run on one service.
            const tag = [pair.sdk.language, pair.sdk.variant, pair.sdk.tree.label, pair.service.plant ?? "true", protocol, number]
              .filter((part) => part !== undefined)
              .join("-")
              .replace(/[^a-z0-9]+/gi, "-")
              .toLowerCase();
            const expected = await replay(pair.againstSdk.runner, pair.against, scenario, protocol, `${tag}-e`);
            const actual = await replay(pair.sdk.runner, pair.service, scenario, protocol, `${tag}-a`);
            record(row, scenario.name, judge(scenario, expected, actual, pair.sdk !== pair.againstSdk));
          }
          finish(row);

          // The conformance matrix of the release, one scenario per operation: planted services are the compat scenarios' to catch.
          if (pair.service.plant) continue;
          const matrixRow = newRow("conformance matrix");
          const releaseHost = hosts.get(tree)!;
          const serviceHost = hosts.get(pair.service.tree)!;
          for (const scenario of releaseHost.scenarios.values()) {
            const name = `${scenario.operation}: ${scenario.about}`;
            const key = `${sdkLabel(pair.againstSdk)} ${protocol} ${scenario.operation}`;
            if (!releaseRuns.has(key)) {
              const prepared = await releaseHost.prepare(scenario.operation);
              releaseRuns.set(key, { prepared, outcome: await pair.againstSdk.runner.call(releaseHost.call(scenario.operation, prepared, protocol)) });
            }
            const release = releaseRuns.get(key)!;
            const single: CompatScenario = {
              name,
              steps: [{ surface: release.prepared.surface, operation: scenario.operation, input: () => release.prepared.input, ...(scenario.fails ? { fails: scenario.fails } : {}) }],
            };
            // Only what the release's SDK passed at its release is held to now (a scenario it lacks is the newer client's to refuse).
            if (!("skipped" in release.outcome) && headline(release.outcome) !== (scenario.fails ?? "ok")) {
              matrixRow.skipped++;
              result.notPassedAtRelease.push(`${sdkLabel(pair.againstSdk)} over ${protocol}: ${name} (answered ${headline(release.outcome)})`);
              continue;
            }
            if (!serviceHost.scenarios.has(scenario.operation)) {
              matrixRow.skipped++;
              continue;
            }
            const prepared = await serviceHost.prepare(scenario.operation);
            // A scenario whose call changed shape since the release compares two different calls.
            if (JSON.stringify(shapeOf(prepared.input)) !== JSON.stringify(shapeOf(release.prepared.input))) {
              matrixRow.skipped++;
              result.changedScenarios.add(scenario.operation);
              continue;
            }
            const actual = await pair.sdk.runner.call(serviceHost.call(scenario.operation, prepared, protocol));
            record(matrixRow, name, judge(single, [release.outcome], [actual], pair.sdk !== pair.againstSdk));
          }
          finish(matrixRow);
        }
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.runner.close()));
    await Promise.all(services.map((service) => service.stop()));
    await Promise.all([...hosts.values()].map((host) => host.stop()));
    await removeWorktrees(worktrees);
    rmSync(workDir, { recursive: true, force: true });
  }
  result.seconds = (Date.now() - started) / 1000;
  for (const failure of result.failures) out(`compat: FAILED ${failure.sdk} → ${failure.service} over ${failure.protocol}: "${failure.scenario}", ${failure.step}: ${failure.differences.join("; ")}`);
  writeReport(result, options.report);
  out(`compat: ${result.rows.reduce((n, r) => n + r.passed, 0)} passed, ${result.failures.length} failed, ${result.rows.reduce((n, r) => n + r.skipped, 0)} skipped in ${result.seconds.toFixed(0)} s`);
  return result;
}

type Verdict =
  | { kind: "passed" }
  | { kind: "skipped" }
  | { kind: "refused-as-newer"; step: string }
  /** `compared`: the two answers differ (what an accepted breaking change may explain), as against a run that proves nothing. */
  | { kind: "failed"; step: string; expected: string; actual: string; differences: string[]; compared?: boolean };

/** Whether the client refused a call before sending it, because the service is older than the operation (§4.2). */
const refusedAsNewer = (outcome: Outcome | undefined): boolean => !!outcome && "code" in outcome && outcome.refused && /needs server .* or later/.test(outcome.message);

/**
 * A scenario holds when every step the release's run made answers the same now. Where the
 * release's SDK could not make a call (an operation it lacks), the scenario is skipped; but a newer
 * SDK (`newerClient`) replaying it against the release's service must refuse that call before
 * anything is sent, as newer than the service.
 */
export function judge(scenario: CompatScenario, expected: Outcome[], actual: Outcome[], newerClient = false): Verdict {
  const lacking = expected.findIndex((outcome) => "skipped" in outcome);
  if (lacking >= 0) {
    const step = `step ${lacking + 1} (${scenario.steps[lacking]!.operation})`;
    const got = actual[lacking];
    if (!newerClient || (got && "skipped" in got)) return { kind: "skipped" };
    if (refusedAsNewer(got)) return { kind: "refused-as-newer", step };
    return {
      kind: "failed",
      step,
      expected: shown(expected[lacking]),
      actual: shown(got),
      differences: [`the release's service has no ${scenario.steps[lacking]!.operation}: the client must refuse it before sending, as newer than the service`],
    };
  }
  // A runner that could not make a call proves nothing, on either side.
  for (const [side, outcomes] of [
    ["the release's run", expected],
    ["the run held to it", actual],
  ] as const) {
    const index = outcomes.findIndex((outcome) => "code" in outcome && outcome.code === "CRASH");
    if (index >= 0) {
      return {
        kind: "failed",
        step: `step ${index + 1} (${scenario.steps[index]!.operation})`,
        expected: shown(expected[index]),
        actual: shown(actual[index]),
        differences: [`${side}: the runner could not make the call`],
      };
    }
  }
  // The release's run must answer as the scenario says, or the comparison proves nothing (two equal refusals of a bad input).
  for (const [index, want] of expected.entries()) {
    const intended = scenario.steps[index]!.fails ?? "ok";
    if (headline(want) !== intended) {
      return {
        kind: "failed",
        step: `step ${index + 1} (${scenario.steps[index]!.operation})`,
        expected: shown(want),
        actual: shown(actual[index]),
        differences: [`the release's run answered ${headline(want)}, the scenario expects ${intended}`],
      };
    }
  }
  for (const [index, want] of expected.entries()) {
    const step = `step ${index + 1} (${scenario.steps[index]!.operation})`;
    const got = actual[index];
    const before = comparable(want);
    const after = got ? comparable(got) : undefined;
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      const differences = got && "ok" in got && "ok" in want && got.ok && want.ok ? shapeDifferences(shapeOf(want.answer), shapeOf(got.answer)) : [`${headline(want)} → ${headline(got)}`];
      return { kind: "failed", step, expected: shown(want), actual: shown(got), differences, compared: true };
    }
  }
  return { kind: "passed" };
}

export function reportMarkdown(result: CompatResult): string {
  const lines = ["# Compatibility run", ""];
  if (result.bases.length === 0) return `${lines.join("\n")}\nNo release to compare with: nothing was run.\n`;
  lines.push(
    `Releases: ${result.bases.join(", ")}. Every scenario of test/compat/scenarios.ts, and every scenario of the release's conformance matrix (test/conformance/scenarios.ts, one per operation, each on a fresh service) that the release's SDK passed at its release, replayed by each SDK on each protocol, must answer as the release's SDK did on the release's service (the same code; the same fields, each as empty or full; arrays as long). ${result.seconds.toFixed(0)} s.`,
    "",
    "| SDK | service | protocol | scenarios | passed | failed | skipped | accepted |",
    "|---|---|---|---|---|---|---|---|",
    ...result.rows.map((row) => `| ${row.sdk} | ${row.service} | ${row.protocol} | ${row.suite} | ${row.passed} | ${row.failed} | ${row.skipped} | ${row.accepted} |`),
    "",
  );
  if (result.changedScenarios.size > 0)
    lines.push(`Skipped as changed since the release (the matrix calls them with another input shape today): ${[...result.changedScenarios].sort().join(", ")}.`, "");
  if (result.notPassedAtRelease.length > 0) lines.push(`Skipped as not passed by the release's SDK at its release: ${result.notPassedAtRelease.join("; ")}.`, "");
  if (result.accepted.length > 0) {
    lines.push("## Accepted breaking changes", "", "Differences a breaking change of `api.breaking_changes_accepted` explains, shipped under the major version it calls for:", "");
    for (const accepted of result.accepted)
      lines.push(`- ${accepted.sdk} → ${accepted.service}, ${accepted.protocol}: ${accepted.scenario}, ${accepted.step} (\`${accepted.change}\`): ${accepted.differences.join("; ")}`);
    lines.push("");
  }
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

if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) {
  const { values } = parseArgs({ options: { base: { type: "string", multiple: true }, report: { type: "string" } } });
  const result = await runCompat({
    ...(values.base ? { bases: values.base.map((ref) => ({ ref, label: ref })) } : {}),
    ...(values.report ? { report: values.report } : {}),
  });
  if (existsSync(values.report ?? join(REPO_ROOT, DEFAULT_REPORT))) process.stdout.write(`compat: report in ${values.report ?? DEFAULT_REPORT}\n`);
  if (result.failures.length > 0) process.exitCode = 1;
}
