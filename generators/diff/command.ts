// `apigen diff --against <ref|dir|file|auto>`: both sides go through the same loader and IR builder as
// `generate`, then through diffIrs; prints the report and answers the exit code
// (0 nothing breaking left, 1 unaccepted breaking changes, 2 cannot diff).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { buildIr } from "../ir/build-ir.js";
import { ManifestError, UsageError } from "../load/diagnostics.js";
import type { Ir } from "../ir/ir.js";
import { loadManifestText } from "../load/load.js";
import { emptyLock, parseLock, LOCK_PATH, type FieldNumberLock } from "../load/lock.js";
import { AUTO, resolveAutoBase } from "./base.js";
import { diffIrs, type DiffReport } from "./diff.js";
import { FORMATS, renderReport, type ReportFormat } from "./report.js";
import { resolveAgainst, workingTreeSide, type ManifestSide } from "./resolve-side.js";

export interface DiffCommandOptions {
  root: string;
  manifest: string;
  /** A git ref, folder or manifest file, or `auto` (base.ts). */
  against: string | undefined;
  format: string | undefined;
  accept: readonly string[];
  /** Also write the report to this file (relative to the root), as markdown (.md), JSON (.json) or text, whatever happens. */
  report?: string | undefined;
}

/** A manifest error on one side of the diff, which the report names. */
class SideError extends Error {
  constructor(
    readonly side: "new" | "old",
    readonly displayName: string,
    readonly manifestError: ManifestError,
  ) {
    super(manifestError.message);
  }
}

function sideIr(side: ManifestSide, which: "new" | "old", lock: FieldNumberLock): Ir {
  try {
    // The old side may predate api.version_operation: its clients' version read is inferred as it was then.
    return buildIr(loadManifestText(side.text, side.displayName), lock, which === "old" ? { inferVersionOperations: true } : {});
  } catch (error) {
    if (error instanceof ManifestError) throw new SideError(which, side.displayName, error);
    throw error;
  }
}

function sideLock(side: ManifestSide): FieldNumberLock | undefined {
  return side.lockText === undefined ? undefined : parseLock(side.lockText, side.lockName ?? LOCK_PATH);
}

/**
 * Both IRs. A side without a lock is numbered from the other side's lock, as `generate` would
 * number it, so that fields present on both sides do not look renumbered.
 */
export function buildSides(newSide: ManifestSide, oldSide: ManifestSide): { oldIr: Ir; newIr: Ir } {
  const newLock = sideLock(newSide);
  const oldLock = sideLock(oldSide);
  // An unchanged manifest (the common case in CI) builds to the same IR: build it once.
  if (newSide.text === oldSide.text && (oldSide.lockText === undefined || oldSide.lockText === newSide.lockText)) {
    const ir = sideIr(newSide, "new", newLock ?? emptyLock());
    return { oldIr: ir, newIr: ir };
  }
  if (newLock === undefined && oldLock !== undefined) {
    const oldIr = sideIr(oldSide, "old", oldLock);
    return { oldIr, newIr: sideIr(newSide, "new", oldIr.lock) };
  }
  const newIr = sideIr(newSide, "new", newLock ?? emptyLock());
  if (oldLock !== undefined) return { newIr, oldIr: sideIr(oldSide, "old", oldLock) };
  // Without a lock the old side never reserved a number: the new lock numbers it, but reserves nothing for it.
  const oldIr = sideIr(oldSide, "old", newIr.lock);
  for (const message of oldIr.messages) message.reserved = [];
  for (const e of oldIr.enums) e.reserved = [];
  return { newIr, oldIr };
}

/** The report of two manifest sides (the tests' entry point, and the command's). */
export async function diffSides(newSide: ManifestSide, oldSide: ManifestSide, accept: readonly string[] = []): Promise<DiffReport> {
  const { oldIr, newIr } = buildSides(newSide, oldSide);
  return diffIrs(oldIr, newIr, { against: oldSide.displayName, manifest: newSide.displayName, accept });
}

function reportFileFormat(file: string): ReportFormat {
  return file.endsWith(".md") ? "markdown" : file.endsWith(".json") ? "json" : "text";
}

/** Writes the report file, creating its folder: a CI step publishes it whether the diff passed, failed or could not run. */
function writeReportFile(root: string, file: string, content: string): void {
  const path = resolve(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** What the report file says when there is no report: a skipped or failed diff. */
function noteFor(format: ReportFormat, title: string, detail: string): string {
  if (format === "json") return `${JSON.stringify({ outcome: title, detail }, null, 2)}\n`;
  return format === "markdown" ? `### Contract diff: ${title}\n\n${detail}\n` : `Contract diff: ${title}\n${detail}\n`;
}

export async function runDiffCommand(options: DiffCommandOptions, out = process.stdout, err = process.stderr): Promise<number> {
  const note = (title: string, detail: string) => {
    if (options.report !== undefined) writeReportFile(options.root, options.report, noteFor(reportFileFormat(options.report), title, detail));
  };
  try {
    if (options.against === undefined) throw new UsageError("diff needs --against <git ref | folder | manifest file | auto>");
    const format = (options.format ?? "text") as ReportFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not '${options.format}'`);
    let against = options.against;
    let label: string | undefined;
    if (against === AUTO) {
      const base = await resolveAutoBase(options.root);
      if ("skip" in base) {
        out.write(`contract diff skipped: ${base.skip}\n`);
        note("skipped", base.skip);
        return 0;
      }
      err.write(`contract diff against ${base.label} (${base.why})\n`);
      against = base.ref;
      label = base.label;
    }
    // git runs while the working tree's manifest is read and parsed.
    const oldSide = resolveAgainst(options.root, options.manifest, against);
    oldSide.catch(() => undefined);
    const newSide = workingTreeSide(options.root, options.manifest);
    const old = await oldSide;
    if (label !== undefined && label !== against) old.displayName = `${label}:${options.manifest}`;
    const report = await diffSides(newSide, old, options.accept);
    out.write(renderReport(report, format));
    if (options.report !== undefined) writeReportFile(options.root, options.report, renderReport(report, reportFileFormat(options.report)));
    return report.failed ? 1 : 0;
  } catch (error) {
    if (error instanceof SideError) {
      const n = error.manifestError.diagnostics.length;
      const message = `${error.message}\n${n} error${n === 1 ? "" : "s"} in the ${error.side} manifest (${error.displayName}); cannot diff.`;
      err.write(`${message}\n`);
      note("could not run", message);
      return 2;
    }
    const message = error instanceof UsageError ? error.message : ((error as Error).message ?? String(error));
    err.write(`apigen diff: ${message}\n`);
    note("could not run", message);
    return 2;
  }
}
