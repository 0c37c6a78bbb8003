// What bench:compare prints and draws from the rounds of each row: pure functions, so that the
// summary and the chart are tested without a run.

/** One row of a comparison: the tree's rate over the other commit's, round by round. */
export interface CompareRow {
  name: string;
  /** Each round's ratio of the tree's requests per second to the other commit's, both loaded at once. */
  roundRatios: readonly number[];
  /** The tree's median rate, requests a second. */
  rps: number;
}

export interface RowSummary {
  name: string;
  rounds: number;
  median: number;
  /** The middle half of the rounds' ratios (first and third quartile) and all of them. */
  q1: number;
  q3: number;
  low: number;
  high: number;
  rps: number;
}

/** A quantile of sorted values, interpolated between the two nearest. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

export function summarize(row: CompareRow): RowSummary {
  if (row.roundRatios.length === 0) throw new Error(`${row.name}: no rounds were measured`);
  const sorted = [...row.roundRatios].sort((a, b) => a - b);
  return {
    name: row.name,
    rounds: sorted.length,
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    low: sorted[0]!,
    high: sorted.at(-1)!,
    rps: row.rps,
  };
}

/** A ratio as a percentage with one decimal: 0.985 is 98.5%. */
export const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** How far from 100% two processes of the same code landed: the control's farthest round. */
export function noiseMargin(control: RowSummary): number {
  return Math.max(Math.abs(1 - control.low), Math.abs(control.high - 1));
}

/**
 * Whether a row moved beyond what the control row (the other commit against a second process of
 * itself) shows two processes of the same code differ by: its middle half wholly beyond 100% plus
 * or minus the control's farthest round.
 */
export function verdict(row: RowSummary, control: RowSummary | undefined): "faster" | "slower" | "within noise" {
  if (!control) return "within noise";
  const margin = noiseMargin(control);
  if (row.q1 > 1 + margin) return "faster";
  if (row.q3 < 1 - margin) return "slower";
  return "within noise";
}

/** The table bench:compare prints and writes (Markdown). */
export function compareTable(rows: readonly RowSummary[], tree: string, against: string, control?: RowSummary): string {
  const lines = [
    `| row (${tree} against ${against}) | ratio (median) | middle half | all rounds | rounds | req/s | verdict |`,
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${percent(r.median)} | ${percent(r.q1)}–${percent(r.q3)} | ${percent(r.low)}–${percent(r.high)} | ${r.rounds} | ${r.rps.toFixed(0)} | ${r === control ? "the noise margin" : verdict(r, control)} |`,
    ),
  ];
  return lines.join("\n");
}

const escapeXml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * A box plot of each row's ratios (SVG): a whisker from the lowest round to the highest, a box over
 * the middle half, a tick at the median, and a line at 100% (no change).
 */
export function compareChart(rows: readonly RowSummary[], title: string): string {
  const labelWidth = 190;
  const plotWidth = 460;
  const rowHeight = 30;
  const top = 40;
  const height = top + rows.length * rowHeight + 36;
  const width = labelWidth + plotWidth + 70;
  // The scale holds every round and 90-110% at least, in steps of 5%.
  const from = Math.floor(Math.min(0.9, ...rows.map((r) => r.low)) * 20) / 20;
  const to = Math.ceil(Math.max(1.1, ...rows.map((r) => r.high)) * 20) / 20;
  const x = (ratio: number) => labelWidth + ((ratio - from) / (to - from)) * plotWidth;
  const ticks: number[] = [];
  const step = to - from > 0.6 ? 0.1 : 0.05;
  for (let t = Math.ceil(from / step) * step; t <= to + 1e-9; t += step) ticks.push(Math.round(t * 100) / 100);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${labelWidth}" y="20" font-size="13">${escapeXml(title)}</text>`,
    ...ticks.map(
      (t) =>
        `<line x1="${x(t).toFixed(1)}" y1="${top - 8}" x2="${x(t).toFixed(1)}" y2="${top + rows.length * rowHeight}" stroke="#e5e5e5"/><text x="${x(t).toFixed(1)}" y="${top + rows.length * rowHeight + 16}" text-anchor="middle" fill="#555">${Math.round(t * 100)}%</text>`,
    ),
    `<line x1="${x(1).toFixed(1)}" y1="${top - 8}" x2="${x(1).toFixed(1)}" y2="${top + rows.length * rowHeight}" stroke="#888" stroke-dasharray="4 3"/>`,
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight + rowHeight / 2;
    parts.push(
      `<g><title>${escapeXml(`${r.name}: median ${percent(r.median)}, middle half ${percent(r.q1)}–${percent(r.q3)}, rounds ${percent(r.low)}–${percent(r.high)} (${r.rounds})`)}</title>`,
      `<text x="${labelWidth - 10}" y="${y + 4}" text-anchor="end">${escapeXml(r.name)}</text>`,
      `<line x1="${x(r.low).toFixed(1)}" y1="${y}" x2="${x(r.high).toFixed(1)}" y2="${y}" stroke="#555"/>`,
      `<rect x="${x(r.q1).toFixed(1)}" y="${y - 8}" width="${Math.max(1, x(r.q3) - x(r.q1)).toFixed(1)}" height="16" fill="#9ecae1" stroke="#3182bd"/>`,
      `<line x1="${x(r.median).toFixed(1)}" y1="${y - 9}" x2="${x(r.median).toFixed(1)}" y2="${y + 9}" stroke="#08519c" stroke-width="2"/>`,
      `<text x="${(labelWidth + plotWidth + 8).toFixed(1)}" y="${y + 4}">${percent(r.median)}</text></g>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
