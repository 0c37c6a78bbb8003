// Renders a diff report as text (terminal, CI log), markdown (a pull-request comment) or JSON.
import { PROTOCOLS, type Protocol } from "../ir.js";
import { severityRank, type Change, type Severity } from "./change.js";
import type { DiffReport } from "./diff.js";

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
  if (change.severity === "breaking" && change.accepted) return `breaking (accepted: ${change.accepted.reason})`;
  return change.severity;
}

function perProtocol(report: DiffReport): Record<Protocol, Record<Severity, number>> {
  const counts = Object.fromEntries(PROTOCOLS.map((p) => [p, { breaking: 0, dangerous: 0, safe: 0 }])) as Record<Protocol, Record<Severity, number>>;
  for (const change of report.changes) for (const p of change.protocols) counts[p][change.severity]++;
  return counts;
}

function summaryLine(report: DiffReport): string {
  const { breaking, accepted, dangerous, safe } = report.summary;
  return `${breaking} breaking${accepted > 0 ? ` (${accepted} accepted)` : ""}, ${dangerous} dangerous, ${safe} safe`;
}

function outcome(report: DiffReport): string {
  const open = report.summary.breaking - report.summary.accepted;
  if (open === 0) return report.summary.breaking > 0 ? "PASSED: every breaking change is accepted." : "PASSED: no breaking changes.";
  const them = open === 1 ? "it" : "them";
  return `FAILED: ${open} breaking change${open === 1 ? "" : "s"} not accepted. To ship ${them} on purpose, list ${open === 1 ? "its id" : "their ids"} under api.breaking_changes_accepted with a reason, or pass --accept <id>.`;
}

export function renderText(report: DiffReport): string {
  const lines = [`Contract diff: ${report.manifest} against ${report.against}`, summaryLine(report)];
  if (report.changes.length > 0) {
    const counts = perProtocol(report);
    lines.push(PROTOCOLS.map((p) => `${p}: ${counts[p].breaking} breaking, ${counts[p].dangerous} dangerous, ${counts[p].safe} safe`).join("; "));
  }
  for (const [group, changes] of groupedChanges(report)) {
    lines.push("", group);
    for (const change of changes) {
      lines.push(`  ${verdict(change)}  ${change.id}  [${change.protocols.join(", ") || "no protocol"}]`);
      lines.push(`      ${change.message}`);
      lines.push(`      found by: ${change.sources.join(", ")}`);
    }
  }
  if (report.unusedAcceptances.length > 0) {
    lines.push("", `accepted but not in this diff (remove if stale): ${report.unusedAcceptances.join(", ")}`);
  }
  lines.push("", outcome(report));
  return `${lines.join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderMarkdown(report: DiffReport): string {
  const lines = [
    `### Contract diff against \`${report.against}\``,
    "",
    `**${outcome(report)}** ${summaryLine(report)}.`,
  ];
  if (report.changes.length > 0) {
    const counts = perProtocol(report);
    lines.push("", "| protocol | breaking | dangerous | safe |", "|---|---:|---:|---:|");
    for (const p of PROTOCOLS) lines.push(`| ${p} | ${counts[p].breaking} | ${counts[p].dangerous} | ${counts[p].safe} |`);
    lines.push("", "| severity | operation | change | protocols | what changed | found by |", "|---|---|---|---|---|---|");
    for (const [group, changes] of groupedChanges(report)) {
      for (const change of changes) {
        const severity = change.severity === "breaking" && !change.accepted ? "**breaking**" : verdict(change);
        lines.push(`| ${cell(severity)} | ${change.operation === undefined ? "" : cell(group)} | \`${cell(change.id)}\` | ${change.protocols.join(", ")} | ${cell(change.message)} | ${change.sources.join(", ")} |`);
      }
    }
  }
  if (report.unusedAcceptances.length > 0) {
    lines.push("", `Accepted but not in this diff (remove if stale): ${report.unusedAcceptances.map((id) => `\`${id}\``).join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

export function renderJson(report: DiffReport): string {
  const changes = groupedChanges(report).flatMap(([, list]) =>
    list.map((c) => ({
      id: c.id,
      rule: c.rule,
      severity: c.severity,
      accepted: c.accepted ?? null,
      operation: c.operation ?? null,
      protocols: c.protocols,
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
      protocols: perProtocol(report),
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
