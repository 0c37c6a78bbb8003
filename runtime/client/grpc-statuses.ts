// How the RPC clients read a gRPC status that names no code of the service's. A module of its own,
// imported by the RPC transport alone: a REST or GraphQL app does not carry it.
import { ERROR_WIRE } from "../error-codes.js";

/** gRPC's CANCELLED and UNKNOWN: outside the server's code set, so not in ERROR_WIRE. */
const GRPC_CANCELLED = 1;
const GRPC_UNKNOWN = 2;

/**
 * gRPC statuses of a stream without a readable answer when the service names no code (a reset, a
 * missing status, a message that does not decode): INTERNAL, and UNKNOWN that some libraries give.
 */
export const GRPC_UNREADABLE_STATUSES: readonly number[] = [ERROR_WIRE.INTERNAL.grpc, GRPC_UNKNOWN];
/** gRPC statuses of a call the service did not answer, when it names no code: UNAVAILABLE, and CANCELLED that the caller did not ask for (a dropped connection). */
export const GRPC_NO_ANSWER_STATUSES: readonly number[] = [ERROR_WIRE.UNAVAILABLE.grpc, GRPC_CANCELLED];
