// Limits on connections to the HTTP port: a cap on how many it holds open at once (so a flood of
// idle connections cannot take every file descriptor), and HTTP/2 sessions that announce how many
// streams they take and do not stay open for ever.
import { connect as connectHttp2 } from "node:http2";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP2_MAX_CONCURRENT_STREAMS } from "../../runtime/server/http-port.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";
let service: RecordingService;
let port: number;
beforeAll(async () => {
  service = await startRecordingService(SECRET, { maxConnections: 3 });
  port = Number(new URL(service.httpUrl).port);
});
afterAll(() => service.close());

/** Opens a TCP connection (from `localAddress`, of the loopback range); resolves once connected. */
const open = (to = port, localAddress = "127.0.0.1") =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ port: to, host: "127.0.0.1", localAddress }, () => resolve(socket));
    socket.once("error", reject);
  });
/** GET /healthz from `localAddress`: its status, or the error's code when the connection was refused or reset. */
const healthFrom = (to: number, localAddress: string) =>
  new Promise<number | string>((resolve) => {
    const request = httpRequest({ host: "127.0.0.1", port: to, path: "/healthz", localAddress, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    request.end();
  });
/** A slow sender (slowloris): a request line, then a header line every `everyMs`, never the end of the headers. */
const dripHeaders = (socket: Socket, everyMs: number) => {
  socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
  const timer = setInterval(() => socket.writable && socket.write(`X-Drip-${Date.now()}: 1\r\n`), everyMs);
  socket.once("close", () => clearInterval(timer));
  return socket;
};
/** Whether the server closes `socket` within `ms`. */
const closedWithin = (socket: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => (clearTimeout(timer), resolve(true)));
  });

describe("the HTTP port's connections", () => {
  it("are capped by maxConnections: one more is closed at once, and a freed place is taken again", async () => {
    const held = await Promise.all([open(), open(), open()]);
    const extra = await open();
    expect(await closedWithin(extra, 1_000)).toBe(true);
    for (const socket of held) expect(socket.destroyed).toBe(false);
    held[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await open();
    expect(await closedWithin(again, 300)).toBe(false);
    for (const socket of [...held, again]) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The port still answers once the held connections are gone.
    expect((await fetch(`${service.httpUrl}/healthz`)).status).toBe(200);
  });

  // The security review: 10,050 sockets from one address, each sending a header line every 5 s,
  // took all 10,000 slots, and every other client's request was reset for the 25 s the attack held.
  it("are capped per address too: one address's slow senders hold at most its share, and another address is served, on the HTTP and gRPC ports", async () => {
    const guarded = await startRecordingService(SECRET, { maxConnections: 10, maxConnectionsPerAddress: 3 });
    const to = Number(new URL(guarded.httpUrl).port);
    try {
      const attackers: Socket[] = [];
      for (let i = 0; i < 12; i++) attackers.push(dripHeaders(await open(to), 200));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(attackers.filter((socket) => !socket.destroyed)).toHaveLength(3);
      expect(await healthFrom(to, "127.0.0.2")).toBe(200);
      expect(await healthFrom(to, "127.0.0.3")).toBe(200);
      for (const socket of attackers) socket.destroy();
      // The gRPC port too: one address's idle connections stop at its share, another's are taken.
      const grpcPort = Number(guarded.grpcEndpoint.slice(guarded.grpcEndpoint.lastIndexOf(":") + 1));
      const idle: Socket[] = [];
      for (let i = 0; i < 6; i++) idle.push(await open(grpcPort));
      const other = await open(grpcPort, "127.0.0.2");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(idle.filter((socket) => !socket.destroyed)).toHaveLength(3);
      expect(other.destroyed).toBe(false);
      for (const socket of [...idle, other]) socket.destroy();
    } finally {
      await guarded.close();
    }
  });

  it("close a connection whose headers take longer than headersTimeoutMs, within a second of it, while others are served", async () => {
    const guarded = await startRecordingService(SECRET, { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    const to = Number(new URL(guarded.httpUrl).port);
    try {
      const started = performance.now();
      const slow = dripHeaders(await open(to), 200);
      expect(await healthFrom(to, "127.0.0.2")).toBe(200);
      expect(await closedWithin(slow, 4_000)).toBe(true);
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThan(900);
      expect(elapsed).toBeLessThan(3_500);
    } finally {
      await guarded.close();
    }
  });

  it(`announce at most ${HTTP2_MAX_CONCURRENT_STREAMS} concurrent streams to an HTTP/2 client`, async () => {
    const session = connectHttp2(service.httpUrl);
    try {
      const settings = await new Promise<{ maxConcurrentStreams?: number }>((resolve, reject) => {
        session.once("remoteSettings", resolve);
        session.once("error", reject);
      });
      expect(settings.maxConcurrentStreams).toBe(HTTP2_MAX_CONCURRENT_STREAMS);
    } finally {
      session.close();
    }
  });
});
