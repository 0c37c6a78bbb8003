// The fault column of the conformance matrix (issue 33): servers on loopback that misbehave as a
// network or a proxy does (hang, drip, reset mid-answer, an HTML error page, 503 with Retry-After, a
// 2xx that is not the answer, an answer over the size cap, a gRPC stream closed without a status),
// and the one error every client must answer each of them with, whatever its language.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { constants as http2, createServer as createHttp2Server, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import type { Protocol } from "../../runtime/schema.js";

/** The deadline of the cells whose server never answers in time (hanging, dripping): they end there. */
export const FAULT_TIMEOUT_MS = 400;
/**
 * The deadline of the cells whose server answers at once (an error page, a reset, a 503): long
 * enough that a cold, loaded machine never turns their answer into DEADLINE_EXCEEDED (a client's
 * first call in its process took over 400 ms on a cold 2-core run), short enough to bound a cell.
 */
export const ANSWERED_FAULT_TIMEOUT_MS = 2_000;

/** The deadline a fault's cells give their client. */
export const faultDeadline = (fault: Fault): number => (fault.expect !== "answered" && fault.expect.code === "DEADLINE_EXCEEDED" ? FAULT_TIMEOUT_MS : ANSWERED_FAULT_TIMEOUT_MS);
/** The size cap every fault cell's client is given; the oversized answers are twice as large. */
export const FAULT_MAX_RESPONSE_BYTES = 1 << 20;

/** The one answer every client must give: the code, and the status, Retry-After and message when they are known. */
export interface FaultAnswer {
  code: string;
  /** The HTTP status over REST and GraphQL (over gRPC there is none). */
  status: number | null;
  retryAfterSeconds: number | null;
  /** Exact text, or a pattern where the text names a language's own reason (a reset). */
  message: string | RegExp;
  /** The message over gRPC, when it differs. */
  grpcMessage?: string | RegExp;
}

export interface Fault {
  /** A few words for the column's row. */
  name: string;
  /** The call: a read (admin_meta) or a write (create_organization). */
  operation: "admin_meta" | "create_organization";
  input: Record<string, unknown>;
  /** The protocols it is played on, with what the server does to each request. */
  http?: { protocols: readonly ("rest" | "graphql")[]; answer: (request: IncomingMessage, response: ServerResponse) => void };
  /** What the gRPC server does with each stream; `reset` drops the connection under it. */
  grpc?: (stream: ServerHttp2Stream, reset: () => void) => void;
  /** The one error every client must answer, or "answered": the call succeeds (a tolerated oddity). */
  expect: FaultAnswer | "answered";
}

const READ = { operation: "admin_meta", input: {} } as const;
const WRITE = { operation: "create_organization", input: { name: "acme" } } as const;
const BOTH = ["rest", "graphql"] as const;
const NO_ANSWER = /^admin_meta: no answer from the service \(.+\)$/;
const UNREADABLE = /^admin_meta: the gRPC answer could not be read \(.+\)$/;

const html =
  (status: number, headers: Record<string, string> = {}) =>
  (_: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, { "content-type": "text/html", ...headers }).end("<html><body>Bad gateway</body></html>");
  };
const json = (body: string) => (_: IncomingMessage, response: ServerResponse) => {
  response.writeHead(200, { "content-type": "application/json" }).end(body);
};

/** gRPC's answer head, and a message frame (flag byte, big-endian length, bytes). */
const GRPC_HEAD = { ":status": 200, "content-type": "application/grpc" };
/** A message with field 1 of wire type 7: no protobuf decoder takes it. */
const undecodable = (stream: ServerHttp2Stream) => {
  stream.respond(GRPC_HEAD, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(frame(Buffer.from([0x0f, 0x01, 0x02])));
};
const frame = (message: Buffer) => Buffer.concat([Buffer.from([0, ...new Uint8Array(new Uint32Array([message.length]).buffer).reverse()]), message]);

export const FAULTS: readonly Fault[] = [
  {
    name: "never answers",
    ...READ,
    http: { protocols: BOTH, answer: () => {} },
    grpc: () => {},
    expect: { code: "DEADLINE_EXCEEDED", status: null, retryAfterSeconds: null, message: "admin_meta timed out" },
  },
  {
    name: "drips its body a byte at a time",
    ...READ,
    http: {
      protocols: BOTH,
      answer: (_, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        const timer = setInterval(() => response.write(" "), 50);
        response.on("close", () => clearInterval(timer));
      },
    },
    expect: { code: "DEADLINE_EXCEEDED", status: null, retryAfterSeconds: null, message: "admin_meta timed out" },
  },
  {
    name: "drips its status line and headers",
    ...READ,
    http: {
      protocols: BOTH,
      answer: (request) => {
        // Written on the socket itself: the status line and a header, a byte every 50 ms, never ending.
        const head = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ${"a".repeat(1000)}`;
        let sent = 0;
        const timer = setInterval(() => (sent < head.length ? request.socket.write(head[sent++]!) : undefined), 50);
        request.socket.on("close", () => clearInterval(timer));
      },
    },
    expect: { code: "DEADLINE_EXCEEDED", status: null, retryAfterSeconds: null, message: "admin_meta timed out" },
  },
  {
    name: "resets the connection mid-answer",
    ...READ,
    http: {
      protocols: BOTH,
      answer: (_, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        response.write('{"version": "2', () => response.socket?.destroy());
      },
    },
    grpc: (stream, reset) => {
      stream.respond(GRPC_HEAD);
      stream.write(frame(Buffer.alloc(10)).subarray(0, 8), reset);
    },
    expect: { code: "UNAVAILABLE", status: null, retryAfterSeconds: null, message: NO_ANSWER },
  },
  {
    name: "a proxy's HTML 401",
    ...READ,
    http: { protocols: BOTH, answer: html(401) },
    expect: { code: "UNAUTHENTICATED", status: 401, retryAfterSeconds: null, message: "HTTP 401" },
  },
  {
    name: "a proxy's HTML 404",
    ...READ,
    http: { protocols: BOTH, answer: html(404) },
    expect: { code: "NOT_FOUND", status: 404, retryAfterSeconds: null, message: "HTTP 404" },
  },
  {
    name: "503 with Retry-After",
    ...READ,
    http: { protocols: BOTH, answer: html(503, { "retry-after": "7" }) },
    grpc: (stream) => stream.respond({ ...GRPC_HEAD, "grpc-status": "14", "grpc-message": "overloaded", "retry-after": "7" }, { endStream: true }),
    expect: { code: "UNAVAILABLE", status: 503, retryAfterSeconds: 7, message: "HTTP 503", grpcMessage: "admin_meta: no answer from the service (overloaded)" },
  },
  {
    name: "2xx that is not the answer, to a read",
    ...READ,
    http: { protocols: BOTH, answer: html(200) },
    expect: { code: "INTERNAL", status: 200, retryAfterSeconds: null, message: "admin_meta: the service answered HTTP 200 with a body that is not its answer" },
  },
  {
    name: "2xx that is not the answer, to a write",
    ...WRITE,
    http: { protocols: BOTH, answer: html(200) },
    grpc: (stream) => undecodable(stream),
    expect: {
      grpcMessage: /^create_organization: the gRPC answer could not be read \(.+\); the write may have happened$/,
      code: "OUTCOME_UNKNOWN",
      status: 200,
      retryAfterSeconds: null,
      message: "create_organization: the service answered HTTP 200 with a body that is not its answer; the write may have happened",
    },
  },
  {
    name: "null body",
    ...READ,
    http: { protocols: BOTH, answer: json("null") },
    expect: { code: "INTERNAL", status: 200, retryAfterSeconds: null, message: "admin_meta: the service answered HTTP 200 with a body that is not its answer" },
  },
  {
    name: "2xx whose fields have the wrong types",
    ...READ,
    http: { protocols: BOTH, answer: (request, response) => json(request.url === "/graphql" ? '{"data": {"admin_meta": {"version": 5}}}' : '{"version": 5}')(request, response) },
    // A newer service may change a field's type: every client keeps the value as it came (TypeScript
    // in the field, Python in extra, Go in ExtraFields) with a warning, rather than failing the read.
    expect: "answered",
  },
  {
    name: 'GraphQL {"data": null}',
    ...READ,
    http: { protocols: ["graphql"], answer: json('{"data": null}') },
    expect: { code: "INTERNAL", status: 200, retryAfterSeconds: null, message: "admin_meta: the service answered HTTP 200 with a body that is not its answer" },
  },
  {
    name: "undecodable message",
    ...READ,
    grpc: (stream) => undecodable(stream),
    expect: { code: "INTERNAL", status: null, retryAfterSeconds: null, message: UNREADABLE },
  },
  {
    name: "answer over the size cap",
    ...READ,
    http: {
      protocols: BOTH,
      answer: (_, response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(`{"version": "${"x".repeat(2 * FAULT_MAX_RESPONSE_BYTES)}"}`);
      },
    },
    grpc: (stream) => {
      stream.respond(GRPC_HEAD, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(frame(Buffer.alloc(2 * FAULT_MAX_RESPONSE_BYTES)));
    },
    // The text names the setting as each language spells it (maxResponseBytes, max_response_bytes, WithMaxResponseBytes).
    expect: {
      code: "PAYLOAD_TOO_LARGE",
      status: 200,
      retryAfterSeconds: null,
      grpcMessage: /larger than/,
      message: new RegExp(`^admin_meta: the answer is larger than ${FAULT_MAX_RESPONSE_BYTES} bytes \\(\\w+\\)$`),
    },
  },
  {
    name: "stream reset (RST_STREAM)",
    ...READ,
    grpc: (stream) => stream.close(http2.NGHTTP2_INTERNAL_ERROR),
    expect: { code: "INTERNAL", status: null, retryAfterSeconds: null, message: UNREADABLE },
  },
  {
    name: "stream cancelled by the server",
    ...READ,
    grpc: (stream) => stream.close(http2.NGHTTP2_CANCEL),
    expect: { code: "UNAVAILABLE", status: null, retryAfterSeconds: null, message: NO_ANSWER },
  },
  {
    name: "stream ended without a status",
    ...READ,
    grpc: (stream) => {
      stream.respond(GRPC_HEAD);
      stream.end();
    },
    expect: { code: "INTERNAL", status: null, retryAfterSeconds: null, message: UNREADABLE },
  },
];

/** The protocols a fault is played on. */
export function faultProtocols(fault: Fault): Protocol[] {
  return [...(fault.http?.protocols ?? []), ...(fault.grpc ? (["grpc"] as const) : [])];
}

/** An HTTP server (REST and GraphQL) and a gRPC server (HTTP/2) that play one fault, each fault its own, so that every client meets it on new connections. */
export interface FaultServers {
  serviceUrl: string;
  grpcEndpoint: string;
  close(): Promise<void>;
}

export async function startFaultServers(fault: Fault): Promise<FaultServers> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  };
  const http = createHttpServer((request, response) => {
    request.resume();
    request.on("end", () => fault.http?.answer(request, response));
  });
  http.on("connection", track);
  const grpc = createHttp2Server();
  grpc.on("connection", track);
  grpc.on("stream", (stream) => {
    stream.on("error", () => {});
    stream.resume();
    fault.grpc?.(stream, () => {
      for (const socket of sockets) socket.destroy();
    });
  });
  const listen = (server: typeof http | typeof grpc) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
  const [httpPort, grpcPort] = [await listen(http), await listen(grpc)];
  return {
    serviceUrl: `http://127.0.0.1:${httpPort}`,
    grpcEndpoint: `127.0.0.1:${grpcPort}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise((resolve) => http.close(resolve)), new Promise((resolve) => grpc.close(resolve))]);
    },
  };
}
