// The release gate of `npm run pack` (scripts/release-gate.mjs): it refuses stale generated files
// and a version the contract diff against the last release says is too low, and passes a breaking
// change shipped with a major bump and an acceptance. The last release is APIGEN_RELEASE_BASE, a
// v* tag or release.json; without any, it refuses unless told this is the first release.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import semver from "semver";
import { schema } from "../../generated/schema.js";
import { recordedRelease, releaseGate, releaseToRecord } from "../../scripts/release-gate.mjs";
import { apigen, copyOfRepo } from "../helpers/project.js";
import { applyEdits } from "./corpus.js";

const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=apigen test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: root, encoding: "utf8" }).trim();

const NO_ENV = { PATH: process.env.PATH ?? "" };
/** The project's version as released here, and the versions after it. */
const V = schema.version;
const PATCH = semver.inc(V, "patch")!;
const MAJOR = semver.inc(V, "major")!;
const VERSION_LINE = `\n  version: ${V}\n`;

let released: string;
/** The commit of the release. */
let releasedCommit: string;
let removal: [string, string];

/** A copy of the released project with `edits` applied to its manifest, regenerated unless `stale`. */
function edited(edits: [string, string][], stale = false): string {
  const root = copyOfRepo();
  execFileSync("cp", ["-r", join(released, ".git"), root]);
  writeFileSync(join(root, "operations.yaml"), applyEdits(readFileSync(join(root, "operations.yaml"), "utf8"), edits));
  if (!stale) expect(apigen(root, "generate").code).toBe(0);
  return root;
}

beforeAll(() => {
  // The release: this project as it is, committed and tagged v<its version>.
  released = copyOfRepo();
  git(released, "init", "--quiet");
  git(released, "add", ".");
  git(released, "commit", "--quiet", "-m", `release ${V}`);
  git(released, "tag", `v${V}`);
  releasedCommit = git(released, "rev-parse", "HEAD");
  const manifest = readFileSync(join(released, "operations.yaml"), "utf8");
  removal = [manifest.slice(manifest.indexOf("  get_webhook:\n"), manifest.indexOf("  webhooks:\n")), ""];
}, 120_000);

describe("release gate", () => {
  it("passes the released project itself, comparing with the newest v* tag", () => {
    expect(releaseGate({ root: released, env: NO_ENV })).toEqual({ problems: [], notes: [`contract since v${V}: api.version ${V} -> ${V}: no contract change`] });
  });

  it("refuses an unbumped breaking change since the release recorded in release.json (no tag)", () => {
    const root = edited([removal]);
    git(root, "tag", "-d", `v${V}`);
    writeFileSync(join(root, "release.json"), JSON.stringify({ version: V, commit: releasedCommit }));
    const since = `${V} (release.json, commit ${releasedCommit.slice(0, 12)})`;
    const gate = releaseGate({ root, env: NO_ENV });
    expect(gate.problems).toEqual([
      `breaking changes since ${since} are not accepted: operation-removed:get_webhook`,
      `api.version is still ${V} but the contract changed: api.version ${V} -> at least ${MAJOR} (major bump for breaking changes) (since ${since})`,
    ]);
  }, 60_000);

  it("passes a breaking change with a major bump and an acceptance", () => {
    const root = edited([
      removal,
      [VERSION_LINE, `\n  version: ${MAJOR}\n`],
      ["  breaking_changes_accepted:\n", `  breaking_changes_accepted:\n    - { change: 'operation-removed:get_webhook', reason: replaced by webhooks, version: ${MAJOR} }\n`],
    ]);
    expect(releaseGate({ root, env: NO_ENV })).toEqual({ problems: [], notes: [`contract since v${V}: api.version ${V} -> ${MAJOR} (major bump for breaking changes)`] });
  }, 60_000);

  it("refuses stale generated files, --first-release or not", () => {
    const root = edited(
      [
        ["    description: List clients.\n", "    description: List every client.\n"],
        [VERSION_LINE, `\n  version: ${PATCH}\n`],
      ],
      true,
    );
    git(root, "tag", "-d", `v${V}`);
    const gate = releaseGate({ root, env: NO_ENV, firstRelease: true });
    expect(gate.problems).toHaveLength(1);
    expect(gate.problems[0]).toMatch(/^generated files are not up to date:\nstale: /);
    expect(gate.notes).toEqual([expect.stringMatching(/^first release \(--first-release\): no release to compare with/)]);
  }, 60_000);

  it("compares with APIGEN_RELEASE_BASE when set; without any release, refuses unless told it is the first", () => {
    const root = edited([["    description: List clients.\n", "    description: List every client.\n"]]);
    const gate = releaseGate({ root, env: { ...NO_ENV, APIGEN_RELEASE_BASE: "HEAD" } });
    expect(gate.problems).toEqual([`api.version is still ${V} but the contract changed: api.version ${V} -> at least ${PATCH} (patch bump for changes without additions) (since HEAD)`]);
    git(root, "tag", "-d", `v${V}`);
    const none = "no release to compare with (APIGEN_RELEASE_BASE is not set, there is no v* tag and no release.json)";
    expect(releaseGate({ root, env: NO_ENV })).toEqual({
      problems: [
        `${none}. If nothing was released before, pack the first release with \`npm run pack -- --first-release\`; otherwise set APIGEN_RELEASE_BASE to the commit or tag of the last release`,
      ],
      notes: [],
    });
    expect(releaseGate({ root, env: NO_ENV, firstRelease: true })).toEqual({ problems: [], notes: [`first release (--first-release): ${none}; api.version not checked against a release`] });
    // `--release` records HEAD, so not while the manifest differs from it.
    expect(() => releaseToRecord(root)).toThrow(/^--release records HEAD, but operations.yaml or proto\/field-numbers.lock.json differs from it: commit them first\n M operations.yaml$/);
  }, 60_000);

  it("records a release as HEAD and its api.version, and refuses a record its commit contradicts", () => {
    expect(releaseToRecord(released)).toEqual({ version: V, commit: releasedCommit });
    writeFileSync(join(released, "release.json"), JSON.stringify({ version: PATCH, commit: releasedCommit }));
    try {
      expect(() => recordedRelease(released)).toThrow(`release.json records release ${PATCH}, but api.version at commit ${releasedCommit.slice(0, 12)} is ${V}`);
    } finally {
      rmSync(join(released, "release.json"));
    }
  });
});
