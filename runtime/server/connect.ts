// Connect and gRPC-Web on the HTTP port, through connect-node: a browser (or any HTTP/1.1 client)
// calls the RPCs at `/<package>.<Service>/<Method>` beside GraphQL and REST. Each RPC converts the
// protobuf-es request to the plain input, runs the shared pipeline and answers the same flat fields.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { ERROR_CODE_METADATA, ERROR_WIRE, type ServiceError } from "../errors.js";
import { fromProtoInput, toProtoInit } from "../shape.js";
import { serializeCookie, type CallPipeline } from "./invoke.js";
import { rpcMethods, serviceErrorOf, SOCKET_ADDRESS, type CallerAddressResolver } from "./rpc.js";

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;

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
 * UNIMPLEMENTED for an RPC path no service serves, in the protocol the request speaks: gRPC-Web and
 * gRPC put the status in headers (a trailers-only answer), Connect answers 501 with its JSON error.
 * (connect-node's own answer is a bare 404, which gRPC clients cannot read.)
 */
function unimplemented(request: NodeRequest, response: NodeResponse): void {
  const error = new ConnectError("the path names no RPC of this service", Code.Unimplemented, { [ERROR_CODE_METADATA]: "UNIMPLEMENTED" });
  const contentType = String(request.headers["content-type"] ?? "");
  request.resume();
  if (/^application\/grpc/i.test(contentType)) {
    const headers: Record<string, string> = { "content-type": contentType, "content-length": "0" };
    setTrailerStatus(new Headers(), error).forEach((value, name) => (headers[name] = value));
    response.writeHead(200, headers);
    response.end();
  } else {
    const body = errorToJsonBytes(error, {});
    response.writeHead(codeToHttpStatus(error.code), { "content-type": "application/json", "content-length": String(body.byteLength), [ERROR_CODE_METADATA]: "UNIMPLEMENTED" });
    response.end(body);
  }
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

  constructor(pipeline: CallPipeline, services: readonly DescService[], options: ConnectRoutesOptions) {
    const { schema } = pipeline;
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
                operation,
                input: fromProtoInput(schema, operation.input, request),
                headers,
                remoteAddress: callerAddress(context.values.get(socketAddress), headers),
                setCookie: (name, value, cookieOptions) => context.responseHeader.append("set-cookie", serializeCookie(name, value, cookieOptions)),
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
    this.adapter(request, response);
  }
}
