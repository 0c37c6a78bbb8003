// The storage interface on its three stores (memory, SQLite, a real PostgreSQL): the same answers
// for every kind of condition, paging in the store, unique rules answering ALREADY_EXISTS with
// their own message (never the value), transactions that undo everything on a failure, and a
// migrated schema that matches TABLES.
import Database from "better-sqlite3";
import { Kysely, sql, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../runtime/errors.js";
import { TABLES, type Storage } from "../../reference/storage.js";
import { DatabaseError, migrate, openStorage, parseDatabaseUrl } from "../../reference/store/open.js";
import { migrations } from "../../reference/store/migrations.js";
import { SqlStorage } from "../../reference/store/sql.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { testStorage, type TestStore } from "../helpers/test-storage.js";
import { userRecord } from "../helpers/user-record.js";

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.destroy();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    return error instanceof ServiceError ? `${error.code}: ${error.message}` : `thrown: ${String(error)}`;
  }
}

const STORES: TestStore[] = ["memory", "sqlite", "postgres"];

describe.each(STORES)("the %s store", (kind) => {
  let storage: Storage;
  beforeAll(() => {
    storage = testStorage(kind, postgres.url);
  });
  afterAll(async () => {
    await storage?.close();
  });

  it("gives back what was put, as a copy, and replaces by key", async () => {
    const ann = userRecord("ann", { given_name: "Ann", created_at: 10 });
    await storage.users.put(ann);
    ann.given_name = "changed after put";
    expect((await storage.users.get("ann"))?.given_name).toBe("Ann");
    expect(await storage.users.get("ann")).toEqual({ ...ann, given_name: "Ann" });
    await storage.users.put({ ...ann, given_name: "Anne" });
    expect((await storage.users.get("ann"))?.given_name).toBe("Anne");
    expect(await storage.users.count({ id: "ann" })).toBe(1);
    expect(await storage.users.get("nobody")).toBeUndefined();
  });

  it("updates a record only while it is there: a change read before a delete never brings the record back", async () => {
    const read = userRecord("cal", { nickname: "before" });
    await storage.users.insert(read);
    expect(await storage.users.update({ ...read, nickname: "after" })).toBe(true);
    expect((await storage.users.get("cal"))?.nickname).toBe("after");
    // Another caller deletes it between this caller's read and write.
    expect(await storage.users.delete("cal")).toBe(true);
    expect(await storage.users.update({ ...read, nickname: "too late" })).toBe(false);
    expect(await storage.users.get("cal")).toBeUndefined();
    expect(await storage.users.count({ email: read.email })).toBe(0);
    // A unique value taken by another record answers as put does, and changes nothing.
    await storage.users.insert(userRecord("dee"));
    await storage.users.insert(userRecord("eve"));
    expect(await codeOf(storage.users.update(userRecord("eve", { email: "dee@example.com" })))).toBe("ALREADY_EXISTS: a user with this email already exists");
    expect((await storage.users.get("eve"))?.email).toBe("eve@example.com");
  });

  it("writes only what changed when told what was read, and every column again when another writer changed one in between", async () => {
    const read = userRecord("fay", { nickname: "before", phone_number: "+15550101" });
    await storage.users.insert(read);
    const changed = { ...read, nickname: "after", updated_at: read.updated_at + 1 };
    expect(await storage.users.update(changed, read)).toBe(true);
    expect(await storage.users.get("fay")).toEqual(changed);
    expect(await storage.users.count({ phone_number: "+15550101" })).toBe(1);
    // Another writer moves the phone number between this caller's read and its write: this write's record wins whole, its columns with it.
    await storage.users.update({ ...changed, phone_number: "+15550102" });
    const stale = { ...changed, nickname: "stale write" };
    expect(await storage.users.update(stale, changed)).toBe(true);
    expect(await storage.users.get("fay")).toEqual(stale);
    expect(await storage.users.count({ phone_number: "+15550102" })).toBe(0);
    expect(await storage.users.count({ phone_number: "+15550101" })).toBe(1);
    // A record gone since it was read is not brought back.
    await storage.users.delete("fay");
    expect(await storage.users.update({ ...stale, nickname: "too late" }, stale)).toBe(false);
    expect(await storage.users.get("fay")).toBeUndefined();
  });

  it("inserts many records in one commit, all or none", async () => {
    await storage.users.insertMany([userRecord("gus"), userRecord("hal")]);
    expect((await storage.users.list({ id: { in: ["gus", "hal"] } })).map((user) => user.id)).toEqual(["gus", "hal"]);
    // The third taken: none of the batch is stored.
    expect(await codeOf(storage.users.insertMany([userRecord("ida"), userRecord("jon"), userRecord("gus", { email: "gus-again@example.com" })]))).toBe("ALREADY_EXISTS: the user already exists");
    expect(await codeOf(storage.users.insertMany([userRecord("kim"), userRecord("lea", { email: "gus@example.com" })]))).toBe("ALREADY_EXISTS: a user with this email already exists");
    expect(await storage.users.count({ id: { in: ["ida", "jon", "kim", "lea"] } })).toBe(0);
    await storage.users.insertMany([]);
    await storage.users.insertMany([userRecord("max")]);
    expect(await storage.users.get("max")).toBeDefined();
  });

  it("answers every kind of condition alike", async () => {
    for (const [index, name] of ["Bob", "bobby", "Carol", "dave_1", "eve%"].entries()) {
      await storage.users.put(userRecord(`u${index}`, { given_name: name, nickname: index % 2 ? null : `nick${index}`, created_at: 100 + index }));
    }
    const ids = async (where: Parameters<Storage["users"]["list"]>[0], options?: Parameters<Storage["users"]["list"]>[1]) =>
      (await storage.users.list(where, options)).map((user) => user.id).filter((id) => id.startsWith("u"));
    expect(await ids({ given_name: { contains: "BOB" } })).toEqual(["u0", "u1"]);
    // LIKE's wildcards are plain characters in a contains.
    expect(await ids({ given_name: { contains: "_" } })).toEqual(["u3"]);
    expect(await ids({ given_name: { contains: "%" } })).toEqual(["u4"]);
    expect(await ids({ nickname: null })).toEqual(["u1", "u3"]);
    expect(await ids({ nickname: { ne: null } })).toEqual(["u0", "u2", "u4"]);
    expect(await ids({ nickname: { ne: "nick0" } })).toEqual(["u2", "u4"]);
    expect(await ids({ created_at: { gte: 101, lt: 104 } })).toEqual(["u1", "u2", "u3"]);
    expect(await ids({ created_at: { gt: 101, lte: 104 } })).toEqual(["u2", "u3", "u4"]);
    expect(await ids({ id: { in: ["u4", "u1", "missing"] } })).toEqual(["u1", "u4"]);
    expect(await ids({ id: { in: [] } })).toEqual([]);
    expect(await ids({ created_at: { gte: undefined } })).toEqual(["u0", "u1", "u2", "u3", "u4"]);
    expect(await ids({ anyOf: [{ given_name: "Carol" }, { nickname: "nick4" }] })).toEqual(["u2", "u4"]);
    expect(await ids({ created_at: { gte: 100 } }, { newestFirst: true, limit: 2, offset: 1 })).toEqual(["u3", "u2"]);
    expect((await storage.users.find({ created_at: { gte: 102 } }))?.id).toBe("u2");
    expect(await storage.users.find({ given_name: "nobody" })).toBeUndefined();
    expect(await storage.webhooks.list({ enabled: true })).toEqual([]);
  });

  it("pages in the store: the page, and the total of every match", async () => {
    for (let index = 0; index < 25; index++)
      await storage.auditLogs.put({
        id: `log${index}`,
        actor_id: index % 2 ? "odd" : "even",
        actor_type: "admin",
        actor_email: null,
        action: "a",
        resource_type: null,
        resource_id: null,
        ip_address: null,
        user_agent: null,
        metadata: null,
        created_at: index,
      });
    const page = await storage.auditLogs.page({ actor_id: "even" }, { limit: 5, offset: 10, newestFirst: true });
    expect(page.total).toBe(13);
    expect(page.items.map((log) => log.id)).toEqual(["log4", "log2", "log0"]);
    expect((await storage.auditLogs.page({}, { limit: 3, offset: 0 })).items.map((log) => log.id)).toEqual(["log0", "log1", "log2"]);
    expect(await storage.auditLogs.page({}, { limit: 3, offset: 30 })).toEqual({ items: [], total: 25 });
    expect(await storage.auditLogs.deleteWhere({ actor_id: "odd" })).toBe(12);
    expect(await storage.auditLogs.count()).toBe(13);
  });

  it("holds its unique rules, answering ALREADY_EXISTS with the rule's message and never the value", async () => {
    await storage.users.put(userRecord("first", { email: "taken@example.com", phone_number: "+15550001" }));
    expect(await codeOf(storage.users.put(userRecord("second", { email: "taken@example.com" })))).toBe("ALREADY_EXISTS: a user with this email already exists");
    expect(await codeOf(storage.users.put(userRecord("third", { phone_number: "+15550001" })))).toBe("ALREADY_EXISTS: a user with this phone number already exists");
    expect(await codeOf(storage.users.insert(userRecord("first")))).toBe("ALREADY_EXISTS: the user already exists");
    // Nulls are never duplicates; the record that lost is not stored.
    await storage.users.put(userRecord("nullphone1"));
    await storage.users.put(userRecord("nullphone2"));
    expect(await storage.users.get("second")).toBeUndefined();

    const key = (id: string, status: "current" | "published") => ({ id, org_id: "org", status, certificate_pem: "pem", created_at: 1, retired_at: null, private_key_pem: "secret" }) as const;
    await storage.samlIdpKeys.put(key("k1", "current"));
    await storage.samlIdpKeys.put(key("k2", "published"));
    await storage.samlIdpKeys.put(key("k3", "published"));
    expect(await codeOf(storage.samlIdpKeys.put(key("k4", "current")))).toBe("ALREADY_EXISTS: the organization's signing key was rotated by another call at the same time");
    await storage.orgMembers.put({ id: "m1", org_id: "o", user_id: "u", roles: [], created_at: 1 } as never);
    expect(await codeOf(storage.orgMembers.put({ id: "m2", org_id: "o", user_id: "u", roles: [], created_at: 1 } as never))).toBe("ALREADY_EXISTS: the user is already a member of the organization");
    const domain = { domain: "example.org", org_id: "o1", status: "pending", verified_at: null, created_at: 1, updated_at: 1, challenge: "c" } as const;
    await storage.orgDomains.insert(domain);
    expect(await codeOf(storage.orgDomains.insert({ ...domain, org_id: "o2" }))).toBe("ALREADY_EXISTS: the domain already belongs to another organization");
  });

  it("frees a unique value when its record changes it or goes, and takes it back when a transaction that did so is undone", async () => {
    await storage.users.put(userRecord("mover", { email: "old@example.com" }));
    await storage.users.put(userRecord("mover", { email: "new@example.com" }));
    await storage.users.put(userRecord("heir", { email: "old@example.com" }));
    expect(await codeOf(storage.users.put(userRecord("other", { email: "new@example.com" })))).toBe("ALREADY_EXISTS: a user with this email already exists");
    await storage.users.delete("mover");
    await storage.users.put(userRecord("other", { email: "new@example.com" }));
    // Undone: "other" holds new@ again and "heir" old@, and what the transaction freed is taken.
    const undone = storage.transaction(async () => {
      await storage.users.put(userRecord("other", { email: "moved@example.com" }));
      await storage.users.delete("heir");
      await storage.users.put(userRecord("newcomer", { email: "old@example.com" }));
      await storage.users.put(userRecord("clash", { email: "moved@example.com" }));
    });
    expect(await codeOf(undone)).toBe("ALREADY_EXISTS: a user with this email already exists");
    expect((await storage.users.get("other"))?.email).toBe("new@example.com");
    expect(await storage.users.get("newcomer")).toBeUndefined();
    for (const email of ["old@example.com", "new@example.com"]) {
      expect(await codeOf(storage.users.put(userRecord("late", { email })))).toBe("ALREADY_EXISTS: a user with this email already exists");
    }
    await storage.users.put(userRecord("late", { email: "moved@example.com" }));
  });

  it("undoes a whole transaction when its work fails, and joins an inner one to the outer", async () => {
    await storage.organizations.put({ id: "org-t", name: "tx", display_name: null, enabled: true, created_at: 1, updated_at: 1 } as never);
    const failure = storage.transaction(async () => {
      await storage.organizations.delete("org-t");
      await storage.transaction(async () => storage.users.put(userRecord("inside")));
      await storage.users.put(userRecord("clash", { email: "taken@example.com" }));
    });
    expect(await codeOf(failure)).toBe("ALREADY_EXISTS: a user with this email already exists");
    expect(await storage.organizations.get("org-t")).toBeDefined();
    expect(await storage.users.get("inside")).toBeUndefined();
    expect(await storage.transaction(async () => (await storage.organizations.delete("org-t")) && "done")).toBe("done");
    expect(await storage.organizations.get("org-t")).toBeUndefined();
  });

  it("keeps a transaction's statements to it: a write made beside it while it runs is neither undone with it nor, on SQLite's one connection, seen by it", async () => {
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    let seenInside: unknown = "not read";
    let besideSeenInside: unknown = "not read";
    const failure = storage.transaction(async () => {
      await storage.users.put(userRecord("tx-inside", { nickname: "first" }));
      running();
      await new Promise((resolve) => setTimeout(resolve, 30));
      // The transaction reads its own write, changed twice.
      await storage.users.put(userRecord("tx-inside", { nickname: "second" }));
      seenInside = (await storage.users.get("tx-inside"))?.nickname;
      besideSeenInside = await storage.users.get("tx-beside");
      throw new Error("the transaction's work fails");
    });
    // Another request of the service writes while the transaction runs, from outside it.
    await started;
    const beside = storage.users.put(userRecord("tx-beside"));
    expect(await codeOf(failure)).toBe("thrown: Error: the transaction's work fails");
    await beside;
    expect(seenInside).toBe("second");
    // SQLite has one connection: the write beside waits for it, after the transaction.
    if (kind === "sqlite") expect(besideSeenInside).toBeUndefined();
    expect(await storage.users.get("tx-inside")).toBeUndefined();
    expect(await storage.users.get("tx-beside")).toBeDefined();
  });
});

describe("migrations", () => {
  it("build a schema with every column and unique rule of TABLES, on SQLite and PostgreSQL", async () => {
    const sqlite = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    await migrate(sqlite, "sqlite", "test");
    const url = await postgres.createDatabase("schema_check");
    const pgStore = await openStorage(url);
    const { Pool } = (await import("pg")).default;
    const pool = new Pool({ connectionString: url });
    try {
      for (const spec of Object.values(TABLES)) {
        const wanted = ["seq", "pk", ...Object.keys(spec.columns), "data"].sort();
        const sqliteColumns = (await sql<{ name: string }>`select name from pragma_table_info(${spec.table})`.execute(sqlite)).rows.map((row) => row.name);
        expect(sqliteColumns.sort(), spec.table).toEqual(wanted);
        const pgColumns = (await pool.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = $1", [spec.table])).rows.map((row) => row.column_name);
        expect(pgColumns.sort(), spec.table).toEqual(wanted);
        const uniqueNames = ((spec as { unique?: { name: string }[] }).unique ?? []).map((rule) => rule.name);
        const sqliteIndexes = (await sql<{ name: string }>`select name from pragma_index_list(${spec.table}) where "unique" = 1`.execute(sqlite)).rows.map((row) => row.name);
        const pgIndexes = (await pool.query<{ indexname: string }>("select indexname from pg_indexes where tablename = $1", [spec.table])).rows.map((row) => row.indexname);
        for (const name of uniqueNames) {
          expect(sqliteIndexes, spec.table).toContain(name);
          expect(pgIndexes, spec.table).toContain(name);
        }
      }
    } finally {
      await pool.end();
      await pgStore.storage.close();
      await sqlite.destroy();
    }
  });

  it("apply once when several services start at once on one PostgreSQL", async () => {
    const url = await postgres.createDatabase("concurrent_start");
    const opened = await Promise.all(Array.from({ length: 4 }, () => openStorage(url)));
    expect(opened.map((o) => o.migrated.length).sort()).toEqual([0, 0, 0, Object.keys(migrations("postgres")).length]);
    await opened[0]!.storage.users.put(userRecord("seen-by-all"));
    for (const { storage } of opened) expect((await storage.users.get("seen-by-all"))?.id).toBe("seen-by-all");
    await Promise.all(opened.map((o) => o.storage.close()));
  });

  it("refuse a database whose schema is newer than the code, naming both versions", async () => {
    const sqlite = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    await migrate(sqlite, "sqlite", "test");
    await sql`insert into kysely_migration (name, timestamp) values ('0999_from_the_future', '2030-01-01')`.execute(sqlite);
    const newest = Object.keys(migrations("sqlite")).sort().at(-1);
    await expect(migrate(sqlite, "sqlite", "/data/identity.sqlite")).rejects.toThrow(
      `the database at /data/identity.sqlite has schema migration 0999_from_the_future, newer than this service knows (up to ${newest}): run a newer version of the service, or point --database-url at another database`,
    );
    await sqlite.destroy();
  });
});

describe("database URLs", () => {
  it("accept the documented forms and refuse others naming them, without the password", () => {
    expect(parseDatabaseUrl("sqlite:./data/identity.sqlite")).toEqual({ kind: "sqlite", path: "./data/identity.sqlite" });
    expect(parseDatabaseUrl("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
    expect(parseDatabaseUrl("sqlite:///var/lib/id.sqlite")).toEqual({ kind: "sqlite", path: "/var/lib/id.sqlite" });
    expect(parseDatabaseUrl("postgresql://u:p@db:5432/id")).toEqual({ kind: "postgres", url: "postgresql://u:p@db:5432/id" });
    expect(parseDatabaseUrl("memory:")).toEqual({ kind: "memory" });
    expect(() => parseDatabaseUrl("mysql://u:hunter2@db/id")).toThrow(/^--database-url mysql:\/\/u:\*\*\*@db\/id is not a database URL; accepted forms: sqlite:<file>/);
    expect(() => parseDatabaseUrl("sqlite:")).toThrow("--database-url sqlite: names no file");
    expect(() => parseDatabaseUrl("postgres://u:hunter2@/id")).toThrow(/^--database-url postgres:\/\/u:\*\*\*@\/id is not a valid URL; accepted forms/);
    expect(() => parseDatabaseUrl("postgres://u:hunter2@/id")).not.toThrow(/hunter2/);
  });

  it("an unreachable PostgreSQL fails to open with the URL and not its password", async () => {
    const error = await openStorage("postgres://app:hunter2@127.0.0.1:1/identity").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toMatch(/^could not open the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/identity: ECONNREFUSED/);
    expect((error as Error).message).not.toContain("hunter2");
  });
});

describe("a SQLite file that is full or read-only", () => {
  it("answers UNAVAILABLE saying why, and keeps what was there", async () => {
    const database = new Database(":memory:");
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database }) });
    await migrate(db, "sqlite", "test");
    const store = new SqlStorage("sqlite", db).storage();
    await store.users.put(userRecord("kept"));
    database.pragma("query_only = ON");
    expect(await codeOf(store.users.put(userRecord("lost")))).toBe("UNAVAILABLE: the database is read-only; try again later");
    database.pragma("query_only = OFF");
    const pages = Number(database.pragma("page_count", { simple: true }));
    database.pragma(`max_page_count = ${pages}`);
    const big = userRecord("big", { app_data: { blob: "x".repeat(200_000) } });
    expect(
      await codeOf(
        store.transaction(async () => {
          await store.users.delete("kept");
          await store.users.put(big);
        }),
      ),
    ).toBe("UNAVAILABLE: the database is full; try again later");
    expect((await store.users.list()).map((user) => user.id)).toEqual(["kept"]);
    await store.close();
  });
});
