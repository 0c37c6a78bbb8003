// Versions follow the contract: the report says which bump its changes call for (breaking ->
// major, or minor below 1.0; additions -> minor; anything else -> patch), and api.version must
// have been raised at least that far. Acknowledgements of breaking changes are tied to the version
// they were made for, so that once it has shipped they neither apply nor show as stale.
import semver from "semver";
import { closest, editDistance } from "../ir/naming.js";
import type { Change } from "./change.js";

export const BUMPS = ["none", "patch", "minor", "major"] as const;
export type Bump = (typeof BUMPS)[number];

/** Rules that add something without taking anything away: a minor version. */
const ADDITION = /-added$|^auth-loosened$|^auth-scope-removed$|^min-version-lowered$|^input-field-became-optional$|^input-rules-widened$|^format-widened$|^api-limit-raised$/;

export function isAddition(change: Change): boolean {
  return change.severity !== "breaking" && ADDITION.test(change.rule);
}

/**
 * Accepted breaking changes count: they break clients all the same, and call for a major version
 * unless their acceptance names a lower bump (a break no released client can meet).
 */
export function requiredBump(changes: readonly Change[]): Bump {
  if (changes.length === 0) return "none";
  let bump: Bump = changes.some(isAddition) ? "minor" : "patch";
  for (const change of changes) {
    if (change.severity !== "breaking") continue;
    const asked = change.accepted?.bump ?? "major";
    if (BUMPS.indexOf(asked) > BUMPS.indexOf(bump)) bump = asked;
  }
  return bump;
}

export interface VersionCheck {
  old: string;
  new: string;
  /** The bump the changes call for. */
  bump: Bump;
  /** The lowest version that satisfies it (a version after `old`, for a pre-release old side). */
  minimum?: string;
  ok: boolean;
  message: string;
}

const WHY: Record<Bump, string> = { none: "no contract change", patch: "changes without additions", minor: "additions", major: "breaking changes" };

/** The release a version belongs to: 3.0.0-rc.1 counts as 3.0.0, since it leads up to it. */
const release = (version: string) => `${semver.major(version)}.${semver.minor(version)}.${semver.patch(version)}`;

/**
 * Checks that `next` raises `previous` as far as `bump` asks. Breaking changes below 1.0 call for
 * a minor bump. A pre-release of the required version satisfies it (3.0.0-rc.1 for 3.0.0). When the
 * old side is itself a pre-release, its version has not shipped: any later version satisfies any
 * bump (the release gate of `npm run pack` compares with the last release).
 */
export function checkVersion(previous: string, next: string, bump: Bump): VersionCheck {
  const result = { old: previous, new: next, bump };
  if (semver.lt(next, previous)) {
    return { ...result, ok: false, message: `api.version went down from ${previous} to ${next}` };
  }
  if (bump === "none") return { ...result, ok: true, message: `api.version ${previous} -> ${next}: no contract change` };
  if (semver.prerelease(previous)) {
    const ok = semver.gt(next, previous);
    return {
      ...result,
      minimum: `above ${previous}`,
      ok,
      message: ok
        ? `api.version ${previous} -> ${next}: ${WHY[bump]} on an unreleased pre-release`
        : `api.version is still ${previous} but the contract changed (${WHY[bump]}): raise it above ${previous}`,
    };
  }
  const step = bump === "major" && semver.major(previous) === 0 ? "minor" : bump;
  const minimum = semver.inc(previous, step)!;
  const ok = semver.gte(release(next), minimum);
  const needs = `${step} bump for ${WHY[bump]}${step !== bump ? " below 1.0" : ""}`;
  return {
    ...result,
    minimum,
    ok,
    message: ok
      ? `api.version ${previous} -> ${next} (${needs})`
      : next === previous
        ? `api.version is still ${previous} but the contract changed: api.version ${previous} -> at least ${minimum} (${needs})`
        : `api.version ${previous} -> ${next} is not enough: api.version ${previous} -> at least ${minimum} (${needs})`,
  };
}

export interface Acceptance {
  change: string;
  reason: string;
  /** The api.version the acceptance was made for; without one it applies to every version. */
  version?: string;
  /** The bump the break calls for (default major). */
  bump?: "major" | "minor" | "patch";
}

/**
 * The change id a mistyped one was meant to name: the rule and the subject each the same or a typo
 * of the other's (`operation-remove:rotate_key`), so that a long shared rule name does not make
 * any two subjects look alike.
 */
function likelyMeant(id: string, ids: Iterable<string>): string | undefined {
  const split = (text: string) => {
    const colon = text.indexOf(":");
    return colon < 0 ? [text, ""] : [text.slice(0, colon), text.slice(colon + 1)];
  };
  const [rule, subject] = split(id);
  const near = (a: string, b: string) => a === b || closest(a, [b]) !== undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of ids) {
    const [otherRule, otherSubject] = split(candidate);
    if (!near(rule!, otherRule!) || !near(subject!, otherSubject!)) continue;
    const distance = editDistance(id, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

export interface UnusedAcceptance {
  id: string;
  by: "flag" | "manifest";
  /** The id of a change in this diff it was probably meant to name. */
  didYouMean?: string;
}

/**
 * Marks accepted changes (the manifest's reason wins over the flag's) and answers the
 * acknowledgements that match nothing. A manifest acceptance made for a release older than the new
 * side's has shipped with it: it is ignored, and not stale. (One made for a pre-release holds for
 * its release.) One that matches nothing is listed only in the diff that adds it.
 */
export function applyAcceptances(
  changes: Change[],
  inManifest: readonly Acceptance[],
  onCommandLine: readonly string[],
  newVersion: string,
  inOldManifest: readonly Acceptance[] = [],
): UnusedAcceptance[] {
  // One the old side already lists was made for a change before this diff: listed when it was added, not on every later diff.
  const earlier = new Set(inOldManifest.map((entry) => entry.change));
  const byId = new Map(changes.map((c) => [c.id, c]));
  const unused = new Map<string, UnusedAcceptance>();
  const miss = (id: string, by: UnusedAcceptance["by"]) => {
    if (unused.has(id)) return;
    const entry: UnusedAcceptance = { id, by };
    const suggestion = likelyMeant(id, byId.keys());
    if (suggestion !== undefined) entry.didYouMean = suggestion;
    unused.set(id, entry);
  };
  for (const id of onCommandLine) {
    const change = byId.get(id);
    if (change) change.accepted = { reason: "accepted with --accept", by: "flag" };
    else miss(id, "flag");
  }
  for (const entry of inManifest) {
    // Made for 3.0.0-rc.1, an acceptance still holds for 3.0.0: the break ships in that release.
    if (entry.version !== undefined && semver.lt(release(entry.version), release(newVersion))) continue;
    const change = byId.get(entry.change);
    if (change) change.accepted = { reason: entry.reason, by: "manifest", ...(entry.bump ? { bump: entry.bump } : {}) };
    else if (!earlier.has(entry.change)) miss(entry.change, "manifest");
  }
  return [...unused.values()];
}
