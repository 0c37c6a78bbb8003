// The clients on Node: undici's pooled fetch with the client's TLS options, gRPC over HTTP/2.
import { pooledFetch } from "./fetch-node.js";
import { grpcTarget } from "./grpc-target.js";
import type { ClientPlatform } from "./transport.js";

export const PLATFORM: ClientPlatform = {
  name: "node",
  ownFetch: pooledFetch,
  rpcTarget: grpcTarget,
  loadRpc: () => import("./grpc.js"),
};
