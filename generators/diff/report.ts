// Renders a diff report as text (terminal, CI log), markdown (a pull-request comment) or JSON.
import { PROTOCOLS, type Protocol } from "../ir/ir.js";
import { SDK_LANGUAGES, severityRank, type Change, type Evidence, type SdkLanguage, type Severity } from "./change.js";
import type { DiffReport } from "./diff.js";
import type { UnusedAcceptance } from "./version.js";

export const FORMATS = ["text", "markdown", "json"] as const;
export type ReportFormat = (typeof FORMATS)[number];

const SHARED_GROUP = "types, enums and API-wide";

/** Changes grouped by operation (in the order they first appear), most severe first within a group. */
export function groupedChanges(report: DiffReport): [string, Change[]][] {
  const groups = new Map<string, Change[]>();
  for (const change of report.changes) {
    const key = change.operation ?? SHARED_GROUP;
    const list = groups.get(key);
    if (list) list.push(change);
    else groups.set(key, [change]);
  }
  const shared = groups.get(SHARED_GROUP);
  groups.delete(SHARED_GROUP);
  if (shared) groups.set(SHARED_GROUP, shared);
  return [...groups].map(([key, list]) => [key, [...list].sort((a, b) => severityRank[b.severity] - severityRank[a.severity])]);
}

function verdict(change: Change): string {
  if (change.severity === "breaking" && change.accepted) {
    const bump = change.accepted.bump && change.accepted.bump !== "major" ? `; ships in a ${change.accepted.bump} version` : "";
    return `breaking (accepted: ${change.accepted.reason}${bump})`;
  }
  return change.severity;
}

type Counts = Record<Severity, number>;

function counts<K extends string>(keys: readonly K[], of: (change: Change) => readonly K[], report: DiffReport, severityOf: (change: Change) => Severity): Record<K, Counts> {
  const result = Object.fromEntries(keys.map((k) => [k, { breaking: 0, dangerous: 0, safe: 0 }])) as Record<K, Counts>;
  for (const change of report.changes) for (const k of of(change)) result[k][severityOf(change)]++;
  return result;
}

/**
 * What a change means on the wire: its rule's verdict, or a wire check's that went past it. An SDK
 * surface that made the change breaking (a lost iterator) changes nothing a protocol's callers see.
 */
export function wireSeverity(change: Change): Severity {
  const raisedOnWire = change.evidence.filter((e) => e.verdict === "raised" && e.source !== "sdk").map((e) => e.severity);
  return [change.ruleSeverity ?? change.severity, ...raisedOnWire].reduce((a, b) => (severityRank[b] > severityRank[a] ? b : a));
}

const perProtocol = (report: DiffReport) => counts<Protocol>(PROTOCOLS, (c) => c.protocols, report, wireSeverity);
const perSdk = (report: DiffReport) =>
  counts<SdkLanguage>(
    SDK_LANGUAGES,
    (c) => c.sdks,
    report,
    (c) => c.severity,
  );
const touchedSdks = (report: DiffReport) => SDK_LANGUAGES.filter((l) => report.changes.some((c) => c.sdks.includes(l)));
const countText = (c: Counts) => `${c.breaking} breaking, ${c.dangerous} dangerous, ${c.safe} safe`;

function summaryLine(report: DiffReport): string {
  const { breaking, accepted, dangerous, safe } = report.summary;
  return `${breaking} breaking${accepted > 0 ? ` (${accepted} accepted)` : ""}, ${dangerous} dangerous, ${safe} safe`;
}

function outcome(report: DiffReport): string {
  const open = report.summary.breaking - report.summary.accepted;
  const versionProblem = report.version.ok ? "" : ` ${report.version.message}.`;
  if (open === 0) {
    if (!report.version.ok) return `FAILED:${versionProblem}`;
    return report.summary.breaking > 0 ? "PASSED: every breaking change is accepted." : "PASSED: no breaking changes.";
  }
  const them = open === 1 ? "it" : "them";
  return `FAILED: ${open} breaking change${open === 1 ? "" : "s"} not accepted. To ship ${them} on purpose, list ${open === 1 ? "its id" : "their ids"} under api.breaking_changes_accepted with a reason and the version, or pass --accept <id>.${versionProblem}`;
}

/** Where a check rated a change more severely than its rule: the reviewer sees both verdicts and which one counts. */
function disagreement(change: Change, evidence: Evidence): string | undefined {
  const who = evidence.source === "sdk" ? "the SDK surface" : evidence.source;
  if (evidence.verdict === "raised") return `${who} makes it ${evidence.severity} (the rule alone says ${change.ruleSeverity ?? change.severity}): ${evidence.message}`;
  if (evidence.verdict === "overruled") return `${who} says ${evidence.severity}, overruled by the manifest rule, which models this: ${evidence.message}`;
  return undefined;
}

function unusedText(entry: UnusedAcceptance): string {
  return `${entry.id}${entry.didYouMean ? ` (did you mean ${entry.didYouMean}?)` : ""}`;
}

function scope(change: Change): string {
  const protocols = change.protocols.join(", ") || "no protocol";
  return change.sdks.length > 0 ? `${protocols}; sdk: ${change.sdks.join(", ")}` : protocols;
}

export function renderText(report: DiffReport): string {
  const lines = [`Contract diff: ${report.manifest} against ${report.against}`, summaryLine(report)];
  if (report.changes.length > 0) {
    const byProtocol = perProtocol(report);
    lines.push(PROTOCOLS.map((p) => `${p}: ${countText(byProtocol[p])}`).join("; "));
    const bySdk = perSdk(report);
    const sdks = touchedSdks(report);
    if (sdks.length > 0) lines.push(`sdk ${sdks.map((l) => `${l}: ${countText(bySdk[l])}`).join("; ")}`);
  }
  for (const [group, changes] of groupedChanges(report)) {
    lines.push("", group);
    for (const change of changes) {
      lines.push(`  ${verdict(change)}  ${change.id}  [${scope(change)}]`);
      lines.push(`      ${change.message}`);
      lines.push(`      found by: ${change.sources.join(", ")}`);
      for (const evidence of change.evidence) {
        const text = disagreement(change, evidence);
        if (text) lines.push(`      ${text}`);
      }
    }
  }
  if (report.unusedAcceptances.length > 0) {
    lines.push("", `accepted but not in this diff (remove if stale): ${report.unusedAcceptances.map(unusedText).join(", ")}`);
  }
  lines.push("", `version: ${report.version.message}`, "", outcome(report));
  return `${lines.join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderMarkdown(report: DiffReport): string {
  const lines = [
    `### Contract diff against \`${report.against}\``,
    "",
    // A version that is too low is already in the outcome.
    `**${outcome(report)}** ${summaryLine(report)}.${report.version.ok ? ` Version: ${report.version.message}.` : ""}`,
  ];
  if (report.changes.length > 0) {
    const byProtocol = perProtocol(report);
    const bySdk = perSdk(report);
    lines.push("", "| protocol or SDK | breaking | dangerous | safe |", "|---|---:|---:|---:|");
    for (const p of PROTOCOLS) lines.push(`| ${p} | ${byProtocol[p].breaking} | ${byProtocol[p].dangerous} | ${byProtocol[p].safe} |`);
    for (const l of touchedSdks(report)) lines.push(`| ${l} SDK | ${bySdk[l].breaking} | ${bySdk[l].dangerous} | ${bySdk[l].safe} |`);
    lines.push("", "| severity | operation | change | protocols | SDKs | what changed | found by |", "|---|---|---|---|---|---|---|");
    for (const [group, changes] of groupedChanges(report)) {
      for (const change of changes) {
        const severity = change.severity === "breaking" && !change.accepted ? "**breaking**" : verdict(change);
        const what = [change.message, ...change.evidence.map((e) => disagreement(change, e)).filter((t) => t !== undefined)].map(cell).join("<br>");
        lines.push(
          `| ${cell(severity)} | ${change.operation === undefined ? "" : cell(group)} | \`${cell(change.id)}\` | ${change.protocols.join(", ")} | ${change.sdks.join(", ")} | ${what} | ${change.sources.join(", ")} |`,
        );
      }
    }
  }
  if (report.unusedAcceptances.length > 0) {
    lines.push("", `Accepted but not in this diff (remove if stale): ${report.unusedAcceptances.map((u) => `\`${u.id}\`${u.didYouMean ? ` (did you mean \`${u.didYouMean}\`?)` : ""}`).join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

export function renderJson(report: DiffReport): string {
  const changes = groupedChanges(report).flatMap(([, list]) =>
    list.map((c) => ({
      id: c.id,
      rule: c.rule,
      severity: c.severity,
      ruleSeverity: c.ruleSeverity ?? c.severity,
      accepted: c.accepted ?? null,
      operation: c.operation ?? null,
      protocols: c.protocols,
      sdks: c.sdks,
      message: c.message,
      sources: c.sources,
      evidence: c.evidence,
    })),
  );
  return `${JSON.stringify(
    {
      manifest: report.manifest,
      against: report.against,
      failed: report.failed,
      summary: report.summary,
      version: report.version,
      protocols: perProtocol(report),
      sdks: perSdk(report),
      changes,
      unusedAcceptances: report.unusedAcceptances,
    },
    null,
    2,
  )}\n`;
}

export function renderReport(report: DiffReport, format: ReportFormat): string {
  return format === "json" ? renderJson(report) : format === "markdown" ? renderMarkdown(report) : renderText(report);
}
