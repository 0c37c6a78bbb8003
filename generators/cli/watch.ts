// `apigen generate --watch`: regenerates whenever the manifest changes,
// printing the time each change took, or the manifest's errors (nothing is written then), until
// interrupted. The CLI is loaded once, so each change costs only the generation itself.
import { watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { ManifestError } from "../load/diagnostics.js";
import { emitAll, loadIr } from "../generate.js";
import { render, write } from "../write/writer.js";

export interface WatchOutput {
  out(line: string): void;
  err(line: string): void;
}

/** One generation: a line saying what it wrote and how long it took, or the manifest's errors. */
export function generateOnce(root: string, manifest: string, output: WatchOutput): boolean {
  const started = performance.now();
  try {
    const ir = loadIr(root, manifest);
    const emitted = emitAll(ir);
    const result = write(root, render(root, emitted.files, emitted.groups));
    const ms = (performance.now() - started).toFixed(0);
    const removed = result.removed.length > 0 ? `, ${result.removed.length} removed` : "";
    output.out(`${new Date().toISOString().slice(11, 19)} generated in ${ms} ms: ${ir.operations.length} operations, ${result.written.length} files written${removed}`);
    return true;
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    const n = error.diagnostics.length;
    output.err(`${error.message}\n${n} error${n === 1 ? "" : "s"} in ${manifest}; nothing was written. Waiting for the next change.`);
    return false;
  }
}

/** Generates now and on every change of the manifest, until `signal` aborts. */
export function watchGenerate(root: string, manifest: string, output: WatchOutput, signal: AbortSignal): Promise<void> {
  const file = join(root, manifest);
  generateOnce(root, manifest, output);
  output.out(`watching ${manifest}; Ctrl-C stops`);
  let timer: NodeJS.Timeout | undefined;
  // Editors save by writing in place or by renaming a new file over the old: watch the folder.
  const watcher = watch(dirname(file), (_event, name) => {
    if (name?.toString() !== basename(file)) return;
    clearTimeout(timer);
    // A save can come as several events; generate once they settle.
    timer = setTimeout(() => generateOnce(root, manifest, output), 50);
  });
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
