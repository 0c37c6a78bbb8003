// The RPC transport of the clients where there is no HTTP/2 client of Node's (browsers, Deno, Bun,
// edge runtimes): the Connect protocol (binary messages) over the client's fetch, to the service's
// HTTP port, which serves Connect and gRPC-Web beside REST and GraphQL. grpcEndpoint and grpcTls are
// Node's: here the calls go where serviceUrl says, with the platform's TLS.
import type { DescService } from "@bufbuild/protobuf";
import { createConnectTransport } from "@connectrpc/connect-web";
import { createRpcTransport } from "./rpc.js";
import type { Transport, TransportSettings } from "./transport.js";

export function createGrpcTransport(settings: TransportSettings, services: readonly DescService[]): Transport {
  // connect-web turns a failed fetch into a ConnectError like any other; the failures are kept
  // here so that a call that never reached the service reads as one (UNAVAILABLE, or the deadline).
  const failedFetches = new WeakSet<object>();
  const fetchOnce: typeof fetch = (input, init) =>
    settings.fetch(input, init).catch((error: unknown) => {
      if (typeof error === "object" && error !== null) failedFetches.add(error);
      throw error;
    });
  const transport = createConnectTransport({ baseUrl: settings.serviceUrl, useBinaryFormat: true, fetch: fetchOnce, interceptors: [...settings.grpcInterceptors] });
  return createRpcTransport(settings, services, {
    transport,
    endpointIsDefault: false,
    reachedNothing: (error) => {
      const cause = (error as { cause?: unknown }).cause;
      return (typeof cause === "object" && cause !== null && failedFetches.has(cause)) || (typeof error === "object" && error !== null && failedFetches.has(error));
    },
    close: () => {},
  });
}
