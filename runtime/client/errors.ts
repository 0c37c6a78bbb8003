// The one error class of every client, whatever protocol carried the call.
import type { ErrorCode } from "../errors.js";
import type { Protocol } from "../schema.js";

/** The server's code set (UNAVAILABLE also when no answer came), plus what a client can tell on its own: too late, cancelled. */
export type ClientErrorCode = ErrorCode | "DEADLINE_EXCEEDED" | "CANCELLED";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    /** snake_case operation name. */
    readonly operation: string,
    readonly protocol: Protocol,
    options: {
      /** True when the client refused the call before sending anything. */
      refused?: boolean;
      /** HTTP status of the answer, over GraphQL and REST. */
      status?: number;
      /** RFC 6749 error of the token routes. */
      oauthError?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.refused = options.refused ?? false;
    this.status = options.status;
    this.oauthError = options.oauthError;
  }
  readonly refused: boolean;
  readonly status: number | undefined;
  readonly oauthError: string | undefined;

  /** Failures worth another try for a read: no answer, or an overloaded server. */
  get transient(): boolean {
    return this.code === "UNAVAILABLE" || this.code === "TOO_MANY_REQUESTS" || this.status === 502 || this.status === 503 || this.status === 504;
  }
}
