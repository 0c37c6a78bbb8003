// The system Chromium (Debian package `chromium`) that the browser tests drive with playwright-core.
// Installed with apt-get when missing; a machine where that cannot work fails with the reason.
import { ensureDebianProgramAsync } from "./apt.js";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium keeps
 * reaching for update, sync and field-trial servers, which a closed network refuses.
 */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/**
 * Makes sure CHROMIUM_PATH exists, installing the Debian package as root; throws why it cannot.
 * Awaited, never blocking: on a fresh machine the install takes half a minute, longer than the
 * test worker's event loop may stand still (test/helpers/loop-watch.ts).
 */
export async function ensureChromium(): Promise<void> {
  await ensureDebianProgramAsync("chromium", CHROMIUM_PATH, "the browser test");
}
