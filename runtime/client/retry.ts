// The wait between two attempts of a call. A module of its own, loaded on the first failure that
// may be tried again: a call that succeeds at once never loads it (a browser app's bundle is smaller).
import type { RetryPolicy } from "./core.js";

/** Retries of reads when the config says nothing more. */
export const RETRY_DEFAULTS = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2000 } as const;
/** A Retry-After longer than this is not waited for; the usual backoff applies instead. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** The wait before attempt + 1: what the server asked (Retry-After, up to a minute), else exponential backoff with jitter. */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | undefined): number {
  if (retryAfterSeconds !== undefined && retryAfterSeconds * 1000 <= RETRY_AFTER_MAX_MS) return retryAfterSeconds * 1000;
  const delay = Math.min(policy.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, (policy.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs) * 2 ** (attempt - 1));
  return delay * (0.5 + Math.random() / 2);
}

/** Waits `ms`, or until `signal` aborts (resolving early; the caller then sees signal.aborted). */
export const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
