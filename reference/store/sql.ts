// The SQL store: SQLite (embedded, the default) or PostgreSQL (shared by replicas), through one
// query layer (Kysely). Each table has its lookup columns and the record as JSON (`data`); every
// query names indexed columns; lists page in SQL. Transactions are ambient: collection calls made
// while `transaction` runs join it, whichever helper makes them. Driver errors become
// ALREADY_EXISTS (a unique rule, with its own message) or UNAVAILABLE, never a stack trace.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database as SqliteDatabase, Statement } from "better-sqlite3";
import { sql, type Compilable, type ControlledTransaction, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import { conflict, unavailable } from "./errors.js";
import type { Dialect } from "./migrations.js";
import { comparisonsOf, type Operator } from "./where.js";
import { TABLES, type Collection, type Collections, type ColumnType, type Condition, type ListOptions, type Page, type Storage, type TableSpec, type Where } from "../storage.js";

// Tables are named at run time from TABLES, so the builder is untyped; rows are mapped below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDatabase = Kysely<any>;
type Row = Record<string, string | number | null>;

/** A query Kysely can compile and run. */
type Query = Compilable & { execute(): Promise<unknown>; executeTakeFirst(): Promise<unknown> };

/** Prepared SQLite statements kept (by SQL text; a query's shape, never its values). */
const STATEMENT_CACHE_SIZE = 500;

/** How long the store waits between pings while the database cannot be reached. */
const PROBE_INTERVAL_MS = 1000;

const PG_CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN", "57P01", "57P02", "57P03", "53300"]);

/** What a driver error means to a caller, or undefined when it is a bug (answered as INTERNAL). */
function classify(error: unknown, uniqueMessage: (constraint: string) => string | undefined): Error | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = String((error as { code?: unknown }).code ?? "");
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    // "UNIQUE constraint failed: users.email" names the columns.
    return conflict(uniqueMessage(error.message.replace(/^.*failed: /, "")) ?? "the record already exists");
  }
  if (code === "23505") return conflict(uniqueMessage(String((error as { constraint?: unknown }).constraint ?? "")) ?? "the record already exists");
  if (code.startsWith("SQLITE_READONLY")) return unavailable("is read-only");
  if (code === "SQLITE_FULL") return unavailable("is full");
  if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_CANTOPEN") return unavailable("file cannot be read or written");
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return unavailable("is busy");
  if (code === "53100") return unavailable("is full");
  if (
    PG_CONNECTION_CODES.has(code) ||
    code.startsWith("08") ||
    /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|pool.*(ended|end on)/i.test(error.message)
  ) {
    return unavailable("cannot be reached");
  }
  return undefined;
}

const toSql = (value: unknown, type: ColumnType): string | number | null => (value === undefined || value === null ? null : type === "boolean" ? (value ? 1 : 0) : (value as string | number));

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

class SqlCollection<T extends object, Q> implements Collection<T, Q> {
  private readonly table;
  private readonly columns: [string, ColumnType][];

  constructor(
    private readonly spec: TableSpec<T, keyof T & string>,
    private readonly store: SqlStorage,
  ) {
    this.table = spec.table;
    this.columns = Object.entries(spec.columns) as [string, ColumnType][];
  }

  async get(key: string) {
    const [row] = await this.store.rows((db) => db.selectFrom(this.table).select("data").where("pk", "=", key), `get ${this.table}`, [key]);
    return row === undefined ? undefined : (JSON.parse(row.data as string) as T);
  }

  async find(where: Where<Q>) {
    const [record] = await this.list(where, { limit: 1 });
    return record;
  }

  async list(where?: Where<Q>, options: ListOptions = {}) {
    const equality = this.equalityShape(where, options);
    const rows = await this.store.rows(
      (db) => {
        let query = db
          .selectFrom(this.table)
          .select("data")
          .where(this.condition(where))
          .orderBy("seq", options.newestFirst ? "desc" : "asc");
        if (options.limit !== undefined) query = query.limit(options.limit);
        if (options.offset) query = (options.limit === undefined ? query.limit(-1) : query).offset(options.offset);
        return query;
      },
      equality?.shape,
      equality?.values,
    );
    return rows.map((row) => JSON.parse(row.data as string) as T);
  }

  /**
   * A list whose conditions are all equalities to a value (a lookup by email, by client id) is of a
   * fixed shape, compiled once: its name says the columns in order, its values are theirs and the limit.
   */
  private equalityShape(where: Where<Q> | undefined, options: ListOptions): { shape: string; values: unknown[] } | undefined {
    if (!where || where.anyOf || options.offset) return undefined;
    const columns: string[] = [];
    const values: unknown[] = [];
    for (const [column, condition] of Object.entries(where as Record<string, unknown>)) {
      if (condition === undefined) continue;
      const type = this.spec.columns[column as keyof T & string];
      if (type === undefined || condition === null || typeof condition === "object") return undefined;
      columns.push(column);
      values.push(toSql(condition, type));
    }
    if (columns.length === 0) return undefined;
    if (options.limit !== undefined) values.push(options.limit);
    return { shape: `list ${this.table} where ${columns.join(" ")} ${options.newestFirst ? "desc" : "asc"} limit ${options.limit !== undefined}`, values };
  }

  async page(where: Where<Q>, options: ListOptions & { limit: number; offset: number }): Promise<Page<T>> {
    const total = await this.count(where);
    if (options.limit === 0 || options.offset >= total) return { items: [], total };
    const order = options.newestFirst ? "desc" : "asc";
    // The page's rows are picked on `seq` alone (an index walk), and only they are read whole.
    const rows = await this.store.rows((db) =>
      db
        .selectFrom(this.table)
        .select("data")
        .where("seq", "in", db.selectFrom(this.table).select("seq").where(this.condition(where)).orderBy("seq", order).limit(options.limit).offset(options.offset))
        .orderBy("seq", order),
    );
    return { items: rows.map((row) => JSON.parse(row.data as string) as T), total };
  }

  async count(where?: Where<Q>) {
    const [row] = await this.store.rows((db) =>
      db
        .selectFrom(this.table)
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where(this.condition(where)),
    );
    return Number(row!.n);
  }

  async insert(record: T) {
    const row = this.rowOf(record);
    await this.store.changes((db) => db.insertInto(this.table).values(row), `insert ${this.table}`, Object.values(row));
  }

  async insertMany(records: readonly T[]) {
    if (records.length <= 1) return records.length === 1 ? this.insert(records[0]!) : undefined;
    const rows = records.map((record) => this.rowOf(record));
    const oneByOne = rows.map((row) => ({ build: (db: AnyDatabase) => db.insertInto(this.table).values(row), shape: `insert ${this.table}`, values: Object.values(row) }));
    if (await this.store.inOneCommit(oneByOne)) return;
    // One statement of every row: one commit, all or none, on PostgreSQL and inside another's transaction.
    await this.store.changes((db) => db.insertInto(this.table).values(rows));
  }

  async put(record: T) {
    const row = this.rowOf(record);
    const { pk, ...changes } = row;
    if (this.store.dialect === "postgres") {
      // PostgreSQL's upsert settles a race on its conflict target only: two replicas updating one
      // user at once could trip the email index on the row's own other version. An UPDATE cannot.
      if ((await this.store.changes((db) => db.updateTable(this.table).set(changes).where("pk", "=", pk))) > 0) return;
    }
    await this.store.changes(
      (db) =>
        db
          .insertInto(this.table)
          .values(row)
          .onConflict((on) => on.column("pk").doUpdateSet(changes)),
      `put ${this.table}`,
      [...Object.values(row), ...Object.values(changes)],
    );
  }

  async update(record: T, previous?: T) {
    const { pk, ...changes } = this.rowOf(record);
    if (previous !== undefined && this.store.dialect === "sqlite") {
      // SQLite rewrites the index entries of every column an UPDATE sets, changed or not: only the
      // changed columns are set, on the condition that the others still hold what was read (IS
      // is equality with nulls too). Another writer in between fails the condition: then all are set.
      const before = this.rowOf(previous);
      const kept = Object.keys(changes).filter((column) => column !== "data" && changes[column] === before[column]);
      if (kept.length > 0) {
        const changed = Object.fromEntries(Object.entries(changes).filter(([column]) => !kept.includes(column)));
        const keptValues = kept.map((column) => before[column]);
        const updated = await this.store.changes(
          (db) => kept.reduce((query, column, index) => query.where(sql<SqlBool>`${sql.ref(column)} IS ${keptValues[index]}`), db.updateTable(this.table).set(changed).where("pk", "=", pk)),
          `update ${this.table} set ${Object.keys(changed).join(" ")} keeping ${kept.join(" ")}`,
          [...Object.values(changed), pk, ...keptValues],
        );
        if (updated > 0) return true;
      }
    }
    return (await this.store.changes((db) => db.updateTable(this.table).set(changes).where("pk", "=", pk), `update ${this.table}`, [...Object.values(changes), pk])) > 0;
  }

  async delete(key: string) {
    return (await this.store.changes((db) => db.deleteFrom(this.table).where("pk", "=", key))) > 0;
  }

  async deleteWhere(where: Where<Q>) {
    return this.store.changes((db) => db.deleteFrom(this.table).where(this.condition(where)));
  }

  /** The message of the unique rule a violation names: its index name (PostgreSQL) or its table.columns (SQLite). */
  uniqueMessage(constraint: string): string | undefined {
    if (constraint === `ux_${this.table}_pk` || constraint === `${this.table}.pk`) return this.spec.keyTaken ?? `the ${this.spec.kind} already exists`;
    for (const rule of this.spec.unique ?? []) {
      if (constraint === rule.name || constraint === rule.columns.map((column) => `${this.table}.${column}`).join(", ")) return rule.message;
    }
    return undefined;
  }

  private rowOf(record: T): Row {
    const row: Row = { pk: this.spec.key(record) };
    for (const [column, type] of this.columns) row[column] = toSql((record as Record<string, unknown>)[column], type);
    row.data = JSON.stringify(record);
    return row;
  }

  private condition(where: Where<Q> | undefined): RawBuilder<SqlBool> {
    if (!where) return sql<SqlBool>`1 = 1`;
    const parts: RawBuilder<unknown>[] = [];
    for (const [column, condition] of Object.entries(where as Record<string, unknown>)) {
      if (column === "anyOf" || condition === undefined) continue;
      const type = this.spec.columns[column as keyof T & string];
      if (type === undefined) throw new TypeError(`${this.table} has no column ${column} to query`);
      for (const [operator, operand] of comparisonsOf(condition as Condition<unknown>)) parts.push(this.comparison(column, type, operator, operand));
    }
    if (where.anyOf) {
      parts.push(
        where.anyOf.length === 0
          ? sql`1 = 0`
          : sql`(${sql.join(
              where.anyOf.map((alternative) => this.condition(alternative)),
              sql` or `,
            )})`,
      );
    }
    return parts.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  }

  private comparison(column: string, type: ColumnType, operator: Operator | "eq", operand: unknown): RawBuilder<unknown> {
    const ref = sql.ref(column);
    const value = toSql(operand, type);
    switch (operator) {
      case "eq":
        return value === null ? sql`${ref} is null` : sql`${ref} = ${value}`;
      case "ne":
        return value === null ? sql`${ref} is not null` : sql`${ref} <> ${value}`;
      case "in": {
        const values = (operand as unknown[]).map((item) => toSql(item, type));
        return values.length === 0 ? sql`1 = 0` : sql`${ref} in (${sql.join(values)})`;
      }
      case "contains":
        return sql`lower(${ref}) like ${likePattern(String(operand))} escape '\\'`;
      case "gt":
        return sql`${ref} > ${value}`;
      case "gte":
        return sql`${ref} >= ${value}`;
      case "lt":
        return sql`${ref} < ${value}`;
      case "lte":
        return sql`${ref} <= ${value}`;
    }
  }
}

export class SqlStorage {
  readonly kind: string;
  readonly collections: Collections;
  private readonly transactions = new AsyncLocalStorage<ControlledTransaction<unknown>>();
  private readonly listeners = new Set<(reachable: boolean) => void>();
  private isReachable = true;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;
  /** Settles once the schema is migrated; queries wait for it. */
  private ready: Promise<unknown> | undefined;

  /** Transactions begun and not yet over: while any is, statements outside it go through Kysely (which waits for the connection). */
  private openTransactions = 0;
  /** The transaction holding SQLite's one connection now, between its BEGIN and its COMMIT or ROLLBACK. */
  private holding: ControlledTransaction<unknown> | undefined;
  private readonly statements = new Map<string, Statement>();
  /** Statements of fixed-shape queries, by shape (`get users`), whose values come in a known order. */
  private readonly shapes = new Map<string, Statement>();

  constructor(
    readonly dialect: Dialect,
    readonly db: AnyDatabase,
    /** The SQLite connection Kysely runs on, for statements outside transactions. */
    private readonly sqlite?: SqliteDatabase,
  ) {
    this.kind = dialect === "sqlite" ? "SQLite" : "PostgreSQL";
    this.collections = Object.fromEntries(Object.entries(TABLES).map(([name, spec]) => [name, new SqlCollection(spec as unknown as TableSpec<object, never>, this)])) as unknown as Collections;
  }

  /** Makes every query wait for `ready` (the migrations) first. */
  waitFor(ready: Promise<unknown>): void {
    const settled = ready.then(() => {
      if (this.ready === settled) this.ready = undefined;
    });
    this.ready = settled;
    settled.catch(() => undefined);
  }

  /**
   * Rows of a select: on SQLite outside a transaction as a cached prepared statement, else through
   * Kysely. A query of fixed shape names it (`shape`) with its values in order, and is compiled once.
   */
  async rows(build: (db: AnyDatabase) => Query, shape?: string, values?: readonly unknown[]): Promise<Row[]> {
    const statement = this.direct(build, shape, values);
    if (statement) return this.guard(() => statement.statement.all(...statement.parameters) as Row[]);
    return this.run((db) => build(db).execute() as Promise<Row[]>);
  }

  /** How many rows an insert, update or delete changed, the same two ways. */
  async changes(build: (db: AnyDatabase) => Query, shape?: string, values?: readonly unknown[]): Promise<number> {
    const statement = this.direct(build, shape, values);
    if (statement) return this.guard(() => statement.statement.run(...statement.parameters).changes);
    const result = (await this.run((db) => build(db).executeTakeFirst())) as { numInsertedOrUpdatedRows?: bigint; numUpdatedRows?: bigint; numDeletedRows?: bigint } | undefined;
    return Number(result?.numInsertedOrUpdatedRows ?? result?.numUpdatedRows ?? result?.numDeletedRows ?? 0);
  }

  /**
   * Statements run on SQLite's connection directly in one transaction of better-sqlite3 (synchronous:
   * nothing interleaves, one commit for all), where the direct path is open (see direct); false
   * when it is not, for the caller to take another way.
   */
  async inOneCommit(statements: readonly { build: (db: AnyDatabase) => Query; shape?: string; values?: readonly unknown[] }[]): Promise<boolean> {
    if (!this.sqlite || this.ready) return false;
    const prepared = statements.map(({ build, shape, values }) => this.direct(build, shape, values));
    if (prepared.some((statement) => statement === undefined)) return false;
    const sqlite = this.sqlite;
    await this.guard(() =>
      sqlite.transaction(() => {
        for (const statement of prepared) statement!.statement.run(...statement!.parameters);
      })(),
    );
    return true;
  }

  /**
   * better-sqlite3 answers synchronously, so a statement runs whole before anything else: Kysely
   * only compiles it, and the prepared statement is kept by its SQL text (preparing and Kysely's
   * executor were most of a statement's cost). That holds outside transactions while none is open,
   * and inside the transaction that holds SQLite's one connection (its statements run on it, as
   * Kysely would run them). Any other statement, and every one on PostgreSQL, goes through Kysely,
   * which waits for the connection.
   */
  private direct(build: (db: AnyDatabase) => Query, shape?: string, values?: readonly unknown[]): { statement: Statement; parameters: readonly unknown[] } | undefined {
    if (!this.sqlite || this.ready) return undefined;
    const within = this.transactions.getStore();
    if (within ? within !== this.holding : this.openTransactions > 0) return undefined;
    const known = shape === undefined ? undefined : this.shapes.get(shape);
    if (known) return { statement: known, parameters: values! };
    const { sql: text, parameters } = build(this.db).compile();
    let statement = this.statements.get(text);
    if (!statement) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear();
      statement = this.sqlite.prepare(text);
      this.statements.set(text, statement);
    }
    // Kept by its shape only when the shape's values are the compiled ones, in their order.
    if (shape !== undefined && values !== undefined && values.length === parameters.length && values.every((value, i) => value === parameters[i])) this.shapes.set(shape, statement);
    return { statement, parameters };
  }

  private async guard<R>(work: () => R): Promise<R> {
    try {
      return work();
    } catch (error) {
      throw this.mapped(error);
    }
  }

  /** Runs a query on the transaction in progress, or on the database; maps its failure. */
  async run<R>(query: (db: AnyDatabase) => Promise<R>): Promise<R> {
    if (this.ready) await this.ready;
    try {
      const result = await query((this.transactions.getStore() as AnyDatabase | undefined) ?? this.db);
      if (!this.isReachable) this.setReachable(true);
      return result;
    } catch (error) {
      throw this.mapped(error);
    }
  }

  async transaction<R>(work: () => Promise<R>): Promise<R> {
    if (this.transactions.getStore()) return work();
    if (this.ready) await this.ready;
    this.openTransactions++;
    try {
      return await this.transactionOnce(work);
    } finally {
      this.openTransactions--;
    }
  }

  private async transactionOnce<R>(work: () => Promise<R>): Promise<R> {
    let trx: ControlledTransaction<unknown>;
    try {
      trx = (await this.db.startTransaction().execute()) as ControlledTransaction<unknown>;
    } catch (error) {
      throw this.mapped(error);
    }
    // SQLite has already rolled back after some failures (a full disk): the failure to tell is the one that came first.
    const rolledBack = async (error: unknown) => {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      return this.mapped(error);
    };
    if (this.sqlite) this.holding = trx;
    try {
      let result: R;
      try {
        result = await this.transactions.run(trx, work);
      } catch (error) {
        throw await rolledBack(error);
      }
      try {
        await trx.commit().execute();
      } catch (error) {
        throw await rolledBack(error);
      }
      return result;
    } finally {
      // A statement of this transaction's context that comes later (a stray promise) goes through Kysely, which refuses it.
      if (this.holding === trx) this.holding = undefined;
    }
  }

  reachable(): boolean {
    return this.isReachable;
  }

  onReachableChange(listener: (reachable: boolean) => void): void {
    this.listeners.add(listener);
  }

  async ping(): Promise<void> {
    await this.run((db) => sql`select 1`.execute(db));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    await this.db.destroy();
  }

  /** The database went away (a pooled connection broke while idle). */
  lost(): void {
    this.setReachable(false);
  }

  private mapped(error: unknown): unknown {
    if ((error as { code?: unknown }).code === "ALREADY_EXISTS" || (error as { code?: unknown }).code === "UNAVAILABLE") return error;
    const meaning = classify(error, (constraint) => {
      for (const collection of Object.values(this.collections)) {
        const message = (collection as SqlCollection<object, unknown>).uniqueMessage(constraint);
        if (message) return message;
      }
      return undefined;
    });
    if (meaning === undefined) return error;
    if ((meaning as { code?: unknown }).code === "UNAVAILABLE" && /reached/.test(meaning.message)) this.setReachable(false);
    return meaning;
  }

  private setReachable(reachable: boolean): void {
    if (reachable === this.isReachable) return;
    this.isReachable = reachable;
    for (const listener of this.listeners) listener(reachable);
    clearInterval(this.probe);
    this.probe = undefined;
    if (!reachable && !this.closed) {
      // Back by itself: a ping a second until the database answers again.
      this.probe = setInterval(() => void this.ping().catch(() => undefined), PROBE_INTERVAL_MS);
      this.probe.unref();
    }
  }

  /** The Storage the service runs on. */
  storage(): Storage {
    return {
      ...this.collections,
      kind: this.kind,
      reachable: () => this.reachable(),
      onReachableChange: (listener) => this.onReachableChange(listener),
      ping: () => this.ping(),
      transaction: (work) => this.transaction(work),
      close: () => this.close(),
    };
  }
}
