// Rate limits per caller address and operation class (option rateLimit), on every protocol: 429 with
// the retry hint each protocol carries, classes counted apart, two replicas on one Redis counting
// together, and the fail-open / fail-closed choice while Redis is down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../../generated/server/index.js";
import type { ServerOptions } from "../../runtime/server/index.js";
import { PROTOCOLS, rawAdminMeta } from "../helpers/raw-calls.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

const SECRET = "s3cret";
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
  const started = await startRecordingService(SECRET, { trustProxy: ["loopback"], ...options });
  servers.push(started);
  return started;
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
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call(as(address)));
    // 3 a second, then 2 more from the burst allowance.
    expect(answers.slice(0, 5).map((a) => a.code)).toEqual(["OK", "OK", "OK", "OK", "OK"]);
    expect(answers[5]!.code).toBe("TOO_MANY_REQUESTS");
    expect(answers[5]!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(answers[5]!.retryAfter).toBeLessThanOrEqual(10);
    // Another address is not affected.
    expect((await call(as(newAddress()))).code).toBe("OK");
  });

  it("counts operation classes apart: an address out of reads may still write", async () => {
    const address = newAddress();
    const call = rawAdminMeta(limited, "rest");
    for (let i = 0; i < 5; i++) await call(as(address));
    expect((await call(as(address))).code).toBe("TOO_MANY_REQUESTS");
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
    const options = { rateLimit: { read: { perSecond: 4, burst: 0 } }, store: redisStore(redis.url) };
    const [a, b] = [await server(options), await server({ ...options, store: redisStore(redis.url) })];
    const address = newAddress();
    const callA = rawAdminMeta(a, protocol);
    const callB = rawAdminMeta(b, protocol);
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await (i % 2 === 0 ? callA : callB)(as(address))).code);
    expect(codes).toEqual(["OK", "OK", "OK", "OK", "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
  });

  it("while Redis is down: fail-open limits each replica on its own, fail-closed answers UNAVAILABLE", async () => {
    const rule = { perSecond: 2, burst: 0 };
    const open = await server({ rateLimit: { read: rule, whenStoreDown: "open" }, store: redisStore(redis.url) });
    const closed = await server({ rateLimit: { read: rule, whenStoreDown: "closed" }, store: redisStore(redis.url) });
    // meta is public: it needs the store only for its rate limit.
    const meta = (target: RecordingService, address: string) => fetch(`${target.httpUrl}/v1/meta`, { headers: { "x-forwarded-for": address } });
    expect((await meta(closed, newAddress())).status).toBe(200);
    await redis.stop();
    try {
      const address = newAddress();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await meta(open, address)).status);
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await meta(closed, address);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ code: "UNAVAILABLE" });
    } finally {
      await redis.start();
    }
  });
});
