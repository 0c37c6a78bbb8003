// Limits on connections to the HTTP port: a cap on how many it holds open at once (so a flood of
// idle connections cannot take every file descriptor), and HTTP/2 sessions that announce how many
// streams they take and do not stay open for ever.
import { connect as connectHttp2 } from "node:http2";
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

/** Opens a TCP connection; resolves once connected. */
const open = () =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
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
