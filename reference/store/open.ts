// `--database-url`: which store the reference service runs on, opened and migrated before the
// service listens. Every way this can fail is a DatabaseError whose message names the URL without
// its password and says what to do; the CLI prints it and exits non-zero.
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, sql, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import type { Storage } from "../storage.js";
import { redactUrl } from "../secrets.js";
import { createMemoryStorage } from "./memory.js";
import { migrations, type Dialect } from "./migrations.js";
import { SqlStorage, type AnyDatabase } from "./sql.js";

export const DEFAULT_DATABASE_URL = "sqlite:./data/identity.sqlite";
export const ACCEPTED_DATABASE_URLS = "sqlite:<file> (such as sqlite:./data/identity.sqlite), sqlite::memory:, postgres://user:password@host:5432/database (or postgresql://), memory:";
/** How long opening a PostgreSQL connection may take, at start and on every call. */
const CONNECT_TIMEOUT_MS = 5000;
const POOL_SIZE = 10;

export class DatabaseError extends Error {}

export type DatabaseTarget = { kind: "memory" } | { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** What a --database-url names; a DatabaseError naming the accepted forms when it names nothing. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url === "memory:") return { kind: "memory" };
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (path === "") throw new DatabaseError(`--database-url ${url} names no file; accepted forms: ${ACCEPTED_DATABASE_URLS}`);
    return { kind: "sqlite", path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new DatabaseError(`--database-url ${redactUrl(url)} is not a valid URL; accepted forms: ${ACCEPTED_DATABASE_URLS}`);
    }
    if (!parsed.hostname) throw new DatabaseError(`--database-url ${redactUrl(url)} names no host; accepted forms: ${ACCEPTED_DATABASE_URLS}`);
    return { kind: "postgres", url };
  }
  throw new DatabaseError(`--database-url ${redactUrl(url)} is not a database URL; accepted forms: ${ACCEPTED_DATABASE_URLS}`);
}

/**
 * A SQLite file of the owner's alone: created 0600 (SQLite gives its -wal and -shm files the
 * file's mode), in a folder created 0700 when missing, each said in `notes`. An existing file
 * keeps the mode it has.
 */
function sqliteDatabase(path: string, notes: string[]): { db: AnyDatabase; handle: Database.Database } {
  if (path !== ":memory:") {
    const folder = dirname(resolve(path));
    if (!existsSync(folder)) {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      notes.push(`created the folder ${folder} (mode 0700)`);
    }
    if (!existsSync(path)) {
      closeSync(openSync(path, "a", 0o600));
      notes.push(`created the database file ${resolve(path)} (mode 0600)`);
    }
  }
  const database = new Database(path, { timeout: 5000 });
  if (path !== ":memory:") database.pragma("journal_mode = WAL");
  // In WAL mode, NORMAL loses nothing when the process dies (only an OS crash can lose the last commits).
  database.pragma("synchronous = NORMAL");
  return { db: new Kysely({ dialect: new SqliteDialect({ database }) }), handle: database };
}

function postgresDatabase(url: string, poolSize: number, onIdleError: (error: Error) => void): AnyDatabase {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection that breaks (the server went away), idle or checked out between two queries,
  // must not crash the process: the store learns the database is gone and answers UNAVAILABLE.
  pool.on("error", onIdleError);
  pool.on("connect", (client) => client.on("error", onIdleError));
  return new Kysely({ dialect: new PostgresDialect({ pool }) });
}

/** Applies the migrations this code knows; refuses a database that has migrations it does not know. */
export async function migrate(db: AnyDatabase, dialect: Dialect, where: string, schema?: string): Promise<string[]> {
  const known = migrations(dialect);
  const table = schema ? sql`${sql.id(schema)}.kysely_migration` : sql`kysely_migration`;
  const applied = await sql<{ name: string }>`select name from ${table}`.execute(db).then(
    (result) => result.rows.map((row) => row.name),
    () => [] as string[],
  );
  const unknown = applied.filter((name) => !(name in known));
  if (unknown.length > 0) {
    const newest = Object.keys(known).sort().at(-1);
    throw new DatabaseError(
      `the database at ${where} has schema migration ${unknown.sort().at(-1)}, newer than this service knows (up to ${newest}): run a newer version of the service, or point --database-url at another database`,
    );
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => known }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((result) => result.status === "Success").map((result) => result.migrationName);
}

function describe(error: unknown): string {
  if (error instanceof DatabaseError) return error.message;
  const { code, message } = error as { code?: string; message?: string };
  // Driver messages name no password; they may name a user or a database, which helps.
  return [code, message].filter(Boolean).join(": ") || String(error);
}

export interface CreatedStorage {
  storage: Storage;
  /** Where the data is, as it may be printed (no password). */
  description: string;
  /** What opening it created (a SQLite file, its folder), to be said where the description is printed. */
  notes: string[];
  /** Resolves with the migrations applied once the database answers and its schema is current; a DatabaseError otherwise. */
  ready: Promise<string[]>;
}

export interface CreateStorageOptions {
  /**
   * The PostgreSQL schema the tables live in, created when missing (default: the connection's
   * search_path, normally public). The URL's search_path must name it too.
   */
  schema?: string;
  /** Connections of the PostgreSQL pool (default 10). */
  poolSize?: number;
}

/**
 * The store of `url`, at once; its queries wait until the database answers and is migrated
 * (`ready`). A SQLite file and its folder are created when missing.
 */
export function createStorage(url: string, options: CreateStorageOptions = {}): CreatedStorage {
  const target = parseDatabaseUrl(url);
  if (target.kind === "memory") return { storage: createMemoryStorage(), description: "in memory (this process only)", notes: [], ready: Promise.resolve([]) };
  const where = target.kind === "sqlite" ? (target.path === ":memory:" ? "sqlite::memory:" : resolve(target.path)) : redactUrl(target.url);
  const description = target.kind === "sqlite" ? `SQLite ${where}${target.path === ":memory:" ? " (this process only)" : ""}` : `PostgreSQL ${where}`;
  const notes: string[] = [];
  let store: SqlStorage | undefined;
  let db: AnyDatabase;
  let handle: Database.Database | undefined;
  try {
    if (target.kind === "sqlite") ({ db, handle } = sqliteDatabase(target.path, notes));
    else db = postgresDatabase(target.url, options.poolSize ?? POOL_SIZE, () => store?.lost());
  } catch (error) {
    throw new DatabaseError(`could not open the database at ${where}: ${describe(error)}`);
  }
  store = new SqlStorage(target.kind, db, handle);
  const ready = (async () => {
    try {
      await sql`select 1`.execute(db);
      if (options.schema) await sql`create schema if not exists ${sql.id(options.schema)}`.execute(db);
      return await migrate(db, target.kind, where, options.schema);
    } catch (error) {
      if (error instanceof DatabaseError) throw error;
      throw new DatabaseError(`could not open the database at ${where}: ${describe(error)}`);
    }
  })();
  store.waitFor(ready);
  return { storage: store.storage(), description, notes, ready };
}

/** Opens and migrates the database of `url`; a DatabaseError (the store closed) when it cannot. */
export async function openStorage(url: string, options: CreateStorageOptions = {}): Promise<{ storage: Storage; migrated: string[]; description: string; notes: string[] }> {
  const { storage, description, notes, ready } = createStorage(url, options);
  try {
    return { storage, migrated: await ready, description, notes };
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
}
