// What a client tells of each attempt: the hooks and their events, the logger and its line. Its code
// is loaded by a client given a hook or a logger alone; core.ts re-exports its types.
import type { Protocol, ClientServiceFacts } from "../schema.js";
import type { ApiError } from "./errors.js";

/** What a hook sees before an attempt; `headers` may be changed, and are sent as they are then. */
export interface RequestEvent {
  operation: string;
  protocol: Protocol;
  attempt: number;
  headers: Record<string, string>;
}

/** What a hook sees after an attempt: the answer's status and headers (gRPC: metadata), or its error. */
export interface ResponseEvent {
  operation: string;
  protocol: Protocol;
  attempt: number;
  /** HTTP status; undefined over gRPC or when no answer came. */
  status: number | undefined;
  headers: Headers;
  durationMs: number;
  /** Whether the client tries again after this attempt. */
  willRetry: boolean;
  error?: ApiError;
}

export interface ClientHooks {
  onRequest?(event: RequestEvent): void | Promise<void>;
  onResponse?(event: ResponseEvent): void;
}

/** The console's shape: any logger with debug and warn takes the lines. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Headers whose values never reach a log line or a hook's copy: credentials, by one rule. */
export function redactHeaders(schema: Pick<ClientServiceFacts, "adminSecretHeader" | "apiKeyHeader">, headers: Record<string, string> | Headers): Record<string, string> {
  const secret = new Set(["authorization", "cookie", "set-cookie", "proxy-authorization", schema.adminSecretHeader.toLowerCase(), schema.apiKeyHeader.toLowerCase()]);
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(entries.map(([name, value]) => [name, secret.has(name.toLowerCase()) ? "[redacted]" : value]));
}

/** Who hears of attempts: the hooks, and the logger with whether it takes every attempt (debug) or failures alone. */
export interface Observers {
  service: ClientServiceFacts;
  hooks: ClientHooks;
  logger: Logger | undefined;
  logAttempts: boolean;
}

/** An attempt seen: the hook, and the log line (its headers redacted). Neither may end the call. */
export function observe(observers: Observers, event: ResponseEvent, sent: Record<string, string>): void {
  const { hooks, logger } = observers;
  try {
    hooks.onResponse?.(event);
  } catch {
    // A hook that throws changes nothing of the call.
  }
  if (!logger || (!event.error && !observers.logAttempts)) return;
  const outcome = event.error ? `${event.error.code}${event.status ? ` (HTTP ${event.status})` : ""}` : event.status ? `HTTP ${event.status}` : "OK";
  const line = `${observers.service.name}: ${event.operation} over ${event.protocol}, attempt ${event.attempt}: ${outcome} in ${event.durationMs.toFixed(0)} ms${event.willRetry ? ", retrying" : ""}`;
  const fields = {
    operation: event.operation,
    protocol: event.protocol,
    attempt: event.attempt,
    status: event.status,
    code: event.error?.code,
    durationMs: Math.round(event.durationMs),
    willRetry: event.willRetry,
    headers: redactHeaders(observers.service, sent),
  };
  if (event.error) logger.warn(line, fields);
  else logger.debug(line, fields);
}
