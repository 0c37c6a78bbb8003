// The TypeScript client when the server misbehaves (issue 33): every wait is bounded by the
// caller's deadline or signal, the server-version lookup included, and its failures are named after
// the operation the caller called.
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { sampleMessage, startRecordingService } from "../helpers/recording-service.js";

/** A server that accepts connections and never answers. */
let hanging: Server;
let hangingUrl: string;
const sockets = new Set<Socket>();
beforeAll(async () => {
  hanging = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hanging.close(resolve));
});

async function failure(call: Promise<unknown>): Promise<{ error: ApiError; ms: number }> {
  const started = performance.now();
  const error = await call.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { error: error as ApiError, ms: performance.now() - started };
}

describe("the server-version lookup", () => {
  // create_organization over REST needs server 2.4.0, so a client without serverVersion asks first.
  it("ends at the caller's deadline against a server that never answers, named after the caller's operation", async () => {
    const client = new AdminClient({ serviceUrl: hangingUrl, adminSecret: "s", protocol: "rest", retry: false });
    const { error, ms } = await failure(client.createOrganization({ name: "acme" }, { timeoutMs: 300 }));
    expect(ms).toBeLessThan(1_500);
    expect(error).toMatchObject({ code: "DEADLINE_EXCEEDED", operation: "create_organization", protocol: "rest", message: "create_organization timed out" });
    await client.close();
  });

  it("ends when the caller's signal aborts", async () => {
    const client = new AdminClient({ serviceUrl: hangingUrl, adminSecret: "s", protocol: "rest", retry: false });
    const { error, ms } = await failure(client.createOrganization({ name: "acme" }, { signal: AbortSignal.timeout(200) }));
    expect(ms).toBeLessThan(1_500);
    expect(error).toMatchObject({ code: "DEADLINE_EXCEEDED", operation: "create_organization" });
    const controller = new AbortController();
    const cancelled = failure(client.createOrganization({ name: "acme" }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect((await cancelled).error).toMatchObject({ code: "CANCELLED", operation: "create_organization", message: "create_organization was cancelled" });
    await client.close();
  });

  it("lets each waiter leave at its own deadline", async () => {
    const client = new AdminClient({ serviceUrl: hangingUrl, adminSecret: "s", protocol: "rest", retry: false });
    const short = failure(client.createOrganization({ name: "a" }, { timeoutMs: 200 }));
    const long = failure(client.createOrganization({ name: "b" }, { timeoutMs: 900 }));
    const [first, second] = await Promise.all([short, long]);
    expect(first.ms).toBeLessThan(700);
    expect(second.ms).toBeGreaterThan(850);
    expect(second.ms).toBeLessThan(2_000);
    expect([first.error.code, second.error.code]).toEqual(["DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED"]);
    await client.close();
  });

  it("is asked again under a later caller's deadline when the caller who asked it gave up", async () => {
    const meta = { ...sampleMessage(schema, "AdminMeta"), version: schema.version };
    const organization = sampleMessage(schema, "Organization");
    // The version answers after 500 ms, and only to a request still waiting then.
    const fetch = (async (url: string, init?: RequestInit) => {
      if (!url.endsWith("/admin_meta")) return new Response(JSON.stringify(organization));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 500);
        init?.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(init.signal!.reason)));
      });
      return new Response(JSON.stringify(meta));
    }) as typeof globalThis.fetch;
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", retry: false, fetch });
    const impatient = failure(client.createOrganization({ name: "a" }, { timeoutMs: 200 }));
    const patient = client.createOrganization({ name: "b" }, { timeoutMs: 3_000 });
    expect((await impatient).error.code).toBe("DEADLINE_EXCEEDED");
    expect(await patient).toMatchObject({ id: organization.id });
    await client.close();
  });
});

describe("answers that are not the service's", () => {
  /** A client whose every request is answered `answer()`; `sent` counts the requests. */
  const answering = (answer: () => Response, protocol: "rest" | "graphql") => {
    let sent = 0;
    const fetch = (async () => (sent++, answer())) as unknown as typeof globalThis.fetch;
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol, serverVersion: schema.version, retry: { attempts: 3, baseDelayMs: 1 }, fetch });
    return { client, sent: () => sent };
  };
  const html =
    (status: number, headers: Record<string, string> = {}) =>
    () =>
      new Response("<html><body>Bad gateway</body></html>", { status, headers: { "content-type": "text/html", ...headers } });

  for (const protocol of ["rest", "graphql"] as const) {
    it(`over ${protocol}, a proxy's HTML page gets the code of its status, with the status and Retry-After; only the transient ones are retried`, async () => {
      const cases = [
        { status: 401, code: "UNAUTHENTICATED", attempts: 1 },
        { status: 404, code: "NOT_FOUND", attempts: 1 },
        { status: 429, code: "TOO_MANY_REQUESTS", attempts: 3 },
        { status: 503, code: "UNAVAILABLE", attempts: 3 },
      ];
      for (const { status, code, attempts } of cases) {
        const { client, sent } = answering(html(status, { "retry-after": "0" }), protocol);
        const { error } = await failure(client.adminMeta());
        expect(error, String(status)).toMatchObject({ code, status, message: `HTTP ${status}`, retryAfterSeconds: 0, operation: "admin_meta", protocol });
        expect(sent(), `attempts after ${status}`).toBe(attempts);
      }
    });

    it(`over ${protocol}, a 2xx whose body is not the answer is INTERNAL, never retried, and a write says it may have happened`, async () => {
      const bodies = protocol === "rest" ? ["<html></html>", "null", "[1]"] : ["<html></html>", "null", '{"data": null}', '{"data": {}}', "{}"];
      for (const text of bodies) {
        const { client, sent } = answering(() => new Response(text, { status: 200 }), protocol);
        const read = await failure(client.adminMeta());
        expect(read.error, text).toMatchObject({ code: "INTERNAL", status: 200, message: "admin_meta: the service answered HTTP 200 with a body that is not its answer" });
        expect(sent()).toBe(1);
        const write = await failure(client.createOrganization({ name: "acme" }));
        expect(write.error.message, text).toBe("create_organization: the service answered HTTP 200 with a body that is not its answer; the write may have happened");
      }
    });
  }
});

describe("answers over the size cap", () => {
  it("refuses a 50 MB answer at the default 32 MiB, streamed without a length, and a declared one at once", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const server = createHttpServer((request, response) => {
      request.resume();
      if (request.url === "/v1/admin/admin_meta") {
        response.writeHead(200, { "content-type": "application/json" });
        let sent = 0;
        const pump = () => {
          while (sent < 50 && response.write(chunk)) sent++;
          if (sent >= 50) response.end();
          else response.once("drain", pump);
        };
        response.on("error", () => {});
        pump();
      } else {
        response.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
        response.write(chunk);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const rest = new AdminClient({ serviceUrl, adminSecret: "s", protocol: "rest", serverVersion: schema.version, retry: false });
      const { error } = await failure(rest.adminMeta());
      expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 200, message: `admin_meta: the answer is larger than ${32 * 1024 * 1024} bytes (maxResponseBytes)` });
      const graphql = new AdminClient({ serviceUrl, adminSecret: "s", protocol: "graphql", serverVersion: schema.version, retry: false });
      expect((await failure(graphql.adminMeta())).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 200 });
      await Promise.all([rest.close(), graphql.close()]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("takes its cap from maxResponseBytes, over gRPC too", async () => {
    const service = await startRecordingService("s3cret-admin-key");
    try {
      for (const protocol of ["graphql", "rest", "grpc"] as const) {
        const client = new AdminClient({
          serviceUrl: service.httpUrl,
          grpcEndpoint: service.grpcEndpoint,
          adminSecret: "s3cret-admin-key",
          protocol,
          serverVersion: schema.version,
          retry: false,
          maxResponseBytes: 40,
        });
        expect((await failure(client.adminMeta())).error, protocol).toMatchObject({ code: "PAYLOAD_TOO_LARGE", protocol });
        await client.close();
      }
    } finally {
      await service.close();
    }
  });
});

describe("a closed client", () => {
  it("refuses every later call at once, sending nothing, and ends a gRPC call in flight as CANCELLED", async () => {
    const service = await startRecordingService("s3cret-admin-key");
    try {
      for (const protocol of ["graphql", "rest", "grpc"] as const) {
        const client = new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: "s3cret-admin-key", protocol, serverVersion: schema.version, retry: false });
        await client.adminMeta();
        await client.close();
        const sent = service.calls.length;
        const { error } = await failure(client.adminMeta());
        expect(error, protocol).toMatchObject({ code: "FAILED_PRECONDITION", refused: true, message: "admin_meta: the client is closed; make a new one" });
        expect(service.calls.length).toBe(sent);
      }
      service.answers.set("adminMeta", () => new Promise((resolve) => setTimeout(() => resolve(sampleMessage(schema, "AdminMeta")), 2_000)));
      const client = new AdminClient({
        serviceUrl: service.httpUrl,
        grpcEndpoint: service.grpcEndpoint,
        adminSecret: "s3cret-admin-key",
        protocol: "grpc",
        serverVersion: schema.version,
        retry: false,
      });
      const inFlight = failure(client.adminMeta());
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.close();
      const { error, ms } = await inFlight;
      expect(error).toMatchObject({ code: "CANCELLED", message: "admin_meta was cancelled" });
      expect(ms).toBeLessThan(1_500);
    } finally {
      await service.close();
    }
  });
});

describe("connections", () => {
  it("holds at most 64 to one host however many calls run at once, and close() ends every one it opened", async () => {
    let opened = 0;
    const open = new Set<Socket>();
    const answer = JSON.stringify({ ...sampleMessage(schema, "AdminMeta"), version: schema.version });
    // Each answer waits a little, so that 200 concurrent calls would need 200 connections.
    const server = createHttpServer((_, response) => void setTimeout(() => response.writeHead(200, { "content-type": "application/json" }).end(answer), 20));
    server.on("connection", (socket: Socket) => {
      opened++;
      open.add(socket);
      socket.on("close", () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new AdminClient({ serviceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, adminSecret: "s", protocol: "rest", serverVersion: schema.version, retry: false });
      const answers = await Promise.all(Array.from({ length: 200 }, () => client.adminMeta()));
      expect(answers.every((a) => a.version === schema.version)).toBe(true);
      expect(opened).toBeGreaterThan(1);
      expect(opened).toBeLessThanOrEqual(64);
      expect(open.size).toBeGreaterThan(0);
      await client.close();
      for (let waited = 0; open.size > 0 && waited < 2_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(open.size, "connections still open after close()").toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
