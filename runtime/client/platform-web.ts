// The clients in browsers, Deno, Bun and edge runtimes: the platform's fetch (its connections, its
// trust store) and RPCs as Connect over it. No node: module is imported from here.
import type { ClientPlatform, OwnFetch } from "./transport.js";
import type { TlsClientOptions } from "./tls.js";

function ownFetch(tls: TlsClientOptions | undefined): OwnFetch {
  const given = tls ? (["ca", "cert", "key", "serverName"] as const).filter((option) => tls[option] !== undefined) : [];
  if (given.length > 0) {
    throw new TypeError(
      `tls.${given.join(", tls.")} ${given.length === 1 ? "needs" : "need"} Node: here the platform's fetch trusts the platform's certificates (Deno: --cert or DENO_CERT; Bun: NODE_EXTRA_CA_CERTS; a browser: its own store); or pass a fetch of your own`,
    );
  }
  // Looked up at each call, never kept: a fetch installed later (a test's mock) is the one used.
  const platformFetch: typeof fetch = (input, init) => {
    if (typeof globalThis.fetch !== "function") throw new TypeError("this runtime has no global fetch: pass one as the client's fetch option");
    return globalThis.fetch(input, init);
  };
  return { fetch: platformFetch, close: async () => {} };
}

export const PLATFORM: ClientPlatform = {
  name: "web",
  ownFetch,
  // Connect over fetch to serviceUrl: its scheme is their TLS (grpcEndpoint and grpcTls are Node's), its refusal in clear theirs.
  rpcTarget: (_options, _grpcPort, url, overHttp) => ({ grpcEndpoint: url.host, grpcEndpointIsDefault: false, grpcTls: false, inClear: overHttp }),
  loadRpc: () => import("./grpc-web.js"),
};
