// Where a client on Node sends its RPCs: gRPC over HTTP/2 to grpcEndpoint, with grpcTls. Node's
// platform alone imports it: elsewhere RPCs go as Connect to serviceUrl, and a page never loads this.
import { hostOfEndpoint, plaintextRefusal } from "./tls.js";
import type { RpcOptions, RpcTarget } from "./transport.js";

/** A gRPC target as the clients take it: a host name, IPv4 or bracketed IPv6 address, and a port (no scheme, no path). */
export const GRPC_ENDPOINT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/**
 * grpcEndpoint, checked, or the host of the service URL with the gRPC port; TLS as grpcTls says, by
 * default that of `tls` when the service URL is https:// and none when it is http://.
 */
export function grpcTarget(options: RpcOptions, grpcPort: number, url: URL): RpcTarget {
  const given = options.grpcEndpoint;
  if (given !== undefined && !GRPC_ENDPOINT.test(given)) throw new TypeError(`grpcEndpoint must be host:port, such as localhost:${grpcPort}, not '${given}'`);
  const grpcEndpoint = given ?? `${url.hostname}:${grpcPort}`;
  const { grpcTls: asked, tls } = options;
  const grpcTls = asked === undefined ? (url.protocol === "https:" ? (tls ?? {}) : false) : asked === true ? (tls ?? {}) : asked;
  return {
    grpcEndpoint,
    grpcEndpointIsDefault: given === undefined,
    grpcTls,
    inClear: plaintextRefusal(
      { secure: grpcTls !== false, host: hostOfEndpoint(grpcEndpoint), shown: `gRPC ${grpcEndpoint}` },
      "use grpcTls (the default for an https:// serviceUrl)",
      options.allowInsecure,
    ),
  };
}
