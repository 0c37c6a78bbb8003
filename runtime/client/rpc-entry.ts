// createGrpcTransport of an SDK's ./grpc entry: the RPC transport of the platform the package runs
// on, as its clients use it (gRPC over HTTP/2 to grpcEndpoint on Node, Connect over fetch to
// serviceUrl in browsers, Deno, Bun and edge runtimes), loaded on its first call so that importing
// the entry pulls in neither.
import type { DescService } from "@bufbuild/protobuf";
import { PLATFORM } from "#client-platform";
import type { Transport, TransportSettings } from "./transport.js";

export function createGrpcTransport(settings: TransportSettings, services: readonly DescService[]): Transport {
  let loaded: Promise<Transport> | undefined;
  const transport = () => (loaded ??= PLATFORM.loadRpc().then((rpc) => rpc.createGrpcTransport(settings, services)));
  return {
    protocol: "grpc",
    call: async (call) => (await transport()).call(call),
    close: async () => {
      if (loaded) await (await loaded).close();
    },
  };
}
