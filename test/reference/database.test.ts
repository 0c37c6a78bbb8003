// The reference service on its databases, as a deployment runs it (`npm run serve`, each replica a
// process of its own): a restart keeps everything, `kill -9` right after a write loses nothing,
// replicas on one PostgreSQL and one Redis are one service (uniqueness too), a database lost while
// running answers UNAVAILABLE on every protocol and comes back by itself, and start-up failures
// are one clear line.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, UserClient } from "../../generated/client/index.js";
import { createServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService } from "../../reference/service.js";
import { openStorage } from "../../reference/store/open.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";
import { codeOf, PROTOCOLS } from "../helpers/raw-calls.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startReplica, type Replica } from "../helpers/replica.js";
import { startLostAnswerProxy } from "../helpers/lost-answer-proxy.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "database-test-secret";
const PASSWORD = "database-password-1";

let postgres: PostgresServer;
let redis: RedisServer;
let folder: string;
let databases = 0;

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  folder = mkdtempSync(join(tmpdir(), "apigen-db-"));
});
afterAll(async () => {
  await Promise.all([postgres?.destroy(), redis?.stop()]);
  rmSync(folder, { recursive: true, force: true });
});

const admin = (replica: { httpUrl: string; grpcEndpoint: string }, protocol: (typeof PROTOCOLS)[number] = "rest") =>
  new AdminClient({ serviceUrl: replica.httpUrl, grpcEndpoint: replica.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });
const user = (replica: { httpUrl: string }) => new UserClient({ serviceUrl: replica.httpUrl, clientId: "reference", protocol: "rest", serverVersion: schema.version, retry: false });
const signUp = (replica: Replica, email: string) => user(replica).signup({ email, password: PASSWORD, confirm_password: PASSWORD });

/** A database of each kind, empty. */
async function databaseUrl(kind: "sqlite" | "postgres"): Promise<string> {
  databases++;
  return kind === "sqlite" ? `sqlite:${join(folder, `identity-${databases}.sqlite`)}` : postgres.createDatabase(`identity_${databases}`);
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  it("a user survives a restart, and a write answered just before kill -9", async () => {
    const url = await databaseUrl(kind);
    const args = ["--admin-secret", SECRET, "--database-url", url, "--no-rate-limit"];
    let replica = await startReplica(args);
    const created = await signUp(replica, "ann@example.com");
    await admin(replica).updateUser({ id: created.user!.id, given_name: "Ann" });
    expect(await replica.stop("SIGTERM")).toBe(0);

    replica = await startReplica(args);
    expect(await admin(replica).user({ id: created.user!.id })).toMatchObject({ email: "ann@example.com", given_name: "Ann" });
    const bob = await signUp(replica, "bob@example.com");
    await admin(replica).updateUser({ id: bob.user!.id, nickname: "last write" });
    const keyed = await admin(replica).createOrganization({ name: "keyed" }, { idempotencyKey: `restart-${kind}` });
    await replica.stop("SIGKILL");

    replica = await startReplica(args);
    try {
      expect(await admin(replica).user({ id: bob.user!.id })).toMatchObject({ email: "bob@example.com", nickname: "last write" });
      expect((await admin(replica).users({})).pagination.total).toBe(2);
      // The key was kept with the data: its repeat after the restart answers the first answer.
      expect(await admin(replica).createOrganization({ name: "keyed" }, { idempotencyKey: `restart-${kind}` })).toEqual(keyed);
      // Signing in works after the restart: sessions, hashes and keys were kept too.
      expect((await user(replica).login({ email: "ann@example.com", password: PASSWORD })).user?.id).toBe(created.user!.id);
    } finally {
      await replica.stop();
    }
  });
});

describe("two replicas on one PostgreSQL and one Redis", () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    const url = await databaseUrl("postgres");
    // Started at once on an empty database: the migrations are applied once.
    const args = ["--admin-secret", SECRET, "--database-url", url, "--redis-url", redis.url, "--no-rate-limit"];
    [a, b] = await Promise.all([startReplica(args), startReplica(args)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("behave as one service: created on A, read and updated on B, deleted on B, gone on A", async () => {
    const created = await signUp(a, "carol@example.com");
    const id = created.user!.id;
    expect(await admin(b, "grpc").user({ id })).toMatchObject({ email: "carol@example.com" });
    await admin(b, "graphql").updateUser({ id, given_name: "Carol" });
    expect((await admin(a).user({ id })).given_name).toBe("Carol");
    await admin(b).deleteUser({ id });
    for (const protocol of PROTOCOLS) expect(await codeOf(() => admin(a, protocol).user({ id }))).toBe("NOT_FOUND");
  });

  it("20 concurrent sign-ups of one email spread over both: one user, 19 ALREADY_EXISTS", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => codeOf(() => signUp(index % 2 ? a : b, "dave@example.com"))));
    expect(answers.filter((code) => code === "OK")).toHaveLength(1);
    expect(answers.filter((code) => code === "ALREADY_EXISTS")).toHaveLength(19);
    const found = await admin(a).users({ query: "dave@" });
    expect(found.pagination.total).toBe(1);
    // Neither the refused email nor the password reaches a log line (the database's own message names the email).
    const lines = [...a.lines, ...b.lines].join("\n");
    expect(lines).toMatch(/signup rest ALREADY_EXISTS/);
    expect(lines).not.toContain("dave@example.com");
    expect(lines).not.toContain(PASSWORD);
  });

  it("20 concurrent updates of one user spread over both all succeed, and the user is one of them", async () => {
    const { user: carol } = await signUp(a, "erin@example.com");
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => codeOf(() => admin(index % 2 ? a : b).updateUser({ id: carol!.id, email: "erin@example.com", nickname: `n${index}` }))));
    expect(answers).toEqual(Array(20).fill("OK"));
    expect((await admin(b).user({ id: carol!.id })).nickname).toMatch(/^n\d+$/);
  });

  it("updates racing a delete on the other replica never bring the deleted user back", async () => {
    // Each update reads the user, then writes it: a delete landing between the two used to be undone
    // by the write (an upsert). Now an update answers OK (before the delete) or NOT_FOUND (after).
    const ids = await Promise.all(Array.from({ length: 6 }, async (_, index) => (await signUp(a, `fay${index}@example.com`)).user!.id));
    const answers = await Promise.all(
      ids.map(async (id, user) => {
        // One stream of updates per replica, going on until the delete has answered (the email
        // and phone checks widen the window between an update's read and its write).
        let deleting = true;
        const stream = async (replica: Replica, name: string) => {
          const codes: string[] = [];
          for (let index = 0; deleting || codes.length < 3; index++) {
            codes.push(await codeOf(() => admin(replica).updateUser({ id, email: `fay${user}@example.com`, phone_number: `+1555000${user}${index % 10}`, nickname: `${name}${index}` })));
          }
          return codes;
        };
        const updating = [stream(a, "a"), stream(b, "b")];
        await new Promise((resolve) => setTimeout(resolve, 20));
        const deleted = await codeOf(() => admin(b).deleteUser({ id }));
        deleting = false;
        return { deleted, updated: (await Promise.all(updating)).flat() };
      }),
    );
    for (const { deleted, updated } of answers) {
      expect(deleted).toBe("OK");
      expect(updated.filter((code) => code !== "OK" && code !== "NOT_FOUND")).toEqual([]);
    }
    for (const id of ids) expect(await codeOf(() => admin(a).user({ id }))).toBe("NOT_FOUND");
    expect((await admin(a).users({ query: "fay" })).pagination.total).toBe(0);
  });

  it("one Idempotency-Key sent 20 times at once over both replicas and every protocol: one organization, one answer", async () => {
    const keyed = (replica: Replica, protocol: (typeof PROTOCOLS)[number]) =>
      new AdminClient({
        serviceUrl: replica.httpUrl,
        grpcEndpoint: replica.grpcEndpoint,
        adminSecret: SECRET,
        protocol,
        serverVersion: schema.version,
        retry: { attempts: 20, baseDelayMs: 20, maxDelayMs: 200 },
      });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => keyed(index % 2 ? a : b, PROTOCOLS[index % PROTOCOLS.length]!).createOrganization({ name: "once-only" }, { idempotencyKey: "replicas-key-1" })),
    );
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    const organizations = await admin(a).organizations({});
    expect(organizations.organizations.filter((org) => org.name === "once-only")).toHaveLength(1);
    // Another input under the key is refused on either replica.
    const other = await admin(b)
      .createOrganization({ name: "another" }, { idempotencyKey: "replicas-key-1" })
      .then(
        () => expect.fail("refused"),
        (error: unknown) => error as ApiError,
      );
    expect(other).toMatchObject({ code: "INVALID_ARGUMENT", message: "this Idempotency-Key was first sent with another input; send a new key with a new request" });
  });

  it("a write whose answer a proxy drops after A committed it is retried on B, which answers A's answer: one organization", async () => {
    const proxy = await startLostAnswerProxy([a, b]);
    try {
      for (const protocol of PROTOCOLS) {
        const client = new AdminClient({
          serviceUrl: proxy.httpUrl,
          grpcEndpoint: proxy.grpcEndpoint,
          adminSecret: SECRET,
          protocol,
          serverVersion: schema.version,
          retry: { attempts: 3, baseDelayMs: 10 },
        });
        const name = `behind-proxy-${protocol}`;
        expect(await client.createOrganization({ name })).toMatchObject({ name });
        await client.close();
        const organizations = await admin(b).organizations({ pagination: { limit: 100 } });
        expect(organizations.organizations.filter((org) => org.name === name)).toHaveLength(1);
      }
      expect([...proxy.keys.values()]).toEqual(PROTOCOLS.map(() => ({ dropped: 1, relayed: 1, replayed: true })));
    } finally {
      await proxy.close();
    }
  });

  it("20 concurrent creations of one organization name: one organization", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => codeOf(() => admin(index % 2 ? a : b).createOrganization({ name: "acme" }))));
    expect(answers.sort()).toEqual(["OK", ...Array(19).fill("ALREADY_EXISTS")].sort());
  });
});

describe("the database lost while running", () => {
  it("answers UNAVAILABLE on every protocol, /readyz is not ready, and it recovers by itself", async () => {
    const url = await databaseUrl("postgres");
    const { storage } = await openStorage(url);
    const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage });
    const server = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, dependencies: [storage], ...service.serverOptions });
    const addresses = await server.listen();
    const endpoint = { httpUrl: addresses.httpUrl, grpcEndpoint: addresses.grpcEndpoint };
    try {
      const org = await admin(endpoint).createOrganization({ name: "before-outage" });
      expect((await fetch(`${addresses.httpUrl}/readyz`)).status).toBe(200);

      await postgres.stop();
      for (const protocol of PROTOCOLS) {
        const failure = await admin(endpoint, protocol)
          .getOrganization({ id: org.id })
          .catch((error: unknown) => error);
        expect(failure, protocol).toBeInstanceOf(ApiError);
        expect((failure as ApiError).code, protocol).toBe("UNAVAILABLE");
        expect((failure as ApiError).message, protocol).toContain("the database cannot be reached; try again later");
      }
      const notReady = await fetch(`${addresses.httpUrl}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: "NOT_SERVING", reason: "the PostgreSQL store cannot be reached" });

      await postgres.start();
      const deadline = Date.now() + 15_000;
      while ((await fetch(`${addresses.httpUrl}/readyz`)).status !== 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await fetch(`${addresses.httpUrl}/readyz`)).status).toBe(200);
      for (const protocol of PROTOCOLS) expect((await admin(endpoint, protocol).getOrganization({ id: org.id })).name, protocol).toBe("before-outage");
    } finally {
      await server.close();
      await storage.close();
    }
  });
});

describe("start-up failures", () => {
  const run = (args: string[]) =>
    runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "reference/main.ts"), "--admin-secret", SECRET, "--port", "0", "--grpc-port", "0", ...args], { cwd: REPO_ROOT });

  it("an unreachable database: exit 1 naming the URL without its password", async () => {
    const { code, stderr } = await run(["--database-url", "postgres://app:hunter2@127.0.0.1:1/identity"]);
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toMatch(/^error: could not open the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/identity: ECONNREFUSED/);
    expect(stderr).not.toContain("hunter2");
  });

  it("a password given as a URL parameter is masked too (?password=, ?sslpassword=)", async () => {
    const { code, stderr } = await run(["--database-url", "postgres://app@127.0.0.1:1/identity?password=hunter2&sslpassword=hunter3&application_name=idp"]);
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toMatch(/^error: could not open the database at postgres:\/\/app@127\.0\.0\.1:1\/identity\?password=\*\*\*&sslpassword=\*\*\*&application_name=idp: /);
    expect(stderr).not.toMatch(/hunter[23]/);
  });

  it("a SQLite file of the owner's alone: its new folder 0700 and the file 0600, each said as it is created", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "apigen-sqlite-")), "fresh", "data");
    const file = join(dir, "identity.sqlite");
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "reference/main.ts"), "--admin-secret", SECRET, "--port", "0", "--grpc-port", "0", "--database-url", `sqlite:${file}`], {
      cwd: REPO_ROOT,
    });
    try {
      let out = "";
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("  SCIM ")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(out).toContain(`note: created the folder ${dir} (mode 0700)`);
      expect(out).toContain(`note: created the database file ${file} (mode 0600)`);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const path of [file, `${file}-wal`]) if (existsSync(path)) expect([path, statSync(path).mode & 0o777]).toEqual([path, 0o600]);
    } finally {
      child.kill();
      await once(child, "exit");
    }
  });

  it("a port in use: exit 1 naming the address, which port it is, and the flag that moves it", async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      for (const [flag, name, hint] of [
        ["--port", "HTTP", "--port (PORT)"],
        ["--grpc-port", "gRPC", "--grpc-port (GRPC_PORT)"],
      ] as const) {
        const { code, stderr } = await run([flag, String(port)]);
        expect(code).toBe(1);
        expect(stderr.split("\n")[0]).toBe(
          `error: could not listen on 127.0.0.1:${port} (the ${name} port): the port is in use by another program (EADDRINUSE); choose another with ${hint}, or stop the program listening there`,
        );
      }
    } finally {
      taken.close();
    }
  });

  it("a malformed URL: exit 2 naming the accepted forms", async () => {
    const { code, stderr } = await run(["--database-url", "mysql://app:hunter2@db/identity"]);
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      "error: --database-url mysql://app:***@db/identity is not a database URL; accepted forms: sqlite:<file> (such as sqlite:./data/identity.sqlite), sqlite::memory:, postgres://user:password@host:5432/database (or postgresql://), memory:",
    );
  });
});
