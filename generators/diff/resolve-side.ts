// Where the two manifests of a diff come from: the working tree (new side) and `--against`, which
// is a file holding a manifest, a folder holding a project, or a git ref (read with `git show`,
// without touching the work tree). Each side brings its field-number lock when it has one.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, resolve, sep } from "node:path";
import { UsageError } from "../load/diagnostics.js";
import { LOCK_PATH } from "../load/lock.js";

export interface ManifestSide {
  /** How the side is named in reports and errors, e.g. `HEAD~1:operations.yaml`. */
  displayName: string;
  text: string;
  /** The lock's text, or undefined when that side has none. */
  lockText?: string;
  /** Where the lock came from, for its errors. */
  lockName?: string;
}

function readText(file: string, displayName: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `${displayName}: no such file` : `${displayName}: cannot read (${code})`);
  }
}

function readOptional(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** The new side: the manifest and lock in the project root as they are now. */
export function workingTreeSide(root: string, manifestPath: string): ManifestSide {
  const side: ManifestSide = { displayName: manifestPath, text: readText(join(root, manifestPath), manifestPath) };
  const lockText = readOptional(join(root, LOCK_PATH));
  if (lockText !== undefined) Object.assign(side, { lockText, lockName: LOCK_PATH });
  return side;
}

/** The old side named by --against: an existing file or folder first, a git ref otherwise. */
export async function resolveAgainst(root: string, manifestPath: string, against: string, cwd = process.cwd()): Promise<ManifestSide> {
  if (against.trim() === "") throw new UsageError("--against needs a git ref, a folder or a manifest file");
  // git would read a ref that starts with '-' as one of its own options.
  if (against.startsWith("-")) throw new UsageError(`--against '${against}' is not a git ref, a folder or a manifest file`);
  const path = resolve(cwd, against);
  if (existsSync(path)) {
    const folder = statSync(path).isDirectory();
    const file = folder ? join(path, manifestPath) : path;
    const side: ManifestSide = { displayName: folder ? join(against, manifestPath) : against, text: readText(file, folder ? join(against, manifestPath) : against) };
    // A manifest file brings the lock of the project it sits in, if any.
    const lockFile = join(folder ? path : dirname(path), LOCK_PATH);
    const lockText = readOptional(lockFile);
    if (lockText !== undefined) Object.assign(side, { lockText, lockName: lockFile });
    return side;
  }
  return gitSide(root, manifestPath, against);
}

interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  missingGit: boolean;
}

function git(root: string, args: string[]): Promise<GitResult> {
  return new Promise((done) => {
    execFile("git", ["-C", root, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ ok: !error, stdout, stderr, missingGit: (error as NodeJS.ErrnoException | null)?.code === "ENOENT" });
    });
  });
}

async function gitSide(root: string, manifestPath: string, ref: string): Promise<ManifestSide> {
  // `REF:./path` is relative to the folder git runs in, so the manifest path works from any sub-folder of a repository.
  const relative = (path: string) => `./${path.split(sep).join(posix.sep)}`;
  const [manifest, lock] = await Promise.all([git(root, ["show", `${ref}:${relative(manifestPath)}`]), git(root, ["show", `${ref}:${relative(LOCK_PATH)}`])]);
  const displayName = `${ref}:${manifestPath}`;
  if (!manifest.ok) {
    if (manifest.missingGit) throw new UsageError(`'${ref}' is not a file or folder, and git is not installed to read it as a ref`);
    const reason = manifest.stderr.trim().split("\n")[0] ?? "";
    if (/not a git repository/i.test(reason)) {
      throw new UsageError(`'${ref}' is not a file or folder, and ${root} is not in a git repository`);
    }
    const known = await git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
    if (!known.ok) throw new UsageError(`'${ref}' is not a file, a folder or a git ref known here`);
    throw new UsageError(`${manifestPath} does not exist at ${ref}`);
  }
  const side: ManifestSide = { displayName, text: manifest.stdout };
  if (lock.ok) Object.assign(side, { lockText: lock.stdout, lockName: `${ref}:${LOCK_PATH}` });
  return side;
}
