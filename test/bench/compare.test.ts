// npm run bench:compare as a user runs it: against a commit (HEAD, which every clone has), with
// rounds short enough to prove the command rather than to measure; and its refusals.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/project.js";

const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "bench-compare-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compare(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync("npm", ["run", "-s", "bench:compare", "--", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, BENCH_ROUNDS: "2", BENCH_SECONDS: "0.5" },
      encoding: "utf8",
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}
const worktrees = async () => (await execFileAsync("git", ["worktree", "list", "--porcelain"], { cwd: REPO_ROOT, encoding: "utf8" })).stdout;

describe("npm run bench:compare", () => {
  it("runs each row against another commit in one run, with its spread, a control row, a table and a chart, and leaves no worktree", async () => {
    const before = await worktrees();
    const report = join(dir, "compare.md");
    const chart = join(dir, "compare.svg");
    const { code, output } = await compare(["--against", "HEAD", "--report", report, "--chart", chart]);
    expect(code, output).toBe(0);
    const head = (await execFileAsync("git", ["rev-parse", "--short=9", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" })).stdout.trim();
    for (const name of ["REST read", "REST write", "GraphQL read", "GraphQL write"]) {
      expect(output).toMatch(new RegExp(`^${name} +\\d+\\.\\d% of ${head}  middle half \\d+\\.\\d%–\\d+\\.\\d%, rounds \\d+\\.\\d%–\\d+\\.\\d%  (faster|slower|within noise)$`, "m"));
    }
    expect(output).toMatch(new RegExp(`^control +\\d+\\.\\d%  rounds .*: two processes of ${head}, a noise margin of ±\\d+\\.\\d points$`, "m"));
    const table = readFileSync(report, "utf8");
    expect(table.split("\n").filter((line) => line.startsWith("| ")).length).toBe(1 + 4 + 1);
    expect(readFileSync(chart, "utf8")).toMatch(/^<svg [\s\S]*<\/svg>\n$/);
    expect(await worktrees()).toBe(before);
  }, 240_000);

  it("refuses a ref that is no commit, and a run without --against, naming what is wrong", async () => {
    const before = await worktrees();
    const unknown = await compare(["--against", "no-such-ref-anywhere", "--report", join(dir, "x.md"), "--chart", join(dir, "x.svg")]);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain("bench:compare: no-such-ref-anywhere is not a commit of this repository");
    const usage = await compare([]);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain("usage: npm run bench:compare -- --against <commit, branch or tag>");
    expect(existsSync(join(dir, "x.md"))).toBe(false);
    expect(await worktrees()).toBe(before);
  }, 60_000);
});
