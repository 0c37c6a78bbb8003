// The system Chromium (Debian package `chromium`) that the browser tests drive with playwright-core.
// Installed with apt-get when missing; a machine where that cannot work fails with the reason.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium keeps
 * reaching for update, sync and field-trial servers, which a closed network refuses.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function apt(args: string[]): { ok: boolean; output: string } {
  const result = spawnSync("apt-get", args, { encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, timeout: 600_000 });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim().split("\n").slice(-5).join("\n") };
}

/** Makes sure CHROMIUM_PATH exists, installing the Debian package as root; throws why it cannot. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const cannot = (why: string) => new Error(`the browser test needs Chromium at ${CHROMIUM_PATH} and could not install it: ${why}. Install it with: apt-get install -y chromium`);
  if (process.getuid?.() !== 0) throw cannot("apt-get needs root and this test does not run as root");
  const update = apt(["update", "-qq"]);
  if (!update.ok) throw cannot(`apt-get update failed:\n${update.output}`);
  const install = apt(["install", "-y", "-qq", "chromium"]);
  if (!install.ok) throw cannot(`apt-get install chromium failed:\n${install.output}`);
  if (!existsSync(CHROMIUM_PATH)) throw cannot(`the chromium package installed no ${CHROMIUM_PATH}`);
}
