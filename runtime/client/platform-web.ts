// The clients in browsers, Deno, Bun and edge runtimes: the platform's fetch (its connections, its
// trust store) and RPCs as Connect over it. No node: module is imported from here.
import type { ClientPlatform, OwnFetch } from "./transport.js";
import type { TlsClientOptions } from "./tls.js";

function platformFetch(tls: TlsClientOptions | undefined): OwnFetch {
  const given = tls ? (["ca", "cert", "key", "serverName"] as const).filter((option) => tls[option] !== undefined) : [];
  if (given.length > 0) {
    throw new TypeError(
      `tls.${given.join(", tls.")} ${given.length === 1 ? "needs" : "need"} Node: here the platform's fetch trusts the platform's certificates (Deno: --cert or DENO_CERT; Bun: NODE_EXTRA_CA_CERTS; a browser: its own store); or pass a fetch of your own`,
    );
  }
  // Bound: some platforms refuse a fetch called with another `this`.
  return { fetch: globalThis.fetch.bind(globalThis), close: async () => {} };
}

export const PLATFORM: ClientPlatform = {
  name: "web",
  ownFetch: platformFetch,
  rpcOverServiceUrl: true,
  loadRpc: () => import("./grpc-web.js"),
};
