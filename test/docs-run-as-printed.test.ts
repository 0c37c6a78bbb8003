// The examples of README.md and docs/*.md run as printed. Every fenced block in a language the test
// runs (sh, bash, shell, console; ts, typescript; python, py; go) is taken from the Markdown and run
// against ONE reference service started here, unless the line before its fence marks it
// (CONTRIBUTING.md, "Examples in the docs"):
//
//   <!-- example: not run (<reason>) -->   it cannot run as printed: it reinstalls, publishes, needs
//                                          PostgreSQL or a certificate, keeps a server running, ...
//   <!-- example: output -->               it shows what a command prints, not something to run
//
// What the test fills in, so that the reader does not have to:
//   - the service. It listens on a loopback address of its own (127.x.y.z) with gRPC on the printed
//     port 9091, so a client that derives its gRPC endpoint from the service URL (host, port 9091)
//     reaches it; the printed localhost:8080 and localhost:9091 become that address, and its admin
//     secret is the printed one, s3cret-admin-key. A shell line `npm run serve -- <flags>` stands for
//     this service when the service's own parser (parseServeArgs) reads its flags as the settings
//     this service has (--admin-secret s3cret-admin-key); other flags need a marker;
//   - shell variables and process.env values: $SERVICE_URL, $ADMIN_SECRET, $SCIM_TOKEN (of an
//     organization's SCIM endpoint), $ACCESS_TOKEN (a signed-up user's), $REDIS_URL (a redis-server
//     started for it); bash runs with `set -euo pipefail`, so a variable nobody fills fails;
//   - curl's failure settings (.curlrc: fail-with-body, show-error, max-time): an HTTP error fails
//     the line; a shell example has 30 s (GNU timeout ends its process group), a longer one is marked;
//   - TypeScript: each example is a module in dist/docs-run-as-printed/ts, next to links to the
//     repository folders it imports ("./generated/..."), with the published package names mapped
//     by `paths` (from generated/packages/*/package.json); ALL are type-checked in one tsc program
//     (strict; unused names allowed), then imported one after another in one `node --import tsx`.
//     `implementation` (the reader's own, in docs/server.md) is the reference service's;
//   - Python: each example runs in the tests' virtualenv (scripts/python-env.mjs, the generated
//     package importable in place); a `print(...)  # text` line must print that text;
//   - Go: each example is the body of a function `func(ctx context.Context) error` of one program in
//     a module that requires the generated SDK through a `replace` directive (test/go/go.mod's
//     requirements and go.sum); imports of the standard library it uses are added, and each `...`
//     (code left out) becomes a call that uses the names in scope. One `go vet`, one `go build`,
//     one run.
// Each example must succeed (exit 0, nothing on stderr). The test prints how many ran of how many.
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../generated/client/index.js";
import { schema } from "../generated/schema.js";
import { parseServeArgs } from "../reference/cli.js";
import { goToolchain } from "../scripts/go-env.mjs";
import { ensurePythonEnv } from "../scripts/python-env.mjs";
import { runProcess } from "../scripts/run-process.mjs";
import { setupContext } from "./conformance/setup.js";
import { ensureDebianProgram } from "./helpers/apt.js";
import { ensureGoTool, GRPCURL } from "./helpers/go-tools.js";
import { REPO_ROOT } from "./helpers/project.js";
import { startRedis, type RedisServer } from "./helpers/redis.js";
import { createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type World } from "./helpers/reference-server.js";

/** The admin secret the docs print, which the test's service is started with. */
const PRINTED_ADMIN_SECRET = "s3cret-admin-key";
const PRINTED_HTTP_PORT = 8080;
const PRINTED_GRPC_PORT = schema.grpcPort;
const WORK_DIR = join(REPO_ROOT, "dist", "docs-run-as-printed");
const TSC = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");

type Language = "shell" | "ts" | "python" | "go";
const LANGUAGES: Record<string, Language> = { sh: "shell", bash: "shell", shell: "shell", console: "shell", ts: "ts", typescript: "ts", python: "python", py: "python", go: "go" };
const LANGUAGE_NAMES: Record<Language, string> = { shell: "shell", ts: "TypeScript", python: "Python", go: "Go" };

interface Example {
  /** file:line of the opening fence, such as "docs/server.md:205". */
  id: string;
  file: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** The fence's info string's first word, as printed (sh, ts, ...). */
  info: string;
  language: Language;
  code: string;
  /** Why it is not run, from its marker; undefined: it runs. */
  notRun?: string;
}

const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;

/** What a marker says: the reason the example is not run, or a problem with the marker. */
function readMarker(text: string): { notRun: string } | { problem: string } {
  const notRun = /^not run \((.+)\)$/.exec(text);
  if (notRun) return { notRun: notRun[1]! };
  if (text === "output") return { notRun: "output" };
  return { problem: `unknown marker "${text}": use "not run (<reason>)" or "output"` };
}

/** Every fenced block of the counted languages in `file`, and the markers that stand before no such block. */
function extract(file: string): { examples: Example[]; problems: string[] } {
  const lines = readFileSync(join(REPO_ROOT, file), "utf8").split("\n");
  const examples: Example[] = [];
  const problems: string[] = [];
  const usedMarkers = new Set<number>();
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[index]!);
    if (!open) continue;
    const [indent, fence, info] = [open[1]!, open[2]!, open[3]!];
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    const code = lines
      .slice(index + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join("\n");
    const language = LANGUAGES[info.toLowerCase()];
    if (language) {
      const example: Example = { id: `${file}:${index + 1}`, file, line: index + 1, info, language, code };
      const marker = MARKER.exec(lines[index - 1]?.trim() ?? "");
      if (marker) {
        usedMarkers.add(index - 1);
        const read = readMarker(marker[1]!);
        if ("problem" in read) problems.push(`${file}:${index}: ${read.problem}`);
        else example.notRun = read.notRun;
      }
      examples.push(example);
    }
    index = end;
  }
  lines.forEach((line, index) => {
    if (MARKER.test(line.trim()) && !usedMarkers.has(index)) problems.push(`${file}:${index + 1}: a marker that does not stand on the line before a fence of ${Object.keys(LANGUAGES).join(", ")}`);
  });
  return { examples, problems };
}

const DOC_FILES = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const extracted = DOC_FILES.map(extract);
const EXAMPLES = extracted.flatMap((e) => e.examples);
const MARKER_PROBLEMS = extracted.flatMap((e) => e.problems);
const RUN = EXAMPLES.filter((e) => e.notRun === undefined);
const byLanguage = (language: Language) => RUN.filter((e) => e.language === language);

/** A file name for an example: README.md:84 -> README_md_84. */
const fileStem = (example: Example) => example.id.replace(/[^A-Za-z0-9]+/g, "_");

interface Outcome {
  ok: boolean;
  /** What went wrong, or what the run printed. */
  detail: string;
}
const outcomes = new Map<string, Outcome>();
const fail = (example: Example, detail: string) => outcomes.set(example.id, { ok: false, detail: `${outcomes.get(example.id)?.ok === false ? `${outcomes.get(example.id)!.detail}\n` : ""}${detail}` });
const pass = (example: Example, detail = "") => {
  if (outcomes.get(example.id)?.ok !== false) outcomes.set(example.id, { ok: true, detail });
};

let host: string;
let server: SwappableServer;
let world: World;
let admin: AdminClient;
let redis: RedisServer | undefined;
const timings: Record<string, number> = {};

async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

/** The printed addresses as the test's service: localhost:8080 -> its HTTP address, localhost:9091 -> its gRPC address. */
function fillAddresses(code: string): string {
  const httpPort = new URL(server.httpUrl).port;
  return code
    .replace(new RegExp(`\\b(?:localhost|127\\.0\\.0\\.1):${PRINTED_HTTP_PORT}\\b`, "g"), `${host}:${httpPort}`)
    .replace(new RegExp(`\\b(?:localhost|127\\.0\\.0\\.1):${PRINTED_GRPC_PORT}\\b`, "g"), `${host}:${PRINTED_GRPC_PORT}`);
}

/**
 * The service on a loopback address of its own with gRPC on the printed port, so that a client's
 * default gRPC endpoint (the service URL's host, port 9091) is this service and no other.
 */
async function startService(): Promise<void> {
  const keys = await makeTestKeys(1);
  world = createWorld(keys, "docs-run-as-printed");
  for (let attempt = 0; ; attempt++) {
    const bytes = [1 + Math.floor(Math.random() * 254), Math.floor(Math.random() * 256), 1 + Math.floor(Math.random() * 254)];
    host = `127.${bytes.join(".")}`;
    try {
      // With the service's mounts (SCIM at /scim/v2), as `npm run serve` has them.
      server = await startSwappableServer(world.service, { host, grpcPort: PRINTED_GRPC_PORT, adminSecret: PRINTED_ADMIN_SECRET, mounts: world.service.serverOptions.mounts });
      break;
    } catch (error) {
      if (attempt === 4) throw new Error(`could not listen on port ${PRINTED_GRPC_PORT} of a loopback address (is a process listening on 0.0.0.0:${PRINTED_GRPC_PORT}?): ${(error as Error).message}`);
    }
  }
  admin = new AdminClient({ serviceUrl: server.httpUrl, adminSecret: PRINTED_ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false });
}

/** The values of shell variables and process.env names the examples use, each made once when first asked for. */
const variableProviders: Record<string, () => Promise<string>> = {
  SERVICE_URL: async () => (await serviceStarted, server.httpUrl),
  ADMIN_SECRET: async () => PRINTED_ADMIN_SECRET,
  SCIM_TOKEN: async () => {
    await serviceStarted;
    return (await admin.createSCIMEndpoint({ org_id: await setupContext(world, server.httpUrl, admin).createOrg("docs-scim") })).token;
  },
  ACCESS_TOKEN: async () => {
    await serviceStarted;
    return (await setupContext(world, server.httpUrl, admin).signUp("reader@example.com")).accessToken;
  },
  REDIS_URL: async () => {
    redis = await startRedis();
    return redis.url;
  },
};
const variableValues = new Map<string, Promise<string>>();
async function variables(names: Iterable<string>): Promise<Record<string, string>> {
  const filled: Record<string, string> = {};
  for (const name of new Set(names)) {
    const provider = variableProviders[name];
    if (!provider) continue;
    if (!variableValues.has(name)) variableValues.set(name, provider());
    filled[name] = await variableValues.get(name)!;
  }
  return filled;
}

// ---------------------------------------------------------------------------------------------
// Shell

/** The commands of a shell example, continuation lines joined; for a console block, its `$ ` lines. */
function shellCommands(example: Example): string[] {
  let lines = example.code.split("\n");
  if (example.info === "console" && lines.some((line) => line.startsWith("$ "))) lines = lines.filter((line) => line.startsWith("$ ")).map((line) => line.slice(2));
  const commands: string[] = [];
  let current = "";
  for (const line of lines) {
    current += line;
    if (line.endsWith("\\")) current += "\n";
    else {
      commands.push(current);
      current = "";
    }
  }
  if (current) commands.push(current);
  return commands;
}

/** How long a shell example may take: one that takes longer belongs behind a marker (the suite's time is short). */
const SHELL_LIMIT_S = 30;
const SERVE = /^npm run serve(?:\s+--)?(?=\s|$)/;
const STAND_IN_SETTINGS = parseServeArgs(["--admin-secret", PRINTED_ADMIN_SECRET], {});

async function runShell(example: Example, env: Record<string, string>): Promise<void> {
  const script: string[] = [];
  let standIns = 0;
  for (const command of shellCommands(example)) {
    if (!SERVE.test(command.trim())) {
      script.push(command);
      continue;
    }
    // The flags as npm would hand them to the service (bash reads the line), read by the service's own parser.
    const argv = await runProcess("bash", ["-c", command.trim().replace(SERVE, "printf '%s\\0'")], { env });
    const args = argv.stdout.split("\0").slice(0, -1);
    let settings: unknown;
    try {
      settings = parseServeArgs(args, {});
    } catch (error) {
      fail(example, `\`${command.trim()}\`: the service refuses its flags: ${(error as Error).message}`);
      return;
    }
    if (!isDeepStrictEqual(settings, STAND_IN_SETTINGS)) {
      fail(example, `\`${command.trim()}\` asks for other settings than the test's service has (only --admin-secret ${PRINTED_ADMIN_SECRET}); mark the example <!-- example: not run (<reason>) -->`);
      return;
    }
    standIns++;
  }
  if (!script.some((command) => command.trim() !== "" && !command.trim().startsWith("#"))) {
    fail(example, `nothing runs once the test's service stands for \`npm run serve\` (${standIns} line); mark the example <!-- example: not run (<reason>) -->`);
    return;
  }
  const text = fillAddresses(script.join("\n"));
  const names = [...text.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((match) => match[1]!);
  // Under GNU timeout, which ends the example's whole process group when it takes too long.
  const result = await runProcess("timeout", ["--kill-after=5s", `${SHELL_LIMIT_S}s`, "bash", "-c", `set -euo pipefail\n${text}`], { cwd: REPO_ROOT, env: { ...env, ...(await variables(names)) } });
  if (result.code === 124 || result.code === 137) fail(example, `it did not finish within ${SHELL_LIMIT_S} s; an example that long is marked <!-- example: not run (<reason>) -->:\n${result.output}`);
  else if (result.code !== 0 || result.stderr !== "") fail(example, `bash exited ${result.code}:\n${result.output}`);
  else pass(example, result.stdout);
}

async function runShellExamples(): Promise<void> {
  const examples = byLanguage("shell");
  if (examples.length === 0) return;
  ensureDebianProgram("curl", "/usr/bin/curl", "test/docs-run-as-printed.test.ts");
  const grpcurl = (await ensureGoTool(GRPCURL)).path;
  const curlHome = join(WORK_DIR, "shell");
  mkdirSync(curlHome, { recursive: true });
  // curl as printed, with only its failures settled here: an HTTP error fails the command and says why; no call waits long.
  writeFileSync(join(curlHome, ".curlrc"), "fail-with-body\nshow-error\nmax-time = 20\n");
  const env = { ...process.env, PATH: `${join(grpcurl, "..")}:${process.env.PATH}`, CURL_HOME: curlHome, XDG_CONFIG_HOME: curlHome } as Record<string, string>;
  await Promise.all(examples.map((example) => runShell(example, env).catch((error: Error) => fail(example, error.stack ?? error.message))));
}

// ---------------------------------------------------------------------------------------------
// TypeScript

/** Names the prose gives a TypeScript example, filled by the harness module when the example uses them undeclared. */
const TS_GIVEN_NAMES = ["implementation"];

const TS_HARNESS = `// Written by test/docs-run-as-printed.test.ts: the names the docs' prose gives a TypeScript example.
import type { Implementation } from "./generated/server/index.js";

// The reader's implementation: the reference service's (on its in-memory store). Imported by a
// specifier tsc does not follow, so that the type check is of the examples, not of reference/.
const referenceService: string = "./reference/service.js";
const { createReferenceService } = (await import(referenceService)) as { createReferenceService(options: object): { implementation: Implementation } };
export const implementation: Implementation = createReferenceService({}).implementation;
`;

const TS_RUNNER = `// Written by test/docs-run-as-printed.test.ts: imports each example in turn, writes what happened.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [resultsFile, ...files] = process.argv.slice(2);
const results = {};
for (const file of files) {
  try {
    await Promise.race([
      import(pathToFileURL(file).href),
      new Promise((_, reject) => setTimeout(() => reject(new Error("did not finish within 30 s")), 30_000).unref()),
    ]);
    results[file] = "";
  } catch (error) {
    results[file] = String(error?.stack ?? error);
  }
}
writeFileSync(resultsFile, JSON.stringify(results));
process.exit(0);
`;

/** The published package names and their modules here, from generated/packages/*\/package.json. */
function packagePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  const packages = join(REPO_ROOT, "generated", "packages");
  for (const name of readdirSync(packages)) {
    const manifest = JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8")) as { name: string; exports?: Record<string, string | { default: string }> };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath.endsWith(".json")) continue;
      const file = typeof target === "string" ? target : target.default;
      paths[manifest.name + subpath.slice(1)] = [join(REPO_ROOT, file.replace(/\.js$/, ".ts"))];
    }
  }
  return paths;
}

async function runTypeScriptExamples(): Promise<void> {
  const examples = byLanguage("ts");
  if (examples.length === 0) return;
  const dir = join(WORK_DIR, "ts");
  mkdirSync(dir, { recursive: true });
  await serviceStarted; // its address is written into the examples
  // Only the examples of this run (the build info of the last type check stays: tsc --incremental).
  for (const name of readdirSync(dir)) if (name.endsWith(".ts") || name.endsWith(".mjs") || name.endsWith(".json")) rmSync(join(dir, name));
  const files = new Map<string, Example>();
  const linked = new Set<string>();
  const env: Record<string, string> = {};
  for (const example of examples) {
    let code = fillAddresses(example.code);
    const given = TS_GIVEN_NAMES.filter(
      (name) => new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`(?:\\b(?:const|let|var|function|class)\\s+|\\bimport\\s*(?:type\\s*)?\\{[^}]*\\b)${name}\\b`).test(code),
    );
    // Appended, not prepended: imports are hoisted, and the example's lines keep their numbers.
    if (given.length > 0) code += `\nimport { ${given.join(", ")} } from "./docs-harness.js";\n`;
    for (const match of code.matchAll(/from\s+["']\.\/([^/"']+)\//g)) linked.add(match[1]!);
    Object.assign(env, await variables([...code.matchAll(/process\.env\.([A-Z_][A-Z0-9_]*)/g)].map((match) => match[1]!)));
    const file = `${fileStem(example)}.ts`;
    writeFileSync(join(dir, file), code);
    files.set(file, example);
  }
  linked.add("generated").add("reference");
  for (const folder of linked) {
    if (!existsSync(join(REPO_ROOT, folder))) continue;
    rmSync(join(dir, folder), { force: true });
    symlinkSync(relative(dir, join(REPO_ROOT, folder)), join(dir, folder), "dir");
  }
  writeFileSync(join(dir, "docs-harness.ts"), TS_HARNESS);
  writeFileSync(join(dir, "runner.mjs"), TS_RUNNER);
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      esModuleInterop: true,
      skipLibCheck: true,
      resolveJsonModule: true,
      noEmit: true,
      incremental: true,
      tsBuildInfoFile: "./tsbuildinfo",
      types: ["node"],
      typeRoots: [join(REPO_ROOT, "node_modules", "@types")],
      paths: packagePaths(),
    },
    files: [...files.keys(), "docs-harness.ts"],
  };
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);

  const typeCheck = timed("tsc", () => runProcess(process.execPath, [TSC, "-p", dir, "--pretty", "false"], { cwd: dir }));
  const resultsFile = join(dir, "results.json");
  const run = timed("ts run", () =>
    runProcess(process.execPath, ["--import", "tsx", join(dir, "runner.mjs"), resultsFile, ...[...files.keys()].map((file) => join(dir, file))], {
      cwd: dir,
      env: { ...process.env, ...env, TSX_TSCONFIG_PATH: join(dir, "tsconfig.json") },
    }),
  );

  const checked = await typeCheck;
  if (checked.code !== 0) {
    // tsc's lines name the example's file and its line: told as the Markdown line.
    for (const line of checked.output.trim().split("\n")) {
      const at = /^(.*?)\((\d+),(\d+)\): (.*)$/.exec(line);
      const example = at ? files.get(at[1]!.replace(/^.*\//, "")) : undefined;
      if (example && at) fail(example, `tsc: ${example.file}:${example.line + Number(at[2])}:${at[3]}: ${at[4]}`);
      else for (const each of examples) fail(each, `tsc: ${line}`);
    }
  }
  const ran = await run;
  const results = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, "utf8")) as Record<string, string>) : {};
  for (const [file, example] of files) {
    const error = results[join(dir, file)];
    if (error === undefined) fail(example, `the runner did not run it (exit ${ran.code}):\n${ran.output}`);
    else if (error !== "") fail(example, `it threw: ${error}`);
    else pass(example);
  }
  if (ran.stderr !== "") for (const example of files.values()) fail(example, `the runner wrote to stderr:\n${ran.stderr}`);
}

// ---------------------------------------------------------------------------------------------
// Python

/** The lines a Python example says it prints: `print(...)  # NOT_FOUND rest`. */
const printedLines = (code: string) => [...code.matchAll(/^\s*print\(.*\)\s+#\s*(.+?)\s*$/gm)].map((match) => match[1]!);

async function runPythonExamples(): Promise<void> {
  const examples = byLanguage("python");
  if (examples.length === 0) return;
  const { python } = await timed("python env", () => ensurePythonEnv({ log: (line) => console.log(line) }));
  await serviceStarted;
  const dir = join(WORK_DIR, "python");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await timed("python", () =>
    Promise.all(
      examples.map(async (example) => {
        const file = join(dir, `${fileStem(example)}.py`);
        writeFileSync(file, fillAddresses(example.code));
        const result = await runProcess(python, [file], { cwd: dir, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", GRPC_VERBOSITY: "ERROR" } });
        if (result.code !== 0 || result.stderr !== "") return fail(example, `python exited ${result.code}:\n${result.output}`);
        const printed = result.stdout.split("\n");
        const missing = printedLines(example.code).filter((line) => !printed.includes(line));
        if (missing.length > 0) return fail(example, `it did not print ${missing.map((line) => JSON.stringify(line)).join(", ")} as its comments say; it printed:\n${result.stdout}`);
        pass(example, result.stdout);
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Go

/** Packages of the standard library an example may use without importing them (it shows a function's body). */
const GO_STANDARD = ["context", "errors", "fmt", "log", "os", "strings", "time"];

/** An example as the body of `func <name>(ctx context.Context) error`, in a file of package main. */
function goFile(example: Example, name: string): { source: string; lineOf: (fileLine: number) => number } {
  const lines = fillAddresses(example.code).split("\n");
  const imports: string[] = [];
  let index = 0;
  for (; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === "") continue;
    const single = /^import\s+(.+)$/.exec(line);
    if (!single) break;
    if (single[1] === "(") {
      while (lines[++index]!.trim() !== ")") if (lines[index]!.trim()) imports.push(lines[index]!.trim());
    } else imports.push(single[1]!);
  }
  const body = lines.slice(index);
  const code = body.join("\n");
  const imported = (pkg: string) => imports.some((spec) => spec.endsWith(`"${pkg}"`));
  for (const pkg of GO_STANDARD) if ((pkg === "context" || new RegExp(`\\b${pkg}\\.`).test(code)) && !imported(pkg)) imports.unshift(`"${pkg}"`);

  // `...` is code the example leaves out: filled with a call that uses every name in scope there,
  // as that code would (Go refuses a name declared and never used).
  const scopes: string[][] = [[]];
  const filled = body.map((line) => {
    const bare = line.replace(/\/\/.*$/, "").replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/g, '""');
    const visible = () => [...new Set(scopes.flat())].join(", ");
    let out = line;
    if (/^\s*\.\.\.\s*$/.test(line)) out = line.replace("...", `elided(${visible()})`);
    else out = line.replace(/\{\s*\.\.\.\s*\}/g, () => `{ elided(${visible()}) }`);
    const declared = /^\s*(?:for\s+)?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:=/.exec(bare)?.[1] ?? /^\s*var\s+([A-Za-z_]\w*)/.exec(bare)?.[1];
    const names = declared
      ? declared
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "_")
      : [];
    const loop = /^\s*for\s/.test(bare);
    if (!loop) scopes.at(-1)!.push(...names);
    const depth = scopes.length;
    for (const char of bare.replace(/\{\s*\.\.\.\s*\}/g, "")) {
      if (char === "{") scopes.push([]);
      else if (char === "}" && scopes.length > 1) scopes.pop();
    }
    // A loop's names belong to the block its line leaves open (not to a literal such as `Input{}` before it).
    if (loop && scopes.length > depth) scopes[depth]!.push(...names);
    return out;
  });
  const header = [
    `// ${example.id}, as printed; written by test/docs-run-as-printed.test.ts.`,
    "package main",
    "",
    "import (",
    ...imports.map((spec) => `\t${spec}`),
    ")",
    "",
    `func ${name}(ctx context.Context) error {`,
  ];
  // The file's line of the body's first line is header.length + 1; that line is the example's line `index` after the fence.
  const lineOf = (fileLine: number) => example.line + 1 + index + fileLine - (header.length + 1);
  const returns = /^return\b/.test(body.filter((line) => line.trim() !== "").at(-1) ?? "");
  return { source: [...header, ...filled.map((line) => `\t${line}`), ...(returns ? [] : ["\treturn nil"]), "}", ""].join("\n"), lineOf };
}

const GO_MAIN = (names: [string, string][]) => `// Written by test/docs-run-as-printed.test.ts: runs each example in turn, writes what happened.
package main

import (
	"context"
	"encoding/json"
	"os"
	"time"
)

// elided stands for the code an example leaves out ("..."), which uses the names in scope.
func elided(...any) {}

func main() {
	examples := []struct {
		id  string
		run func(context.Context) error
	}{
${names.map(([id, name]) => `\t\t{${JSON.stringify(id)}, ${name}},`).join("\n")}
	}
	results := map[string]string{}
	for _, example := range examples {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		results[example.id] = ""
		if err := example.run(ctx); err != nil {
			results[example.id] = err.Error()
		}
		cancel()
	}
	answer, _ := json.Marshal(results)
	if err := os.WriteFile(os.Args[1], answer, 0o644); err != nil {
		panic(err)
	}
}
`;

async function runGoExamples(): Promise<void> {
  const examples = byLanguage("go");
  if (examples.length === 0) return;
  const dir = join(WORK_DIR, "go");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A consumer module of the SDK as test/go is one: its requirements and go.sum, the SDK by `replace`.
  const testModule = readFileSync(join(REPO_ROOT, "test", "go", "go.mod"), "utf8");
  writeFileSync(
    join(dir, "go.mod"),
    testModule.replace(/^module .*$/m, "module apigen.docs/examples").replace(/^replace (\S+) => .*$/m, (_, path: string) => `replace ${path} => ${join(REPO_ROOT, "generated", "go")}`),
  );
  writeFileSync(join(dir, "go.sum"), readFileSync(join(REPO_ROOT, "test", "go", "go.sum")));
  const files = new Map<string, { example: Example; lineOf: (fileLine: number) => number }>();
  const names: [string, string][] = [];
  await serviceStarted; // its address is written into the examples
  examples.forEach((example, index) => {
    const { source, lineOf } = goFile(example, `example${index}`);
    const file = `${fileStem(example)}.go`;
    writeFileSync(join(dir, file), source);
    files.set(file, { example, lineOf });
    names.push([example.id, `example${index}`]);
  });
  writeFileSync(join(dir, "main.go"), GO_MAIN(names));

  const { go, env: goEnv } = goToolchain();
  const env = { ...goEnv, GOFLAGS: "-mod=readonly" } as Record<string, string>;
  const blame = (output: string) => {
    // The go command's lines name the example's file and line: told as the Markdown line.
    for (const line of output.trim().split("\n")) {
      const at = /([A-Za-z0-9_]+\.go):(\d+)(?::(\d+))?: (.*)$/.exec(line);
      const found = at ? files.get(at[1]!) : undefined;
      if (found && at) fail(found.example, `${found.example.file}:${found.lineOf(Number(at[2]))}: ${at[4]}`);
    }
    for (const example of examples) if (outcomes.get(example.id)?.ok !== false) fail(example, `the one program of the Go examples did not build:\n${output}`);
  };
  const vet = await timed("go vet", () => runProcess(go, ["vet", "."], { cwd: dir, env }));
  if (vet.code !== 0) return blame(`go vet:\n${vet.output}`);
  const build = await timed("go build", () => runProcess(go, ["build", "-o", "examples", "."], { cwd: dir, env }));
  if (build.code !== 0) return blame(`go build:\n${build.output}`);
  const resultsFile = join(dir, "results.json");
  const ran = await timed("go run", () => runProcess(join(dir, "examples"), [resultsFile], { cwd: dir, env: process.env as Record<string, string> }));
  const results = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, "utf8")) as Record<string, string>) : {};
  for (const example of examples) {
    const error = results[example.id];
    if (error === undefined) fail(example, `the program did not run it (exit ${ran.code}):\n${ran.output}`);
    else if (error !== "") fail(example, `it returned an error: ${error}`);
    else if (ran.stderr !== "") fail(example, `the program wrote to stderr:\n${ran.stderr}`);
    else pass(example);
  }
}

// ---------------------------------------------------------------------------------------------

let serviceStarted: Promise<void>;

beforeAll(async () => {
  const started = performance.now();
  mkdirSync(WORK_DIR, { recursive: true });
  serviceStarted = timed("service", startService);
  // Each language as one batch, all at once; each waits for the service only where it must.
  const batches: [Language, () => Promise<void>][] = [
    ["ts", runTypeScriptExamples],
    ["go", runGoExamples],
    ["python", runPythonExamples],
    ["shell", async () => (await serviceStarted, runShellExamples())],
  ];
  await Promise.all(
    batches.map(([language, batch]) =>
      batch().catch((error: Error) => {
        for (const example of byLanguage(language)) fail(example, error.stack ?? error.message);
      }),
    ),
  );
  await serviceStarted;
  timings.total = Math.round(performance.now() - started);
}, 600_000);

afterAll(async () => {
  const count = (examples: Example[]) => `${examples.filter((e) => e.notRun === undefined).length} of ${examples.length}`;
  const perLanguage = (Object.keys(LANGUAGE_NAMES) as Language[]).map((language) => `${LANGUAGE_NAMES[language]} ${count(EXAMPLES.filter((e) => e.language === language))}`);
  const notRun = EXAMPLES.filter((e) => e.notRun !== undefined).map((e) => `  ${e.id} (${e.info}): ${e.notRun}`);
  console.log(
    `docs run as printed: ${RUN.length} / ${EXAMPLES.length} examples run (${perLanguage.join(", ")}); ${notRun.length} not run:\n${notRun.join("\n")}\n` + `steps (ms): ${JSON.stringify(timings)}`,
  );
  await admin?.close();
  await server?.close();
  await redis?.stop();
});

describe("the examples of README.md and docs/*.md", () => {
  it("are found, and every marker is one the test knows, on the line before a fence it counts", () => {
    expect(EXAMPLES.length).toBeGreaterThan(0);
    expect(MARKER_PROBLEMS).toEqual([]);
  });

  for (const example of RUN) {
    it(`${example.id} (${example.info}) runs as printed`, () => {
      const outcome = outcomes.get(example.id);
      expect(outcome, `${example.id} was not run`).toBeDefined();
      expect(outcome!.ok, `${example.id}:\n${outcome!.detail}`).toBe(true);
    });
  }
});
