// Debian programs that tests start (Chromium, redis-server): installed with apt-get when missing,
// so that CI on a fresh machine passes; a machine where that cannot work fails with the reason.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { runProcess } from "../../scripts/run-process.mjs";

/** Two test workers may install at once: the second waits for the first's lock instead of failing. */
const WAIT_FOR_THE_LOCK = ["-o", "DPkg::Lock::Timeout=600"];

function apt(args: string[]): { ok: boolean; output: string } {
  const result = spawnSync("apt-get", args, { encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, timeout: 600_000 });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim().split("\n").slice(-5).join("\n") };
}

/** The error of a program that could not be installed, saying how to install it by hand. */
const cannotInstall = (name: string, path: string, neededBy: string) => (why: string) =>
  new Error(`${neededBy} needs ${path} and could not install it: ${why}. Install it with: apt-get install -y ${name}`);

/** Makes sure `path` exists, installing Debian package `name` as root; throws why it cannot. */
export function ensureDebianProgram(name: string, path: string, neededBy: string): void {
  if (existsSync(path)) return;
  const cannot = cannotInstall(name, path, neededBy);
  if (process.getuid?.() !== 0) throw cannot("apt-get needs root and this test does not run as root");
  const update = apt([...WAIT_FOR_THE_LOCK, "update", "-qq"]);
  if (!update.ok) throw cannot(`apt-get update failed:\n${update.output}`);
  const install = apt([...WAIT_FOR_THE_LOCK, "install", "-y", "-qq", name]);
  if (!install.ok) throw cannot(`apt-get install ${name} failed:\n${install.output}`);
  if (!existsSync(path)) throw cannot(`the ${name} package installed no ${path}`);
}

/** ensureDebianProgram without blocking the test worker's event loop (apt-get may take a minute). */
export async function ensureDebianProgramAsync(name: string, path: string, neededBy: string): Promise<void> {
  if (existsSync(path)) return;
  const cannot = cannotInstall(name, path, neededBy);
  if (process.getuid?.() !== 0) throw cannot("apt-get needs root and this test does not run as root");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const last = (output: string) => output.trim().split("\n").slice(-5).join("\n");
  const update = await runProcess("apt-get", [...WAIT_FOR_THE_LOCK, "update", "-qq"], { env });
  if (update.code !== 0) throw cannot(`apt-get update failed:\n${last(update.output)}`);
  const install = await runProcess("apt-get", [...WAIT_FOR_THE_LOCK, "install", "-y", "-qq", name], { env });
  if (install.code !== 0) throw cannot(`apt-get install ${name} failed:\n${last(install.output)}`);
  if (!existsSync(path)) throw cannot(`the ${name} package installed no ${path}`);
}
