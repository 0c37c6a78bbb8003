// Imported first by every benchmark: its first line names the Node that runs it (and so the
// servers it starts, unless a row names another Node), the machine's cores and the time.
import { availableParallelism } from "node:os";
import { basename } from "node:path";
import { reportProgress, underCi } from "../scripts/progress.mjs";

const script = basename(process.argv[1] ?? "bench");
console.log(`${script}: Node ${process.version} (${process.execPath}), ${process.platform} ${process.arch}, ${availableParallelism()} cores, ${new Date().toISOString()}`);

/** How far the benchmark is, for the progress line on stderr ("pair 3, round 7 of 15"); set by the measuring loops. */
export const benchPosition = { text: "" };

// A benchmark measures for minutes before it prints its rows: a line on stderr every 15 s says it
// still runs and how far (stdout keeps the figures alone). Silent under CI; the timer does not keep
// the process alive.
reportProgress((line) => process.stderr.write(`${line}\n`), `${script}: measuring`, { detail: () => benchPosition.text });

/** A line on stderr now, for a loop that blocks the event loop (a spawnSync per round) and so the timer above. Silent under CI. */
export function announce(text: string): void {
  benchPosition.text = text;
  if (!underCi()) process.stderr.write(`${script}: ${text}\n`);
}
