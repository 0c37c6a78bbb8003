// The in-memory store: the same tables, rules and answers as the SQL store, in Maps, for unit
// tests and as the baseline of bench:server. Unique rules are checked on every write against an
// index per rule (as the SQL store's unique indexes), so a write costs the same among 100 000
// records as among ten; a transaction keeps an undo journal and replays it backwards when its work
// fails. Nothing survives the process.
import { AsyncLocalStorage } from "node:async_hooks";
import { conflict } from "./errors.js";
import { matches } from "./where.js";
import { TABLES, type Collection, type Collections, type ListOptions, type Page, type Storage, type TableSpec, type Where } from "../storage.js";

type Undo = () => void;

type Rule<T> = NonNullable<TableSpec<T, keyof T & string>["unique"]>[number];

class MemoryCollection<T extends object, Q> implements Collection<T, Q> {
  private readonly records = new Map<string, T>();
  /** Per unique rule: the record key of each value its columns hold (records the rule applies to only). */
  private readonly uniques: { rule: Rule<T>; keys: Map<string, string> }[];

  constructor(
    private readonly spec: TableSpec<T, keyof T & string>,
    private readonly journal: AsyncLocalStorage<Undo[]>,
  ) {
    this.uniques = (spec.unique ?? []).map((rule) => ({ rule, keys: new Map() }));
  }

  async get(key: string) {
    const record = this.records.get(key);
    return record === undefined ? undefined : structuredClone(record);
  }

  async find(where: Where<Q>) {
    for (const record of this.records.values()) if (matches(record, where)) return structuredClone(record);
    return undefined;
  }

  async list(where?: Where<Q>, options: ListOptions = {}) {
    return this.select(where, options).map((record) => structuredClone(record));
  }

  async page(where: Where<Q>, options: ListOptions & { limit: number; offset: number }): Promise<Page<T>> {
    const all = this.select(where, { newestFirst: options.newestFirst });
    return { items: all.slice(options.offset, options.offset + options.limit).map((record) => structuredClone(record)), total: all.length };
  }

  async count(where?: Where<Q>) {
    return this.select(where, {}).length;
  }

  async insert(record: T) {
    const key = this.spec.key(record);
    if (this.records.has(key)) throw conflict(this.spec.keyTaken ?? `the ${this.spec.kind} already exists`);
    this.write(key, record);
  }

  async insertMany(records: readonly T[]) {
    const undo: (() => void)[] = [];
    try {
      for (const record of records) {
        await this.insert(record);
        const key = this.spec.key(record);
        undo.push(() => this.set(key, undefined));
      }
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    }
  }

  async put(record: T) {
    this.write(this.spec.key(record), record);
  }

  async update(record: T) {
    const key = this.spec.key(record);
    if (!this.records.has(key)) return false;
    this.write(key, record);
    return true;
  }

  async delete(key: string) {
    const previous = this.records.get(key);
    if (previous === undefined) return false;
    this.set(key, undefined);
    // Undone, a deleted record comes back last in insertion order.
    this.journal.getStore()?.push(() => this.set(key, previous));
    return true;
  }

  async deleteWhere(where: Where<Q>) {
    let count = 0;
    for (const [key, record] of [...this.records]) {
      if (matches(record, where)) {
        await this.delete(key);
        count++;
      }
    }
    return count;
  }

  private select(where: Where<Q> | undefined, options: ListOptions): T[] {
    const all = [...this.records.values()].filter((record) => matches(record, where));
    if (options.newestFirst) all.reverse();
    const offset = options.offset ?? 0;
    return all.slice(offset, options.limit === undefined ? undefined : offset + options.limit);
  }

  private write(key: string, record: T): void {
    this.checkUnique(key, record);
    const previous = this.records.get(key);
    this.set(key, structuredClone(record));
    this.journal.getStore()?.push(() => this.set(key, previous));
  }

  /** Puts `record` under `key` (or removes the key), keeping the unique indexes in step. */
  private set(key: string, record: T | undefined): void {
    const previous = this.records.get(key);
    for (const { rule, keys } of this.uniques) {
      const before = previous && uniqueValue(rule, previous);
      if (before !== undefined && keys.get(before) === key) keys.delete(before);
      const after = record && uniqueValue(rule, record);
      if (after !== undefined) keys.set(after, key);
    }
    if (record === undefined) this.records.delete(key);
    else this.records.set(key, record);
  }

  private checkUnique(key: string, record: T): void {
    for (const { rule, keys } of this.uniques) {
      const value = uniqueValue(rule, record);
      if (value === undefined) continue;
      const holder = keys.get(value);
      if (holder !== undefined && holder !== key) throw conflict(rule.message);
    }
  }
}

/**
 * What a record holds in the columns of a unique rule, as one index key; undefined when the rule
 * does not apply to it: a column is null (as in SQL, null is never a duplicate), or the record is
 * outside the rule's `where`.
 */
function uniqueValue<T>(rule: Rule<T>, record: T): string | undefined {
  if (rule.where && record[rule.where.column] !== rule.where.equals) return undefined;
  const values = rule.columns.map((column) => record[column] ?? null);
  return values.some((part) => part === null) ? undefined : JSON.stringify(values);
}

export function createMemoryStorage(): Storage {
  const journal = new AsyncLocalStorage<Undo[]>();
  const collections = Object.fromEntries(Object.entries(TABLES).map(([name, spec]) => [name, new MemoryCollection(spec as unknown as TableSpec<object, never>, journal)])) as unknown as Collections;
  return {
    ...collections,
    kind: "memory",
    reachable: () => true,
    onReachableChange: () => undefined,
    ping: async () => undefined,
    close: async () => undefined,
    async transaction(work) {
      if (journal.getStore()) return work();
      const undo: Undo[] = [];
      try {
        return await journal.run(undo, work);
      } catch (error) {
        for (const step of undo.reverse()) step();
        throw error;
      }
    },
  };
}
