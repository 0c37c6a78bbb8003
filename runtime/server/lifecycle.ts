// Graceful shutdown: stop accepting, let the calls in flight finish within a deadline, then cut
// what is left. HTTP/1.1 connections are closed after their current response; HTTP/2 sessions are
// sent GOAWAY, which lets their open streams finish and refuses new ones.
import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Server as TlsServer } from "node:tls";

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

/** What node:http keeps on a socket: the response being written on it (long-standing, undocumented). */
interface HttpSocket extends Socket {
  _httpMessage?: ServerResponse | null;
}

/**
 * Graceful close of an HTTP/1.1 server. Node keeps a connection alive after a response that went
 * out while the server closes, so each response not yet begun once the server is closing is told
 * not to: Node then sends Connection: close and ends the connection after the answer. Nothing is
 * done per response while the server runs (a subclass of ServerResponse with an accessor cost
 * ~0.4 µs a call, a per-response listener ~2 µs): the connections are known, and the responses in
 * flight on them are reached through their sockets when the close begins.
 */
export class HttpShutdown {
  private closing = false;
  private server: Server | undefined;
  private readonly sockets = new Set<HttpSocket>();

  /**
   * The server whose connections close() ends. Call it once the server's own connection listeners
   * are in place (it adds one after them): over TLS it follows the sockets of finished handshakes.
   */
  attach(server: Server): void {
    this.server = server;
    const track = (socket: HttpSocket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    };
    server.on(server instanceof TlsServer ? "secureConnection" : "connection", track);
  }

  /**
   * Call first for every request: one that begins once the close has begun (pipelined behind the
   * answer in flight, or on a connection whose TLS handshake ended after it) ends its connection.
   */
  admit(response: ServerResponse): void {
    if (this.closing) response.shouldKeepAlive = false;
  }

  async close(graceMs: number): Promise<void> {
    const server = this.server!;
    this.closing = true;
    for (const socket of this.sockets) {
      const response = socket._httpMessage;
      if (response && !response.headersSent) response.shouldKeepAlive = false;
    }
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
