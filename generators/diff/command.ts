// `apigen diff --against <ref|dir|file>`: both sides go through the same loader and IR builder as
// `generate`, then through diffIrs; prints the report and answers the exit code
// (0 nothing breaking left, 1 unaccepted breaking changes, 2 cannot diff).
import { buildIr } from "../build-ir.js";
import { ManifestError, UsageError } from "../diagnostics.js";
import type { Ir } from "../ir.js";
import { loadManifestText } from "../load.js";
import { emptyLock, parseLock, LOCK_PATH, type FieldNumberLock } from "../lock.js";
import { diffIrs, type DiffReport } from "./diff.js";
import { FORMATS, renderReport, type ReportFormat } from "./report.js";
import { resolveAgainst, workingTreeSide, type ManifestSide } from "./resolve-side.js";

export interface DiffCommandOptions {
  root: string;
  manifest: string;
  against: string | undefined;
  format: string | undefined;
  accept: readonly string[];
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
    return buildIr(loadManifestText(side.text, side.displayName), lock);
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

export async function runDiffCommand(options: DiffCommandOptions, out = process.stdout, err = process.stderr): Promise<number> {
  try {
    if (options.against === undefined) throw new UsageError("diff needs --against <git ref | folder | manifest file>");
    const format = (options.format ?? "text") as ReportFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not '${options.format}'`);
    // git runs while the working tree's manifest is read and parsed.
    const oldSide = resolveAgainst(options.root, options.manifest, options.against);
    oldSide.catch(() => undefined);
    const newSide = workingTreeSide(options.root, options.manifest);
    const report = await diffSides(newSide, await oldSide, options.accept);
    out.write(renderReport(report, format));
    return report.failed ? 1 : 0;
  } catch (error) {
    if (error instanceof SideError) {
      const n = error.manifestError.diagnostics.length;
      err.write(`${error.message}\n${n} error${n === 1 ? "" : "s"} in the ${error.side} manifest (${error.displayName}); cannot diff.\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      err.write(`apigen diff: ${error.message}\n`);
      return 2;
    }
    err.write(`apigen diff: ${(error as Error).message ?? String(error)}\n`);
    return 2;
  }
}
