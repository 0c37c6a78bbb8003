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
  // It has no limit of its own on what it reads: an answer that says it is over maxResponseBytes
  // is refused here before its body is read.
  const failedFetches = new WeakSet<object>();
  const oversized = new WeakSet<object>();
  const fetchOnce: typeof fetch = async (input, init) => {
    let response: Response;
    try {
      response = await settings.fetch(input, init);
    } catch (error) {
      if (typeof error === "object" && error !== null) failedFetches.add(error);
      throw error;
    }
    const length = response.headers.get("content-length");
    if (length !== null && Number(length) > settings.maxResponseBytes) {
      await response.body?.cancel();
      const error = new RangeError(`the answer is ${length} bytes, over maxResponseBytes`);
      oversized.add(error);
      throw error;
    }
    return response;
  };
  const marked = (set: WeakSet<object>, error: unknown) => {
    const cause = (error as { cause?: unknown }).cause;
    return (typeof cause === "object" && cause !== null && set.has(cause)) || (typeof error === "object" && error !== null && set.has(error));
  };
  const transport = createConnectTransport({ baseUrl: settings.serviceUrl, useBinaryFormat: true, fetch: fetchOnce, interceptors: [...settings.grpcInterceptors] });
  return createRpcTransport(settings, services, {
    transport,
    endpointIsDefault: false,
    reachedNothing: (error) => marked(failedFetches, error),
    tooLarge: (error) => marked(oversized, error),
    close: () => {},
  });
}
