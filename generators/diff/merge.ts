// Folds findings into manifest changes: a finding that names what a manifest change already names
// (an anchor in common, on a protocol the change affects) becomes evidence of it; any other
// finding is a change of its own, which is how a change the rules miss still shows.
//
// The manifest rule is the primary verdict: it knows what no single contract does (who may call,
// which values were accepted). A contract finding that rates the change more severely only raises
// it when the finding is about an effect the rule does not model; otherwise the rule's verdict
// stands and the finding is kept as overruled, so that the report shows both. The SDKs' surfaces
// are a contract no wire rule models: a name removed from an SDK always breaks that SDK's users.
import { kebab, orderedLanguages, severityRank, type Change, type Evidence, type Severity } from "./change.js";
import type { Finding } from "./contracts.js";
import type { SurfaceFinding } from "./sdk-surface.js";

const ID_PREFIX: Record<Finding["source"] | "sdk", string> = { buf: "buf", "graphql-inspector": "graphql", openapi: "openapi", sdk: "sdk" };

const RULE_FINDINGS = [
  "openapi:property-format-changed",
  "openapi:parameter-format-changed",
  "graphql-inspector:DIRECTIVE_USAGE_INPUT_OBJECT_ADDED",
  "graphql-inspector:DIRECTIVE_USAGE_INPUT_OBJECT_REMOVED",
];

/**
 * What each manifest rule models, as `<source>:<kind>` of the findings that see the same thing:
 * those cannot make the change more severe than the rule says. The auth rules know which callers
 * each level lets in (an OpenAPI security requirement dropped for a public operation turns no
 * caller away); the value rules know how the accepted values changed; an enum value added to an
 * enum that only inputs use is never met by a client.
 */
const MODELLED: [RegExp, ReadonlySet<string>][] = [
  [/^auth-/, new Set(["openapi:security-tightened", "openapi:security-loosened", "openapi:security-scopes-added", "openapi:security-scopes-removed"])],
  [/^(input|output)-rules-|^format-|^api-limit-/, new Set(RULE_FINDINGS)],
  [/^enum-value-added$/, new Set(["graphql-inspector:ENUM_VALUE_ADDED", "openapi:enum-value-added"])],
];

function models(change: Change, finding: Finding | SurfaceFinding): boolean {
  if (!change.sources.includes("manifest") || finding.source === "sdk") return false;
  const kind = `${finding.source}:${finding.kind}`;
  return MODELLED.some(([rule, kinds]) => rule.test(change.rule) && kinds.has(kind));
}

/** The candidate closest in severity, preferring one at least as severe as the finding; the first on a tie. */
function closest(candidates: Change[], severity: Severity): Change {
  const distance = (c: Change) => {
    const delta = severityRank[c.severity] - severityRank[severity];
    return delta >= 0 ? delta : 10 - delta;
  };
  return candidates.reduce((best, c) => (distance(c) < distance(best) ? c : best));
}

export function mergeFindings(manifest: Change[], findings: (Finding | SurfaceFinding)[]): Change[] {
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
    const protocol = finding.source === "sdk" ? undefined : finding.protocol;
    let target: Change | undefined;
    for (const anchor of finding.anchors) {
      // A wire finding belongs to a change its protocol's clients see; an SDK's to any change that explains it.
      const candidates = (byAnchor.get(anchor) ?? []).filter((c) => protocol === undefined || c.protocols.includes(protocol));
      if (candidates.length > 0) {
        target = closest(candidates, finding.severity);
        break;
      }
    }
    const evidence: Evidence = { source: finding.source, kind: finding.kind, severity: finding.severity, message: finding.message };
    if (finding.source === "sdk") evidence.language = finding.language;
    if (target) {
      if (!target.sources.includes(finding.source)) target.sources.push(finding.source);
      if (finding.source === "sdk") target.sdks = orderedLanguages([...target.sdks, finding.language]);
      // Judged against the rule's own verdict, so each finding that goes past it is shown (one per SDK language).
      const ruleSeverity = target.ruleSeverity ?? target.severity;
      if (severityRank[finding.severity] > severityRank[ruleSeverity]) {
        if (models(target, finding)) evidence.verdict = "overruled";
        else {
          evidence.verdict = "raised";
          target.ruleSeverity = ruleSeverity;
          if (severityRank[finding.severity] > severityRank[target.severity]) target.severity = finding.severity;
        }
      }
      target.evidence.push(evidence);
      continue;
    }
    const rule = `${ID_PREFIX[finding.source]}-${kebab(finding.kind)}`;
    const own: Change = {
      id: `${rule}:${finding.subject}`,
      rule,
      severity: finding.severity,
      protocols: protocol ? [protocol] : [],
      sdks: finding.source === "sdk" ? [finding.language] : [],
      message: finding.message,
      sources: [finding.source],
      evidence: [evidence],
      anchors: finding.anchors,
    };
    const operation = finding.anchors.find((a) => a.startsWith("op:"))?.slice(3);
    if (operation !== undefined) own.operation = operation;
    const twin = changes.find((c) => c.id === own.id);
    if (twin) {
      twin.evidence.push(evidence);
      continue;
    }
    changes.push(own);
    index(own);
  }
  return changes;
}
