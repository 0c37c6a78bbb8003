// Rate limits per caller address and operation class (option rateLimit), on every protocol: 429 with
// the retry hint each protocol carries, classes counted apart, two replicas on one Redis counting
// together, and the fail-open / fail-closed choice while Redis is down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../../generated/server/index.js";
import type { ServerOptions } from "../../runtime/server/index.js";
import { PROTOCOLS, rawAdminMeta, rawRead, type WireAnswer } from "../helpers/raw-calls.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

const SECRET = "s3cret-admin-key";
const servers: RecordingService[] = [];
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop();
});

async function server(options: Partial<ServerOptions>): Promise<RecordingService> {
  const started = await startRecordingService(SECRET, { trustProxy: ["loopback"], grpcTrustProxy: ["loopback"], ...options });
  servers.push(started);
  return started;
}

/**
 * Calls until the first refusal (at most `limit` calls): the calls that went through before it, and
 * the refusal. A one-second window may roll over while the calls run and allow a few more, so tests
 * bound the count rather than pin it.
 */
async function untilRefused(call: () => Promise<WireAnswer>, limit = 30): Promise<{ passed: number; refusal: WireAnswer | undefined }> {
  for (let passed = 0; passed < limit; passed++) {
    const answer = await call();
    if (answer.code !== "OK") return { passed, refusal: answer };
  }
  return { passed: limit, refusal: undefined };
}

let nextAddress = 1;
const newAddress = () => `198.51.100.${nextAddress++}`;
const as = (address: string, secret = SECRET) => ({ "x-service-admin-secret": secret, "x-forwarded-for": address });

describe("rate limits in one process", () => {
  let limited: RecordingService;
  beforeAll(async () => {
    limited = await server({ rateLimit: { read: { perSecond: 3, burst: 2 }, write: false } });
  });

  it.each(PROTOCOLS)("over %s, refuse the calls of an address past its allowance with TOO_MANY_REQUESTS and a retry hint", async (protocol) => {
    const call = rawAdminMeta(limited, protocol);
    const address = newAddress();
    // 3 a second, then 2 more from the burst allowance (a second more gives 3 more).
    const { passed, refusal } = await untilRefused(() => call(as(address)));
    expect(passed).toBeGreaterThanOrEqual(5);
    expect(passed).toBeLessThan(9);
    expect(refusal!.code).toBe("TOO_MANY_REQUESTS");
    expect(refusal!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refusal!.retryAfter).toBeLessThanOrEqual(10);
    expect((await call(as(address))).code).toBe("TOO_MANY_REQUESTS");
    // Another address is not affected.
    expect((await call(as(newAddress()))).code).toBe("OK");
  });

  it("counts operation classes apart: an address out of reads may still write", async () => {
    const address = newAddress();
    const call = rawAdminMeta(limited, "rest");
    expect((await untilRefused(() => call(as(address)))).refusal?.code).toBe("TOO_MANY_REQUESTS");
    const write = await fetch(`${limited.httpUrl}/v1/admin/delete_org_domain`, {
      method: "POST",
      headers: { "content-type": "application/json", ...as(address) },
      body: JSON.stringify({ domain: "example.com" }),
    });
    expect(write.status).toBe(200);
  });

  it("limits the token routes as their own class, answering RFC 6749 errors with Retry-After", async () => {
    const tokens = await server({ rateLimit: { token: { perSecond: 1, burst: 0 }, read: false, write: false } });
    const address = newAddress();
    const post = () =>
      fetch(`${tokens.httpUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
        body: "grant_type=client_credentials&client_id=a&client_secret=b",
      });
    expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: "invalid_request" });
    // Reads are unlimited on this server.
    for (let i = 0; i < 10; i++) expect((await rawAdminMeta(tokens, "rest")(as(address))).code).toBe("OK");
  });

  it("refuses settings it cannot follow before serving", async () => {
    await expect(startRecordingService(SECRET, { rateLimit: { read: { perSecond: 0, burst: 1 } } })).rejects.toThrow("rateLimit.read.perSecond must be a whole number >= 1, not 0");
    await expect(startRecordingService(SECRET, { rateLimit: { whenStoreDown: "maybe" as never } })).rejects.toThrow('rateLimit.whenStoreDown must be "open" or "closed"');
  });
});

describe("rate limits on Redis", () => {
  it.each(PROTOCOLS)("over %s, two replicas on one Redis limit a caller together", async (protocol) => {
    // 1 a second plus a burst of 4 over 10 s: 5 calls together; each replica alone would allow 10.
    const rateLimit = { read: { perSecond: 1, burst: 4 } };
    const [a, b] = [await server({ rateLimit, store: redisStore(redis.url) }), await server({ rateLimit, store: redisStore(redis.url) })];
    const address = newAddress();
    const callA = rawAdminMeta(a, protocol);
    const callB = rawAdminMeta(b, protocol);
    let turn = 0;
    const { passed, refusal } = await untilRefused(() => (turn++ % 2 === 0 ? callA : callB)(as(address)));
    expect(passed).toBeGreaterThanOrEqual(5);
    expect(passed).toBeLessThan(8);
    expect(refusal!.code).toBe("TOO_MANY_REQUESTS");
    // Refused on both.
    expect((await callA(as(address))).code).toBe("TOO_MANY_REQUESTS");
    expect((await callB(as(address))).code).toBe("TOO_MANY_REQUESTS");
  });

  it.each(PROTOCOLS)("over %s, while Redis is down: fail-open limits each replica on its own, fail-closed answers UNAVAILABLE", async (protocol) => {
    const rule = { perSecond: 2, burst: 0 };
    const open = await server({ rateLimit: { read: rule, whenStoreDown: "open" }, store: redisStore(redis.url) });
    const closed = await server({ rateLimit: { read: rule, whenStoreDown: "closed" }, store: redisStore(redis.url) });
    // meta is public: it needs the store only for its rate limit.
    const meta = (target: RecordingService) => rawRead(target, protocol, "meta");
    expect((await meta(closed)({ "x-forwarded-for": newAddress() })).code).toBe("OK");
    await redis.stop();
    try {
      const address = newAddress();
      // Each replica counts on its own in memory: 2 a second, then refused.
      const { passed, refusal } = await untilRefused(() => meta(open)({ "x-forwarded-for": address }));
      expect(passed).toBeGreaterThanOrEqual(2);
      expect(passed).toBeLessThan(5);
      expect(refusal!.code).toBe("TOO_MANY_REQUESTS");
      const refused = await meta(closed)({ "x-forwarded-for": address });
      expect(refused.code).toBe("UNAVAILABLE");
      expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    } finally {
      await redis.start();
    }
  });
});
