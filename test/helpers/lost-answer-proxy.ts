// A proxy that loses answers, as a network does after the service did the work: the first request
// of each Idempotency-Key goes through to the service, which answers (the write is committed),
// then the proxy drops the caller's connection instead of relaying the answer. Every later request
// is relayed both ways. Requests go to the upstreams in turn, so that behind two replicas the
// retry of a write lands on the other one. HTTP/1.1 (REST, GraphQL) and HTTP/2 (gRPC).
import { request as httpRequest, createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { connect as connectHttp2, constants as http2, createServer as createHttp2Server, type ClientHttp2Session, type IncomingHttpHeaders as Http2Headers } from "node:http2";
import type { AddressInfo } from "node:net";

export interface Upstream {
  httpUrl: string;
  grpcEndpoint: string;
}

/** What the proxy saw of one key: the answers it dropped, and whether a later answer was marked a replay. */
export interface KeyHistory {
  dropped: number;
  relayed: number;
  replayed: boolean;
}

export interface LostAnswerProxy {
  httpUrl: string;
  grpcEndpoint: string;
  /** Per Idempotency-Key: what happened to its requests. */
  keys: Map<string, KeyHistory>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "http2-settings", "te"]);

export async function startLostAnswerProxy(upstreams: readonly Upstream[]): Promise<LostAnswerProxy> {
  const keys = new Map<string, KeyHistory>();
  let turn = 0;
  const next = () => upstreams[turn++ % upstreams.length]!;
  /** Whether this answer is lost: the first one of its key. Counts it either way. */
  const lose = (key: string | undefined, replayed: boolean) => {
    if (!key) return false;
    const history = keys.get(key) ?? { dropped: 0, relayed: 0, replayed: false };
    keys.set(key, history);
    if (history.dropped === 0) {
      history.dropped++;
      return true;
    }
    history.relayed++;
    history.replayed ||= replayed;
    return false;
  };

  const http = createHttpServer(async (incoming, outgoing) => {
    const body = await collect(incoming);
    const target = new URL(incoming.url!, next().httpUrl);
    const headers = Object.fromEntries(Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const forwarded = httpRequest(target, { method: incoming.method, headers: { ...headers, "content-length": String(body.length) } }, async (response) => {
        resolve({ status: response.statusCode!, headers: response.headers, body: await collect(response) });
      });
      forwarded.on("error", reject).end(body);
    }).catch(() => undefined);
    if (!answer || lose(header(incoming.headers["idempotency-key"]), answer.headers["idempotent-replayed"] === "true")) {
      incoming.socket.destroy();
      return;
    }
    const relayed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    outgoing.writeHead(answer.status, { ...relayed, "content-length": String(answer.body.length) }).end(answer.body);
  });

  const sessions = new Map<string, ClientHttp2Session>();
  const sessionTo = (endpoint: string) => {
    let session = sessions.get(endpoint);
    if (!session || session.destroyed || session.closed) {
      session = connectHttp2(`http://${endpoint}`);
      session.on("error", () => {});
      sessions.set(endpoint, session);
    }
    return session;
  };
  const grpc = createHttp2Server();
  grpc.on("stream", (stream, requestHeaders) => {
    const headers: Http2Headers = {};
    for (const [name, value] of Object.entries(requestHeaders)) if (!HOP_BY_HOP.has(name) || name === "te") headers[name] = value;
    const forwarded = sessionTo(next().grpcEndpoint).request(headers);
    stream.pipe(forwarded);
    let responseHeaders: Http2Headers = {};
    let trailers: Http2Headers | undefined;
    const chunks: Buffer[] = [];
    forwarded.on("response", (received) => (responseHeaders = received));
    forwarded.on("trailers", (received) => (trailers = received));
    forwarded.on("data", (chunk: Buffer) => chunks.push(chunk));
    forwarded.on("error", () => stream.close(http2.NGHTTP2_INTERNAL_ERROR));
    forwarded.on("end", () => {
      const replayed = header(responseHeaders["idempotent-replayed"]) === "true";
      if (lose(header(requestHeaders["idempotency-key"]), replayed)) {
        stream.session?.destroy();
        return;
      }
      if (!trailers) {
        // A trailers-only answer (an error): its one header block ends the stream.
        stream.respond(responseHeaders, { endStream: true });
        return;
      }
      const last = trailers;
      stream.respond(responseHeaders, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(last));
      stream.end(Buffer.concat(chunks));
    });
  });
  grpc.on("sessionError", () => {});
  const callers = new Set<import("node:http2").ServerHttp2Session>();
  grpc.on("session", (session) => {
    callers.add(session);
    session.on("close", () => callers.delete(session));
  });

  await Promise.all([new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve)), new Promise<void>((resolve) => grpc.listen(0, "127.0.0.1", resolve))]);
  return {
    httpUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    grpcEndpoint: `127.0.0.1:${(grpc.address() as AddressInfo).port}`,
    keys,
    close: async () => {
      for (const session of [...sessions.values(), ...callers]) session.destroy();
      http.closeAllConnections();
      await Promise.all([new Promise((resolve) => http.close(resolve)), new Promise((resolve) => grpc.close(resolve))]);
    },
  };
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function collect(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}
