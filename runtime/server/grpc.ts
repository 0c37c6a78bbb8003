// gRPC, gRPC-Web and Connect through one connect-node handler. Each RPC converts the protobuf-es
// request to the plain input, runs the shared pipeline, and answers the same flat fields.
import type { IncomingMessage } from "node:http";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { ERROR_WIRE, ServiceError } from "../errors.js";
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
            throw new ConnectError(serviceError.message, ERROR_WIRE[serviceError.code].grpc as Code, { "x-error-code": serviceError.code });
          }
        };
      }
      router.service(service, implementation as never);
    }
  };
  return connectNodeAdapter({
    routes,
    contextValues: (request) => createContextValues().set(peerAddress, (request as IncomingMessage).socket?.remoteAddress ?? ""),
  });
}
