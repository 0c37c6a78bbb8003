// Health and shutdown: /healthz and /readyz, the health state the gRPC side reads, and
// close({ graceMs }) with calls in flight over every protocol; then the reference service under load
// on SIGTERM, which must answer every call it accepted.
import { Agent, request as httpRequest } from "node:http";
import { connect as http2Connect } from "node:http2";
import { credentials, makeClientConstructor } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { redisStore } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import type { ServingStatus } from "../../runtime/server/index.js";
import { codeOf, PROTOCOLS } from "../helpers/raw-calls.js";
import { sampleMessage, startRecordingService } from "../helpers/recording-service.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { startReplica } from "../helpers/replica.js";

const HealthClient = makeClientConstructor(healthService, "grpc.health.v1.Health");

/** The server's status as grpc.health.v1 Check answers it for the whole server (service ""). */
async function grpcHealth(endpoint: string): Promise<string> {
  const client = new HealthClient(endpoint, credentials.createInsecure());
  try {
    return await new Promise<string>((resolve, reject) =>
      (client as unknown as { Check(request: object, done: (error: Error | null, answer: { status: string }) => void): void }).Check({ service: "" }, (error, answer) =>
        error ? reject(error) : resolve(answer.status),
      ),
    );
  } finally {
    client.close();
  }
}

const SECRET = "lifecycle-admin-secret";

const statusOf = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("health", () => {
  it("answers /healthz and /readyz, and reports NOT_SERVING once shutdown starts", async () => {
    const service = await startRecordingService(SECRET);
    expect(await statusOf(`${service.httpUrl}/healthz`)).toEqual({ status: 200, body: { status: "alive" } });
    expect(await statusOf(`${service.httpUrl}/readyz`)).toEqual({ status: 200, body: { status: "SERVING", store: "memory" } });
    expect(service.server.health.status()).toBe("SERVING");
    const changes: ServingStatus[] = [];
    service.server.health.onChange((status) => changes.push(status));
    const closing = service.server.close();
    expect(service.server.health.status()).toBe("NOT_SERVING");
    expect(changes).toEqual(["NOT_SERVING"]);
    await closing;
  });

  it("follows the Redis store: NOT_SERVING on /readyz (503) and on grpc.health.v1 while it is away, SERVING again when it is back", async () => {
    let redis: RedisServer | undefined;
    const service = await (async () => {
      redis = await startRedis();
      return startRecordingService(SECRET, { store: redisStore(redis.url) });
    })();
    try {
      const changes: ServingStatus[] = [];
      service.server.health.onChange((status) => changes.push(status));
      expect(await statusOf(`${service.httpUrl}/readyz`)).toEqual({ status: 200, body: { status: "SERVING", store: "redis" } });
      expect(await grpcHealth(service.grpcEndpoint)).toBe("SERVING");
      await redis!.stop();
      const down = await statusOf(`${service.httpUrl}/readyz`);
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ status: "NOT_SERVING", reason: expect.stringMatching(/the redis store (cannot be reached|does not answer)/) });
      expect(await grpcHealth(service.grpcEndpoint)).toBe("NOT_SERVING");
      // Alive all the same: the process is fine, the balancer should just send calls elsewhere.
      expect((await statusOf(`${service.httpUrl}/healthz`)).status).toBe(200);
      await redis!.start();
      const deadline = Date.now() + 10_000;
      while (service.server.health.status() !== "SERVING" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(changes).toEqual(["NOT_SERVING", "SERVING"]);
      expect((await statusOf(`${service.httpUrl}/readyz`)).status).toBe(200);
      expect(await grpcHealth(service.grpcEndpoint)).toBe("SERVING");
    } finally {
      await service.close();
      await redis?.stop();
    }
  });

  it("can be turned off", async () => {
    const service = await startRecordingService(SECRET, { health: false });
    expect((await fetch(`${service.httpUrl}/healthz`)).status).toBe(404);
    await service.close();
  });
});

describe("graceful shutdown", () => {
  it.each(PROTOCOLS)("over %s, lets a call in flight finish, then stops accepting", async (protocol) => {
    const service = await startRecordingService(SECRET);
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    service.answers.set("adminMeta", async () => {
      entered();
      await new Promise((resolve) => setTimeout(resolve, 400));
      return sampleMessage(schema, "AdminMeta");
    });
    const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });
    const call = client.adminMeta();
    await inside;
    const started = performance.now();
    await service.server.close({ graceMs: 5_000 });
    // close() waited for the call, and the call got its answer; the keep-alive connection was
    // ended after that answer, not left to the end of the grace period.
    expect(performance.now() - started).toBeGreaterThan(300);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect((await call).version).toBe(sampleMessage(schema, "AdminMeta").version);
    const after = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });
    expect(await codeOf(() => after.adminMeta())).toBe("UNAVAILABLE");
    await Promise.all([client.close(), after.close()]);
  });

  it("tells a keep-alive client that its connection ends with the answer in flight", async () => {
    const service = await startRecordingService(SECRET);
    const agent = new Agent({ keepAlive: true });
    const post = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const url = new URL(`${service.httpUrl}/v1/admin/admin_meta`);
        const request = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers: { "content-type": "application/json", "x-service-admin-secret": SECRET } },
          (response) => {
            response.resume();
            response.on("end", () => resolve({ status: response.statusCode!, connection: response.headers.connection }));
          },
        );
        request.on("error", reject);
        request.end("{}");
      });
    // Before the close: the connection is kept alive.
    expect(await post()).toEqual({ status: 200, connection: "keep-alive" });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    service.answers.set("adminMeta", async () => {
      entered();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return sampleMessage(schema, "AdminMeta");
    });
    const call = post();
    await inside;
    const closed = service.server.close({ graceMs: 5_000 });
    expect(await call).toEqual({ status: 200, connection: "close" });
    await closed;
    agent.destroy();
  });

  it("cuts an HTTP/2 connection whose client never reads its answer when the grace period ends", async () => {
    const service = await startRecordingService(SECRET);
    const session = http2Connect(service.httpUrl);
    // The answer arrives but is never read: the session stays open and the client never closes it.
    await new Promise<void>((resolve, reject) => {
      const stream = session.request({ ":path": "/readyz" });
      stream.on("response", () => resolve());
      stream.on("error", reject);
      stream.end();
    });
    const started = performance.now();
    await service.server.close({ graceMs: 300 });
    expect(performance.now() - started).toBeLessThan(2_000);
    session.destroy();
  });

  it("cuts the calls still running when the grace period ends", async () => {
    const service = await startRecordingService(SECRET);
    service.answers.set("adminMeta", () => new Promise(() => {}));
    const call = fetch(`${service.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: "{}" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await service.server.close({ graceMs: 300 });
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect(call).rejects.toThrow();
  });
});

describe("the reference service on SIGTERM under load", () => {
  let replica: Awaited<ReturnType<typeof startReplica>>;
  beforeAll(async () => {
    replica = await startReplica(["--admin-secret", SECRET, "--no-rate-limit"]);
  });
  afterAll(() => replica?.stop("SIGKILL"));

  it("answers every call it accepted, over GraphQL, REST and gRPC, and exits 0", async () => {
    const answered = { graphql: 0, rest: 0, grpc: 0 };
    const failures: string[] = [];
    let stop = false;
    const loop = async (protocol: "graphql" | "rest" | "grpc") => {
      const client = new AdminClient({ serviceUrl: replica.httpUrl, grpcEndpoint: replica.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });
      while (!stop) {
        try {
          await client.adminMeta();
          answered[protocol]++;
        } catch (error) {
          // Refused before it was accepted: the server no longer listens (UNAVAILABLE), or HTTP/2
          // refused a stream opened after its GOAWAY (REFUSED_STREAM: never processed). Anything else is a lost call.
          const refused = error instanceof ApiError && (error.code === "UNAVAILABLE" || error.message.includes("NGHTTP2_REFUSED_STREAM"));
          if (!refused) failures.push(`${(error as ApiError).code}: ${String(error)}`);
          break;
        }
      }
      await client.close();
    };
    const loops = (["graphql", "rest", "grpc"] as const).flatMap((protocol) => Array.from({ length: 3 }, () => loop(protocol)));
    await new Promise((resolve) => setTimeout(resolve, 700));
    const exited = replica.stop("SIGTERM");
    expect(await exited).toBe(0);
    stop = true;
    await Promise.all(loops);
    expect(failures).toEqual([]);
    // Every call the service logged as answered reached its client, and the other way round.
    const logged = (protocol: string) => replica.lines.filter((line) => new RegExp(` admin_meta ${protocol} OK `).test(line)).length;
    for (const count of Object.values(answered)) expect(count).toBeGreaterThan(10);
    expect({ graphql: logged("graphql"), rest: logged("rest"), grpc: logged("grpc") }).toEqual(answered);
    expect(replica.lines.some((line) => line.startsWith("SIGTERM: closing"))).toBe(true);
  });
});
