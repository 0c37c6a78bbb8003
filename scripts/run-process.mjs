// Running another program and collecting what it writes: for the scripts here, and for the tests
// and benchmarks (which import it from here, as they do the other scripts).
import { spawn, spawnSync } from "node:child_process";

/**
 * Starts `command` with `args` (`options`: cwd, env, shell as for spawn; `input`: text written to
 * its standard input, which is closed otherwise). Answers the child, `exited`, which resolves once
 * it has exited and its output is read (`{ code, stdout, stderr, output }`, `output` being both
 * streams as they came; rejects when it cannot be started), and `written()`, what it has written so far.
 */
export function startProcess(command, args, { cwd, env, input, shell } = {}) {
  const child = spawn(command, args, { cwd, env, shell, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    output += chunk;
  });
  if (input !== undefined) {
    child.stdin.on("error", () => {}); // the program may stop reading once it has what it needs
    child.stdin.end(input);
  }
  const exited = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, output }));
  });
  return { child, exited, written: () => ({ stdout, stderr, output }) };
}

/** `startProcess(...).exited`: runs `command` to its end; answers its exit code and what it wrote. */
export function runProcess(command, args, options) {
  return startProcess(command, args, options).exited;
}

/** spawnSync as text, with room for a large output; throws when `command` cannot be started. */
export function runSync(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  return result;
}
