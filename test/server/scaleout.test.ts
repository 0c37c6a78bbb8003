// Two replicas of the reference service (`npm run serve -- --redis-url ...`, each its own process)
// on one real redis-server behave as one service: lockout counts and admin sessions are shared, an
// outage of Redis makes admin calls fail closed, and they recover on their own when Redis is back.
// The replicas trust the loopback proxy on both ports, so each test speaks from its own address
// through X-Forwarded-For.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { codeOf } from "../helpers/raw-calls.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startReplica, type Replica } from "../helpers/replica.js";

const SECRET = "replicated-secret";
const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
type Protocol = (typeof PROTOCOLS)[number];

let redis: RedisServer;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  redis = await startRedis();
  const args = ["--admin-secret", SECRET, "--redis-url", redis.url, "--trust-proxy", "loopback", "--grpc-trust-proxy", "loopback"];
  [a, b] = await Promise.all([startReplica(args), startReplica(args)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

let nextAddress = 1;
/** A caller address of its own for each test (the replicas trust the loopback proxy). */
const newAddress = () => `203.0.113.${nextAddress++}`;

function client(replica: Replica, protocol: Protocol, address: string, adminSecret = SECRET): AdminClient {
  return new AdminClient({
    serviceUrl: replica.httpUrl,
    grpcEndpoint: replica.grpcEndpoint,
    adminSecret,
    protocol,
    serverVersion: schema.version,
    retry: false,
    extraHeaders: { "x-forwarded-for": address },
  });
}

async function restCall(replica: Replica, operation: string, body: object, headers: Record<string, string>) {
  const response = await fetch(`${replica.httpUrl}/v1/admin/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe("two replicas on one Redis", () => {
  it.each(PROTOCOLS)("over %s, wrong secrets spread over both replicas lock the address out on both", async (protocol) => {
    const address = newAddress();
    const wrongA = client(a, protocol, address, "guess");
    const wrongB = client(b, protocol, address, "guess");
    // 10 failures in 15 minutes lock an address: 5 on each replica.
    for (let i = 0; i < 5; i++) {
      expect(await codeOf(() => wrongA.adminMeta())).toBe("UNAUTHENTICATED");
      expect(await codeOf(() => wrongB.adminMeta())).toBe("UNAUTHENTICATED");
    }
    const rightA = client(a, protocol, address);
    const rightB = client(b, protocol, address);
    expect(await codeOf(() => rightA.adminMeta())).toBe("TOO_MANY_REQUESTS");
    expect(await codeOf(() => rightB.adminMeta())).toBe("TOO_MANY_REQUESTS");
    expect(await codeOf(() => wrongB.adminMeta())).toBe("TOO_MANY_REQUESTS");
    // Another caller behind the same proxy is not affected.
    expect(await codeOf(() => client(b, protocol, newAddress()).adminMeta())).toBe("OK");
    await Promise.all([wrongA, wrongB, rightA, rightB].map((c) => c.close()));
  });

  it("answers a locked-out caller 429 with Retry-After over REST, and the count lives in Redis under the prefix with a TTL", async () => {
    const address = newAddress();
    for (let i = 0; i < 10; i++) {
      const replica = i % 2 === 0 ? a : b;
      expect((await restCall(replica, "admin_meta", {}, { "x-service-admin-secret": "guess", "x-forwarded-for": address })).status).toBe(401);
    }
    const locked = await restCall(a, "admin_meta", {}, { "x-service-admin-secret": SECRET, "x-forwarded-for": address });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(Number(locked.headers.get("retry-after"))).toBeLessThanOrEqual(900);
    const inspector = new Redis(redis.url);
    try {
      expect(await inspector.zcard(`stubs:lockout:${address}`)).toBe(10);
      const ttl = await inspector.pttl(`stubs:lockout:${address}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    } finally {
      inspector.disconnect();
    }
  });

  it("lets no more than 10 wrong secrets be judged when they race on both replicas at once", async () => {
    const address = newAddress();
    const guesses = Array.from({ length: 30 }, (_, i) => restCall(i % 2 === 0 ? a : b, "admin_meta", {}, { "x-service-admin-secret": `guess-${i}`, "x-forwarded-for": address }));
    const statuses = (await Promise.all(guesses)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it("keeps an admin session opened on replica A valid on B, and admin_logout on B ends it on A", async () => {
    const address = newAddress();
    const login = await restCall(a, "admin_login", { admin_secret: SECRET }, { "x-forwarded-for": address });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const sessionId = cookie.slice(cookie.indexOf("=") + 1);
    // Only the SHA-256 of the id is stored, with the session's lifetime as its TTL.
    const inspector = new Redis(redis.url);
    try {
      const keys = await inspector.keys("stubs:session:*");
      expect(keys.some((key) => key.includes(sessionId))).toBe(false);
      const { createHash } = await import("node:crypto");
      const key = `stubs:session:${createHash("sha256").update(sessionId).digest("hex")}`;
      expect(keys).toContain(key);
      expect(await inspector.pttl(key)).toBeGreaterThan(24 * 3600_000 - 60_000);
    } finally {
      inspector.disconnect();
    }

    // The cookie stands in for the secret on B, over every protocol.
    const bySession = { headers: { cookie, "x-service-admin-secret": "" } };
    for (const protocol of PROTOCOLS) {
      const onB = client(b, protocol, address, "unused");
      expect([protocol, await codeOf(() => onB.adminMeta({}, bySession))]).toEqual([protocol, "OK"]);
      await onB.close();
    }
    const session = await restCall(b, "admin_session", {}, { cookie, "x-forwarded-for": address });
    expect(session.body.expires_at).toBe(login.body.expires_at);

    expect((await restCall(b, "admin_logout", {}, { cookie, "x-forwarded-for": address })).status).toBe(200);
    expect((await restCall(a, "admin_session", {}, { cookie, "x-forwarded-for": address })).status).toBe(401);
    for (const protocol of PROTOCOLS) {
      const onA = client(a, protocol, address, "unused");
      expect([protocol, await codeOf(() => onA.adminMeta({}, bySession))]).toEqual([protocol, "UNAUTHENTICATED"]);
      await onA.close();
    }
  });

  it("fails admin calls closed with UNAVAILABLE while Redis is down, on every protocol, and recovers when it is back", async () => {
    const address = newAddress();
    const login = await restCall(a, "admin_login", { admin_secret: SECRET }, { "x-forwarded-for": address });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    await redis.stop();
    try {
      // Down as each replica knows it: its /readyz says so once its connection to Redis has dropped.
      for (const replica of [a, b]) {
        const deadline = Date.now() + 5_000;
        while ((await fetch(`${replica.httpUrl}/readyz`)).status !== 503 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const replica of [a, b]) {
        for (const protocol of PROTOCOLS) {
          const admin = client(replica, protocol, address);
          expect([protocol, await codeOf(() => admin.adminMeta())]).toEqual([protocol, "UNAVAILABLE"]);
          // A wrong secret is not judged either: nothing could be recorded.
          expect([protocol, await codeOf(() => client(replica, protocol, address, "guess").adminMeta())]).toEqual([protocol, "UNAVAILABLE"]);
          await admin.close();
        }
        const bySession = await restCall(replica, "admin_session", {}, { cookie, "x-forwarded-for": address });
        expect([bySession.status, bySession.headers.get("retry-after"), bySession.body.code]).toEqual([503, "1", "UNAVAILABLE"]);
        // admin_login cannot open a session it could not record.
        expect((await restCall(replica, "admin_login", { admin_secret: SECRET }, { "x-forwarded-for": address })).status).toBe(503);
      }
      // Calls that need no shared state go on.
      const meta = await fetch(`${a.httpUrl}/v1/meta`);
      expect(meta.status).toBe(200);
    } finally {
      await redis.start();
    }
    // The replicas reconnect on their own (at most 2 s apart).
    for (const replica of [a, b]) {
      for (const protocol of PROTOCOLS) {
        const admin = client(replica, protocol, address);
        const deadline = Date.now() + 10_000;
        let result = await codeOf(() => admin.adminMeta());
        while (result === "UNAVAILABLE" && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          result = await codeOf(() => admin.adminMeta());
        }
        expect([protocol, result]).toEqual([protocol, "OK"]);
        await admin.close();
      }
    }
    expect(a.lines.some((line) => line.includes("is reachable again"))).toBe(true);
    expect(a.lines.some((line) => line.includes("warning: lost the Redis store") && line.includes("UNAVAILABLE until it is back"))).toBe(true);
  });
});
