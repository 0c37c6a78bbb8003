// The real `apigen diff` command: against a git ref, a folder and a file; text, markdown and JSON
// output; exit codes; acknowledging a break with --accept and in the manifest; clear errors.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildIr } from "../../generators/ir/build-ir.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock, LOCK_PATH, serializeLock } from "../../generators/load/lock.js";
import { apigen, tempDir } from "../helpers/project.js";
import { applyEdits, BASE_MANIFEST } from "./corpus.js";

const REQUIRED_INPUT: [string, string] = [
  "    input:\n      pagination: PaginationInput\n      query: string\n",
  "    input:\n      pagination: PaginationInput\n      query: string\n      org_id: string!\n",
];
const BREAK_ID = "input-field-required-added:users.org_id";
/** A breaking change ships in a new major version. */
const MAJOR: [string, string] = ["  version: 2.4.0\n", "  version: 3.0.0\n"];

/** A project folder holding `manifest` and the lock generate would write for it. */
function writeProject(root: string, manifest: string): void {
  mkdirSync(join(root, "proto"), { recursive: true });
  writeFileSync(join(root, "operations.yaml"), manifest);
  writeFileSync(join(root, LOCK_PATH), serializeLock(buildIr(loadManifestText(manifest), emptyLock()).lock));
}

const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=apigen test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: root, encoding: "utf8" });

let repo: string;

beforeAll(() => {
  // A throwaway repository: the base manifest committed, then edited in the work tree.
  repo = tempDir("apigen-diff-");
  writeProject(repo, BASE_MANIFEST);
  git(repo, "init", "--quiet");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "base");
  writeFileSync(join(repo, "operations.yaml"), applyEdits(BASE_MANIFEST, [REQUIRED_INPUT, MAJOR]));
});

describe("apigen diff --against <git ref>", () => {
  it("prints a text report of every change and exits 1 on a breaking one", () => {
    const result = apigen(repo, "diff", "--against", "HEAD");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Contract diff: operations.yaml against HEAD:operations.yaml");
    expect(result.stdout).toContain(`breaking  ${BREAK_ID}  [graphql, rest, grpc; sdk: typescript, python, go]`);
    expect(result.stdout).toMatch(/found by: manifest, .*graphql-inspector/);
    expect(result.stdout).toContain("version: api.version 2.4.0 -> 3.0.0 (major bump for breaking changes)");
    expect(result.stdout).toContain("FAILED: 1 breaking change not accepted");
  });

  it("gives a markdown PR comment", () => {
    const result = apigen(repo, "diff", "--against", "HEAD", "--format", "markdown");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^### Contract diff against `HEAD:operations.yaml`/);
    expect(result.stdout).toContain("| protocol or SDK | breaking | dangerous | safe |");
    expect(result.stdout).toContain("| typescript SDK | 1 | 0 | 0 |");
    expect(result.stdout).toContain("| python SDK | 1 | 0 | 0 |");
    expect(result.stdout).toContain(`| **breaking** | users | \`${BREAK_ID}\` | graphql, rest, grpc | typescript, python, go |`);
  });

  it("gives a machine-readable JSON list", () => {
    const result = apigen(repo, "diff", "--against", "HEAD", "--format", "json");
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      failed: true,
      summary: { breaking: 1, accepted: 0 },
      version: { old: "2.4.0", new: "3.0.0", bump: "major", minimum: "3.0.0", ok: true },
      protocols: { rest: { breaking: 1 } },
      sdks: { typescript: { breaking: 1 }, python: { breaking: 1 }, go: { breaking: 1 } },
    });
    // Each SDK's users input gains the field: the change names the SDKs it touches.
    expect(report.changes).toEqual([
      expect.objectContaining({ id: BREAK_ID, severity: "breaking", operation: "users", protocols: ["graphql", "rest", "grpc"], sdks: ["typescript", "python", "go"], accepted: null }),
    ]);
    expect(report.changes[0].sources).toEqual(expect.arrayContaining(["manifest", "graphql-inspector", "openapi"]));
  });

  it("passes when the break is accepted with --accept, and still shows it", () => {
    const result = apigen(repo, "diff", "--against", "HEAD", "--accept", BREAK_ID, "--accept", "operation-removed:nothing");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`breaking (accepted: accepted with --accept)  ${BREAK_ID}`);
    expect(result.stdout).toContain("accepted but not in this diff (remove if stale): operation-removed:nothing");
    expect(result.stdout).toContain("PASSED: every breaking change is accepted.");
  });

  it("suggests the id a mistyped --accept meant, and still fails", () => {
    const result = apigen(repo, "diff", "--against", "HEAD", "--accept", "input-field-required-add:users.org_id");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`accepted but not in this diff (remove if stale): input-field-required-add:users.org_id (did you mean ${BREAK_ID}?)`);
  });

  it("fails when api.version was not raised as far as the changes call for, naming the version", () => {
    const root = tempDir("apigen-diff-");
    writeProject(root, applyEdits(BASE_MANIFEST, [REQUIRED_INPUT]));
    const old = join(root, "old");
    writeProject(old, BASE_MANIFEST);
    const result = apigen(root, "diff", "--against", old, "--accept", BREAK_ID);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAILED: api.version is still 2.4.0 but the contract changed: api.version 2.4.0 -> at least 3.0.0 (major bump for breaking changes).");
  });

  it("passes when the new manifest accepts the break with a reason", () => {
    const root = tempDir("apigen-diff-");
    writeProject(root, BASE_MANIFEST);
    const accepted = applyEdits(BASE_MANIFEST, [
      REQUIRED_INPUT,
      MAJOR,
      ["  groups:\n", `  breaking_changes_accepted:\n    - change: ${BREAK_ID}\n      reason: every caller already sends org_id\n      version: 3.0.0\n  groups:\n`],
    ]);
    const against = join(root, "old");
    writeProject(against, BASE_MANIFEST);
    writeFileSync(join(root, "operations.yaml"), accepted);
    const result = apigen(root, "diff", "--against", against, "--format", "json");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.failed).toBe(false);
    expect(report.changes[0]).toMatchObject({ id: BREAK_ID, severity: "breaking", accepted: { reason: "every caller already sends org_id", by: "manifest" } });
    const text = apigen(root, "diff", "--against", against);
    expect(text.stdout).toContain(`breaking (accepted: every caller already sends org_id)  ${BREAK_ID}`);
  });

  it("lets an acceptance name a lower bump, for a break no released client can meet, and still reports it", () => {
    const root = tempDir("apigen-diff-");
    const against = join(root, "old");
    writeProject(against, BASE_MANIFEST);
    const acceptance = (bump: string) =>
      ["  groups:\n", `  breaking_changes_accepted:\n    - change: ${BREAK_ID}\n      reason: users never answered before 2.5\n      version: 2.5.0${bump}\n  groups:\n`] as [string, string];
    writeProject(root, applyEdits(BASE_MANIFEST, [REQUIRED_INPUT, ["  version: 2.4.0\n", "  version: 2.5.0\n"], acceptance("\n      bump: minor")]));
    const minor = apigen(root, "diff", "--against", against);
    expect(minor.code).toBe(0);
    expect(minor.stdout).toContain(`breaking (accepted: users never answered before 2.5; ships in a minor version)  ${BREAK_ID}`);
    expect(minor.stdout).toContain("api.version 2.4.0 -> 2.5.0 (minor bump for additions)");
    // Without the bump, the accepted break calls for a major version as before.
    writeProject(root, applyEdits(BASE_MANIFEST, [REQUIRED_INPUT, ["  version: 2.4.0\n", "  version: 2.5.0\n"], acceptance("")]));
    const major = apigen(root, "diff", "--against", against);
    expect(major.code).toBe(1);
    expect(major.stdout).toContain("api.version 2.4.0 -> 2.5.0 is not enough: api.version 2.4.0 -> at least 3.0.0 (major bump for breaking changes)");
  });

  it("exits 0 with nothing to report when the manifest is unchanged", () => {
    const root = tempDir("apigen-diff-");
    writeProject(root, BASE_MANIFEST);
    const result = apigen(root, "diff", "--against", join(root, "operations.yaml"));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("0 breaking, 0 dangerous, 0 safe");
  });
});

describe("apigen diff --against <folder | file>", () => {
  it("reads an older project folder, or a manifest file", () => {
    const old = tempDir("apigen-diff-old-");
    writeProject(old, BASE_MANIFEST);
    for (const against of [old, join(old, "operations.yaml")]) {
      const result = apigen(repo, "diff", "--against", against, "--format", "json");
      expect(result.code, against).toBe(1);
      expect(JSON.parse(result.stdout).changes.map((c: { id: string }) => c.id)).toEqual([BREAK_ID]);
    }
  });

  it("reports a safe change as safe and exits 0", () => {
    const root = tempDir("apigen-diff-");
    writeProject(root, BASE_MANIFEST);
    const old = join(root, "old.yaml");
    writeFileSync(old, BASE_MANIFEST);
    const wording: [string, string] = ["    description: List users.\n", "    description: List every user.\n"];
    writeFileSync(join(root, "operations.yaml"), applyEdits(BASE_MANIFEST, [wording, ["  version: 2.4.0\n", "  version: 2.4.1\n"]]));
    const result = apigen(root, "diff", "--against", old);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("safe  description-changed:users  [graphql, rest, grpc]");
    expect(result.stdout).toContain("version: api.version 2.4.0 -> 2.4.1 (patch bump for changes without additions)");
    // Without the patch bump the same change fails.
    writeFileSync(join(root, "operations.yaml"), applyEdits(BASE_MANIFEST, [wording]));
    expect(apigen(root, "diff", "--against", old).code).toBe(1);
  });
});

describe("apigen diff errors", () => {
  const oneLine = (stderr: string) => {
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  };

  it("exits 2 on an unknown ref with a one-line message", () => {
    const result = apigen(repo, "diff", "--against", "no-such-branch");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'no-such-branch' is not a file, a folder or a git ref known here");
    oneLine(result.stderr);
  });

  it("exits 2 when --against is missing or --format is unknown", () => {
    const missing = apigen(repo, "diff");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("diff needs --against");
    const format = apigen(repo, "diff", "--against", "HEAD", "--format", "html");
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("--format must be one of text, markdown, json, not 'html'");
    oneLine(format.stderr);
  });

  it("exits 2 when the ref has no manifest", () => {
    const root = tempDir("apigen-diff-");
    writeFileSync(join(root, "README"), "no manifest yet\n");
    git(root, "init", "--quiet");
    git(root, "add", ".");
    git(root, "commit", "--quiet", "-m", "first");
    writeProject(root, BASE_MANIFEST);
    const result = apigen(root, "diff", "--against", "HEAD");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("operations.yaml does not exist at HEAD");
  });

  it("names the side and the position of a manifest error", () => {
    const root = tempDir("apigen-diff-");
    writeProject(root, BASE_MANIFEST);
    const broken = join(root, "broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "operations.yaml"), BASE_MANIFEST.replace("    kind: read\n    auth: admin_secret\n", "    kind: reed\n    auth: admin_secret\n"));
    const result = apigen(root, "diff", "--against", broken);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\/operations\.yaml:\d+:\d+: error invalid-value: operation 'users': 'reed' is not a valid kind/);
    expect(result.stderr).toContain("1 error in the old manifest");
    expect(result.stderr).not.toMatch(/\n\s+at /);

    const old = join(root, "old");
    writeProject(old, BASE_MANIFEST);
    writeFileSync(join(root, "operations.yaml"), BASE_MANIFEST.replace("    output: Key\n", "    output: Kye\n"));
    const newSide = apigen(root, "diff", "--against", old);
    expect(newSide.code).toBe(2);
    expect(newSide.stderr).toMatch(/^operations\.yaml:\d+:\d+: error unknown-type: operation 'rotate_key': output refers to unknown type 'Kye'; did you mean 'Key'\?/);
    expect(newSide.stderr).toContain("1 error in the new manifest (operations.yaml); cannot diff.");
  });
});
