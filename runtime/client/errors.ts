// The one error class of every client, whatever protocol carried the call.
import type { ErrorCode } from "../errors.js";
import type { Protocol } from "../schema.js";

/** What only a client can tell: too late, cancelled. (UNAVAILABLE is the server's code, and also the client's when no answer came.) */
export const CLIENT_ERROR_CODES = ["DEADLINE_EXCEEDED", "CANCELLED"] as const;
/** The server's code set, plus the client's own. */
export type ClientErrorCode = ErrorCode | (typeof CLIENT_ERROR_CODES)[number];

/** Failures worth another try for a read: no answer, or an overloaded server. */
export const TRANSIENT_CODES: readonly ClientErrorCode[] = ["UNAVAILABLE", "TOO_MANY_REQUESTS"];
export const TRANSIENT_HTTP_STATUSES: readonly number[] = [502, 503, 504];

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
      /** Seconds the server asked to wait before another try (Retry-After; gRPC: retry-after metadata). */
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.refused = options.refused ?? false;
    this.status = options.status;
    this.oauthError = options.oauthError;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  readonly refused: boolean;
  readonly status: number | undefined;
  readonly oauthError: string | undefined;
  /** Seconds the server asked to wait before another try, when it said. */
  readonly retryAfterSeconds: number | undefined;

  /** Failures worth another try for a read: no answer, or an overloaded server. */
  get transient(): boolean {
    return TRANSIENT_CODES.includes(this.code) || (this.status !== undefined && TRANSIENT_HTTP_STATUSES.includes(this.status));
  }
}

/**
 * The seconds a Retry-After value asks to wait: delta-seconds or an HTTP date; undefined when
 * absent, unreadable or past.
 */
export function retryAfterSeconds(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const when = Date.parse(text);
  return Number.isNaN(when) || when <= nowMs ? undefined : (when - nowMs) / 1000;
}
