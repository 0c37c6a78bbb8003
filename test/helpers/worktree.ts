// A commit checked out beside the repository as a git worktree, ready to run: today's
// node_modules linked in (but for @apigen, which is that commit's own runtime, and .cache, which is
// its own so that what it builds there replaces nothing of today's). The compatibility run and
// bench:compare build and start other commits this way.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./project.js";

const execFileAsync = promisify(execFile);

async function git(args: string[]): Promise<string> {
  try {
    return (await execFileAsync("git", args, { cwd: REPO_ROOT, encoding: "utf8" })).stdout;
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`git ${args.join(" ")} failed: ${failed.stderr?.trim() || failed.message}`);
  }
}

/** Checks out `ref` at `root` (a directory that does not exist yet); `register` learns of it at once, so that it is removed however the caller ends. */
export async function linkedWorktree(ref: string, root: string, register: (root: string) => void = () => {}): Promise<string> {
  await git(["worktree", "add", "--detach", "--force", root, ref]);
  register(root);
  mkdirSync(join(root, "node_modules", "@apigen"), { recursive: true });
  mkdirSync(join(root, "node_modules", ".cache"));
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (entry === "@apigen" || entry === ".cache") continue;
    symlinkSync(join(REPO_ROOT, "node_modules", entry), join(root, "node_modules", entry), "junction");
  }
  // Its generated code imports its own runtime by package name.
  symlinkSync(join(root, "runtime"), join(root, "node_modules", "@apigen", "runtime"), "junction");
  return root;
}

/** Removes worktrees made by linkedWorktree, whatever state they are in. */
export async function removeWorktrees(roots: readonly string[]): Promise<void> {
  for (const root of roots) await git(["worktree", "remove", "--force", root]).catch(() => undefined);
  await git(["worktree", "prune"]).catch(() => undefined);
}

/** The full commit id of `ref`, or a clear error naming it. */
export async function commitOf(ref: string): Promise<string> {
  return (
    await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch(() => {
      throw new Error(`${ref} is not a commit of this repository (git rev-parse found none)`);
    })
  ).trim();
}
