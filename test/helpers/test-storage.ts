// The store the reference service runs on in tests: SQLite in memory by default (the service's
// default, a fresh database each time), PostgreSQL in the `postgres` project of vitest.config.ts
// (a fresh schema on the server its global setup started), memory where a test asks for it.
import { inject } from "vitest";
import type { Storage } from "../../reference/storage.js";
import { createMemoryStorage } from "../../reference/store/memory.js";
import { createStorage } from "../../reference/store/open.js";

export type TestStore = "memory" | "sqlite" | "postgres";

export const TEST_STORE: TestStore = (process.env.REFERENCE_TEST_STORE as TestStore | undefined) ?? "sqlite";

let schemas = 0;

/** A PostgreSQL URL whose connections use `schema` (created before the migrations run). */
export function postgresSchemaUrl(base: string, schema: string): string {
  return `${base}${base.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** A new, empty store of the kind asked for (default: the project's). */
export function testStorage(store: TestStore = TEST_STORE, postgresUrl?: string): Storage {
  if (store === "memory") return createMemoryStorage();
  if (store === "sqlite") return createStorage("sqlite::memory:").storage;
  const base = postgresUrl ?? inject("postgresUrl");
  if (!base) throw new Error("PostgreSQL tests run in the postgres project of vitest.config.ts, whose global setup starts the server");
  const schema = `t${process.pid}_${++schemas}`;
  return createStorage(postgresSchemaUrl(base, schema), { poolSize: 3, schema }).storage;
}
