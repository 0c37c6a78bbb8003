// The Go toolchain of the Go SDK's tests, benchmark and packing: finds `go` (Go 1.23 or later, for
// range-over-func), keeps module downloads and build results in Go's own caches (or, when those are
// not writable, under node_modules/.cache/go, so that nothing is downloaded twice), and builds the
// helper programs of test/go once per change of their sources. Safe to call from several processes
// at once: one builds under a lock, the others wait and reuse the binary.
import { reportProgress } from "./progress.mjs";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "./is-main.mjs";
import { lockDir } from "./lock-dir.mjs";
import { runProcess, runSync as run } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MINIMUM = [1, 23];
/** The module of the hand-written Go programs and tests (conformance runner, benchmark, module zips). */
export const GO_TEST_MODULE = "test/go";

function writable(dir) {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

let cached;

/**
 * The go command and the environment to run it with: `go`, its `version` (such as 1.26.8) and
 * `env` (process.env plus GOTOOLCHAIN=local and, where Go's default caches are not writable,
 * GOPATH, GOMODCACHE and GOCACHE under node_modules/.cache/go).
 */
export function goToolchain({ root = PROJECT_ROOT } = {}) {
  if (cached) return cached;
  const go = process.env.GO ?? "go";
  let result;
  try {
    result = run(go, ["env", "GOVERSION", "GOMODCACHE", "GOCACHE"], { env: { ...process.env, GOTOOLCHAIN: "local" } });
  } catch {
    throw new Error(
      `Go ${MINIMUM.join(".")} or later is needed for the Go SDK (tests, npm run pack, npm run bench:go): '${go}' was not found. Install Go from https://go.dev/dl/ (Debian: apt-get install golang-go, if its version is recent enough) or set GO.`,
    );
  }
  const [goVersion = "", modCache = "", buildCache = ""] = result.stdout.split("\n").map((line) => line.trim());
  const match = /^go(\d+)\.(\d+)(?:\.(\d+))?/.exec(goVersion);
  if (result.status !== 0 || !match || Number(match[1]) < MINIMUM[0] || (Number(match[1]) === MINIMUM[0] && Number(match[2]) < MINIMUM[1])) {
    throw new Error(`Go ${MINIMUM.join(".")} or later is needed for the Go SDK; '${go}' is ${goVersion || "not working"}. Install a newer Go or set GO.`);
  }
  // A go.mod that asks for a newer Go must fail clearly, not download a toolchain behind the user's back.
  const env = { ...process.env, GOTOOLCHAIN: "local" };
  const cache = join(root, "node_modules", ".cache", "go");
  if (!modCache || !writable(modCache)) {
    env.GOPATH = join(cache, "path");
    env.GOMODCACHE = join(cache, "mod");
  }
  if (!buildCache || buildCache === "off" || !writable(buildCache)) env.GOCACHE = join(cache, "build");
  cached = { go, version: goVersion.replace(/^go/, ""), env };
  return cached;
}

/**
 * Runs `go <args>` in `cwd`; answers what it printed, throws with its output when it fails.
 * Asynchronous: a cold build downloads modules for minutes, which must not block the caller's
 * event loop (a test worker doing so misses its runner's RPC deadlines).
 */
export async function runGo(args, { cwd = PROJECT_ROOT, env = {} } = {}) {
  const toolchain = goToolchain();
  const result = await runProcess(toolchain.go, args, { cwd, env: { ...toolchain.env, ...env } });
  if (result.code !== 0) throw new Error(`go ${args.join(" ")} (in ${cwd}) failed (${result.code}):\n${(result.stderr + result.stdout).trim()}`);
  return result.stdout;
}

/** Every file below `dir` whose name matches, relative to `base`, sorted. */
function sourcesBelow(dir, base, pattern) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourcesBelow(path, base, pattern);
      return pattern.test(entry.name) ? [path.slice(base.length + 1)] : [];
    });
}

/** A hash of what a binary of test/go is built from: the Go sources of both modules and the toolchain. */
function sourcesHash(root, version) {
  const hash = createHash("sha256").update(`${version}\n`);
  for (const module of ["generated/go", GO_TEST_MODULE]) {
    for (const path of sourcesBelow(join(root, module), root, /(\.go|^go\.mod|^go\.sum)$/)) {
      hash.update(`${path}\n`).update(readFileSync(join(root, path)));
    }
  }
  return hash.digest("hex");
}

/**
 * The binary of the program `test/go/<name>` (such as "runner"), built with the generated module
 * as it is on disk; rebuilt only when a Go source, go.mod/go.sum or the toolchain changed.
 * `log` receives one line when it builds (and how long that took).
 */
export async function goBinary(name, { root = PROJECT_ROOT, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const { version } = goToolchain({ root });
  const dir = join(root, "node_modules", ".cache", "go-sdk");
  const binary = join(dir, "bin", name);
  const marker = `${binary}.hash`;
  const hash = sourcesHash(root, version);
  const ready = () => existsSync(binary) && existsSync(marker) && readFileSync(marker, "utf8") === hash;
  if (ready()) return { binary, built: false, seconds: 0 };
  mkdirSync(join(dir, "bin"), { recursive: true });
  const unlock = await lockDir(join(dir, `lock-${name}`), `building test/go/${name}`);
  try {
    if (ready()) return { binary, built: false, seconds: 0 };
    const started = performance.now();
    const done = reportProgress(log, `go-env: building test/go/${name}`);
    await runGo(["build", "-mod=readonly", "-o", `${binary}.tmp`, `./${name}`], { cwd: join(root, GO_TEST_MODULE) }).finally(done);
    renameSync(`${binary}.tmp`, binary);
    writeFileSync(marker, hash);
    const seconds = (performance.now() - started) / 1000;
    log(`go-env: built ${name} in ${seconds.toFixed(1)} s`);
    return { binary, built: true, seconds };
  } finally {
    unlock();
  }
}

/**
 * The binary of a Go program given as its files (name -> text: a main package with its go.mod and
 * go.sum), written under `cache`/src/<name> and built into `cache`/bin/<name> with that go.sum only;
 * rebuilt only when a file or the toolchain changed. `apigen pack` builds the module-zip helper so
 * in a project of its own (scripts/pack-tools.mjs); `root` is that project (goToolchain's caches).
 */
export async function goToolFromSource(name, files, { cache, root, log = (line) => process.stderr.write(`${line}\n`) }) {
  const { version } = goToolchain({ root });
  const source = join(cache, "src", name);
  const binary = join(cache, "bin", name);
  const marker = `${binary}.hash`;
  const hash = createHash("sha256").update(`${version}\n`);
  for (const file of Object.keys(files).sort()) hash.update(`${file}\n${files[file]}\n`);
  const digest = hash.digest("hex");
  const ready = () => existsSync(binary) && existsSync(marker) && readFileSync(marker, "utf8") === digest;
  if (ready()) return { binary, built: false, seconds: 0 };
  mkdirSync(join(cache, "bin"), { recursive: true });
  const unlock = await lockDir(join(cache, `lock-${name}`), `building ${name}`);
  try {
    if (ready()) return { binary, built: false, seconds: 0 };
    const started = performance.now();
    mkdirSync(source, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(source, file), text);
    const done = reportProgress(log, `go-env: building ${name}`);
    await runGo(["build", "-mod=readonly", "-o", `${binary}.tmp`, "."], { cwd: source }).finally(done);
    renameSync(`${binary}.tmp`, binary);
    writeFileSync(marker, digest);
    const seconds = (performance.now() - started) / 1000;
    log(`go-env: built ${name} in ${seconds.toFixed(1)} s`);
    return { binary, built: true, seconds };
  } finally {
    unlock();
  }
}

if (isMain(import.meta.url)) {
  const toolchain = goToolchain();
  process.stdout.write(`${toolchain.go} (go${toolchain.version})\n`);
}
