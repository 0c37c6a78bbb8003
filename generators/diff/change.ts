// The model of a contract diff: one Change per difference between two manifests, whichever check
// found it. Manifest rules and contract checks (buf, graphql-inspector, OpenAPI) all produce these.
import type { Protocol } from "../ir.js";

export const SEVERITIES = ["breaking", "dangerous", "safe"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SOURCES = ["manifest", "buf", "graphql-inspector", "openapi"] as const;
export type Source = (typeof SOURCES)[number];

/** What a contract tool said about a change it found (kept when the finding is folded into a manifest change). */
export interface Evidence {
  source: Source;
  /** The tool's own name for the kind of change, such as FIELD_REMOVED or RPC_NO_DELETE. */
  kind: string;
  message: string;
}

export interface Change {
  /** Stable `<rule>:<subject>`, such as `operation-removed:delete_user`; what --accept names. */
  id: string;
  rule: string;
  severity: Severity;
  /** The operation the change belongs to; absent for shared types, enums and API-wide changes. */
  operation?: string;
  /** Protocols whose clients see the change, in PROTOCOLS order. */
  protocols: Protocol[];
  message: string;
  /** Every check that found it; `manifest` first when the manifest rules did. */
  sources: Source[];
  /** Contract findings folded into this change. */
  evidence: Evidence[];
  /** Set when a breaking change was acknowledged on purpose. */
  accepted?: { reason: string; by: "flag" | "manifest" };
  /**
   * Contract-neutral keys of what the change touches (`op:users`, `in:UsersRequest.query`,
   * `enum:KeyStatus.retired`, ...) by which contract findings are matched to it.
   */
  anchors: string[];
}

export const severityRank: Record<Severity, number> = { breaking: 2, dangerous: 1, safe: 0 };

export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank[a] >= severityRank[b] ? a : b;
}

/** kebab-case of a tool's SCREAMING_SNAKE kind, for ids of contract-only findings. */
export function kebab(kind: string): string {
  return kind.toLowerCase().replace(/_/g, "-");
}
