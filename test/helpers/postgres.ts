// A real PostgreSQL server (Debian package, installed when missing) on a free port, in a temporary
// data directory, for the tests of the SQL store: run as the `postgres` user when the tests run as
// root (PostgreSQL refuses root), stoppable and restartable on the same port with its data kept.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ensureDebianProgram } from "./apt.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { freePort } from "./redis.js";

/** The newest installed server's programs (Debian puts them under /usr/lib/postgresql/<major>/bin). */
function serverBin(): string {
  const root = "/usr/lib/postgresql";
  const newest = () =>
    existsSync(root)
      ? readdirSync(root)
          .filter((major) => existsSync(join(root, major, "bin", "postgres")))
          .sort((a, b) => Number(b) - Number(a))[0]
      : undefined;
  if (!newest()) ensureDebianProgram("postgresql", "/usr/lib/postgresql", "the PostgreSQL store tests");
  const major = newest();
  if (!major) throw new Error("the postgresql package installed no server under /usr/lib/postgresql/<major>/bin");
  return join(root, major, "bin");
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication on loopback). */
  url: string;
  port: number;
  /** A URL of a new, empty database on this server. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once (as a crash would), keeping its data directory. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with its data. */
  start(): Promise<void>;
  /** Stops it and removes its data directory. */
  destroy(): Promise<void>;
  /** The pid of the server's first process (the postmaster), under which its connection processes run. */
  pid(): number;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = serverBin();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "apigen-pg-"));
  const data = join(dir, "data");
  if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()), Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()));
  // Awaited child processes: a slow initdb or start must not block the test worker's event loop.
  const run = async (program: string, args: string[]) => {
    const command = asRoot ? (["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] as const) : ([join(bin, program), args] as const);
    const result = await runProcess(command[0], [...command[1]], { cwd: dir });
    if (result.code !== 0) throw new Error(`${program} ${args.join(" ")} failed (${result.code}):\n${result.output}`);
  };
  await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c full_page_writes=off`;
  const start = async () => run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", "-t", "60", "start"]);
  const stop = async () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    start,
    stop,
    pid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    async destroy() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
