// gRPC transport of the clients on Node: connect-node over HTTP/2 to the gRPC endpoint, with the
// client's TLS options. Clients load it only when the protocol is grpc, so users of graphql or rest
// never load connect or HTTP/2.
import type { DescService } from "@bufbuild/protobuf";
import { createGrpcTransport as createConnectTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { createRpcTransport } from "./rpc.js";
import type { Transport, TransportSettings } from "./transport.js";

export function createGrpcTransport(settings: TransportSettings, services: readonly DescService[]): Transport {
  const tls = settings.grpcTls;
  const baseUrl = `${tls ? "https" : "http"}://${settings.grpcEndpoint}`;
  // Node's HTTP/2 session refuses to buffer more than maxSessionMemory (10 MB by default) and resets
  // the stream (ENHANCE_YOUR_CALM) before the server can answer; a large message must reach the
  // server, which answers it RESOURCE_EXHAUSTED when it is over its limit. (grpc-js lifts it the same way.)
  const sessionManager = new Http2SessionManager(baseUrl, undefined, {
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    ...(tls ? { ca: tls.ca as string | Buffer | undefined, cert: tls.cert as string | Buffer | undefined, key: tls.key as string | Buffer | undefined, servername: tls.serverName } : {}),
  });
  const transport = createConnectTransport({ baseUrl, sessionManager, readMaxBytes: settings.maxResponseBytes, interceptors: [...settings.grpcInterceptors] });
  return createRpcTransport(settings, services, { transport, endpointIsDefault: settings.grpcEndpointIsDefault, close: () => sessionManager.abort() });
}
