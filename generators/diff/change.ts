// The model of a contract diff: one Change per difference between two manifests, whichever check
// found it. Manifest rules, contract checks (buf, graphql-inspector, OpenAPI) and the generated
// SDKs' public surfaces all produce these.
import { PROTOCOLS, type Protocol } from "../ir/ir.js";

export const SEVERITIES = ["breaking", "dangerous", "safe"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Languages of the generated SDKs, whose public surface is a contract too. */
export const SDK_LANGUAGES = ["typescript", "python", "go"] as const;
export type SdkLanguage = (typeof SDK_LANGUAGES)[number];

export const SOURCES = ["manifest", "buf", "graphql-inspector", "openapi", "sdk"] as const;
export type Source = (typeof SOURCES)[number];

/** What a check said about a change it found (kept when the finding is folded into a manifest change). */
export interface Evidence {
  source: Source;
  /** The tool's own name for the kind of change, such as FIELD_REMOVED or RPC_NO_DELETE. */
  kind: string;
  /** The check's own verdict, which may differ from the change's (the report shows both). */
  severity: Severity;
  message: string;
  /** The SDK whose surface changed (source `sdk`). */
  language?: SdkLanguage;
  /**
   * Set when the verdict is more severe than the manifest rule's: `raised` when the check saw an
   * effect the rule does not model (the change took the check's verdict), `overruled` when the rule
   * models what the check saw (the rule's verdict stands).
   */
  verdict?: "raised" | "overruled";
}

export interface Change {
  /** Stable `<rule>:<subject>`, such as `operation-removed:delete_user`; what --accept names. */
  id: string;
  rule: string;
  severity: Severity;
  /** What the manifest rule alone said, when a check's finding raised the change above it. */
  ruleSeverity?: Severity;
  /** The operation the change belongs to; absent for shared types, enums and API-wide changes. */
  operation?: string;
  /** Protocols whose clients see the change, in PROTOCOLS order. */
  protocols: Protocol[];
  /** SDKs whose public surface (or package) the change touches, in SDK_LANGUAGES order. */
  sdks: SdkLanguage[];
  message: string;
  /** Every check that found it; `manifest` first when the manifest rules did. */
  sources: Source[];
  /** Findings of the checks folded into this change. */
  evidence: Evidence[];
  /** Set when a breaking change was acknowledged on purpose. */
  accepted?: { reason: string; by: "flag" | "manifest"; bump?: "major" | "minor" | "patch" };
  /**
   * Contract-neutral keys of what the change touches (`op:users`, `in:UsersRequest.query`,
   * `enum:KeyStatus.retired`, ...) by which findings are matched to it.
   */
  anchors: string[];
}

export const severityRank: Record<Severity, number> = { breaking: 2, dangerous: 1, safe: 0 };

export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank[a] >= severityRank[b] ? a : b;
}

export function orderedLanguages(languages: Iterable<SdkLanguage>): SdkLanguage[] {
  const set = new Set(languages);
  return SDK_LANGUAGES.filter((l) => set.has(l));
}

export function orderedProtocols(protocols: Iterable<Protocol>): Protocol[] {
  const set = new Set(protocols);
  return PROTOCOLS.filter((p) => set.has(p));
}

/** A change found by a manifest rule. */
export function ruleChange(
  rule: string,
  subject: string,
  severity: Severity,
  protocols: Iterable<Protocol>,
  message: string,
  anchors: string[],
  operation?: string,
  sdks: Iterable<SdkLanguage> = [],
): Change {
  const result: Change = {
    id: `${rule}:${subject}`,
    rule,
    severity,
    protocols: orderedProtocols(protocols),
    sdks: orderedLanguages(sdks),
    message,
    sources: ["manifest"],
    evidence: [],
    anchors: [...new Set(anchors)],
  };
  if (operation !== undefined) result.operation = operation;
  return result;
}

/** kebab-case of a tool's SCREAMING_SNAKE kind, for ids of contract-only findings. */
export function kebab(kind: string): string {
  return kind.toLowerCase().replace(/_/g, "-");
}
