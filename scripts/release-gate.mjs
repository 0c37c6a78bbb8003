// What `npm run pack` checks before it builds anything: generated files up to date (`generate
// --check`), and the contract diff against the last release passing, which includes api.version
// being raised as far as the changes since that release call for. The last release is
// $APIGEN_RELEASE_BASE, else the newest v* tag; without either there is nothing to compare with.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const APIGEN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "apigen.js");
export const RELEASE_BASE_ENV = "APIGEN_RELEASE_BASE";

const run = (command, args) => spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** The last release: the environment's choice, or the newest v* tag by version order. */
export function releaseBase(root, env = process.env) {
  if (env[RELEASE_BASE_ENV]?.trim()) return env[RELEASE_BASE_ENV].trim();
  const tags = run("git", ["-C", root, "tag", "--list", "v*", "--sort=-v:refname"]);
  return tags.status === 0 ? tags.stdout.split("\n").find((t) => t.trim() !== "") : undefined;
}

/** Answers `{ problems, notes }`: pack refuses when there is any problem. */
export function releaseGate({ root, env = process.env }) {
  const problems = [];
  const notes = [];
  const check = run(process.execPath, [APIGEN, "generate", "--check", "--root", root]);
  if (check.status !== 0) problems.push(`generated files are not up to date:\n${check.stderr.trim()}`);

  const base = releaseBase(root, env);
  if (base === undefined) {
    notes.push(`no release base found (${RELEASE_BASE_ENV} is not set and there is no v* tag): api.version not checked against a release`);
    return { problems, notes };
  }
  const diff = run(process.execPath, [APIGEN, "diff", "--against", base, "--format", "json", "--root", root]);
  if (diff.status === 2) {
    problems.push(`cannot diff against the release base ${base}: ${diff.stderr.trim()}`);
  } else {
    const report = JSON.parse(diff.stdout);
    const open = report.changes.filter((c) => c.severity === "breaking" && !c.accepted).map((c) => c.id);
    if (open.length > 0) problems.push(`breaking changes since ${base} are not accepted: ${open.join(", ")}`);
    if (!report.version.ok) problems.push(`${report.version.message} (since ${base})`);
    if (problems.length === 0) notes.push(`contract since ${base}: ${report.version.message}`);
  }
  return { problems, notes };
}
