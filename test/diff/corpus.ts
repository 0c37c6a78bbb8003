// Helpers of the diff corpus: turn a case (edits of the minimal fixture, optionally of the lock)
// into the two manifest sides the diff command would read from a project and its history.
import { buildIr } from "../../generators/ir/build-ir.js";
import type { ManifestSide } from "../../generators/diff/resolve-side.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock, serializeLock, type FieldNumberLock } from "../../generators/load/lock.js";
import { readFixture } from "../helpers/project.js";
import type { DiffCase } from "./cases.js";

export const BASE_MANIFEST = readFixture("minimal.yaml");

/** Applies text replacements; each `from` must occur exactly once so that an edit cannot silently miss. */
export function applyEdits(text: string, edits: readonly (readonly [string, string])[]): string {
  let result = text;
  for (const [from, to] of edits) {
    const count = result.split(from).length - 1;
    if (count !== 1) throw new Error(`edit target occurs ${count} times (expected once): ${JSON.stringify(from)}`);
    result = result.replace(from, () => to);
  }
  return result;
}

/** The lock `generate` would write for `text`, starting from `lock`. */
function lockAfterGenerate(text: string, lock: FieldNumberLock): FieldNumberLock {
  return buildIr(loadManifestText(text), lock).lock;
}

/**
 * Old side: the base manifest (after the case's base edits) with the lock generate wrote for it. New side: the edited manifest
 * with the lock generate writes from the old one (after the case's own lock edit, if any).
 */
export function sidesOf(diffCase: DiffCase): { oldSide: ManifestSide; newSide: ManifestSide } {
  const base = applyEdits(BASE_MANIFEST, diffCase.base ?? []);
  const oldLock = lockAfterGenerate(base, emptyLock());
  const newText = applyEdits(base, diffCase.edits);
  const startingLock = structuredClone(oldLock);
  diffCase.editLock?.(startingLock);
  const newLock = lockAfterGenerate(newText, startingLock);
  const oldSide: ManifestSide = { displayName: "old/operations.yaml", text: base };
  if (!diffCase.oldSideHasNoLock) Object.assign(oldSide, { lockText: serializeLock(oldLock), lockName: "old lock" });
  const newSide: ManifestSide = { displayName: "operations.yaml", text: newText, lockText: serializeLock(newLock), lockName: "new lock" };
  return { oldSide, newSide };
}
