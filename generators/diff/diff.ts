// The contract diff of two IRs: manifest rules, then the contract checks of the regenerated
// artifacts (buf in a child process while GraphQL and OpenAPI are compared in-process), merged into
// one list, with acknowledged breaks marked.
import type { Ir } from "../ir.js";
import type { Change } from "./change.js";
import { bufFindings, graphqlFindings } from "./contracts.js";
import { mergeFindings } from "./merge.js";
import { contractNames } from "./names.js";
import { openapiFindings } from "./openapi-rules.js";
import { manifestChanges } from "./rules.js";

export interface DiffReport {
  /** What the old side is, e.g. `HEAD~1:operations.yaml`. */
  against: string;
  /** What the new side is, e.g. `operations.yaml`. */
  manifest: string;
  changes: Change[];
  /** Acknowledgements that match no change of this diff (stale entries, typos). */
  unusedAcceptances: string[];
  summary: { breaking: number; accepted: number; dangerous: number; safe: number };
  /** True when a breaking change is not accepted: the command exits 1. */
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
  const changes = mergeFindings(manifest, [...(await graphql), ...openapi, ...(await buf)]);
  const unusedAcceptances = accept(changes, newIr.api.breakingChangesAccepted, options.accept ?? []);
  const count = (predicate: (c: Change) => boolean) => changes.filter(predicate).length;
  const summary = {
    breaking: count((c) => c.severity === "breaking"),
    accepted: count((c) => c.severity === "breaking" && c.accepted !== undefined),
    dangerous: count((c) => c.severity === "dangerous"),
    safe: count((c) => c.severity === "safe"),
  };
  return {
    against: options.against,
    manifest: options.manifest,
    changes,
    unusedAcceptances,
    summary,
    failed: summary.breaking > summary.accepted,
  };
}

/** Marks accepted changes (the manifest's reason wins over the flag's); returns acknowledgements that matched nothing. */
function accept(changes: Change[], inManifest: readonly { change: string; reason: string }[], onCommandLine: readonly string[]): string[] {
  const byId = new Map(changes.map((c) => [c.id, c]));
  const unused: string[] = [];
  for (const id of onCommandLine) {
    const change = byId.get(id);
    if (change) change.accepted = { reason: "accepted with --accept", by: "flag" };
    else unused.push(id);
  }
  for (const entry of inManifest) {
    const change = byId.get(entry.change);
    if (change) change.accepted = { reason: entry.reason, by: "manifest" };
    else unused.push(entry.change);
  }
  return [...new Set(unused)];
}
