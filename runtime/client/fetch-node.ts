// The clients' own fetch on Node: undici's, through a pool of keep-alive connections that takes the
// client's TLS options (a private CA, a client certificate, the server's name).
import type { Agent, Dispatcher, request as undiciRequest } from "undici";
import type { TlsClientOptions } from "./tls.js";
import type { OwnFetch } from "./transport.js";

/** The most connections a client keeps to one host (as the Go SDK's MaxConnsPerHost): more concurrent calls queue. */
export const MAX_CONNECTIONS_PER_HOST = 64;

/**
 * The client's own fetch: a pool of at most MAX_CONNECTIONS_PER_HOST keep-alive connections per host
 * (undici, loaded on the first call), trusting `options.ca` and presenting `options.cert` when
 * given, and its close, which ends every connection it opened (global fetch would keep them).
 */
export function pooledFetch(options: TlsClientOptions = {}): OwnFetch {
  let loaded: Promise<{ fetch: typeof fetch; close(): Promise<void> }> | undefined;
  const load = () =>
    (loaded ??= import("undici").then(({ Agent, fetch: undiciFetch, request }) => {
      const agent = new Agent({
        connections: MAX_CONNECTIONS_PER_HOST,
        connect: { ca: options.ca as string | Buffer | undefined, cert: options.cert as string | Buffer | undefined, key: options.key as string | Buffer | undefined, servername: options.serverName },
      });
      const viaFetch = ((input: string, init: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
      return { fetch: requestAsFetch(request, agent, viaFetch), close: () => agent.close() };
    }));
  return {
    fetch: ((input: string, init: RequestInit) => load().then((client) => client.fetch(input, init))) as typeof fetch,
    close: async () => {
      if (loaded) await (await loaded).close();
    },
  };
}

/** The largest answer of a declared length read whole before the Response is handed on. */
const EAGER_BYTES = 64 * 1024;

/** Statuses of 200-599 whose answer has no body (a Response refuses one); those below 200 are refused before. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * fetch's contract over undici's request(), which spares the per-call work of fetch's own (its
 * Request, its stream pipeline: about a third of a call on loopback): the answer is a Response,
 * an abort rejects with the signal's reason, any other failure with a TypeError whose cause says
 * why, redirects are never followed (the clients send redirect: "manual") and come without their
 * body. A body other than text or bytes goes through undici's fetch itself.
 */
function requestAsFetch(request: typeof undiciRequest, agent: Agent, viaFetch: typeof fetch): typeof fetch {
  return (async (input: string, init: RequestInit = {}) => {
    const body = init.body ?? undefined;
    if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) return viaFetch(input, init);
    const signal = init.signal ?? undefined;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(input, {
        method: (init.method ?? "GET") as Dispatcher.HttpMethod,
        headers: init.headers instanceof Headers ? Object.fromEntries(init.headers) : (init.headers as Record<string, string> | undefined),
        body,
        signal,
        dispatcher: agent,
      });
    } catch (error) {
      throw fetchError(error, signal);
    }
    const status = answer.statusCode;
    if (status < 200 || status > 599) {
      discard(answer.body);
      throw new TypeError("fetch failed", { cause: new Error(`the service answered with status ${status}`) });
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.append(name, value);
    }
    // A redirect's body is dropped (read to 128 KB, past that the connection is ended): no client
    // follows or reads a redirect, and a large one left unread would hold its connection.
    if (NULL_BODY_STATUSES.has(status) || (status >= 300 && status < 400)) {
      await answer.body.dump();
      return new Response(null, { status, headers });
    }
    // An answer of a declared small length (every answer of the service's) is read here, whole: its
    // connection is free for the next call at once, and the Response holds bytes, not a stream.
    const length = Number(answer.headers["content-length"] ?? Number.NaN);
    if (length <= EAGER_BYTES) {
      let bytes: ArrayBuffer;
      try {
        bytes = await answer.body.arrayBuffer();
      } catch (error) {
        throw fetchError(error, signal);
      }
      return new Response(bytes, { status, headers });
    }
    // Streamed (no declared length, or a large one): the transports read it to its end or cancel it.
    return new Response(streamOf(answer.body) as unknown as BodyInit, { status, headers });
  }) as typeof fetch;
}

/**
 * The body of an answer as an async iterable, which Response takes as a body that streams. Not the
 * Readable's own iterator: a cancel of the stream (an answer refused as too large) calls return()
 * while a read waits for more, which an async generator would hold back until the read ends, for
 * ever when the peer sends no more; this one ends the connection at once.
 */
function streamOf(body: Dispatcher.ResponseData["body"]): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
      let cancelled = false;
      const ended: IteratorResult<Uint8Array> = { done: true, value: undefined };
      return {
        // The read that waited when the stream was cancelled ends with it (its abort is no failure).
        next: () => chunks.next().catch((error: unknown) => (cancelled ? ended : Promise.reject(error))),
        return: async () => {
          cancelled = true;
          discard(body);
          return ended;
        },
      };
    },
  };
}

/** What fetch rejects with: the signal's reason once it aborted, else a TypeError whose cause is the failure. */
function fetchError(error: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error });
}

/** Ends an answer's body unread: the abort this makes of its request is no failure of anyone's. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}
