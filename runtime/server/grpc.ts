// gRPC, gRPC-Web and Connect through one connect-node handler. Each RPC converts the protobuf-es
// request to the plain input, runs the shared pipeline, and answers the same flat fields.
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { ERROR_CODE_METADATA, ERROR_WIRE, ServiceError } from "../errors.js";
import type { OperationSpec } from "../schema.js";
import { fromProtoInput, toProtoInit } from "../shape.js";
import type { CallPipeline } from "./invoke.js";
import { serializeCookie } from "./invoke.js";

const peerAddress = createContextKey<string>("", { description: "remote address of the caller" });

function headersOf(context: HandlerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  context.requestHeader.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

export function grpcHandler(pipeline: CallPipeline, services: readonly DescService[]) {
  const byRpc = new Map<string, OperationSpec>();
  for (const operation of Object.values(pipeline.schema.operations)) {
    if (operation.grpc) byRpc.set(`${operation.grpc.service}/${operation.grpc.rpc}`, operation);
  }
  const routes = (router: ConnectRouter) => {
    for (const service of services) {
      const implementation: Record<string, (request: unknown, context: HandlerContext) => Promise<unknown>> = {};
      for (const method of service.methods) {
        const operation = byRpc.get(`${service.typeName}/${method.name}`);
        if (!operation) throw new Error(`RPC ${service.typeName}/${method.name} has no operation in the schema`);
        implementation[method.localName] = async (request, context) => {
          try {
            const output = await pipeline.invoke({
              protocol: "grpc",
              operation,
              input: fromProtoInput(pipeline.schema, operation.input, request),
              headers: headersOf(context),
              remoteAddress: context.values.get(peerAddress),
              setCookie: (name, value, options) => context.responseHeader.append("set-cookie", serializeCookie(name, value, options)),
            });
            return toProtoInit(pipeline.schema, operation.output, output);
          } catch (error) {
            const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
            const metadata: Record<string, string> = { [ERROR_CODE_METADATA]: serviceError.code };
            if (serviceError.retryAfterSeconds !== undefined) metadata["retry-after"] = String(serviceError.retryAfterSeconds);
            throw new ConnectError(serviceError.message, ERROR_WIRE[serviceError.code].grpc as Code, metadata);
          }
        };
      }
      router.service(service, implementation as never);
    }
  };
  const adapter = connectNodeAdapter({
    routes,
    contextValues: (request) => createContextValues().set(peerAddress, (request as IncomingMessage).socket?.remoteAddress ?? ""),
  });
  return (request: Http2ServerRequest, response: Http2ServerResponse) => {
    reclassifyParseErrors(response);
    adapter(request, response);
  };
}

/**
 * connect-node answers a request body that is not valid protobuf with INTERNAL; it is the
 * caller's mistake, so the gRPC status becomes INVALID_ARGUMENT like every other bad input.
 */
function reclassifyParseErrors(response: Http2ServerResponse): void {
  const fix = (headers: OutgoingHttpHeaders | undefined) => {
    if (!headers || String(headers["grpc-status"]) !== "13") return;
    const message = decodeURIComponent(String(headers["grpc-message"] ?? ""));
    if (!message.startsWith("parse binary")) return;
    headers["grpc-status"] = String(ERROR_WIRE.INVALID_ARGUMENT.grpc);
    headers["grpc-message"] = encodeURIComponent("the request is not a valid protobuf message");
  };
  const addTrailers = response.addTrailers.bind(response);
  response.addTrailers = (trailers) => addTrailers((fix(trailers as OutgoingHttpHeaders), trailers));
  const writeHead = response.writeHead.bind(response) as (status: number, headers?: OutgoingHttpHeaders) => Http2ServerResponse;
  response.writeHead = ((status: number, headers?: OutgoingHttpHeaders) => (fix(headers), writeHead(status, headers))) as never;
}
