// The base CI diffs against (`apigen diff --against auto`, what .ci/run runs): a push of "remove
// get_webhook" followed by "fix wording" must fail against the merge base with origin/main, where
// HEAD~1 alone would pass; and the markdown report is written whatever happens.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import semver from "semver";
import { LOCK_PATH } from "../../generators/load/lock.js";
import { schema } from "../../generated/schema.js";
import { APIGEN, REPO_ROOT, tempDir, type RunResult } from "../helpers/project.js";
import { applyEdits } from "./corpus.js";

const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=apigen test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: root, encoding: "utf8" }).trim();

/** `apigen diff` in `root` with exactly the given diff environment (nothing leaks in from the test's). */
function diff(root: string, env: Record<string, string>, ...args: string[]): RunResult {
  const clean = { ...process.env };
  delete clean.APIGEN_DIFF_BASE;
  const result = spawnSync(process.execPath, [APIGEN, "diff", ...args, "--root", root], { encoding: "utf8", env: { ...clean, ...env } });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const MANIFEST = readFileSync(join(REPO_ROOT, "operations.yaml"), "utf8");
const GET_WEBHOOK = MANIFEST.slice(MANIFEST.indexOf("  get_webhook:\n"), MANIFEST.indexOf("  webhooks:\n"));
const WORDING: [string, string] = ["    description: List clients.\n", "    description: List the machine clients.\n"];

/** A repository whose one commit holds the project's manifest and lock. */
function projectRepository(): string {
  const root = tempDir("apigen-ci-base-");
  mkdirSync(join(root, "proto"));
  writeFileSync(join(root, "operations.yaml"), MANIFEST);
  copyFileSync(join(REPO_ROOT, LOCK_PATH), join(root, LOCK_PATH));
  git(root, "init", "--quiet");
  git(root, "add", ".");
  git(root, "commit", "--quiet", "-m", "base");
  return root;
}

let repo: string;
let base: string;

beforeAll(() => {
  // main, then a push of two commits, the first one breaking.
  repo = projectRepository();
  base = git(repo, "rev-parse", "HEAD");
  const removed = applyEdits(MANIFEST, [[GET_WEBHOOK, ""]]);
  writeFileSync(join(repo, "operations.yaml"), removed);
  git(repo, "commit", "--quiet", "-am", "remove get_webhook");
  // The wording fix raises the patch version, as a description change asks.
  writeFileSync(join(repo, "operations.yaml"), applyEdits(removed, [WORDING, [`\n  version: ${schema.version}\n`, `\n  version: ${semver.inc(schema.version, "patch")}\n`]]));
  git(repo, "commit", "--quiet", "-am", "fix wording");
});

describe("apigen diff --against auto", () => {
  it("without origin/main (a clean clone of main) diffs against HEAD~1, which misses the removal", () => {
    const result = diff(repo, {}, "--against", "auto");
    expect(result.stderr).toContain("contract diff against HEAD~1 (previous commit");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("safe  description-changed:clients");
    expect(result.stdout).not.toContain("get_webhook");
  });

  it("diffs against the merge base with origin/main, and fails on the removal two commits back", () => {
    git(repo, "update-ref", "refs/remotes/origin/main", base);
    try {
      const result = diff(repo, {}, "--against", "auto");
      expect(result.stderr).toContain(`contract diff against ${base.slice(0, 12)} (merge base with origin/main)`);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`Contract diff: operations.yaml against ${base.slice(0, 12)}:operations.yaml`);
      expect(result.stdout).toContain("breaking  operation-removed:get_webhook");
      expect(result.stdout).toContain(
        `api.version ${schema.version} -> ${semver.inc(schema.version, "patch")} is not enough: api.version ${schema.version} -> at least ${semver.inc(schema.version, "major")}`,
      );
      // The same run against HEAD~1 alone passes: that is what the merge base is for.
      expect(diff(repo, {}, "--against", "HEAD~1").code).toBe(0);
    } finally {
      git(repo, "update-ref", "-d", "refs/remotes/origin/main");
    }
  });

  it("takes APIGEN_DIFF_BASE first", () => {
    const result = diff(repo, { APIGEN_DIFF_BASE: "HEAD~2" }, "--against", "auto", "--format", "json");
    expect(result.stderr).toContain("contract diff against HEAD~2 (APIGEN_DIFF_BASE=HEAD~2)");
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).changes.map((c: { id: string }) => c.id)).toContain("operation-removed:get_webhook");
  });

  it("writes the markdown report for the pull request whether the diff passes or fails", () => {
    const failing = diff(repo, { APIGEN_DIFF_BASE: "HEAD~2" }, "--against", "auto", "--report", "dist/contract-diff.md");
    expect(failing.code).toBe(1);
    const markdown = readFileSync(join(repo, "dist", "contract-diff.md"), "utf8");
    expect(markdown).toMatch(/^### Contract diff against `HEAD~2:operations.yaml`/);
    expect(markdown).toContain("| **breaking** | get_webhook | `operation-removed:get_webhook` |");
    // The terminal still gets the text report.
    expect(failing.stdout).toContain("Contract diff: operations.yaml against HEAD~2:operations.yaml");
    expect(diff(repo, {}, "--against", "auto", "--report", "dist/contract-diff.md").code).toBe(0);
    expect(readFileSync(join(repo, "dist", "contract-diff.md"), "utf8")).toContain("**PASSED: no breaking changes.**");
  });

  it("skips with a message, and says so in the report, when there is nothing to diff against", () => {
    const root = projectRepository();
    const result = diff(root, {}, "--against", "auto", "--report", "dist/contract-diff.md");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("contract diff skipped: no base to diff against");
    expect(readFileSync(join(root, "dist", "contract-diff.md"), "utf8")).toMatch(/^### Contract diff: skipped\n\nno base to diff against/);
  });

  it("writes the report file when it cannot diff (exit 2)", () => {
    const result = diff(repo, { APIGEN_DIFF_BASE: "no-such-ref" }, "--against", "auto", "--report", "dist/contract-diff.md");
    expect(result.code).toBe(2);
    expect(readFileSync(join(repo, "dist", "contract-diff.md"), "utf8")).toContain("'no-such-ref' is not a file, a folder or a git ref known here");
  });
});
