// The admin secret's budget of failures across all addresses (option globalLockout): an attacker
// with many addresses, each under the lockout per address, is stopped once the failures of all of
// them reach the budget, and then even the right secret is refused until the window passes (else
// each guess would still be told right or wrong). In one process, then two replicas on one Redis;
// and the server's refusal to start with an admin secret under 12 characters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../../generated/server/index.js";
import { SecretError, MIN_SECRET_LENGTH, redisStore } from "../../runtime/server/index.js";
import { RedisStore } from "../../runtime/server/store-redis.js";
import { PROTOCOLS, rawAdminMeta } from "../helpers/raw-calls.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { sleep, until } from "../helpers/wait.js";

const SECRET = "global-budget-admin-secret";

let nextAddress = 1;
/** A caller address no test has used (the servers trust the loopback proxy). */
const newAddress = () => `198.51.100.${nextAddress++}`;
const from = (address: string, secret: string) => ({ "x-service-admin-secret": secret, "x-forwarded-for": address });

describe("the global budget of wrong admin secrets, in one process", () => {
  let now = 5_000_000;
  const warnings: string[] = [];
  let service: RecordingService;
  beforeAll(async () => {
    service = await startRecordingService(SECRET, {
      trustProxy: ["loopback"],
      grpcTrustProxy: ["loopback"],
      // The lockout per address never trips here: each guess comes from an address of its own.
      lockout: { maxFailures: 10, windowMs: 60_000 },
      globalLockout: { maxFailures: 5, windowMs: 2_000 },
      now: () => now,
      onWarning: (message) => warnings.push(message),
    });
  });
  afterAll(() => service?.close());

  it("stops guesses spread over many addresses, refuses the right secret on every protocol with Retry-After, and lets it in after the window", async () => {
    const rest = rawAdminMeta(service, "rest");
    for (let i = 0; i < 5; i++) expect((await rest(from(newAddress(), `guess-${i}`))).code).toBe("UNAUTHENTICATED");
    now += 500;
    for (const protocol of PROTOCOLS) {
      // A fresh address with the right secret: refused all the same, with the seconds until the oldest failure leaves the window.
      expect(await rawAdminMeta(service, protocol)(from(newAddress(), SECRET)), protocol).toEqual({ code: "TOO_MANY_REQUESTS", retryAfter: 2 });
      // A wrong secret hears the same: nothing tells the two apart while the budget is spent.
      expect(await rawAdminMeta(service, protocol)(from(newAddress(), "guess-more")), protocol).toEqual({ code: "TOO_MANY_REQUESTS", retryAfter: 2 });
    }
    const refusal = await fetch(`${service.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", ...from(newAddress(), SECRET) }, body: "{}" });
    expect(refusal.status).toBe(429);
    expect(refusal.headers.get("retry-after")).toBe("2");
    expect(((await refusal.json()) as { message: string }).message).toBe("too many wrong admin secrets from all addresses; every admin secret check is refused for 2 s");
    // The operator hears of it once, not once per refused call.
    expect(warnings.filter((w) => w.includes("globalLockout"))).toEqual(["too many wrong admin secrets from all addresses (globalLockout): every admin secret check is refused for 2 s"]);
    // Refused attempts were not counted: the window ends 2 s after the first guess.
    now += 1_501;
    for (const protocol of PROTOCOLS) expect((await rawAdminMeta(service, protocol)(from(newAddress(), SECRET))).code, protocol).toBe("OK");
  });
});

describe("the global budget on two replicas sharing Redis", () => {
  const budget = { maxFailures: 4, windowMs: 3_000 };
  const policy = { maxFailures: 10, windowMs: 60_000 };
  let redis: RedisServer;
  let a: RecordingService;
  let b: RecordingService;
  beforeAll(async () => {
    redis = await startRedis();
    const options = { trustProxy: ["loopback"], lockout: policy, globalLockout: budget };
    [a, b] = await Promise.all([
      startRecordingService(SECRET, { ...options, store: redisStore({ url: redis.url, keyPrefix: "global-budget:" }), onWarning: () => {} }),
      startRecordingService(SECRET, { ...options, store: redisStore({ url: redis.url, keyPrefix: "global-budget:" }), onWarning: () => {} }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  it("counts the failures of both together, refuses the right secret on both (the local answer too), and recovers after the window", async () => {
    const restA = rawAdminMeta(a, "rest");
    const restB = rawAdminMeta(b, "rest");
    // B answers the right secret from a clean address without asking Redis once it is subscribed.
    await until(async () => (await restB(from(newAddress(), SECRET))).code === "OK");
    for (let i = 0; i < 4; i++) expect((await (i % 2 === 0 ? restA : restB)(from(newAddress(), `guess-${i}`))).code).toBe("UNAUTHENTICATED");
    expect((await restA(from(newAddress(), SECRET))).code).toBe("TOO_MANY_REQUESTS");
    // B hears of the spent budget by pub/sub (or finds it in Redis) and stops answering locally.
    await until(async () => (await restB(from(newAddress(), SECRET))).code === "TOO_MANY_REQUESTS", 1_000);
    const refused = await restB(from(newAddress(), SECRET));
    expect(refused.code).toBe("TOO_MANY_REQUESTS");
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter).toBeLessThanOrEqual(3);
    await sleep(budget.windowMs + 100);
    expect((await restA(from(newAddress(), SECRET))).code).toBe("OK");
    expect((await restB(from(newAddress(), SECRET))).code).toBe("OK");
  });

  it("a replica that subscribes while the budget is spent finds it spent in Redis", async () => {
    for (let i = 0; i < 4; i++) await rawAdminMeta(a, "rest")(from(newAddress(), `guess-late-${i}`));
    const late = new RedisStore({ url: redis.url, keyPrefix: "global-budget:" });
    await late.start(() => {});
    try {
      await until(() => (late as unknown as { suspectsComplete: boolean }).suspectsComplete);
      // Subscribed and seeded, yet the right secret from a clean address goes to Redis, which refuses it.
      const answer = late.secretAttempt(newAddress(), true, policy, Date.now(), budget);
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toMatchObject({ locked: true, everyone: true });
    } finally {
      await late.close();
    }
  });
});

describe("the admin secret at start", () => {
  it(`is refused under ${MIN_SECRET_LENGTH} characters, with a message naming the minimum and no stack`, () => {
    let error: unknown;
    try {
      createServer({} as never, { adminSecret: "elevenchars", partial: true, onWarning: () => {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SecretError);
    expect((error as Error).message).toBe("the admin secret must be at least 12 characters long; this one has 11");
    expect((error as Error).stack).toBe("SecretError: the admin secret must be at least 12 characters long; this one has 11");
    // Characters, not bytes or UTF-16 units: 11 astral characters are still too few.
    expect(() => createServer({} as never, { adminSecret: "😀".repeat(11), partial: true, onWarning: () => {} })).toThrow("this one has 11");
    expect(() => createServer({} as never, { adminSecret: "", partial: true, onWarning: () => {} })).toThrow("an admin secret is required");
    expect(() => createServer({} as never, { adminSecret: "twelve-chars", partial: true, onWarning: () => {} })).not.toThrow();
  });

  it("refuses a budget it cannot count with", () => {
    expect(() => createServer({} as never, { adminSecret: SECRET, partial: true, onWarning: () => {}, globalLockout: { maxFailures: 0, windowMs: 60_000 } })).toThrow(
      "globalLockout: maxFailures and windowMs must be whole numbers >= 1, not 0 and 60000",
    );
  });
});
