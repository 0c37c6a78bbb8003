// The one writer: adds the generated-file header, compares with what is on disk, and writes only the
// paths it owns. Files are staged first and renamed into place, so an interrupted or failing run
// never leaves a half-written file; nothing is written unless every emitter succeeded.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { headerFor } from "./header.js";

export interface GeneratedFile {
  /** Relative to the project root, with forward slashes. */
  path: string;
  content: string;
  /** False for files that carry their own notice (protoc-gen-es) or allow none (JSON). */
  header?: boolean;
}

/** The list of every path the writer owns; a path dropped from it is deleted on the next run. */
export const OWNED_FILES_LIST = "generated/files.txt";

export interface Rendered {
  files: Map<string, string>;
}

export function render(files: readonly GeneratedFile[]): Rendered {
  const rendered = new Map<string, string>();
  for (const file of files) {
    if (rendered.has(file.path)) throw new Error(`two emitters produce ${file.path}`);
    const header = file.header === false ? undefined : headerFor(file.path);
    const separator = file.path.endsWith(".proto") || file.path.endsWith(".graphql") || file.path.endsWith(".md") ? "\n\n" : "\n";
    rendered.set(file.path, header === undefined ? file.content : header + separator + file.content);
  }
  const owned = [...rendered.keys(), OWNED_FILES_LIST].sort();
  rendered.set(OWNED_FILES_LIST, `# Files written by \`apigen generate\`; do not edit them by hand.\n${owned.join("\n")}\n`);
  return { files: new Map([...rendered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

export interface Drift {
  /** Generated paths whose content on disk differs. */
  stale: string[];
  /** Generated paths absent on disk. */
  missing: string[];
  /** Paths owned by an earlier run that this run no longer produces. */
  orphaned: string[];
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function previouslyOwned(root: string): string[] {
  const list = readOrUndefined(join(root, OWNED_FILES_LIST));
  if (list === undefined) return [];
  return list.split("\n").filter((line) => line && !line.startsWith("#") && !line.includes(".."));
}

export function compare(root: string, rendered: Rendered): Drift {
  const drift: Drift = { stale: [], missing: [], orphaned: [] };
  for (const [path, content] of rendered.files) {
    const current = readOrUndefined(join(root, path));
    if (current === undefined) drift.missing.push(path);
    else if (current !== content) drift.stale.push(path);
  }
  for (const path of previouslyOwned(root)) {
    if (!rendered.files.has(path) && readOrUndefined(join(root, path)) !== undefined) drift.orphaned.push(path);
  }
  return drift;
}

export interface WriteResult {
  written: string[];
  unchanged: number;
  removed: string[];
}

export function write(root: string, rendered: Rendered): WriteResult {
  const drift = compare(root, rendered);
  const changed = [...drift.missing, ...drift.stale].sort();
  const staging = join(root, `.generate-staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const path of changed) {
      const staged = join(staging, path);
      mkdirSync(dirname(staged), { recursive: true });
      writeFileSync(staged, rendered.files.get(path)!);
    }
    // The owned-files list goes last: until it lands, the previous list still names every file.
    const ordered = [...changed.filter((p) => p !== OWNED_FILES_LIST), ...changed.filter((p) => p === OWNED_FILES_LIST)];
    for (const path of ordered) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      renameSync(join(staging, path), join(root, path));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  for (const path of drift.orphaned) rmSync(join(root, path), { force: true });
  return { written: changed, unchanged: rendered.files.size - changed.length, removed: drift.orphaned };
}
