// docs/spec-differences.md names, for each difference from the spec, the tests that pin it: each
// test file it names exists, and each test it quotes ("...") is one of that file's tests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/project.js";

const DOCUMENT = join(REPO_ROOT, "docs", "spec-differences.md");

/** Each row's "pinned by" cell: the files it names, each with the test names quoted after it. */
function pins(): { row: string; file: string; names: string[] }[] {
  const rows = readFileSync(DOCUMENT, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| the spec says"));
  return rows.flatMap((line) => {
    const cells = line.split(" | ");
    const pinned = cells[cells.length - 1]!.replace(/\|\s*$/, "");
    const row = cells[0]!.replace(/^\|\s*/, "").slice(0, 60);
    // `test/x.test.ts` ("name", "other name"), `test/y.test.ts`
    return [...pinned.matchAll(/`(test\/[^`]+)`(?:\s*\(((?:"[^"]*"(?:,\s*)?)+)\))?/g)].map((match) => ({
      row,
      file: match[1]!,
      names: [...(match[2] ?? "").matchAll(/"([^"]+)"/g)].map((name) => name[1]!),
    }));
  });
}

describe("docs/spec-differences.md", () => {
  it("pins every difference by a test", () => {
    const rows = readFileSync(DOCUMENT, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| ") && !line.startsWith("| the spec says"));
    expect(rows.length).toBeGreaterThan(5);
    for (const line of rows) expect(line.split(" | ").at(-1), line.slice(0, 80)).toMatch(/`test\/[^`]+`/);
  });

  it("names test files that exist and tests that are theirs", () => {
    const missing: string[] = [];
    for (const { row, file, names } of pins()) {
      const path = join(REPO_ROOT, file);
      if (!existsSync(path)) {
        missing.push(`${row}: ${file} does not exist`);
        continue;
      }
      const text = readFileSync(path, "utf8");
      // "a ... b": the parts of a name, the elided words left out.
      for (const name of names) if (!name.split(/\s*(?:\.\.\.|…)\s*/).every((part) => text.includes(part))) missing.push(`${row}: ${file} has no test "${name}"`);
    }
    expect(missing).toEqual([]);
  });
});
