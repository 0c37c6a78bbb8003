// The contract diff of two IRs: manifest rules, then the contract checks of the regenerated
// artifacts (buf in a child process while GraphQL and OpenAPI are compared in-process) and the
// generated SDKs' public surfaces, merged into one list, with acknowledged breaks marked and the
// version checked against what the changes call for.
import type { Ir } from "../ir/ir.js";
import type { Change } from "./change.js";
import { bufFindings, graphqlFindings } from "./contracts.js";
import { mergeFindings } from "./merge.js";
import { contractNames } from "./names.js";
import { openapiFindings } from "./openapi-rules.js";
import { manifestChanges } from "./rules.js";
import { surfaceFindings } from "./sdk-surface.js";
import { applyAcceptances, checkVersion, requiredBump, type UnusedAcceptance, type VersionCheck } from "./version.js";

export interface DiffReport {
  /** What the old side is, e.g. `HEAD~1:operations.yaml`. */
  against: string;
  /** What the new side is, e.g. `operations.yaml`. */
  manifest: string;
  changes: Change[];
  /** Acknowledgements that match no change of this diff (stale entries, typos). */
  unusedAcceptances: UnusedAcceptance[];
  summary: { breaking: number; accepted: number; dangerous: number; safe: number };
  version: VersionCheck;
  /** True when a breaking change is not accepted, or api.version was not raised enough: the command exits 1. */
  failed: boolean;
}

export interface DiffOptions {
  against: string;
  manifest: string;
  /** Ids accepted on the command line (--accept). */
  accept?: readonly string[];
}

export async function diffIrs(oldIr: Ir, newIr: Ir, options: DiffOptions): Promise<DiffReport> {
  const names = contractNames(newIr, oldIr);
  // buf runs in a child process; start it first so that it overlaps the in-process work.
  const buf = bufFindings(oldIr, newIr, names);
  const graphql = graphqlFindings(oldIr, newIr, names);
  const manifest = manifestChanges(oldIr, newIr);
  const openapi = openapiFindings(oldIr, newIr, names);
  const sdks = surfaceFindings(oldIr, newIr);
  const changes = mergeFindings(manifest, [...(await graphql), ...openapi, ...(await buf), ...sdks]);
  const unusedAcceptances = applyAcceptances(changes, newIr.api.breakingChangesAccepted, options.accept ?? [], newIr.api.version, oldIr.api.breakingChangesAccepted);
  const count = (predicate: (c: Change) => boolean) => changes.filter(predicate).length;
  const summary = {
    breaking: count((c) => c.severity === "breaking"),
    accepted: count((c) => c.severity === "breaking" && c.accepted !== undefined),
    dangerous: count((c) => c.severity === "dangerous"),
    safe: count((c) => c.severity === "safe"),
  };
  const version = checkVersion(oldIr.api.version, newIr.api.version, requiredBump(changes));
  return {
    against: options.against,
    manifest: options.manifest,
    changes,
    unusedAcceptances,
    summary,
    version,
    failed: summary.breaking > summary.accepted || !version.ok,
  };
}
