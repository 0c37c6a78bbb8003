// The Redis store: the stubs' state shared by every replica that points at the same Redis. Built on
// ioredis (an optional peer, loaded when the store starts). Each operation is one atomic round trip
// (a Lua script, or one command), expiry is Redis's own (PEXPIRE, SET PX), keys sit under one
// prefix, and session ids are stored only as their SHA-256. Commands are never queued while Redis
// is away: they fail at once, so calls of a secret scheme fail closed (UNAVAILABLE) and succeed again as soon as
// the client has reconnected on its own.
//
// The right secret from an address that no replica has seen fail needs no round trip: every
// recorded failure is published (in the same Lua script), each replica keeps the addresses with a
// failure in the window as suspects, and only suspects are looked up in Redis. The local answer is
// trusted only while it cannot be stale: subscribed, seeded from Redis after subscribing (so nothing
// published while unsubscribed is missed), and Redis answered a heartbeat within
// FAST_PATH_CONTACT_MS (so a hung Redis fails closed within that bound, as a lost one does at once).
// The global budget works the same way: the failure that spends it sets a marker key that expires
// when the budget is free again and publishes how long that is; while a replica knows the budget
// spent, every check goes to Redis.
import type { Redis } from "ioredis";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { loadOptionalPackage } from "./optional-packages.js";
import { storeUnavailable, type LimiterSettings, type LockoutPolicy, type RateLimiterModule, type SecretAttempt, type Store, type StoredSession } from "./store.js";

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** Prefix of every key the stubs write (default "stubs:"): several services can share one Redis. */
  keyPrefix?: string;
  /** A command without an answer within this time fails (default 1000 ms): a hung Redis fails closed too. */
  commandTimeoutMs?: number;
  /** How long `listen()` waits for the first connection before it serves anyway (default 2000 ms). */
  connectTimeoutMs?: number;
}

export const DEFAULT_REDIS_KEY_PREFIX = "stubs:";

/** The failures of one address, a sorted set of their times, under the store's prefix. */
const LOCKOUT_KEYS = "lockout:";
const lockoutKey = (address: string) => `${LOCKOUT_KEYS}${address}`;
/** The failures of all addresses (the global budget), a sorted set of their times; outside LOCKOUT_KEYS*, which are addresses. */
const GLOBAL_FAILURES_KEY = "lockout-all";
/** Set, with the time until the budget is free again as its TTL, while the global budget is spent. */
const GLOBAL_SPENT_KEY = "lockout-all-spent";

/** How often a replica pings Redis to know that its local lockout answers are current. */
export const HEARTBEAT_MS = 500;
/** The local answer is used only while Redis answered within this time (a hung Redis fails closed after it). */
export const FAST_PATH_CONTACT_MS = 1500;
/**
 * Most suspects a replica remembers. Failures from more addresses than this (a spread-out attack)
 * turn the local answer off for a window instead of growing memory: every check goes to Redis then.
 */
export const MAX_SUSPECTS = 100_000;

/**
 * One wrong secret against sorted sets of failure times (score: the time): recorded, for the
 * address and for all addresses, unless the global budget is spent or the address is locked out
 * already, in one atomic step. KEYS[1] the address's failures, KEYS[2] the failures of all,
 * KEYS[3] the marker of a spent budget; ARGV now, windowMs, maxFailures, a unique member, the
 * channel of failures and the message (address and window) to publish there, the global windowMs
 * and maxFailures (0: no global budget), the channel that hears of a spent budget. Answers
 * {locked (0 no, 1 the address, 2 everyone), failures, retryAfterMs}.
 */
const RECORD_FAILURE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local global_window = tonumber(ARGV[7])
local global_max = tonumber(ARGV[8])
local function retry_after(key, span)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] then return tonumber(oldest[2]) + span - now end
  return 0
end
local global_count = 0
if global_max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - global_window)
  global_count = redis.call('ZCARD', KEYS[2])
  if global_count >= global_max then return {2, global_count, retry_after(KEYS[2], global_window)} end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= max then return {1, count, retry_after(KEYS[1], window)} end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
redis.call('PUBLISH', ARGV[5], ARGV[6])
if global_max > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], global_window)
  if global_count + 1 >= global_max then
    local spent_for = math.max(1, math.ceil(retry_after(KEYS[2], global_window)))
    redis.call('SET', KEYS[3], '1', 'PX', spent_for)
    redis.call('PUBLISH', ARGV[9], spent_for)
  end
end
count = count + 1
if count >= max then return {0, count, retry_after(KEYS[1], window)} end
return {0, count, 0}
`;

/**
 * The right secret: nothing is recorded, the failures in the windows decide, in one atomic
 * read. KEYS[1] the address's failures, KEYS[2] the failures of all; ARGV now, the address's
 * window start (exclusive, "(<ms>"), windowMs, maxFailures, the same three for all addresses.
 * Answers {locked (0 no, 1 the address, 2 everyone), failures, retryAfterMs}.
 */
const CHECK_SECRET_SCRIPT = `
local now = tonumber(ARGV[1])
local function judged(key, since, window, max)
  local count = redis.call('ZCOUNT', key, since, '+inf')
  if count < max then return count, nil end
  local oldest = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return count, tonumber(oldest[2]) + window - now
end
local global_count, global_wait = judged(KEYS[2], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]))
if global_wait then return {2, global_count, global_wait} end
local count, wait = judged(KEYS[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
if wait then return {1, count, wait} end
return {0, count, 0}
`;

type ScriptedRedis = Redis & {
  recordFailure(
    key: string,
    globalKey: string,
    spentKey: string,
    now: number,
    windowMs: number,
    maxFailures: number,
    member: string,
    channel: string,
    message: string,
    globalWindowMs: number,
    globalMaxFailures: number,
    spentChannel: string,
  ): Promise<[number, number, number]>;
  checkSecret(
    key: string,
    globalKey: string,
    now: number,
    since: string,
    windowMs: number,
    maxFailures: number,
    globalSince: string,
    globalWindowMs: number,
    globalMaxFailures: number,
  ): Promise<[number, number, number]>;
};

/** The store's answer from a script's {locked, failures, retryAfterMs}. */
function attemptOf([locked, failures, retryAfterMs]: [number, number, number]): SecretAttempt {
  return locked === 2 ? { locked: true, everyone: true, failures, retryAfterMs } : { locked: locked === 1, failures, retryAfterMs };
}

export class RedisStore implements Store {
  readonly kind = "redis";
  private client: ScriptedRedis | undefined;
  /** The second connection, subscribed to the failures every replica records. */
  private subscriber: Redis | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private connected = false;
  /** Addresses with a failure in the window, to the time (this process's clock) they stop being suspect. */
  private readonly suspects = new Map<string, number>();
  /** Subscribed and seeded since the subscription last started: the suspects are complete. */
  private suspectsComplete = false;
  /** When Redis last answered (this process's clock). */
  private lastContact = 0;
  /** Until then every check goes to Redis: more suspects than MAX_SUSPECTS were seen. */
  private overflowUntil = 0;
  /** Until then (this process's clock) the global budget is known spent: every check goes to Redis. */
  private globalSpentUntil = 0;
  private readonly listeners = new Set<(reachable: boolean) => void>();
  private sequence = 0;

  constructor(private readonly options: RedisStoreOptions) {
    if (!/^rediss?:\/\//.test(options.url)) throw new TypeError(`the Redis URL must start with redis:// or rediss://, not ${JSON.stringify(options.url.split(":")[0])}`);
  }

  /** Where it points, without credentials: for start-up lines and errors. */
  get location(): string {
    const url = new URL(this.options.url);
    return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  }

  async start(onWarning: (message: string) => void): Promise<void> {
    if (this.client) return;
    const { Redis } = await loadOptionalPackage("ioredis", () => import("ioredis"));
    const client = new Redis(this.options.url, {
      keyPrefix: this.options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX,
      // Fail now rather than wait for a Redis that is away: the caller hears UNAVAILABLE at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: this.options.commandTimeoutMs ?? 1000,
      // Commands issued in one turn of the event loop (concurrent calls) go out in one write.
      enableAutoPipelining: true,
      connectTimeout: this.options.connectTimeoutMs ?? 2000,
      // Reconnect for ever, at most every 2 s: calls succeed again once Redis is back.
      retryStrategy: (times) => Math.min(times * 100, 2000),
    }) as ScriptedRedis;
    client.defineCommand("recordFailure", { numberOfKeys: 3, lua: RECORD_FAILURE_SCRIPT });
    client.defineCommand("checkSecret", { numberOfKeys: 2, lua: CHECK_SECRET_SCRIPT });
    // The client retries on its own and reports every failed attempt: say it once per outage.
    let lastError = "";
    client.on("error", (error: Error) => (lastError = error.message));
    client.on("ready", () => this.setConnected(true));
    client.on("close", () => this.setConnected(false));
    let lost = false;
    this.onReachableChange((reachable) => {
      if (!this.client) return; // closed on purpose
      if (reachable && lost) onWarning(`the Redis store ${this.location} is reachable again`);
      if (!reachable) onWarning(`lost the Redis store ${this.location}; calls of a secret scheme answer UNAVAILABLE until it is back`);
      lost = !reachable;
    });
    this.client = client;
    this.startSubscriber(client);
    const ready = new Promise<boolean>((resolve) => client.once("ready", () => resolve(true)));
    const deadline = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.options.connectTimeoutMs ?? 2000).unref());
    if (!(await Promise.race([ready, deadline]))) {
      onWarning(`cannot reach the Redis store ${this.location} (${lastError || "no answer"}); calls of a secret scheme answer UNAVAILABLE until it is reachable`);
    }
  }

  private get prefix(): string {
    return this.options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  }

  /** Channel names are not prefixed by ioredis: the prefix is written into the name. */
  private get failureChannel(): string {
    return `${this.prefix}lockout-failures`;
  }

  /** Hears, from the failure that spends the global budget, how many ms it stays spent. */
  private get globalSpentChannel(): string {
    return `${this.prefix}lockout-all-spent`;
  }

  /**
   * The subscriber connection and the heartbeat. Each time the subscription (re)starts, the suspects
   * are rebuilt from the failure keys in Redis, after subscribing, so a failure recorded meanwhile is
   * either in the scan or in a message.
   */
  private startSubscriber(client: ScriptedRedis): void {
    // It subscribes itself on every "ready" (ioredis's own resubscription leaves its failures unhandled).
    const subscriber = client.duplicate({ keyPrefix: "", autoResubscribe: false });
    this.subscriber = subscriber;
    subscriber.on("error", () => {});
    subscriber.on("close", () => (this.suspectsComplete = false));
    subscriber.on("message", (channel: string, message: string) => {
      if (channel === this.globalSpentChannel) return this.globalSpent(Number(message));
      const split = message.lastIndexOf(" ");
      this.suspect(message.slice(0, split), Number(message.slice(split + 1)));
    });
    subscriber.on("ready", () => {
      this.suspectsComplete = false;
      subscriber
        .subscribe(this.failureChannel, this.globalSpentChannel)
        .then(() => this.seedSuspects(client))
        .then(
          () => (this.suspectsComplete = this.subscriber === subscriber && subscriber.status === "ready"),
          () => (this.suspectsComplete = false),
        );
    });
    const beat = () => {
      client.ping().then(
        () => (this.lastContact = Date.now()),
        () => {},
      );
    };
    this.heartbeat = setInterval(beat, HEARTBEAT_MS).unref();
    beat();
  }

  /**
   * Every address with failure keys in Redis becomes a suspect until its key expires, and a spent
   * global budget is known spent until its marker expires.
   */
  private async seedSuspects(client: ScriptedRedis): Promise<void> {
    const spentMs = await client.pttl(GLOBAL_SPENT_KEY);
    if (spentMs > 0) this.globalSpent(spentMs);
    const pattern = `${this.prefix}${LOCKOUT_KEYS}*`;
    let cursor = "0";
    do {
      // SCAN matches raw key names: ioredis does not prefix its pattern, nor strip the prefix of what it answers.
      const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      for (const key of keys) {
        const address = key.slice(pattern.length - 1);
        const ttl = await client.pttl(lockoutKey(address));
        if (ttl > 0) this.suspect(address, ttl);
      }
    } while (cursor !== "0");
    this.lastContact = Date.now();
  }

  /** `address` has a failure for the next `forMs`. */
  private suspect(address: string, forMs: number): void {
    const now = Date.now();
    const until = now + forMs;
    if (until > (this.suspects.get(address) ?? 0)) this.suspects.set(address, until);
    if (this.suspects.size <= MAX_SUSPECTS) return;
    for (const [known, knownUntil] of this.suspects) if (knownUntil <= now) this.suspects.delete(known);
    if (this.suspects.size <= MAX_SUSPECTS) return;
    for (const knownUntil of this.suspects.values()) if (knownUntil > this.overflowUntil) this.overflowUntil = knownUntil;
    this.suspects.clear();
  }

  /** The global budget is spent for the next `forMs`. */
  private globalSpent(forMs: number): void {
    if (forMs > 0) this.globalSpentUntil = Math.max(this.globalSpentUntil, Date.now() + forMs);
  }

  /** Whether the right secret from `address` is known locally to find no failure: see the top of this file. */
  private knownClean(address: string, global: LockoutPolicy | undefined): boolean {
    if (!this.suspectsComplete || !this.connected) return false;
    const now = Date.now();
    if (now - this.lastContact > FAST_PATH_CONTACT_MS || now < this.overflowUntil) return false;
    if (global && now < this.globalSpentUntil) return false;
    const until = this.suspects.get(address);
    if (until === undefined) return true;
    if (until > now) return false;
    this.suspects.delete(address);
    return true;
  }

  private setConnected(connected: boolean): void {
    if (connected === this.connected) return;
    this.connected = connected;
    for (const listener of this.listeners) listener(connected);
  }

  private get redis(): ScriptedRedis {
    // Not started (server.listen() starts it) or closed: nothing to ask.
    if (!this.client) throw storeUnavailable();
    return this.client;
  }

  /** Runs one command; any failure of Redis (away, timed out) is UNAVAILABLE to the caller. */
  private async run<T>(command: (redis: ScriptedRedis) => Promise<T>): Promise<T> {
    try {
      return await command(this.redis);
    } catch {
      throw storeUnavailable();
    }
  }

  secretAttempt(address: string, ok: boolean, policy: LockoutPolicy, nowMs: number, global?: LockoutPolicy): SecretAttempt | Promise<SecretAttempt> {
    if (ok && this.knownClean(address, global)) return { locked: false, failures: 0, retryAfterMs: 0 };
    return this.decideInRedis(address, ok, policy, nowMs, global).then((attempt) => {
      if (attempt.everyone) this.globalSpent(attempt.retryAfterMs);
      return attempt;
    });
  }

  private async decideInRedis(address: string, ok: boolean, policy: LockoutPolicy, nowMs: number, global: LockoutPolicy | undefined): Promise<SecretAttempt> {
    const key = lockoutKey(address);
    if (ok && global) {
      // The right secret records nothing: one read of both windows decides it.
      const answer = await this.run((redis) =>
        redis.checkSecret(key, GLOBAL_FAILURES_KEY, nowMs, `(${nowMs - policy.windowMs}`, policy.windowMs, policy.maxFailures, `(${nowMs - global.windowMs}`, global.windowMs, global.maxFailures),
      );
      return attemptOf(answer);
    }
    if (ok) {
      // The right secret records nothing, so one read decides it (a single command is atomic too):
      // the success path costs one ZCOUNT, the oldest failure is read only when locked.
      const since = `(${nowMs - policy.windowMs}`;
      const failures = await this.run((redis) => redis.zcount(key, since, "+inf"));
      if (failures < policy.maxFailures) return { locked: false, failures, retryAfterMs: 0 };
      const [, oldest] = await this.run((redis) => redis.zrangebyscore(key, since, "+inf", "WITHSCORES", "LIMIT", 0, 1));
      return { locked: true, failures, retryAfterMs: oldest === undefined ? 0 : Number(oldest) + policy.windowMs - nowMs };
    }
    const member = `${nowMs}:${process.pid}:${++this.sequence}`;
    // Suspect here at once; the other replicas hear it from the script's PUBLISH.
    this.suspect(address, policy.windowMs);
    const answer = await this.run((redis) =>
      redis.recordFailure(
        key,
        GLOBAL_FAILURES_KEY,
        GLOBAL_SPENT_KEY,
        nowMs,
        policy.windowMs,
        policy.maxFailures,
        member,
        this.failureChannel,
        `${address} ${policy.windowMs}`,
        global?.windowMs ?? 0,
        global?.maxFailures ?? 0,
        this.globalSpentChannel,
      ),
    );
    return attemptOf(answer);
  }

  async openSession(key: string, session: StoredSession, nowMs: number): Promise<void> {
    const ttl = session.expiresAt * 1000 - nowMs;
    if (ttl <= 0) return;
    await this.run((redis) => redis.set(`session:${key}`, JSON.stringify({ createdAt: session.createdAt, expiresAt: session.expiresAt }), "PX", ttl));
  }

  async sessionOf(key: string, nowMs: number): Promise<StoredSession | undefined> {
    const text = await this.run((redis) => redis.get(`session:${key}`));
    if (text === null) return undefined;
    const session = JSON.parse(text) as StoredSession;
    // Redis expires it on its own clock; the service's clock has the last word.
    return session.expiresAt * 1000 <= nowMs ? undefined : session;
  }

  async closeSession(key: string): Promise<void> {
    await this.run((redis) => redis.del(`session:${key}`));
  }

  rateLimiter(module: RateLimiterModule, settings: LimiterSettings): RateLimiterAbstract {
    return new module.RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: settings.keyPrefix,
      points: settings.points,
      duration: settings.durationSeconds,
      rejectIfRedisNotReady: true,
      ...(settings.insurance ? { insuranceLimiter: settings.insurance } : {}),
    });
  }

  async ping(): Promise<void> {
    await this.run((redis) => redis.ping());
  }

  reachable(): boolean {
    return this.connected;
  }

  onReachableChange(listener: (reachable: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    clearInterval(this.heartbeat);
    this.suspectsComplete = false;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    client.disconnect();
    this.setConnected(false);
  }
}

/**
 * The Redis store, for `createServer(implementation, { store: redisStore(url) })`: replicas on
 * one Redis share lockout counts, sessions and rate limits. Needs the `ioredis` package.
 */
export function redisStore(options: string | RedisStoreOptions): RedisStore {
  return new RedisStore(typeof options === "string" ? { url: options } : options);
}
