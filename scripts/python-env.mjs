// The Python virtualenvs of the SDK: the one of the tests, benchmark and `npm run pack`, created
// once under node_modules/.cache/python-sdk/venv with the pinned tools of
// test/python/requirements-dev.txt and the generated package importable in place (a .pth file
// naming generated/python/src); and the one `apigen pack` builds the wheel and sdist in, in another
// project, with the build tools alone (hatchling, build, twine at the same pins). Each is reused
// while its requirements, the Python version and its folder stay the same. Safe to call from
// several processes at once: one creates it under a lock, the others wait and reuse it.
import { reportProgress } from "./progress.mjs";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "./is-main.mjs";
import { lockDir } from "./lock-dir.mjs";
import { runProcess, runSync as run } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const REQUIREMENTS = "test/python/requirements-dev.txt";
/** The distributions of REQUIREMENTS that build and check the wheel and sdist (scripts/pack-python.mjs). */
export const BUILD_TOOLS = ["hatchling", "build", "twine"];
const MINIMUM = [3, 10];

/** The lines of REQUIREMENTS that pin BUILD_TOOLS, as a requirements file of their own. */
export function buildRequirements(root = PROJECT_ROOT) {
  const lines = readFileSync(join(root, REQUIREMENTS), "utf8").split("\n");
  const pins = BUILD_TOOLS.map((name) => lines.find((line) => line.startsWith(`${name}==`)));
  const missing = BUILD_TOOLS.filter((_, index) => pins[index] === undefined);
  if (missing.length > 0) throw new Error(`${REQUIREMENTS} pins no ${missing.join(", ")}`);
  return `${pins.join("\n")}\n`;
}

/** The interpreter to build a virtualenv with: $PYTHON, else python3; with its version. `purpose` says what needs it. */
function basePython(purpose) {
  const command = process.env.PYTHON ?? "python3";
  let result;
  try {
    result = run(command, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]);
  } catch {
    throw new Error(`Python ${MINIMUM.join(".")} or later is needed ${purpose}: '${command}' was not found. Install python3 (Debian: apt-get install python3 python3-venv) or set PYTHON.`);
  }
  const version = result.stdout.trim();
  const [major, minor] = version.split(".").map(Number);
  if (result.status !== 0 || major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
    throw new Error(`Python ${MINIMUM.join(".")} or later is needed ${purpose}; '${command}' is ${version || "not working"}. Install a newer python3 or set PYTHON.`);
  }
  return { command, version };
}

/**
 * A virtualenv under `cache` (its folder venv), created or reused, with `requirements` (the text of
 * a requirements file, named `label` in messages) installed; `prepare(python)` runs once it is.
 * It is made again when the Python version, `folder` (the project it serves) or the requirements change.
 */
async function ensureVenv({ cache, folder, requirements, label, purpose, prepare = () => {}, log }) {
  const venv = join(cache, "venv");
  const python = join(venv, "bin", "python");
  const marker = join(venv, ".requirements-hash");
  const base = basePython(purpose);
  const hash = createHash("sha256").update(`${base.version}\n${folder}\n${requirements}`).digest("hex");
  const ready = () => existsSync(python) && existsSync(marker) && readFileSync(marker, "utf8") === hash;
  if (ready()) return { python, venv, created: false, seconds: 0 };

  mkdirSync(cache, { recursive: true });
  const unlock = await lockDir(join(cache, "lock"), "creating the Python virtualenv");
  try {
    if (ready()) return { python, venv, created: false, seconds: 0 };
    const started = performance.now();
    const done = reportProgress(log, `python-env: creating ${venv} (pip install of ${label}; a minute or two when nothing is cached)`);
    rmSync(venv, { recursive: true, force: true });
    // Asynchronously: a cold pip install takes a minute or more, and a test worker that waited on it
    // synchronously would miss its runner's RPC deadlines.
    const created = await runProcess(base.command, ["-m", "venv", venv]);
    if (created.code !== 0) {
      throw new Error(`'${base.command} -m venv' failed: the venv module is missing (Debian: apt-get install python3-venv).\n${created.stderr.trim()}`);
    }
    const requirementsFile = join(venv, "requirements.txt");
    writeFileSync(requirementsFile, requirements);
    const installed = await runProcess(python, ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "-r", requirementsFile]).finally(done);
    if (installed.code !== 0) throw new Error(`pip could not install ${label}:\n${installed.stderr.trim().split("\n").slice(-20).join("\n")}`);
    await prepare(python);
    writeFileSync(`${marker}.tmp`, hash);
    renameSync(`${marker}.tmp`, marker);
    const seconds = (performance.now() - started) / 1000;
    log(`python-env: created ${venv} with Python ${base.version} in ${seconds.toFixed(1)} s`);
    return { python, venv, created: true, seconds };
  } finally {
    unlock();
  }
}

/**
 * The virtualenv of the tests, created or reused: `python` is its interpreter. `log` receives one
 * line when it is created (and how long that took).
 */
export function ensurePythonEnv({ root = PROJECT_ROOT, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  return ensureVenv({
    cache: join(root, "node_modules", ".cache", "python-sdk"),
    folder: root,
    requirements: readFileSync(join(root, REQUIREMENTS), "utf8"),
    label: REQUIREMENTS,
    purpose: "for the Python SDK (tests, npm run pack, npm run bench:python)",
    // The generated package, importable in place: what `npm run generate` writes is what the tests run.
    prepare: async (python) => {
      const sitePackages = (await runProcess(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).stdout.trim();
      writeFileSync(join(sitePackages, "apigen-generated-python.pth"), `${join(root, "generated", "python", "src")}\n`);
    },
    log,
  });
}

/**
 * A virtualenv under `cache` with the build tools alone (`requirements`: buildRequirements() of
 * this repository, which the bundled CLI holds), for `apigen pack` in a project of its own.
 */
export function ensurePythonBuildEnv({ cache, requirements, log = (line) => process.stderr.write(`${line}\n`) }) {
  return ensureVenv({ cache, folder: cache, requirements, label: `the build tools (${requirements.trim().split("\n").join(", ")})`, purpose: "to build the Python SDK's wheel and sdist", log });
}

if (isMain(import.meta.url)) {
  const env = await ensurePythonEnv();
  process.stdout.write(`${env.python}\n`);
}
