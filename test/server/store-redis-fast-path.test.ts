// The Redis store decides the right admin secret from an address no replica has seen fail without
// a round trip, and never lets a locked address through: every failure is published to every
// replica, each replica rebuilds its suspects from Redis whenever its subscription restarts, and the
// local answer stops when Redis stops answering. Two stores on one real redis-server stand for two
// replicas.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_PATH_CONTACT_MS, RedisStore } from "../../runtime/server/store-redis.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { sleep, until } from "../helpers/wait.js";

const policy = { maxFailures: 3, windowMs: 60_000 };
let redis: RedisServer;
let admin: Redis;
let a: RedisStore;
let b: RedisStore;
const warnings: string[] = [];

/** Commands redis-server has processed so far (INFO stats), not counting this one. */
async function commandsProcessed(): Promise<number> {
  const info = await admin.info("stats");
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]) - 1;
}

/** Whether the store answers the right secret from `address` without a promise (locally). */
function answersLocally(store: RedisStore, address: string): boolean {
  const answer = store.secretAttempt(address, true, policy, Date.now());
  if (!(answer instanceof Promise)) return true;
  answer.catch(() => {}); // only whether it was local matters here
  return false;
}

async function newStore(): Promise<RedisStore> {
  const store = new RedisStore({ url: redis.url, keyPrefix: "fast-path-test:" });
  await store.start((message) => warnings.push(message));
  await until(() => answersLocally(store, "198.51.100.250"));
  return store;
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  [a, b] = await Promise.all([newStore(), newStore()]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  admin?.disconnect();
  await redis?.stop();
});

describe("the Redis store's local answer", () => {
  it("decides 1,000 right secrets from clean addresses without a command to Redis", async () => {
    const before = await commandsProcessed();
    for (let i = 0; i < 1_000; i++) expect(b.secretAttempt(`198.51.100.${i % 200}`, true, policy, Date.now())).toEqual({ locked: false, failures: 0, retryAfterMs: 0 });
    // Only the heartbeats of the two stores may have run meanwhile.
    expect((await commandsProcessed()) - before).toBeLessThanOrEqual(4);
  });

  it("refuses on the other replica an address locked on this one, from the first failure on", async () => {
    const address = "203.0.113.10";
    expect(await a.secretAttempt(address, false, policy, Date.now())).toMatchObject({ locked: false, failures: 1 });
    // The failure reaches b by pub/sub: from then on b asks Redis about this address.
    await until(() => !answersLocally(b, address), 1_000);
    expect(await b.secretAttempt(address, true, policy, Date.now())).toEqual({ locked: false, failures: 1, retryAfterMs: 0 });
    await a.secretAttempt(address, false, policy, Date.now());
    await a.secretAttempt(address, false, policy, Date.now());
    expect(await b.secretAttempt(address, true, policy, Date.now())).toMatchObject({ locked: true, failures: 3 });
  });

  it("misses no failure recorded while its subscription was down: it rebuilds its suspects from Redis", async () => {
    const address = "203.0.113.20";
    // Cut b's subscriber connection only (its command connection stays), then fail from a at once.
    await admin.call("CLIENT", "KILL", "TYPE", "pubsub");
    for (let i = 0; i < 3; i++) await a.secretAttempt(address, false, policy, Date.now());
    // While b resubscribes it asks Redis; once back, the rebuilt suspects hold the address.
    await until(() => answersLocally(b, "198.51.100.251"));
    expect(answersLocally(b, address)).toBe(false);
    expect(await b.secretAttempt(address, true, policy, Date.now())).toMatchObject({ locked: true });
  });

  it(`fails closed when Redis stops answering: after at most ${FAST_PATH_CONTACT_MS} ms the right secret goes to Redis and is refused`, async () => {
    const address = "198.51.100.77";
    expect(answersLocally(b, address)).toBe(true);
    // Paused long enough for the contact bound to pass and then for a command to time out (1 s),
    // with seconds to spare for a loaded machine (a cold 2-core run woke the sleep below late).
    const pausedUntil = Date.now() + FAST_PATH_CONTACT_MS + 6000;
    await admin.call("CLIENT", "PAUSE", String(FAST_PATH_CONTACT_MS + 6000), "ALL");
    try {
      await sleep(FAST_PATH_CONTACT_MS + 600);
      const answer = b.secretAttempt(address, true, policy, Date.now());
      expect(answer).toBeInstanceOf(Promise);
      await expect(answer).rejects.toMatchObject({ code: "UNAVAILABLE" });
    } finally {
      await sleep(Math.max(0, pausedUntil - Date.now()) + 500);
    }
    await until(() => answersLocally(b, address));
  });

  it("turns the local answer off, rather than grow, when more addresses fail than it remembers", async () => {
    const store = new RedisStore({ url: redis.url, keyPrefix: "fast-path-overflow:" });
    await store.start(() => {});
    try {
      await until(() => answersLocally(store, "198.51.100.1"));
      const suspects = (store as unknown as { suspects: Map<string, number> }).suspects;
      // Fill the table as a spread-out attack would (without 100,000 round trips), then one failure more.
      for (let i = 0; i < 100_000; i++) suspects.set(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, Date.now() + 60_000);
      await store.secretAttempt("203.0.113.99", false, policy, Date.now());
      expect(suspects.size).toBe(0);
      expect(answersLocally(store, "198.51.100.1")).toBe(false);
    } finally {
      await store.close();
    }
  });
});
