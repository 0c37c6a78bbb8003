// A value that arrives later, handed to its one reader by callback instead of through a promise.
// On Node 20 each promise costs ~0.5 µs more once AsyncLocalStorage is on (as it is for good once an
// OpenTelemetry SDK makes a span's context active): a REST call whose body is read by its stream's
// events and whose steps run on at once makes two, its implementation's and the one waiting for it.
import type { MaybePromise } from "./store.js";

export class Pending<T> implements PromiseLike<T> {
  private state: "waiting" | "resolved" | "rejected" = "waiting";
  private outcome: unknown;
  private onValue: ((value: T) => void) | undefined;
  private onError: ((error: unknown) => void) | undefined;

  resolve(value: T): void {
    if (this.state !== "waiting") return;
    this.state = "resolved";
    this.outcome = value;
    this.onValue?.(value);
  }

  reject(error: unknown): void {
    if (this.state !== "waiting") return;
    this.state = "rejected";
    this.outcome = error;
    this.onError?.(error);
  }

  /** Calls `onValue` or `onError` once, at once when already settled; for one reader (a second replaces the first). */
  settle(onValue: (value: T) => void, onError: (error: unknown) => void): void {
    if (this.state === "resolved") onValue(this.outcome as T);
    else if (this.state === "rejected") onError(this.outcome);
    else {
      this.onValue = onValue;
      this.onError = onError;
    }
  }

  /** For `await`, where a promise costs nothing that matters. */
  // biome-ignore lint/suspicious/noThenProperty: PromiseLike on purpose, so that await takes it
  then<A = T, B = never>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return new Promise<T>((resolve, reject) => this.settle(resolve, reject)).then(onfulfilled, onrejected);
  }
}

/** A value now, a promise of one, or a Pending one. */
export type Eventual<T> = MaybePromise<T> | Pending<T>;

/**
 * Hands `next` the value of `value` (at once when it is one), and `fail` the rejection or anything
 * `next` throws once it runs later; a throw of `next` run at once is the caller's to catch. A
 * thenable that is no Promise (an implementation's own) is awaited as `await` would.
 */
export function whenSettled<T>(value: Eventual<T> | PromiseLike<T>, next: (value: T) => void, fail: (error: unknown) => void): void {
  if (value instanceof Pending) value.settle(guard(next, fail), fail);
  else if (value instanceof Promise) value.then(guard(next, fail), fail);
  else if (isThenable(value)) Promise.resolve(value).then(guard(next, fail), fail);
  else next(value as T);
}

function guard<T>(next: (value: T) => void, fail: (error: unknown) => void): (value: T) => void {
  return (value) => {
    try {
      next(value);
    } catch (error) {
      fail(error);
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
