// The Redis store: the stubs' state shared by every replica that points at the same Redis. Built on
// ioredis (an optional peer, loaded when the store starts). Each operation is one atomic round trip
// (a Lua script, or one command), expiry is Redis's own (PEXPIRE, SET PX), keys sit under one
// prefix, and session ids are stored only as their SHA-256. Commands are never queued while Redis
// is away: they fail at once, so admin calls fail closed (UNAVAILABLE) and succeed again as soon as
// the client has reconnected on its own.
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

/**
 * One wrong admin secret against a sorted set of failure times (score: the time): recorded unless
 * the address is locked out already, in one atomic step. KEYS[1] failures; ARGV now, windowMs,
 * maxFailures, a unique member. Answers {locked (1/0), failures, retryAfterMs}.
 */
const RECORD_FAILURE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local function retry_after()
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if oldest[2] then return tonumber(oldest[2]) + window - now end
  return 0
end
if count >= max then return {1, count, retry_after()} end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
count = count + 1
if count >= max then return {0, count, retry_after()} end
return {0, count, 0}
`;

type ScriptedRedis = Redis & {
  recordFailure(key: string, now: number, windowMs: number, maxFailures: number, member: string): Promise<[number, number, number]>;
};

export class RedisStore implements Store {
  readonly kind = "redis";
  private client: ScriptedRedis | undefined;
  private connected = false;
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
    client.defineCommand("recordFailure", { numberOfKeys: 1, lua: RECORD_FAILURE_SCRIPT });
    // The client retries on its own and reports every failed attempt: say it once per outage.
    let lastError = "";
    client.on("error", (error: Error) => (lastError = error.message));
    client.on("ready", () => this.setConnected(true));
    client.on("close", () => this.setConnected(false));
    let lost = false;
    this.onReachableChange((reachable) => {
      if (!this.client) return; // closed on purpose
      if (reachable && lost) onWarning(`the Redis store ${this.location} is reachable again`);
      if (!reachable) onWarning(`lost the Redis store ${this.location}; admin calls answer UNAVAILABLE until it is back`);
      lost = !reachable;
    });
    this.client = client;
    const ready = new Promise<boolean>((resolve) => client.once("ready", () => resolve(true)));
    const deadline = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.options.connectTimeoutMs ?? 2000).unref());
    if (!(await Promise.race([ready, deadline]))) {
      onWarning(`cannot reach the Redis store ${this.location} (${lastError || "no answer"}); admin calls answer UNAVAILABLE until it is reachable`);
    }
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

  async secretAttempt(address: string, ok: boolean, policy: LockoutPolicy, nowMs: number): Promise<SecretAttempt> {
    const key = `lockout:${address}`;
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
    const [locked, failures, retryAfterMs] = await this.run((redis) => redis.recordFailure(key, nowMs, policy.windowMs, policy.maxFailures, member));
    return { locked: locked === 1, failures, retryAfterMs };
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
    client.disconnect();
    this.setConnected(false);
  }
}

/**
 * The Redis store, for `createServer(implementation, { store: redisStore(url) })`: replicas on
 * one Redis share lockout counts, admin sessions and rate limits. Needs the `ioredis` package.
 */
export function redisStore(options: string | RedisStoreOptions): RedisStore {
  return new RedisStore(typeof options === "string" ? { url: options } : options);
}
