// A load with a fault schedule: two replicas of the reference service on one PostgreSQL and one
// Redis serve a steady mixed load of writes from the TypeScript SDK over GraphQL, REST and gRPC
// (sign-ups, updates, deletes, token refreshes) while the schedule kills a replica with SIGKILL and
// starts it again, restarts PostgreSQL, restarts Redis and pauses it. Then a checker compares every
// acknowledged write with the database. Run by `npm run faults` (a few minutes) and, shorter, by
// test/faults/faults.test.ts.
import { AdminClient, ApiError, UserClient, type Protocol } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
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
  /** Acknowledged sign-ups missing from the database, or updates whose value is gone, or deletes undone. */
  lost: string[];
  /** Emails held by more than one account. */
  duplicates: string[];
  /** Refresh tokens that answered twice (a rotated token used again). */
  appliedTwice: string[];
  /** Each fault, the seconds until both replicas answered a database read again after it ended, and since it began. */
  recoveries: { fault: string; seconds: number; sinceStart: number }[];
}

interface Account {
  email: string;
  id?: string;
  /** The nickname of the last acknowledged update, and of every update sent since (any may have landed). */
  acknowledgedNickname?: string;
  pendingNicknames: Set<string>;
  deleted: boolean;
  deleteSent: boolean;
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
  const replicas: Replica[] = await Promise.all([startReplica(args), startReplica(args)]);
  const accounts: Account[] = [];
  const refreshed = new Map<string, number>();
  const report: FaultReport = {
    seconds: 0,
    calls: 0,
    codes: {},
    unavailableWithoutRetryAfter: 0,
    acknowledged: { signups: 0, updates: 0, deletes: 0, refreshes: 0 },
    lost: [],
    duplicates: [],
    appliedTwice: [],
    recoveries: [],
  };
  const samples = new Map<string, number>();
  const count = (result: { code: string; retryAfter?: number; message?: string; answered?: boolean }) => {
    report.calls++;
    report.codes[result.code] = (report.codes[result.code] ?? 0) + 1;
    if (result.code === "UNAVAILABLE" && result.answered && result.retryAfter === undefined) report.unavailableWithoutRetryAfter++;
    if (result.code !== "OK" && result.message) {
      const key = `${result.code} ${result.retryAfter === undefined ? "" : "(Retry-After) "}${result.message.replace(/\d+/g, "N").slice(0, 160)}`;
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
      const live = accounts.filter((account) => account.id && !account.deleteSent);
      const choice = step % 6;
      if (choice <= 2 || live.length < 3) {
        // A sign-up; one whose outcome is unknown is sent again until the service says which (ALREADY_EXISTS: it landed).
        const account: Account = { email: `w${workerIndex}-${step}@faults.example.com`, pendingNicknames: new Set(), deleted: false, deleteSent: false };
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
        const nickname = `n${workerIndex}-${step}`;
        account.pendingNicknames.add(nickname);
        const result = await withClients(target, protocol, ({ admin }) => admin.updateUser({ id: account.id!, nickname }));
        count(result);
        if (result.code === "OK") {
          account.acknowledgedNickname = nickname;
          account.pendingNicknames = new Set([nickname]);
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
        replicas[1] = await startReplica(args);
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

  const workers = Array.from({ length: options.workers ?? 6 }, (_, index) => worker(index));
  try {
    const end = started + options.seconds * 1000;
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
    if (!account.id) continue;
    const found = stored.get(account.email)?.[0];
    if (account.deleted) {
      if (found) report.lost.push(`delete of ${account.email} undone`);
    } else if (!account.deleteSent && !found) report.lost.push(`sign-up of ${account.email} (${account.id}) missing`);
    else if (found && account.acknowledgedNickname && !account.pendingNicknames.has(found.nickname ?? "")) {
      report.lost.push(`update of ${account.email} to ${account.acknowledgedNickname} lost (found ${found.nickname})`);
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
    `faults: ${report.calls} calls in ${report.seconds.toFixed(0)} s: ${codes}`,
    `acknowledged: ${report.acknowledged.signups} sign-ups, ${report.acknowledged.updates} updates, ${report.acknowledged.deletes} deletes, ${report.acknowledged.refreshes} refreshes`,
    `lost: ${report.lost.length}; duplicate accounts: ${report.duplicates.length}; applied twice: ${report.appliedTwice.length}; UNAVAILABLE without Retry-After: ${report.unavailableWithoutRetryAfter}`,
    ...report.recoveries.map((recovery) => `recovery: ${recovery.fault}: answering ${recovery.seconds.toFixed(1)} s after it ended (${recovery.sinceStart.toFixed(1)} s after it began)`),
    ...report.lost.slice(0, 10).map((line) => `  lost: ${line}`),
  ].join("\n");
}
