// The gRPC port, served by @grpc/grpc-js: the RPCs of the generated services (requests decoded by
// protobuf-es, answers written by answer-encoder.ts, the shared call pipeline between), server
// reflection (v1 and v1alpha) and grpc.health.v1 (grpc-reflection.ts), with the body limit of the
// other protocols. Connect and gRPC-Web are served on the HTTP port (connect.ts).
//
// Why not connect-node here: under ghz it spends ~200 µs of CPU per unary call in its universal
// handler (async-iterable pipelines for request and answer, an AbortController per call whose abort
// builds a DOMException, header copies between Node's and fetch's Headers) and ~10% of the time in
// GC for the garbage that makes; none of it can be turned off from outside. grpc-js answers the
// same call with a fraction of that work (see bench/grpc.bench.ts).
import { createServer as createNetServer, isIP, type AddressInfo, type Server as NetServer } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { fromBinary, type DescService } from "@bufbuild/protobuf";
import { Metadata, Server, ServerCredentials, type ConnectionInjector, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from "@grpc/grpc-js";
import { HealthImplementation, type ServingStatus } from "grpc-health-check";
import { ERROR_CODE_METADATA, ERROR_WIRE, ServiceError } from "../errors.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../idempotency.js";
import type { ApiSchema } from "../schema.js";
import { fromProtoInput } from "../shape.js";
import { answerEncoder } from "./answer-encoder.js";
import { addHealthAndReflection, asBuffer } from "./grpc-reflection.js";
import type { CallPipeline } from "./invoke.js";
import { capConnectionsPerAddress } from "./http-port.js";
import type { TlsCredentials } from "./tls.js";
import { MALFORMED_MESSAGE, rpcMethods, serviceErrorOf, SOCKET_ADDRESS, type CallerAddressResolver, type RpcMethod } from "./rpc.js";

type Plain = Record<string, unknown>;

/** Whether the service takes calls, as grpc.health.v1 reports it. */
export type ServingStatusName = "SERVING" | "NOT_SERVING";

/** A readiness signal the health service follows (for instance: NOT_SERVING while a store is down). */
export interface ServingState {
  status(): ServingStatusName;
  /** Calls `listener` whenever the status changes; answers a function that stops it. */
  onChange(listener: (status: ServingStatusName) => void): () => void;
}

export interface GrpcPortOptions {
  /** Largest request message accepted, in bytes; a larger one is RESOURCE_EXHAUSTED. */
  bodyLimit: number;
  /** FileDescriptorSet of the services and everything they import, base64 (generated/server/descriptor-set.ts). */
  descriptorSet: string;
  /** Default: the socket's address. */
  callerAddress?: CallerAddressResolver;
  /** Default: SERVING while the port listens. */
  servingState?: ServingState;
}

/**
 * Request metadata as the pipeline reads headers: lower-case names, the first value of each (the
 * headers it reads come once; Node joins repeated cookies), binary `-bin` entries left out.
 */
function headersOf(metadata: Metadata): Record<string, string> {
  const headers = metadata.getMap();
  for (const name in headers) {
    if (typeof headers[name] !== "string") delete headers[name];
  }
  return headers as Record<string, string>;
}

/** The address of grpc-js's peer string (`address:port`). */
function peerAddress(peer: string): string {
  const address = peer.slice(0, peer.lastIndexOf(":"));
  return isIP(address) ? address : peer;
}

/** The grpc-js definition of one RPC: its messages in the flat shape of the pipeline. */
function methodDefinition(schema: ApiSchema, { method, operation, path }: RpcMethod) {
  const encode = answerEncoder(schema, operation.output, method.output);
  return {
    path,
    requestStream: false,
    responseStream: false,
    originalName: method.localName,
    // A malformed message becomes the error itself: grpc-js would answer a throwing deserializer INTERNAL.
    requestDeserialize(bytes: Buffer): Plain | ServiceError {
      // An empty message sets no field (reads without input send nothing): no decoding to do.
      if (bytes.length === 0) return {};
      let message;
      try {
        message = fromBinary(method.input, bytes);
      } catch {
        return MALFORMED_MESSAGE;
      }
      return fromProtoInput(schema, operation.input, message);
    },
    responseSerialize: (output: Plain) => asBuffer(encode(output)),
  };
}

function statusOf(error: ServiceError) {
  const trailer = new Metadata();
  trailer.set(ERROR_CODE_METADATA, error.code);
  if (error.retryAfterSeconds !== undefined) trailer.set("retry-after", String(error.retryAfterSeconds));
  return { code: ERROR_WIRE[error.code].grpc, details: error.message, metadata: trailer };
}

export class GrpcPort {
  private readonly server: Server;
  private readonly health = new HealthImplementation();
  /** The names grpc.health.v1 answers for: "" (the whole server) and each service. */
  private readonly healthNames: string[];
  private listening = false;
  private readonly unsubscribe: () => void;
  // The port's own listener hands connections to grpc-js, which then serves and drains them: its
  // forceShutdown() leaves open sessions alone when channelz is off (it tracks them only for channelz).
  private listener?: NetServer;
  private connections?: ConnectionInjector;

  constructor(
    pipeline: CallPipeline,
    services: readonly DescService[],
    private readonly options: GrpcPortOptions,
  ) {
    // grpc-js refuses a larger message from its length prefix, before reading it. Channelz (a
    // debugging service this server does not offer) would only cost time on every call.
    this.server = new Server({ "grpc.max_receive_message_length": options.bodyLimit, "grpc.enable_channelz": 0 });
    const callerAddress = options.callerAddress ?? SOCKET_ADDRESS;
    for (const service of services) {
      const definition: Record<string, ReturnType<typeof methodDefinition>> = {};
      const implementation: Record<string, (call: ServerUnaryCall<Plain | ServiceError, Plain>, callback: sendUnaryData<Plain>) => void> = {};
      for (const rpc of rpcMethods(pipeline.schema, [service])) {
        definition[rpc.method.name] = methodDefinition(pipeline.schema, rpc);
        implementation[rpc.method.name] = async (call, callback) => {
          const input = call.request;
          const headers = headersOf(call.metadata);
          if (input instanceof ServiceError) {
            // Refused before the pipeline ran (a message that is not protobuf): counted all the same.
            pipeline.settle("grpc", rpc.operation, input, headers);
            return callback(statusOf(input));
          }
          // Answer headers: the cookies an implementation sets, the mark of a replayed answer.
          let cookies: Metadata | undefined;
          let output: Plain | undefined;
          let failure: ServiceError | undefined;
          try {
            output = await pipeline.invoke({
              protocol: "grpc",
              // The gRPC port's own trust (grpcTrustProxy): metadata is the caller's to write.
              listener: "grpc",
              operation: rpc.operation,
              input,
              headers,
              remoteAddress: callerAddress(peerAddress(call.getPeer()), headers),
              setCookie: (name, value, cookieOptions) => (cookies ??= new Metadata()).add("set-cookie", pipeline.cookie(name, value, cookieOptions)),
              markReplayed: () => (cookies ??= new Metadata()).set(IDEMPOTENT_REPLAYED_HEADER, "true"),
            });
          } catch (error) {
            failure = serviceErrorOf(error);
          }
          if (cookies) call.sendMetadata(cookies);
          if (failure) callback(statusOf(failure));
          else callback(null, output);
        };
      }
      // grpc-js's definitions also carry a client's serializers, which a server never calls.
      this.server.addService(definition as unknown as ServiceDefinition, implementation);
    }

    this.healthNames = ["", ...services.map((service) => service.typeName)];
    addHealthAndReflection(this.server, this.health, options.descriptorSet);

    this.updateHealth();
    this.unsubscribe = options.servingState?.onChange(() => this.updateHealth()) ?? (() => {});
  }

  private updateHealth(): void {
    const status: ServingStatus = this.listening ? (this.options.servingState?.status() ?? "SERVING") : "NOT_SERVING";
    for (const name of this.healthNames) this.health.setStatus(name, status);
  }

  /**
   * Listens on host:port (0: a free port); answers the port. With `tls` the port's own listener
   * ends TLS (ALPN h2, the certificate reloaded as its files change) and hands grpc-js the
   * decrypted connection, so that one secure context serves every port and rotates in one place.
   */
  /** Listens on `port` (0: any free one); `maxPerAddress` caps one client address's connections (0: no cap). */
  listen(host: string, port: number, tls?: TlsCredentials, maxPerAddress = 0): Promise<number> {
    const connections = (this.connections = this.server.createConnectionInjector(ServerCredentials.createInsecure()));
    const listener = (this.listener = tls
      ? tls.attach(createTlsServer(tls.serverOptions(["h2"]), (socket) => connections.injectConnection(socket)))
      : createNetServer((socket) => connections.injectConnection(socket)));
    capConnectionsPerAddress(listener, maxPerAddress);
    return new Promise((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(port, host, () => {
        this.listening = true;
        this.updateHealth();
        resolve((listener.address() as AddressInfo).port);
      });
    });
  }

  /**
   * Stops taking calls: health turns NOT_SERVING, new connections are refused, calls in flight get
   * `graceMs` to finish before their connections are closed.
   */
  async close(graceMs = 0): Promise<void> {
    this.listening = false;
    this.updateHealth();
    this.unsubscribe();
    if (this.listener?.listening) {
      const closed = new Promise<void>((resolve) => this.listener!.close(() => resolve()));
      this.connections!.drain(graceMs);
      await closed;
    }
    this.server.forceShutdown();
  }
}
