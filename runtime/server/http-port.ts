// HTTP/2 beside HTTP/1.1 on one cleartext port: browsers speak HTTP/1.1 to it, and clients that
// know the server speaks HTTP/2 (h2c with prior knowledge, as Connect and gRPC-Web clients may)
// open with the HTTP/2 preface. Node serves one or the other on a port, not both, so the HTTP/1.1
// server keeps listening (with its timeouts, connection tracking and close) and the first bytes
// of each connection decide whether it stays there or goes to an HTTP/2 server that answers with
// the same request handler. Over TLS the handshake's ALPN decides instead (h2 or http/1.1).
import type { RequestListener, Server } from "node:http";
import { createServer as createHttp2Server, type ServerHttp2Session } from "node:http2";
import type { Server as NetServer, Socket } from "node:net";
import { Server as TlsServer, type TLSSocket } from "node:tls";
import { withDeadline } from "./lifecycle.js";

/** Every HTTP/2 connection opens with "PRI * HTTP/2.0"; no HTTP/1 method is "PRI". */
const HTTP2_PREFACE = Buffer.from("PRI ");

export interface Http2Beside {
  /**
   * Graceful close: connections that have not said which protocol they speak are ended, HTTP/2
   * sessions are sent GOAWAY (their open streams finish, new ones are refused) and cut after `graceMs`.
   */
  close(graceMs: number): Promise<void>;
}

/** The connection cap of the HTTP port when the service sets none (ServerOptions.maxConnections). */
export const DEFAULT_MAX_CONNECTIONS = 10_000;
/** The cap of one client address's connections to the HTTP port (ServerOptions.maxConnectionsPerAddress). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;
/** How long a request may take to send its headers, and its headers and body (ServerOptions.headersTimeoutMs, requestTimeoutMs). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How often node:http looks for requests past those deadlines (its default, 30 s, let slow senders hold slots that long). */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/**
 * Closes at once a new connection of an address that already holds `max` open, before anything
 * reads from it: counted on the raw connection (TCP, before a TLS handshake), whatever protocol it
 * then speaks: the HTTP port (call it after acceptHttp2, whose listener it wraps) and the gRPC port.
 */
export function capConnectionsPerAddress(server: NetServer, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  const accept = server.listeners("connection")[0] as (socket: Socket) => void;
  server.removeListener("connection", accept);
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    accept.call(server, socket);
  });
}

/** An HTTP/2 session with no stream and no frame for this long is closed (as HTTP/1.1 keep-alive ends). */
export const HTTP2_IDLE_TIMEOUT_MS = 65_000;
/** Streams one HTTP/2 session may have open at once (what the server announces in its SETTINGS). */
export const HTTP2_MAX_CONCURRENT_STREAMS = 100;

/** Makes `http1` take HTTP/2 connections too, answered by `handler`. Call before it listens. */
export function acceptHttp2(http1: Server, handler: RequestListener): Http2Beside {
  const http2 = createHttp2Server({ settings: { maxConcurrentStreams: HTTP2_MAX_CONCURRENT_STREAMS } }, handler as never);
  // Without a timeout an HTTP/2 connection that goes quiet stays open for ever (node's default is none).
  http2.setTimeout(HTTP2_IDLE_TIMEOUT_MS);
  // A stream whose request is not complete within the HTTP/1.1 server's request timeout is reset,
  // so a slow sender cannot hold a stream (and its handler) open for ever either.
  http2.on("stream", (stream) => stream.setTimeout(http1.requestTimeout || 300_000, () => stream.close(0x8 /* NGHTTP2_CANCEL */)));
  // Open HTTP/2 sessions keep the port from closing; remember them to end them on close.
  const sessions = new Set<ServerHttp2Session>();
  http2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const undecided = new Set<Socket>();
  // The sockets under the HTTP/2 sessions: a session closed gracefully and then destroyed only ends
  // its socket (and waits for the peer to close it), so the cut at the deadline destroys them.
  const http2Sockets = new Set<Socket>();
  const toHttp2 = (socket: Socket) => {
    http2Sockets.add(socket);
    socket.once("close", () => http2Sockets.delete(socket));
    http2.emit("connection", socket);
  };
  if (http1 instanceof TlsServer) {
    // https.Server reads a connection from its "secureConnection" listener, once the handshake is done.
    const http1Connection = http1.listeners("secureConnection")[0] as (socket: TLSSocket) => void;
    http1.removeListener("secureConnection", http1Connection);
    http1.on("secureConnection", (socket: TLSSocket) => {
      if (socket.alpnProtocol === "h2") toHttp2(socket);
      else http1Connection.call(http1, socket);
    });
  } else {
    // node:http reads a connection from its own "connection" listener; it now runs once HTTP/1 is certain.
    const http1Connection = http1.listeners("connection")[0] as (socket: Socket) => void;
    http1.removeListener("connection", http1Connection);
    http1.on("connection", (socket: Socket) => {
      let head = Buffer.alloc(0);
      const drop = () => socket.destroy();
      undecided.add(socket);
      socket.once("close", () => undecided.delete(socket));
      // A connection that says nothing is closed after as long as a request may take to send its headers.
      socket.setTimeout(http1.headersTimeout || 60_000);
      socket.on("timeout", drop);
      socket.on("error", drop);
      // node:http opens its server half-open (it ends sockets itself once it has them); a peer that
      // leaves before saying anything would otherwise keep its socket, and its connection slot, open.
      socket.on("end", drop);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const length = Math.min(head.length, HTTP2_PREFACE.length);
        const isHttp2 = head.subarray(0, length).equals(HTTP2_PREFACE.subarray(0, length));
        if (isHttp2 && head.length < HTTP2_PREFACE.length) return; // too early to tell
        socket.off("data", onData);
        socket.off("timeout", drop);
        socket.off("end", drop);
        socket.setTimeout(0);
        undecided.delete(socket);
        socket.pause();
        socket.unshift(head);
        if (isHttp2) {
          toHttp2(socket);
        } else {
          http1Connection.call(http1, socket);
          socket.resume();
        }
      };
      socket.on("data", onData);
    });
  }
  return {
    async close(graceMs) {
      for (const socket of undecided) socket.destroy();
      const ended = Promise.all([...sessions].map((session) => new Promise<void>((resolve) => (session.once("close", () => resolve()), session.close()))));
      await withDeadline(
        ended.then(() => undefined),
        graceMs,
        () => {
          for (const session of sessions) session.destroy();
          for (const socket of http2Sockets) socket.destroy();
        },
      );
    },
  };
}
