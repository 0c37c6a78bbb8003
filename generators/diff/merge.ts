// Folds contract findings into manifest changes: a finding that names what a manifest change
// already names (an anchor in common, on a protocol the change affects) becomes evidence of it;
// any other finding is a change of its own, which is how a change the rules miss still shows.
import { kebab, maxSeverity, severityRank, type Change, type Severity } from "./change.js";
import type { Finding } from "./contracts.js";

const ID_PREFIX: Record<Finding["source"], string> = { buf: "buf", "graphql-inspector": "graphql", openapi: "openapi" };

/** The candidate closest in severity, preferring one at least as severe as the finding; the first on a tie. */
function closest(candidates: Change[], severity: Severity): Change {
  const distance = (c: Change) => {
    const delta = severityRank[c.severity] - severityRank[severity];
    return delta >= 0 ? delta : 10 - delta;
  };
  return candidates.reduce((best, c) => (distance(c) < distance(best) ? c : best));
}

export function mergeFindings(manifest: Change[], findings: Finding[]): Change[] {
  const changes = [...manifest];
  const byAnchor = new Map<string, Change[]>();
  const index = (change: Change) => {
    for (const anchor of change.anchors) {
      const list = byAnchor.get(anchor);
      if (list) list.push(change);
      else byAnchor.set(anchor, [change]);
    }
  };
  changes.forEach(index);

  for (const finding of findings) {
    let target: Change | undefined;
    for (const anchor of finding.anchors) {
      const candidates = (byAnchor.get(anchor) ?? []).filter((c) => c.protocols.includes(finding.protocol));
      if (candidates.length > 0) {
        target = closest(candidates, finding.severity);
        break;
      }
    }
    const evidence = { source: finding.source, kind: finding.kind, message: finding.message };
    if (target) {
      if (!target.sources.includes(finding.source)) target.sources.push(finding.source);
      target.evidence.push(evidence);
      // A contract that breaks is a break on that protocol whatever the rule thought; milder verdicts do not override it.
      if (finding.severity === "breaking") target.severity = maxSeverity(target.severity, "breaking");
      continue;
    }
    const contractOnly: Change = {
      id: `${ID_PREFIX[finding.source]}-${kebab(finding.kind)}:${finding.subject}`,
      rule: `${ID_PREFIX[finding.source]}-${kebab(finding.kind)}`,
      severity: finding.severity,
      protocols: [finding.protocol],
      message: finding.message,
      sources: [finding.source],
      evidence: [evidence],
      anchors: finding.anchors,
    };
    const operation = finding.anchors.find((a) => a.startsWith("op:"))?.slice(3);
    if (operation !== undefined) contractOnly.operation = operation;
    const twin = changes.find((c) => c.id === contractOnly.id);
    if (twin) {
      twin.evidence.push(evidence);
      continue;
    }
    changes.push(contractOnly);
    index(contractOnly);
  }
  return changes;
}
