// The Python virtualenv of the SDK's tests, benchmark and packing: created once under
// node_modules/.cache/python-sdk/venv with the pinned tools of test/python/requirements-dev.txt, the
// generated package importable in place (a .pth file naming generated/python/src), and reused while
// the requirements, the Python version and the project folder stay the same. Safe to call from
// several processes at once: one creates it under a lock, the others wait and reuse it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lockDir } from "./lock-dir.mjs";
import { runSync as run } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const REQUIREMENTS = "test/python/requirements-dev.txt";
const MINIMUM = [3, 10];

/** The interpreter to build the virtualenv with: $PYTHON, else python3; with its version. */
function basePython() {
  const command = process.env.PYTHON ?? "python3";
  let result;
  try {
    result = run(command, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]);
  } catch {
    throw new Error(`Python ${MINIMUM.join(".")} or later is needed for the Python SDK (tests, npm run pack, npm run bench:python): '${command}' was not found. Install python3 (Debian: apt-get install python3 python3-venv) or set PYTHON.`);
  }
  const version = result.stdout.trim();
  const [major, minor] = version.split(".").map(Number);
  if (result.status !== 0 || major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
    throw new Error(`Python ${MINIMUM.join(".")} or later is needed for the Python SDK; '${command}' is ${version || "not working"}. Install a newer python3 or set PYTHON.`);
  }
  return { command, version };
}

/**
 * The virtualenv, created or reused: `python` is its interpreter. `log` receives one line when it is
 * created (and how long that took).
 */
export async function ensurePythonEnv({ root = PROJECT_ROOT, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const cache = join(root, "node_modules", ".cache", "python-sdk");
  const venv = join(cache, "venv");
  const python = join(venv, "bin", "python");
  const marker = join(venv, ".requirements-hash");
  const base = basePython();
  const requirements = readFileSync(join(root, REQUIREMENTS), "utf8");
  const hash = createHash("sha256").update(`${base.version}\n${root}\n${requirements}`).digest("hex");
  const ready = () => existsSync(python) && existsSync(marker) && readFileSync(marker, "utf8") === hash;
  if (ready()) return { python, venv, created: false, seconds: 0 };

  mkdirSync(cache, { recursive: true });
  const unlock = await lockDir(join(cache, "lock"), "creating the Python virtualenv");
  try {
    if (ready()) return { python, venv, created: false, seconds: 0 };
    const started = performance.now();
    rmSync(venv, { recursive: true, force: true });
    const created = run(base.command, ["-m", "venv", venv]);
    if (created.status !== 0) {
      throw new Error(`'${base.command} -m venv' failed: the venv module is missing (Debian: apt-get install python3-venv).\n${created.stderr.trim()}`);
    }
    const installed = run(python, ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "-r", join(root, REQUIREMENTS)]);
    if (installed.status !== 0) throw new Error(`pip could not install ${REQUIREMENTS}:\n${installed.stderr.trim().split("\n").slice(-20).join("\n")}`);
    // The generated package, importable in place: what `npm run generate` writes is what the tests run.
    const sitePackages = run(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.trim();
    writeFileSync(join(sitePackages, "apigen-generated-python.pth"), `${join(root, "generated", "python", "src")}\n`);
    writeFileSync(`${marker}.tmp`, hash);
    renameSync(`${marker}.tmp`, marker);
    const seconds = (performance.now() - started) / 1000;
    log(`python-env: created ${venv} with Python ${base.version} in ${seconds.toFixed(1)} s`);
    return { python, venv, created: true, seconds };
  } finally {
    unlock();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = await ensurePythonEnv();
  process.stdout.write(`${env.python}\n`);
}
