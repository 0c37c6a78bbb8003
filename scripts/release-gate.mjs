// What `npm run pack` checks before it builds anything: generated files up to date (`generate
// --check`), and the contract diff against the last release passing, which includes api.version
// being raised as far as the changes since that release call for. The last release is
// $APIGEN_RELEASE_BASE, else the newest v* tag, else the release recorded in release.json (the
// api.version and the commit it was released from, written by `npm run pack -- --release`).
// Without any of the three, pack refuses unless told that this is the first release
// (`--first-release`), which packs without comparing with anything.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

const APIGEN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "apigen.js");
export const RELEASE_BASE_ENV = "APIGEN_RELEASE_BASE";
export const RELEASE_RECORD = "release.json";
export const FIRST_RELEASE_FLAG = "--first-release";
const MANIFEST = "operations.yaml";
const LOCK = "proto/field-numbers.lock.json";

const run = (command, args) => spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const git = (root, ...args) => run("git", ["-C", root, ...args]);
const apiVersion = (manifestText) => parseYaml(manifestText)?.api?.version;

/**
 * The release recorded in release.json, `{ version, commit }`, or undefined when there is none.
 * Throws when the record cannot be used: unreadable, a field missing, a commit this clone does
 * not have, or a version that is not the api.version of that commit's manifest.
 */
export function recordedRelease(root) {
  const file = join(root, RELEASE_RECORD);
  if (!existsSync(file)) return undefined;
  let record;
  try {
    record = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${RELEASE_RECORD} is not JSON: ${error.message}`);
  }
  const { version, commit } = record ?? {};
  if (typeof version !== "string" || typeof commit !== "string" || !/^[0-9a-f]{40}$/.test(commit)) {
    throw new Error(`${RELEASE_RECORD} must hold { "version": "<api.version released>", "commit": "<its 40-hex commit>" }`);
  }
  const manifest = git(root, "show", `${commit}:./${MANIFEST}`);
  if (manifest.status !== 0) {
    throw new Error(`${RELEASE_RECORD}: commit ${commit} (release ${version}) is not in this clone (a shallow clone? git fetch --unshallow): ${manifest.stderr.trim()}`);
  }
  const released = apiVersion(manifest.stdout);
  if (released !== version) throw new Error(`${RELEASE_RECORD} records release ${version}, but api.version at commit ${commit.slice(0, 12)} is ${released}`);
  return { version, commit };
}

/**
 * The last release, `{ ref, label }` (label names it in messages), or undefined when there is
 * none: the environment's choice, else the newest v* tag by version order, else release.json.
 */
export function releaseBase(root, env = process.env) {
  if (env[RELEASE_BASE_ENV]?.trim()) return { ref: env[RELEASE_BASE_ENV].trim(), label: env[RELEASE_BASE_ENV].trim() };
  const tags = git(root, "tag", "--list", "v*", "--sort=-v:refname");
  const tag = tags.status === 0 ? tags.stdout.split("\n").find((t) => t.trim() !== "") : undefined;
  if (tag !== undefined) return { ref: tag, label: tag };
  const record = recordedRelease(root);
  return record && { ref: record.commit, label: `${record.version} (${RELEASE_RECORD}, commit ${record.commit.slice(0, 12)})` };
}

/**
 * Answers `{ problems, notes }`: pack refuses when there is any problem. `firstRelease` lets pack
 * go on when there is no release to compare with; it changes nothing when there is one. `apigen`:
 * the command (program and first arguments) that checks and diffs, this repository's by default;
 * `packCommand`: how the messages name pack.
 */
export function releaseGate({ root, env = process.env, firstRelease = false, apigen = [process.execPath, APIGEN], packCommand = "npm run pack --" }) {
  const problems = [];
  const notes = [];
  const [program, ...programArgs] = apigen;
  const check = run(program, [...programArgs, "generate", "--check", "--root", root]);
  if (check.status !== 0) problems.push(`generated files are not up to date:\n${check.stderr.trim()}`);

  let base;
  try {
    base = releaseBase(root, env);
  } catch (error) {
    problems.push(error.message);
    return { problems, notes };
  }
  if (base === undefined) {
    const none = `no release to compare with (${RELEASE_BASE_ENV} is not set, there is no v* tag and no ${RELEASE_RECORD})`;
    if (firstRelease) notes.push(`first release (${FIRST_RELEASE_FLAG}): ${none}; api.version not checked against a release`);
    else
      problems.push(
        `${none}. If nothing was released before, pack the first release with \`${packCommand} ${FIRST_RELEASE_FLAG}\`; otherwise set ${RELEASE_BASE_ENV} to the commit or tag of the last release`,
      );
    return { problems, notes };
  }
  if (firstRelease) notes.push(`${FIRST_RELEASE_FLAG} ignored: there is a release to compare with, ${base.label}`);
  const diff = run(program, [...programArgs, "diff", "--against", base.ref, "--format", "json", "--root", root]);
  if (diff.status === 2) {
    problems.push(`cannot diff against the release base ${base.label}: ${diff.stderr.trim()}`);
  } else {
    const report = JSON.parse(diff.stdout);
    const open = report.changes.filter((c) => c.severity === "breaking" && !c.accepted).map((c) => c.id);
    if (open.length > 0) problems.push(`breaking changes since ${base.label} are not accepted: ${open.join(", ")}`);
    if (!report.version.ok) problems.push(`${report.version.message} (since ${base.label})`);
    if (problems.length === 0) notes.push(`contract since ${base.label}: ${report.version.message}`);
  }
  return { problems, notes };
}

/**
 * The release `npm run pack -- --release` records: HEAD and the api.version of its manifest.
 * Refuses while the manifest or the field-number lock differs from HEAD's, since the record names
 * a commit and the next release is diffed against that commit's files.
 */
export function releaseToRecord(root) {
  const head = git(root, "rev-parse", "--verify", "HEAD");
  if (head.status !== 0) throw new Error(`--release records the commit the release is made from, and ${root} has no commit`);
  const dirty = git(root, "status", "--porcelain", "--", MANIFEST, LOCK);
  if (dirty.status !== 0 || dirty.stdout.trim() !== "") {
    throw new Error(`--release records HEAD, but ${MANIFEST} or ${LOCK} differs from it: commit them first\n${dirty.stdout.trimEnd()}${dirty.stderr.trim()}`);
  }
  return { version: apiVersion(readFileSync(join(root, MANIFEST), "utf8")), commit: head.stdout.trim() };
}

/** Writes the release record (release.json), to be committed once the release is published. */
export function writeReleaseRecord(root, record) {
  writeFileSync(join(root, RELEASE_RECORD), `${JSON.stringify(record, null, 2)}\n`);
}
