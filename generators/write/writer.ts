// The one writer: adds the generated-file header, compares with what is on disk, and writes only the
// paths it owns. Files are staged first and renamed into place, so an interrupted or failing run
// never leaves a half-written file; nothing is written unless every emitter succeeded.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { headerFor } from "./header.js";

export interface GeneratedFile {
  /** Relative to the project root, with forward slashes. */
  path: string;
  content: string;
  /** False for files that carry their own notice (protoc-gen-es) or allow none (JSON). */
  header?: boolean;
  /** The template a hand-written runtime file is copied from, which its header names; default the manifest. */
  source?: string;
}

/**
 * Files that are a pure function of an input hash (such as plugin output for a descriptor set).
 * When the hash and the files on disk match the record of the last run, the files are kept as
 * they are instead of being produced again.
 */
export interface DerivedGroup {
  name: string;
  inputHash: string;
  produce(): GeneratedFile[];
}

/** The record of every path the writer owns (a path dropped from it is deleted on the next run). */
export const RECORD_PATH = "generated/files.json";

interface GenerationRecord {
  files: Record<string, string>;
  groups: Record<string, { input: string; files: string[] }>;
}

export interface Rendered {
  files: Map<string, string>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function readRecord(root: string): GenerationRecord {
  const text = readOrUndefined(join(root, RECORD_PATH));
  if (text === undefined) return { files: {}, groups: {} };
  try {
    const record = JSON.parse(text) as Partial<GenerationRecord>;
    return { files: record.files ?? {}, groups: record.groups ?? {} };
  } catch {
    // A damaged record only costs a full regeneration; it never decides what is deleted then.
    return { files: {}, groups: {} };
  }
}

/** The files of a derived group: reused from disk when nothing they derive from has changed. */
function resolveGroup(root: string, record: GenerationRecord, group: DerivedGroup): GeneratedFile[] {
  const previous = record.groups[group.name];
  if (previous && previous.input === group.inputHash) {
    const kept: GeneratedFile[] = [];
    for (const path of previous.files) {
      const content = readOrUndefined(join(root, path));
      if (content === undefined || sha256(content) !== record.files[path]) return group.produce();
      kept.push({ path, content, header: false });
    }
    return kept;
  }
  return group.produce();
}

export function render(root: string, files: readonly GeneratedFile[], groups: readonly DerivedGroup[] = []): Rendered {
  const record = readRecord(root);
  const rendered = new Map<string, string>();
  const add = (file: GeneratedFile) => {
    if (rendered.has(file.path)) throw new Error(`two emitters produce ${file.path}`);
    const header = file.header === false ? undefined : headerFor(file.path, file.source);
    // Go: a blank line, so that the notice is not read as the package's doc comment.
    const separator = /\.(proto|graphql|md|go)$/.test(file.path) ? "\n\n" : "\n";
    rendered.set(file.path, header === undefined ? file.content : header + separator + file.content);
  };
  files.forEach(add);
  const groupRecords: GenerationRecord["groups"] = {};
  for (const group of groups) {
    const groupFiles = resolveGroup(root, record, group);
    groupFiles.forEach(add);
    groupRecords[group.name] = { input: group.inputHash, files: groupFiles.map((f) => f.path).sort() };
  }
  const sorted = new Map([...rendered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const next: GenerationRecord & { "//": string } = {
    "//": "Written by `apigen generate`: every file it owns, with its sha256. Do not edit generated files by hand.",
    files: Object.fromEntries([...sorted].map(([path, content]) => [path, sha256(content)])),
    groups: groupRecords,
  };
  sorted.set(RECORD_PATH, JSON.stringify(next, null, 2) + "\n");
  return { files: sorted };
}

export interface Drift {
  /** Generated paths whose content on disk differs. */
  stale: string[];
  /** Generated paths absent on disk. */
  missing: string[];
  /** Paths owned by an earlier run that this run no longer produces, unchanged since. */
  orphaned: string[];
  /** Such paths whose content changed since it was written: someone else's now, never deleted. */
  foreign: string[];
}

export function compare(root: string, rendered: Rendered): Drift {
  const drift: Drift = { stale: [], missing: [], orphaned: [], foreign: [] };
  for (const [path, content] of rendered.files) {
    const current = readOrUndefined(join(root, path));
    if (current === undefined) drift.missing.push(path);
    else if (current !== content) drift.stale.push(path);
  }
  for (const [path, hash] of Object.entries(readRecord(root).files)) {
    if (path.includes("..") || path.startsWith("/") || rendered.files.has(path)) continue;
    const content = readOrUndefined(join(root, path));
    if (content === undefined) continue;
    // Only a file exactly as the writer left it is the writer's to delete.
    if (sha256(content) === hash) drift.orphaned.push(path);
    else drift.foreign.push(path);
  }
  return drift;
}

export interface WriteResult {
  written: string[];
  unchanged: number;
  removed: string[];
  /** Files no longer generated but edited since: left in place and no longer owned. */
  leftInPlace: string[];
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
    // Orphans go first and the record last: until the record lands, the previous one still names
    // every file this run may have left behind, so an interrupted run is finished by the next one.
    for (const path of drift.orphaned) rmSync(join(root, path), { force: true });
    const ordered = [...changed.filter((p) => p !== RECORD_PATH), ...changed.filter((p) => p === RECORD_PATH)];
    for (const path of ordered) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      renameSync(join(staging, path), join(root, path));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { written: changed, unchanged: rendered.files.size - changed.length, removed: drift.orphaned, leftInPlace: drift.foreign };
}
