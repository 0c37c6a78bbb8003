// Graceful shutdown: stop accepting, let the calls in flight finish within a deadline, then cut
// what is left. HTTP/1.1 connections are closed after their current response; HTTP/2 sessions are
// sent GOAWAY, which lets their open streams finish and refuses new ones.
import type { Server, ServerResponse } from "node:http";
import type { Http2Server, ServerHttp2Session } from "node:http2";

/** How long close() lets calls in flight finish, unless told otherwise. */
export const DEFAULT_GRACE_MS = 10_000;

/** Waits for `done`; if it has not settled after `ms`, runs `cut` (which must make it settle) and waits again. */
export async function withDeadline(done: Promise<void>, ms: number, cut: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms)));
  const finished = await Promise.race([done.then(() => false), expired]);
  clearTimeout(timer);
  if (finished) cut();
  await done;
}

export class HttpShutdown {
  private readonly inFlight = new Set<ServerResponse>();
  private closing = false;

  constructor(private readonly server: Server) {}

  /** Called with every response: while closing, each one ends its connection. */
  track(response: ServerResponse): void {
    if (this.closing) {
      response.setHeader("connection", "close");
      return;
    }
    this.inFlight.add(response);
    response.once("close", () => {
      this.inFlight.delete(response);
      // A keep-alive connection whose answer went out before it could be told to close.
      if (this.closing) setImmediate(() => this.server.closeIdleConnections());
    });
  }

  async close(graceMs: number): Promise<void> {
    this.closing = true;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader("connection", "close");
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await withDeadline(closed, graceMs, () => this.server.closeAllConnections());
  }
}

export class Http2Shutdown {
  private readonly sessions = new Set<ServerHttp2Session>();

  constructor(private readonly server: Http2Server) {
    // Open sessions keep a server from closing; they are asked to end (or cut) on close().
    server.on("session", (session) => {
      this.sessions.add(session);
      session.once("close", () => this.sessions.delete(session));
    });
  }

  async close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const session of this.sessions) session.close();
    await withDeadline(closed, graceMs, () => {
      for (const session of this.sessions) session.destroy();
    });
  }
}
