// Connect and gRPC-Web on the HTTP port, through connect-node: a browser (or any HTTP/1.1 client)
// calls the RPCs at `/<package>.<Service>/<Method>` beside GraphQL and REST. Each RPC converts the
// protobuf-es request to the plain input, runs the shared pipeline and answers the same flat fields.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { fromBinary, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { type Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { ERROR_CODE_METADATA, ERROR_WIRE, ServiceError } from "../errors.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../idempotency.js";
import { fromProtoInput, toProtoInit } from "../shape.js";
import type { CallPipeline } from "./invoke.js";
import { MALFORMED_MESSAGE, rpcMethods, serviceErrorOf, SOCKET_ADDRESS, type CallerAddressResolver } from "./rpc.js";

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;
/** Both responses take this form of writeHead; @types/node 24 declares overloads the union cannot call. */
const writeHead = (response: NodeResponse, status: number, headers: Record<string, string>): void => {
  (response as ServerResponse).writeHead(status, headers);
};

const socketAddress = createContextKey<string>("", { description: "address of the socket the call came on" });

function headersOf(context: HandlerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  context.requestHeader.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

const connectErrorOf = (error: ServiceError) =>
  new ConnectError(error.message, ERROR_WIRE[error.code].grpc as Code, {
    [ERROR_CODE_METADATA]: error.code,
    ...(error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : {}),
  });

/** `/<package>.<Service>/<Method>`: the path of an RPC on every RPC protocol (REST paths never look like it). */
const RPC_PATH = /^\/[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\/[A-Za-z_]\w*$/;

/**
 * An error answered before connect-node sees the call, in the protocol the request speaks: gRPC-Web
 * and gRPC put the status in headers (a trailers-only answer), Connect answers its JSON error with
 * the HTTP status of the code.
 */
function answerEarly(request: NodeRequest, response: NodeResponse, error: ServiceError): void {
  const connectError = connectErrorOf(error);
  const contentType = String(request.headers["content-type"] ?? "");
  request.resume();
  if (/^application\/grpc/i.test(contentType)) {
    const headers: Record<string, string> = { "content-type": contentType, "content-length": "0" };
    setTrailerStatus(new Headers(), connectError).forEach((value, name) => {
      headers[name] = value;
    });
    writeHead(response, 200, headers);
    response.end();
  } else {
    const body = errorToJsonBytes(connectError, {});
    writeHead(response, codeToHttpStatus(connectError.code), { "content-type": "application/json", "content-length": String(body.byteLength), [ERROR_CODE_METADATA]: error.code });
    response.end(body);
  }
}

/** UNIMPLEMENTED for an RPC path no service serves (connect-node's own answer is a bare 404, which gRPC clients cannot read). */
function unimplemented(request: NodeRequest, response: NodeResponse): void {
  answerEarly(request, response, new ServiceError("UNIMPLEMENTED", "the path names no RPC of this service"));
}

/** The prefix of each enveloped message: a flags byte and a 4-byte length. */
const ENVELOPE_PREFIX = 5;

/**
 * The media types of protobuf binary request bodies, and whether each wraps the message in
 * envelopes (gRPC, gRPC-Web). Connect's streaming form is left to connect-node: no RPC here streams.
 */
const BINARY_BODIES: Readonly<Record<string, { enveloped: boolean }>> = {
  "application/proto": { enveloped: false },
  "application/grpc": { enveloped: true },
  "application/grpc+proto": { enveloped: true },
  "application/grpc-web": { enveloped: true },
  "application/grpc-web+proto": { enveloped: true },
};

/** Whether every message of a binary body decodes as `input`; undefined when only connect-node can tell (compressed, cut short). */
function decodesAs(input: DescMessage, body: Buffer, enveloped: boolean): boolean | undefined {
  const decodes = (bytes: Uint8Array) => {
    try {
      fromBinary(input, bytes);
      return true;
    } catch {
      return false;
    }
  };
  if (!enveloped) return decodes(body);
  for (let offset = 0; offset < body.length;) {
    if (offset + ENVELOPE_PREFIX > body.length) return undefined;
    const end = offset + ENVELOPE_PREFIX + body.readUInt32BE(offset + 1);
    // A flag (compression) or a frame cut short: connect-node reads it and answers in its own words.
    if (body[offset] !== 0 || end > body.length) return undefined;
    if (!decodes(body.subarray(offset + ENVELOPE_PREFIX, end))) return false;
    offset = end;
  }
  return true;
}

/**
 * connect-node stops reading a body over the limit by returning early from the request's async
 * iterator, which destroys the request but leaves the rest of the body on the connection: the
 * next request on that keep-alive connection is never read, and a client still sending gets EPIPE
 * instead of the answer. Here the early return leaves the request whole, and the rest of the body
 * is read and dropped once the answer is on its way, as node:http does for a request nobody read.
 * (HTTP/2 streams need nothing of the kind.)
 */
function drainWhenAnsweredEarly(request: IncomingMessage, response: NodeResponse): void {
  request[Symbol.asyncIterator] = () => request.iterator({ destroyOnReturn: false });
  response.once("prefinish", () => {
    if (!request.complete) request.resume();
  });
}

export interface ConnectRoutesOptions {
  /** Largest request message accepted, in bytes; a larger one is RESOURCE_EXHAUSTED. */
  bodyLimit: number;
  /** Default: the socket's address. */
  callerAddress?: CallerAddressResolver;
}

/** The Connect and gRPC-Web routes of the HTTP port. */
export class ConnectRoutes {
  private readonly adapter: (request: NodeRequest, response: NodeResponse) => void;

  /** The request message of each RPC, by path. */
  private readonly inputs = new Map<string, DescMessage>();
  /** The most a body within the limit can take: the message and one envelope prefix. */
  private readonly bodyBytes: number;

  constructor(pipeline: CallPipeline, services: readonly DescService[], options: ConnectRoutesOptions) {
    const { schema } = pipeline;
    this.bodyBytes = options.bodyLimit + ENVELOPE_PREFIX;
    for (const { method, path } of rpcMethods(schema, services)) this.inputs.set(path, method.input);
    const callerAddress = options.callerAddress ?? SOCKET_ADDRESS;
    const routes = (router: ConnectRouter) => {
      for (const service of services) {
        const implementation: Record<string, (request: unknown, context: HandlerContext) => Promise<unknown>> = {};
        for (const { method, operation } of rpcMethods(schema, [service])) {
          implementation[method.localName] = async (request, context) => {
            const headers = headersOf(context);
            try {
              const output = await pipeline.invoke({
                protocol: "grpc",
                // Served on the HTTP port, behind its proxies: trustProxy applies, not grpcTrustProxy.
                listener: "http",
                operation,
                input: fromProtoInput(schema, operation.input, request),
                headers,
                remoteAddress: callerAddress(context.values.get(socketAddress), headers),
                setCookie: (name, value, cookieOptions) => context.responseHeader.append("set-cookie", pipeline.cookie(name, value, cookieOptions)),
                markReplayed: () => context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true"),
              });
              return toProtoInit(schema, operation.output, output);
            } catch (error) {
              throw connectErrorOf(serviceErrorOf(error));
            }
          };
        }
        router.service(service, implementation as never);
      }
    };
    this.adapter = connectNodeAdapter({
      routes,
      readMaxBytes: options.bodyLimit,
      fallback: unimplemented as never,
      contextValues: (request) => createContextValues().set(socketAddress, request.socket?.remoteAddress ?? ""),
    }) as (request: NodeRequest, response: NodeResponse) => void;
  }

  /** Whether a path is an RPC's (served here, or answered UNIMPLEMENTED). */
  owns(path: string): boolean {
    return RPC_PATH.test(path);
  }

  handle(request: NodeRequest, response: NodeResponse): void {
    if (request.httpVersionMajor === 1) drainWhenAnsweredEarly(request as IncomingMessage, response);
    const input = this.inputs.get((request.url ?? "").split("?")[0]!);
    const body =
      BINARY_BODIES[
        String(request.headers["content-type"] ?? "")
          .split(";")[0]!
          .trim()
          .toLowerCase()
      ];
    const encoded = request.headers["content-encoding"] !== undefined && request.headers["content-encoding"] !== "identity";
    // A body that says it is over the limit is connect-node's to refuse before reading it.
    const tooLarge = Number(request.headers["content-length"] ?? 0) > this.bodyBytes;
    if (input && body && !encoded && !tooLarge) void this.decodeFirst(request, response, input, body.enveloped);
    else this.adapter(request, response);
  }

  /**
   * connect-node answers INTERNAL for a binary message it cannot decode, which is the caller's
   * mistake: the body is read and decoded here first, and an undecodable one is INVALID_ARGUMENT as
   * on the gRPC port. Otherwise connect-node reads the same chunks again.
   */
  private async decodeFirst(request: NodeRequest, response: NodeResponse, input: DescMessage, enveloped: boolean): Promise<void> {
    const source = request[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const chunks: Buffer[] = [];
    let size = 0;
    let unread = false;
    let failure: unknown;
    try {
      for (let next = await source.next(); !next.done; next = await source.next()) {
        chunks.push(next.value);
        size += next.value.length;
        // Over the limit: connect-node reads on and refuses it as too large.
        if (size > this.bodyBytes) {
          unread = true;
          break;
        }
      }
    } catch (error) {
      failure = error;
    }
    if (failure === undefined && !unread && decodesAs(input, Buffer.concat(chunks), enveloped) === false) {
      answerEarly(request, response, MALFORMED_MESSAGE);
      return;
    }
    request[Symbol.asyncIterator] = async function* replay() {
      try {
        yield* chunks;
        if (failure !== undefined) throw failure;
        if (unread) for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
      } finally {
        // connect-node stops early at its limit: let go of the request as its own iterator would.
        await source.return?.();
      }
    } as never;
    this.adapter(request, response);
  }
}
