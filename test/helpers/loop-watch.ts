// Setup file of every test file: a test (or hook) that blocks its worker's event loop for long
// fails, naming itself. vitest's worker answers its runner over an RPC with a 60 s deadline; a
// worker that ran synchronous work for a minute (a spawnSync of a cold build, say) misses it and
// the whole run fails with "Timeout calling onTaskUpdate", naming no test. Long work runs in a child
// process, awaited.
import { afterAll, afterEach } from "vitest";

/** Longest block tolerated: a third of the RPC deadline, as a cold, loaded machine runs slower. */
const LIMIT_MS = 20_000;
const TICK_MS = 500;

let last = performance.now();
let worst = 0;
const measure = () => {
  const now = performance.now();
  worst = Math.max(worst, now - last - TICK_MS);
  last = now;
};
setInterval(measure, TICK_MS).unref();

function check(where: string): void {
  measure();
  const blocked = worst;
  worst = 0;
  if (blocked > LIMIT_MS) {
    throw new Error(`${where} blocked its worker's event loop for ${(blocked / 1000).toFixed(1)} s (limit ${LIMIT_MS / 1000} s): run long work in a child process and await it`);
  }
}

afterEach((context) => check(`the test "${context.task.name}" (or a hook before it)`));
afterAll(() => check("a hook of this file"));
