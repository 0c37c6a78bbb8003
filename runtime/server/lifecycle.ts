// Graceful shutdown: stop accepting, let the calls in flight finish within a deadline, then cut
// what is left. HTTP/1.1 connections are closed after their current response; HTTP/2 sessions are
// sent GOAWAY, which lets their open streams finish and refuses new ones.
import { ServerResponse, type Server } from "node:http";

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

const KEEP_ALIVE = Symbol("keepAlive");

/**
 * Graceful close of an HTTP/1.1 server. Node keeps a connection alive after a response that went
 * out while the server closes, so responses are made of a class whose keep-alive ends once the
 * server is closing: Node reads `shouldKeepAlive` as it writes the head, sends Connection: close
 * and ends the connection after the answer. No per-response listener: that costs ~2 µs a call.
 */
export class HttpShutdown {
  private closing = false;
  private server: Server | undefined;

  /** The ServerResponse class to give createServer. */
  readonly ServerResponse: typeof ServerResponse;

  constructor() {
    const shutdown = this;
    class ShutdownAwareResponse extends ServerResponse {}
    // An accessor: the constructor of OutgoingMessage assigns the property, which calls the setter.
    Object.defineProperty(ShutdownAwareResponse.prototype, "shouldKeepAlive", {
      get(this: Record<symbol, boolean>) {
        return this[KEEP_ALIVE] && !shutdown.closing;
      },
      set(this: Record<symbol, boolean>, value: boolean) {
        this[KEEP_ALIVE] = value;
      },
    });
    this.ServerResponse = ShutdownAwareResponse as typeof ServerResponse;
  }

  /** The server whose connections close() ends; the one created with this.ServerResponse. */
  attach(server: Server): void {
    this.server = server;
  }

  async close(graceMs: number): Promise<void> {
    const server = this.server!;
    this.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Connections idle now are closed at once; those whose answer went out with keep-alive just
    // before are idle soon after, and closed on the next sweep.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    try {
      await withDeadline(closed, graceMs, () => server.closeAllConnections());
    } finally {
      clearInterval(sweep);
    }
  }
}
