// What the two RPC servers share: the gRPC port (@grpc/grpc-js, grpc.ts) and Connect with gRPC-Web
// on the HTTP port (connect-node, connect.ts) both find the operation of an RPC here, and answer
// failures with the same status, message and x-error-code.
import type { DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { ServiceError } from "../errors.js";
import type { ApiSchema, OperationSpec } from "../schema.js";

export interface RpcMethod {
  readonly service: DescService;
  readonly method: DescMethodUnary;
  readonly operation: OperationSpec;
  /** `/<package>.<Service>/<Method>`, the HTTP path of the RPC on every RPC protocol. */
  readonly path: string;
}

/** Every RPC of `services` with its operation; throws when the services and the schema disagree (a stale generation). */
export function rpcMethods(schema: ApiSchema, services: readonly DescService[]): RpcMethod[] {
  const byRpc = new Map<string, OperationSpec>();
  for (const operation of Object.values(schema.operations)) {
    if (operation.grpc) byRpc.set(`${operation.grpc.service}/${operation.grpc.rpc}`, operation);
  }
  return services.flatMap((service) =>
    service.methods.map((method) => {
      const operation = byRpc.get(`${service.typeName}/${method.name}`);
      if (!operation) throw new Error(`RPC ${service.typeName}/${method.name} has no operation in the schema`);
      if (method.methodKind !== "unary") throw new Error(`RPC ${service.typeName}/${method.name} is not unary`);
      return { service, method: method as DescMethodUnary, operation, path: `/${service.typeName}/${method.name}` };
    }),
  );
}

/** The error a caller hears: a ServiceError as raised, anything else (a bug) as INTERNAL without details. */
export function serviceErrorOf(error: unknown): ServiceError {
  return error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
}

/** A request message that is not valid protobuf: the caller's mistake, answered like every other bad input. */
export const MALFORMED_MESSAGE = new ServiceError("INVALID_ARGUMENT", "the request is not a valid protobuf message");

/**
 * Where the RPC servers learn the caller's address, from the socket's address and the request's
 * headers (metadata). The default trusts the socket; a resolver that knows the service's trusted
 * proxies may read a forwarded address instead.
 */
export type CallerAddressResolver = (socketAddress: string, headers: Readonly<Record<string, string>>) => string;
export const SOCKET_ADDRESS: CallerAddressResolver = (socketAddress) => socketAddress;
