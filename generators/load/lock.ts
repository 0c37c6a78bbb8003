// The field-number lock: proto field and enum numbers, append-only. A field keeps its number when
// fields are reordered; a removed field's number is reserved and never reused; a new field gets
// the next free number. The lock is committed beside the .proto files it governs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "./diagnostics.js";

export const LOCK_PATH = "proto/field-numbers.lock.json";

export interface FieldNumberLock {
  messages: Record<string, Record<string, number>>;
  enums: Record<string, Record<string, number>>;
}

export function emptyLock(): FieldNumberLock {
  return { messages: {}, enums: {} };
}

/** Reads the lock below `root`; a missing lock is empty (every number is assigned afresh). */
export function readLock(root: string): FieldNumberLock {
  let text: string;
  try {
    text = readFileSync(join(root, LOCK_PATH), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyLock();
    throw error;
  }
  return parseLock(text, LOCK_PATH);
}

export function parseLock(text: string, file = LOCK_PATH): FieldNumberLock {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message}); restore it from version control`);
  }
  const lock = parsed as Partial<FieldNumberLock>;
  const valid = (section: unknown): section is Record<string, Record<string, number>> =>
    typeof section === "object" &&
    section !== null &&
    Object.values(section).every((entry) => typeof entry === "object" && entry !== null && Object.values(entry).every((n) => Number.isInteger(n) && (n as number) > 0));
  if (!valid(lock.messages) || !valid(lock.enums)) {
    throw new UsageError(`${file}: expected {"messages": {...}, "enums": {...}} with positive integer numbers; restore it from version control`);
  }
  return { messages: lock.messages, enums: lock.enums };
}

/** Assigns numbers to `names` within one lock entry, appending new names after the highest number ever used. */
export function assignNumbers(entry: Record<string, number>, names: readonly string[]): { numbers: Map<string, number>; reserved: { name: string; number: number }[] } {
  let next = Math.max(0, ...Object.values(entry)) + 1;
  const numbers = new Map<string, number>();
  for (const name of names) {
    let number = entry[name];
    if (number === undefined) {
      number = next++;
      entry[name] = number;
    }
    numbers.set(name, number);
  }
  const reserved = Object.entries(entry)
    .filter(([name]) => !numbers.has(name))
    .map(([name, number]) => ({ name, number }))
    .sort((a, b) => a.number - b.number);
  return { numbers, reserved };
}

/** Stable text form: keys sorted, two-space indent, trailing newline. */
export function serializeLock(lock: FieldNumberLock): string {
  const sortSection = (section: Record<string, Record<string, number>>) =>
    Object.fromEntries(
      Object.keys(section)
        .sort()
        .map((key) => [key, Object.fromEntries(Object.entries(section[key]!).sort((a, b) => a[1] - b[1]))]),
    );
  return JSON.stringify({ messages: sortSection(lock.messages), enums: sortSection(lock.enums) }, null, 2) + "\n";
}
