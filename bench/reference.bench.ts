// The reference service on its databases, against itself on the in-memory store in the same run:
// over REST, a read (get one user) and a write (update_user, which also writes its audit log row),
// on SQLite (a file, WAL; targets: reads at least 70% of memory, writes 60%) and on PostgreSQL (a real server
// on this machine, whose processes' CPU is counted with the service's); and, in this process, the p50 of the first
// and the last page of `users` among 100,000 users (target: under 5 ms on SQLite).
import "./banner.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { schema } from "../generated/schema.js";
import { createReferenceService } from "../reference/service.js";
import { openStorage } from "../reference/store/open.js";
import { startPostgres } from "../test/helpers/postgres.js";
import { userRecord } from "../test/helpers/user-record.js";
import { CONNECTIONS, ROUNDS_TEXT, SECRET_HEADER, UPDATE_USER, base, http, pair, row } from "./load.js";
import { startTarget } from "./targets.js";

/** p50 and p99 of `samples` calls of `call`, in milliseconds. */
async function latency(call: () => Promise<unknown>, samples = 200): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(samples / 2)]!, p99: times[Math.floor(samples * 0.99)]! };
}

/** The first and the last page (10 a page) of the `users` operation among 100,000 users, on `database`. */
async function userPages(database: string): Promise<{ seedSeconds: number; first: { p50: number; p99: number }; last: { p50: number; p99: number } }> {
  const { storage } = await openStorage(database);
  const service = createReferenceService({ storage });
  const started = Date.now();
  await storage.transaction(async () => {
    for (let i = 0; i < 100_000; i++) {
      await storage.users.insert(
        userRecord(`user-${i}`, {
          email: `user${i}@example.com`,
          email_verified: true,
          given_name: `Given${i}`,
          family_name: "Family",
          created_at: 1_700_000_000 + i,
          updated_at: 1_700_000_000 + i,
          app_data: { plan: "pro" },
          password_hash: `scrypt$${"x".repeat(100)}`,
        }),
      );
    }
  });
  const seedSeconds = (Date.now() - started) / 1000;
  // The context an admin call over REST has, as far as the operation reads it.
  const context = { operation: schema.operations.users, protocol: "rest", principal: { kind: "secret" }, headers: {}, remoteAddress: "127.0.0.1" };
  const page = (number: number) => () => service.implementation.users({ pagination: { limit: 10, page: number } } as never, context as never);
  const result = { seedSeconds, first: await latency(page(1)), last: await latency(page(10_000)) };
  await storage.close();
  return result;
}

// In this process, before the servers start: the pages of 100,000 users.
const pagesFolder = mkdtempSync(join(tmpdir(), "bench-pages-"));
const sqlitePages = await userPages(`sqlite:${join(pagesFolder, "pages.sqlite")}`);
const memoryPages = await userPages("memory:");
const postgres = await startPostgres();
const dataFolder = mkdtempSync(join(tmpdir(), "bench-data-"));
const referenceMemory = await startTarget("reference", { database: "memory:" });
const referenceSqlite = await startTarget("reference", { database: `sqlite:${join(dataFolder, "identity.sqlite")}` });
const referencePostgres = await startTarget("reference", { database: await postgres.createDatabase("bench") });
try {
  const updateBody = JSON.stringify(UPDATE_USER);
  const userRead = JSON.stringify({ id: "user-1" });
  const [memoryRead, sqliteRead] = await pair(http(referenceMemory, "/v1/admin/user", userRead), http(referenceSqlite, "/v1/admin/user", userRead));
  // PostgreSQL's own processes (the postmaster, the pool's connection processes) count with the service.
  const withDatabase = [postgres.pid()];
  const [memoryReadAgain, postgresRead] = await pair(http(referenceMemory, "/v1/admin/user", userRead), http(referencePostgres, "/v1/admin/user", userRead, SECRET_HEADER, [], withDatabase));
  const [memoryWrite, sqliteWrite] = await pair(http(referenceMemory, "/v1/admin/update_user", updateBody), http(referenceSqlite, "/v1/admin/update_user", updateBody));
  const [memoryWriteAgain, postgresWrite] = await pair(
    http(referenceMemory, "/v1/admin/update_user", updateBody),
    http(referencePostgres, "/v1/admin/update_user", updateBody, SECRET_HEADER, [], withDatabase),
  );
  console.log(`${CONNECTIONS} concurrent, ${ROUNDS_TEXT}; "of it": the baseline's CPU per call over this one's`);
  console.log(`the reference service on its databases (REST; CPU of the service, and on PostgreSQL of the database's processes too):`);
  console.log(base("get user, mem", memoryRead));
  console.log(row("get user, SQLite", sqliteRead, memoryRead, "the in-memory store", 70));
  console.log(row("get user, PG", postgresRead, memoryReadAgain, "the in-memory store"));
  console.log(base("update, mem", memoryWrite));
  console.log(row("update, SQLite", sqliteWrite, memoryWrite, "the in-memory store", 60));
  console.log(row("update, PG", postgresWrite, memoryWriteAgain, "the in-memory store"));
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  console.log(`the users operation among 100,000 users, 10 a page (in process; seeding took ${sqlitePages.seedSeconds.toFixed(1)} s on SQLite):`);
  for (const [name, pages] of [
    ["SQLite", sqlitePages],
    ["memory", memoryPages],
  ] as const) {
    const verdict = name === "SQLite" ? `target p50 under 5 ms: ${Math.max(pages.first.p50, pages.last.p50) < 5 ? "met" : "MISSED"}` : "";
    console.log(`${name.padEnd(8)} first page p50 ${ms(pages.first.p50)} (p99 ${ms(pages.first.p99)}), last page p50 ${ms(pages.last.p50)} (p99 ${ms(pages.last.p99)})  ${verdict}`);
  }
} finally {
  for (const target of [referenceMemory, referenceSqlite, referencePostgres]) target.child.kill();
  await postgres.destroy();
}
