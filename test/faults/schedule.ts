// A load with a fault schedule: two replicas of the reference service on one PostgreSQL and one
// Redis serve a steady mixed load of writes from the three SDKs over GraphQL, REST and gRPC (the
// TypeScript SDK's sign-ups, updates, deletes and token refreshes in process; the Python SDK's and
// the Go SDK's sign-ups and updates from load.py and test/go/faultload) while the schedule kills a replica with SIGKILL and
// starts it again, restarts PostgreSQL, restarts Redis and pauses it. Then a checker compares every
// acknowledged write with the database. Run by `npm run faults` (run.ts; .ci/run runs 40 s of it).
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { AdminClient, ApiError, UserClient, type Protocol } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { freePort, startRedis, type RedisServer } from "../helpers/redis.js";
import { REPO_ROOT } from "../helpers/project.js";
import { startReplica, type Replica } from "../helpers/replica.js";

const SECRET = "faults-admin-secret";
const PASSWORD = "faults-password-1";
const PROTOCOLS: Protocol[] = ["graphql", "rest", "grpc"];
/**
 * The codes a client may see while a fault lasts, as the docs state them: UNAVAILABLE (with
 * Retry-After) while a store is away, DEADLINE_EXCEEDED or OUTCOME_UNKNOWN when a replica dies
 * mid-call, ALREADY_EXISTS and NOT_FOUND for a write retried after an unknown outcome. Never INTERNAL.
 */
export const DOCUMENTED_CODES = new Set(["OK", "UNAVAILABLE", "DEADLINE_EXCEEDED", "OUTCOME_UNKNOWN", "ALREADY_EXISTS", "NOT_FOUND"]);

export interface FaultReport {
  seconds: number;
  /** Calls made, and their outcomes by code. */
  calls: number;
  codes: Record<string, number>;
  /** UNAVAILABLE answered by the service without a Retry-After. */
  unavailableWithoutRetryAfter: number;
  acknowledged: { signups: number; updates: number; deletes: number; refreshes: number };
  /** Calls by SDK. */
  bySdk: Record<string, number>;
  /** Acknowledged sign-ups missing from the database, or updates whose value is gone, or deletes undone. */
  lost: string[];
  /** Emails held by more than one account. */
  duplicates: string[];
  /** Refresh tokens that answered twice (a rotated token used again). */
  appliedTwice: string[];
  /** Each fault, the seconds until both replicas answered a database read again after it ended, and since it began. */
  recoveries: { fault: string; seconds: number; sinceStart: number }[];
}

/** An update of an account's nickname: when it was sent, and when it was acknowledged (Infinity: its outcome is unknown). */
interface Update {
  nickname: string;
  sentAt: number;
  doneAt: number;
  acknowledged: boolean;
}

interface Account {
  email: string;
  id?: string;
  /** Which SDK made it: "ts", "python", "go". */
  sdk: string;
  updates: Update[];
  deleted: boolean;
  deleteSent: boolean;
}

/**
 * Whether the nickname the database holds is one an acknowledged history allows (linearizability):
 * the value of some update that no acknowledged update was sent after the end of, or none when no
 * update was acknowledged.
 */
function nicknameAllowed(account: Account, stored: string | null): boolean {
  const acknowledged = account.updates.filter((update) => update.acknowledged);
  if (stored === null) return acknowledged.length === 0;
  return account.updates.some((update) => update.nickname === stored && !acknowledged.some((later) => later.sentAt > update.doneAt));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The code of a call's outcome: OK, or the ApiError's code (anything else is a bug of the client, counted as such). */
async function outcome<T>(call: () => Promise<T>): Promise<{ code: string; value?: T; retryAfter?: number; message?: string; answered?: boolean }> {
  try {
    return { code: "OK", value: await call() };
  } catch (error) {
    if (error instanceof ApiError) {
      // The client's own UNAVAILABLE when nothing answered (a replica killed: connection refused or
      // reset) has no Retry-After to carry; every UNAVAILABLE the service answers must have one.
      const answered = !/no answer from the service/.test(error.message);
      return {
        code: error.code,
        answered,
        message: `${error.protocol} ${error.status ?? "-"} ${error.operation}: ${error.message}`,
        ...(error.retryAfterSeconds !== undefined ? { retryAfter: error.retryAfterSeconds } : {}),
      };
    }
    return { code: `NOT_AN_API_ERROR: ${String(error).slice(0, 120)}` };
  }
}

export async function runFaultSchedule(options: { seconds: number; workers?: number; log?: (line: string) => void }): Promise<FaultReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const postgres: PostgresServer = await startPostgres();
  const redis: RedisServer = await startRedis();
  const databaseUrl = await postgres.createDatabase("faults");
  const args = ["--admin-secret", SECRET, "--database-url", databaseUrl, "--redis-url", redis.url, "--no-rate-limit"];
  // Fixed ports, so that a replica started again after SIGKILL is where the loaders of the other SDKs call.
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
  const argsOf = (index: number) => [...args, "--port", String(ports[index * 2]), "--grpc-port", String(ports[index * 2 + 1])];
  const replicas: Replica[] = await Promise.all([startReplica(argsOf(0)), startReplica(argsOf(1))]);
  const accounts: Account[] = [];
  const refreshed = new Map<string, number>();
  const report: FaultReport = {
    seconds: 0,
    calls: 0,
    codes: {},
    unavailableWithoutRetryAfter: 0,
    acknowledged: { signups: 0, updates: 0, deletes: 0, refreshes: 0 },
    bySdk: {},
    lost: [],
    duplicates: [],
    appliedTwice: [],
    recoveries: [],
  };
  const samples = new Map<string, number>();
  const count = (result: { code: string; retryAfter?: number; message?: string; answered?: boolean }, sdk = "ts") => {
    report.calls++;
    report.bySdk[sdk] = (report.bySdk[sdk] ?? 0) + 1;
    report.codes[result.code] = (report.codes[result.code] ?? 0) + 1;
    if (result.code === "UNAVAILABLE" && result.answered && result.retryAfter === undefined) report.unavailableWithoutRetryAfter++;
    if (result.code !== "OK" && result.message) {
      const key = `${result.code} ${result.retryAfter === undefined ? "" : "(Retry-After) "}${result.answered ? "(answered) " : ""}${result.message.replace(/\d+/g, "N").slice(0, 160)}`;
      samples.set(key, (samples.get(key) ?? 0) + 1);
    }
  };
  // Clients of a replica as it is now (a restarted one has new ports): made per call, closed after it.
  const clientsOf = (index: number, protocol: Protocol) => {
    const replica = replicas[index % replicas.length]!;
    const common = { serviceUrl: replica.httpUrl, grpcEndpoint: replica.grpcEndpoint, protocol, serverVersion: schema.version, retry: false as const, timeoutMs: 5_000 };
    return { admin: new AdminClient({ ...common, adminSecret: SECRET }), user: new UserClient({ ...common, clientId: "reference" }) };
  };
  const withClients = async <T>(index: number, protocol: Protocol, call: (clients: ReturnType<typeof clientsOf>) => Promise<T>) => {
    const clients = clientsOf(index, protocol);
    try {
      return await outcome(() => call(clients));
    } finally {
      await Promise.all([clients.admin.close(), clients.user.close()]);
    }
  };

  let stopping = false;
  const worker = async (workerIndex: number) => {
    for (let step = 0; !stopping; step++) {
      const protocol = PROTOCOLS[(workerIndex + step) % PROTOCOLS.length]!;
      const target = workerIndex + step;
      // The TypeScript SDK's own accounts: the other SDKs' are theirs to update.
      const live = accounts.filter((account) => account.sdk === "ts" && account.id && !account.deleteSent);
      const choice = step % 6;
      if (choice <= 2 || live.length < 3) {
        // A sign-up; one whose outcome is unknown is sent again until the service says which (ALREADY_EXISTS: it landed).
        const account: Account = { email: `w${workerIndex}-${step}@faults.example.com`, sdk: "ts", updates: [], deleted: false, deleteSent: false };
        accounts.push(account);
        for (let attempt = 0; attempt < 20 && !account.id && !stopping; attempt++) {
          const result = await withClients(target + attempt, protocol, ({ user }) => user.signup({ email: account.email, password: PASSWORD, confirm_password: PASSWORD, scope: ["offline_access"] }));
          count(result);
          if (result.code === "OK") {
            account.id = result.value!.user!.id;
            report.acknowledged.signups++;
            const refreshToken = result.value!.refresh_token;
            if (refreshToken) void refresh(target, protocol, refreshToken);
          } else if (result.code === "ALREADY_EXISTS") {
            const found = await withClients(target + attempt, protocol, ({ admin }) => admin.users({ query: account.email }));
            if (found.code === "OK" && found.value!.users.length === 1) account.id = found.value!.users[0]!.id;
          } else await sleep(200);
        }
      } else if (choice <= 4) {
        const account = live[(workerIndex * 7 + step) % live.length]!;
        const update: Update = { nickname: `n${workerIndex}-${step}`, sentAt: performance.now(), doneAt: Number.POSITIVE_INFINITY, acknowledged: false };
        account.updates.push(update);
        const result = await withClients(target, protocol, ({ admin }) => admin.updateUser({ id: account.id!, nickname: update.nickname }));
        count(result);
        if (result.code === "OK") {
          Object.assign(update, { doneAt: performance.now(), acknowledged: true });
          report.acknowledged.updates++;
        }
      } else {
        const account = live[(workerIndex * 3 + step) % live.length]!;
        account.deleteSent = true;
        const result = await withClients(target, protocol, ({ admin }) => admin.deleteUser({ id: account.id! }));
        count(result);
        if (result.code === "OK" || result.code === "NOT_FOUND") {
          account.deleted = true;
          report.acknowledged.deletes++;
        }
      }
    }
  };
  // A refresh token rotates: the first refresh answers, the same token again must not.
  const refresh = async (target: number, protocol: Protocol, refreshToken: string) => {
    const first = await withClients(target, protocol, ({ user }) => user.oauthToken({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: "reference" }));
    count(first);
    if (first.code !== "OK") return;
    report.acknowledged.refreshes++;
    const again = await withClients(target + 1, protocol, ({ user }) => user.oauthToken({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: "reference" }));
    if (again.code === "OK") refreshed.set(refreshToken, (refreshed.get(refreshToken) ?? 1) + 1);
  };

  /**
   * The Python and Go SDKs' loaders, each in a process of its own until the schedule's end: every
   * line they print is a call's outcome, counted and checked as the TypeScript SDK's.
   */
  async function otherSdks(): Promise<Promise<void>[]> {
    const { python, binary } = JSON.parse((await promisify(execFile)(process.execPath, [join(REPO_ROOT, "test", "faults", "prepare.mjs")], { cwd: REPO_ROOT, encoding: "utf8" })).stdout) as {
      python: string;
      binary: string;
    };
    const settings = (prefix: string) =>
      JSON.stringify({ replicas: replicas.map((replica) => ({ http: replica.httpUrl, grpc: replica.grpcEndpoint })), secret: SECRET, password: PASSWORD, prefix, seconds: options.seconds });
    const loaders = [
      { sdk: "python", command: python, args: [join(REPO_ROOT, "test", "faults", "load.py"), settings("py")], env: { PYTHONPATH: join(REPO_ROOT, "generated", "python", "src") } },
      { sdk: "go", command: binary, args: [settings("go")], env: {} },
    ];
    return loaders.map(async ({ sdk, command, args: loaderArgs, env }) => {
      const child = spawn(command, loaderArgs, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
      const byEmail = new Map<string, Account>();
      let previous = performance.now();
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const now = performance.now();
        const call = JSON.parse(line) as {
          op: string;
          code: string;
          email?: string;
          nickname?: string;
          attempt?: number;
          answered?: boolean;
          retry_after?: boolean;
          protocol?: string;
          message?: string;
        };
        count({ code: call.code, answered: call.answered ?? false, ...(call.retry_after ? { retryAfter: 1 } : {}), message: `${sdk} ${call.protocol ?? ""} ${call.op}: ${call.message ?? ""}` }, sdk);
        if (call.op === "signup" && (call.code === "OK" || (call.code === "ALREADY_EXISTS" && (call.attempt ?? 0) > 0))) {
          const account: Account = { email: call.email!, sdk, updates: [], deleted: false, deleteSent: false };
          byEmail.set(account.email, account);
          accounts.push(account);
          report.acknowledged.signups++;
        } else if (call.op === "update") {
          const acknowledged = call.code === "OK";
          byEmail.get(call.email!)?.updates.push({ nickname: call.nickname!, sentAt: previous, doneAt: acknowledged ? now : Number.POSITIVE_INFINITY, acknowledged });
          if (acknowledged) report.acknowledged.updates++;
        }
        previous = now;
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
      if (code !== 0) throw new Error(`the ${sdk} SDK's loader exited ${code}`);
    });
  }

  /** Seconds until every replica answers a database read again. */
  const recovered = async (fault: string, since: number, began: number) => {
    for (;;) {
      const reads = await Promise.all(replicas.map((_, index) => withClients(index, "rest", ({ admin }) => admin.users({ pagination: { limit: 1, page: 1 } }))));
      if (reads.every((read) => read.code === "OK")) break;
      if (Date.now() - since > 60_000) throw new Error(`the service did not answer again within 60 s of ${fault}`);
      await sleep(100);
    }
    const seconds = (Date.now() - since) / 1000;
    report.recoveries.push({ fault, seconds, sinceStart: (Date.now() - began) / 1000 });
    log(`faults: ${fault}: answering again ${seconds.toFixed(1)} s after it ended`);
  };

  const faults: [string, () => Promise<void>][] = [
    [
      "kill -9 of replica B, started again",
      async () => {
        await replicas[1]!.stop("SIGKILL");
        await sleep(1_000);
        replicas[1] = await startReplica(argsOf(1));
      },
    ],
    ["PostgreSQL stopped (immediate) and started again", async () => (await postgres.stop(), await sleep(2_000), await postgres.start())],
    ["Redis killed and started again (empty)", async () => (await redis.stop(), await sleep(2_000), await redis.start())],
    [
      "Redis paused 3 s (SIGSTOP, SIGCONT)",
      async () => {
        process.kill(redis.pid, "SIGSTOP");
        await sleep(3_000);
        process.kill(redis.pid, "SIGCONT");
      },
    ],
  ];

  // The other SDKs' loaders first (their toolchains may take a minute to make), then everyone at once.
  const others = await otherSdks();
  const workers = [...Array.from({ length: options.workers ?? 6 }, (_, index) => worker(index)), ...others];
  try {
    // The schedule's time counts from the load's start (the stores, replicas and loaders are up).
    const end = Date.now() + options.seconds * 1000;
    const gap = Math.max(2_000, (options.seconds * 1000) / (faults.length * 2 + 1));
    for (let round = 0; Date.now() + gap < end; round++) {
      await sleep(gap);
      const [name, inject] = faults[round % faults.length]!;
      log(`faults: ${name}`);
      const began = Date.now();
      await inject();
      await recovered(name, Date.now(), began);
    }
  } finally {
    stopping = true;
    await Promise.all(workers);
  }

  // The checker: every acknowledged write against the database, read through replica A.
  const check = await withClients(0, "rest", async ({ admin }) => {
    const all = new Map<string, { id: string; nickname: string | null }[]>();
    for (let page = 1; ; page++) {
      const listed = await admin.users({ pagination: { limit: 100, page } });
      for (const user of listed.users) if (user.email) all.set(user.email, [...(all.get(user.email) ?? []), { id: user.id, nickname: user.nickname ?? null }]);
      if (listed.users.length < 100) break;
    }
    return all;
  });
  if (check.code !== "OK") throw new Error(`the checker could not read the users: ${check.code}`);
  const stored = check.value!;
  for (const [email, users] of stored) if (users.length > 1) report.duplicates.push(email);
  for (const account of accounts) {
    if (account.sdk === "ts" && !account.id) continue;
    const found = stored.get(account.email)?.[0];
    if (account.deleted) {
      if (found) report.lost.push(`delete of ${account.email} undone`);
    } else if (!found) {
      if (!account.deleteSent) report.lost.push(`sign-up of ${account.email} (${account.sdk}) missing`);
    } else if (!nicknameAllowed(account, found.nickname)) {
      report.lost.push(`an acknowledged update of ${account.email} (${account.sdk}) lost: the database holds ${found.nickname}`);
    }
  }
  for (const [token, times] of refreshed) report.appliedTwice.push(`refresh token ${token.slice(0, 8)}… answered ${times} times`);
  report.seconds = (Date.now() - started) / 1000;
  for (const [sample, n] of samples) log(`faults: ${n} × ${sample}`);
  await Promise.all(replicas.map((replica) => replica.stop()));
  await postgres.destroy();
  await redis.stop();
  return report;
}

/** The report as the npm script prints it. */
export function formatReport(report: FaultReport): string {
  const codes = Object.entries(report.codes)
    .sort(([, a], [, b]) => b - a)
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");
  return [
    `faults: ${report.calls} calls in ${report.seconds.toFixed(0)} s (${Object.entries(report.bySdk)
      .map(([sdk, n]) => `${sdk} ${n}`)
      .join(", ")}): ${codes}`,
    `acknowledged: ${report.acknowledged.signups} sign-ups, ${report.acknowledged.updates} updates, ${report.acknowledged.deletes} deletes, ${report.acknowledged.refreshes} refreshes`,
    `lost: ${report.lost.length}; duplicate accounts: ${report.duplicates.length}; applied twice: ${report.appliedTwice.length}; UNAVAILABLE without Retry-After: ${report.unavailableWithoutRetryAfter}`,
    ...report.recoveries.map((recovery) => `recovery: ${recovery.fault}: answering ${recovery.seconds.toFixed(1)} s after it ended (${recovery.sinceStart.toFixed(1)} s after it began)`),
    ...report.lost.slice(0, 10).map((line) => `  lost: ${line}`),
  ].join("\n");
}
