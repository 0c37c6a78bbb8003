// `--against auto`: the base a CI run diffs against. APIGEN_DIFF_BASE when set (a ref, folder or
// file); else the merge base with origin/main when that ref exists and the merge base is not HEAD
// itself (a pull request, or a push of several commits); else HEAD~1 (a clean clone of main, where
// origin/main is HEAD). A repository without any of these has nothing to diff against.
import { execFile } from "node:child_process";

export const AUTO = "auto";
export const BASE_ENV = "APIGEN_DIFF_BASE";
export const TARGET_BRANCH = "origin/main";

export type AutoBase = { ref: string; label: string; why: string } | { skip: string };

function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((done) => {
    execFile("git", ["-C", root, ...args], { encoding: "utf8" }, (error, stdout) => done(error ? undefined : stdout.trim()));
  });
}

const commit = (root: string, ref: string) => git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);

export async function resolveAutoBase(root: string, env: NodeJS.ProcessEnv = process.env): Promise<AutoBase> {
  const configured = env[BASE_ENV]?.trim();
  if (configured) return { ref: configured, label: configured, why: `${BASE_ENV}=${configured}` };
  const head = await commit(root, "HEAD");
  if (head === undefined) return { skip: `${root} is not a git repository with a commit, and ${BASE_ENV} is not set` };
  if ((await commit(root, TARGET_BRANCH)) !== undefined) {
    const base = await git(root, ["merge-base", "HEAD", TARGET_BRANCH]);
    if (base && base !== head) return { ref: base, label: base.slice(0, 12), why: `merge base with ${TARGET_BRANCH}` };
  }
  if ((await commit(root, "HEAD~1")) !== undefined) return { ref: "HEAD~1", label: "HEAD~1", why: `previous commit (no ${TARGET_BRANCH} apart from HEAD)` };
  return { skip: `no base to diff against: ${BASE_ENV} is not set, ${TARGET_BRANCH} is HEAD or missing, and HEAD has no parent (first commit or shallow clone)` };
}
