// bench:compare's summary, verdict and chart, from rounds given here (the run itself: compare.test.ts).
import { DOMParser } from "@xmldom/xmldom";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { compareChart, compareTable, noiseMargin, summarize, verdict } from "../../bench/compare-report.js";

const row = (name: string, roundRatios: number[]) => summarize({ name, roundRatios, rps: 1000 });

describe("bench:compare's report", () => {
  it("summarizes a row's rounds as their median, middle half and range", () => {
    const s = row("REST read", [1.04, 0.96, 1.0, 1.02, 0.98]);
    expect(s).toMatchObject({ rounds: 5, median: 1.0, q1: 0.98, q3: 1.02, low: 0.96, high: 1.04 });
    expect(row("two", [1, 2]).median).toBe(1.5);
    expect(() => row("none", [])).toThrow("none: no rounds were measured");
  });

  it("calls a row faster or slower only when its middle half clears the control's farthest round", () => {
    const control = row("control", [0.98, 1.01, 0.99, 1.02, 1.0]);
    expect(noiseMargin(control)).toBeCloseTo(0.02);
    expect(verdict(row("up", [1.05, 1.06, 1.04, 1.07]), control)).toBe("faster");
    expect(verdict(row("down", [0.9, 0.92, 0.91, 0.93]), control)).toBe("slower");
    expect(verdict(row("same", [1.01, 1.03, 0.99, 1.0]), control)).toBe("within noise");
    // A wider control widens the margin: the same row is then within it.
    expect(verdict(row("up", [1.05, 1.06, 1.04, 1.07]), row("noisy", [0.9, 1.1, 1.0]))).toBe("within noise");
    expect(verdict(row("up", [1.05, 1.06]), undefined)).toBe("within noise");
  });

  it("prints a table with a line per row, the control marked as the noise margin", () => {
    const control = row("control", [0.99, 1.01]);
    const table = compareTable([row("REST read", [1.2, 1.3, 1.25]), control], "abc", "v2.6.0 (def)", control);
    expect(table.split("\n")).toEqual([
      "| row (abc against v2.6.0 (def)) | ratio (median) | middle half | all rounds | rounds | req/s | verdict |",
      "|---|---|---|---|---|---|---|",
      "| REST read | 125.0% | 122.5%–127.5% | 120.0%–130.0% | 3 | 1000 | faster |",
      "| control | 100.0% | 99.5%–100.5% | 99.0%–101.0% | 2 | 1000 | the noise margin |",
    ]);
  });

  it("draws each row as a box plot on a scale that holds every round, with a line at 100%", () => {
    const rows = [row("REST read", [0.7, 0.8, 0.75]), row("GraphQL <write>", [1.3, 1.35, 1.4])];
    const svg = compareChart(rows, "a & b");
    // Well-formed (xmldom below forgives a mismatched end tag; this validator does not).
    expect(XMLValidator.validate(svg)).toBe(true);
    const errors: string[] = [];
    const document = new DOMParser({ errorHandler: (level: string, message: unknown) => errors.push(`${level}: ${String(message)}`) }).parseFromString(svg, "image/svg+xml");
    expect(errors).toEqual([]);
    expect(document.documentElement!.nodeName).toBe("svg");
    const groups = document.getElementsByTagName("g");
    expect(groups.length).toBe(2);
    expect(groups[1]!.getElementsByTagName("title")[0]!.textContent).toBe("GraphQL <write>: median 135.0%, middle half 132.5%–137.5%, rounds 130.0%–140.0% (3)");
    // The scale runs from 70% to 140%: the labels of its ticks say so, 100% among them.
    const ticks = Array.from(document.getElementsByTagName("text"))
      .map((t) => t.textContent)
      .filter((t) => /^\d+%$/.test(t ?? ""));
    expect(ticks[0]).toBe("70%");
    expect(ticks.at(-1)).toBe("140%");
    expect(ticks).toContain("100%");
    // Each whisker spans its row's rounds, left of the other row's: 70-80% before 130-140%.
    const whiskers = Array.from(groups).map((g) => Number(g.getElementsByTagName("line")[0]!.getAttribute("x1")));
    expect(whiskers[0]).toBeLessThan(whiskers[1]!);
  });
});
