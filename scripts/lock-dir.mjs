// A lock between processes as a folder: for work that several test files (vitest runs them in
// parallel workers) may ask for at once, such as building a helper binary.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A lock older than this belongs to a run that died: it is taken over. */
const STALE_LOCK_MS = 10 * 60_000;
const WAIT_MS = 15 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/**
 * Takes the lock folder `path` (mkdir is atomic), taking over one left by a dead or stuck run;
 * answers the function that releases it. `what` names the work in the message of a long wait.
 */
export async function lockDir(path, what) {
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(path);
      writeFileSync(join(path, "pid"), String(process.pid));
      return () => rmSync(path, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(join(path, "pid"), "utf8"));
    } catch {
      // Just created by another process, which has not written its pid yet.
    }
    let age = 0;
    try {
      age = Date.now() - statSync(path).mtimeMs;
    } catch {
      continue;
    }
    if ((Number.isInteger(owner) && !alive(owner)) || age > STALE_LOCK_MS) {
      rmSync(path, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - started > WAIT_MS) throw new Error(`waited ${WAIT_MS / 60_000} minutes for ${path}; remove it if no other run is ${what}`);
    await sleep(300);
  }
}
