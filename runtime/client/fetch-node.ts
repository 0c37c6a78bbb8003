// The clients' own fetch on Node: undici's, through a pool of keep-alive connections that takes the
// client's TLS options (a private CA, a client certificate, the server's name).
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
    (loaded ??= import("undici").then(({ Agent, fetch: undiciFetch }) => {
      const agent = new Agent({
        connections: MAX_CONNECTIONS_PER_HOST,
        connect: { ca: options.ca as string | Buffer | undefined, cert: options.cert as string | Buffer | undefined, key: options.key as string | Buffer | undefined, servername: options.serverName },
      });
      const bound = ((input: string, init: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
      return { fetch: bound, close: () => agent.close() };
    }));
  return {
    fetch: ((input: string, init: RequestInit) => load().then((client) => client.fetch(input, init))) as typeof fetch,
    close: async () => {
      if (loaded) await (await loaded).close();
    },
  };
}
