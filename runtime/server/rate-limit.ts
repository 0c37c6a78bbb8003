// Rate limits per caller address and operation class, on rate-limiter-flexible with its counters in
// the server's store: replicas on one Redis limit a caller together. Off unless the option is given.
import type { RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { ServiceError } from "../errors.js";
import type { OperationSpec } from "../schema.js";
import { storeUnavailable, type RateLimiterModule, type Store } from "./store.js";

/** Reads (GraphQL queries, REST GETs), writes, and the token routes (/oauth/token, /oauth/revoke). */
export type OperationClass = "read" | "write" | "token";
export const OPERATION_CLASSES: readonly OperationClass[] = ["read", "write", "token"];

export const classOf = (operation: OperationSpec): OperationClass => (operation.surface === "oauth" ? "token" : operation.kind);

export interface RateLimitRule {
  /** Calls a second, sustained. */
  perSecond: number;
  /** Calls beyond that allowed over any `burstWindowSeconds`, once a second's allowance is spent. */
  burst: number;
}

export interface RateLimitOptions {
  /** Per class: a rule, or false for no limit. Default for each: 30 a second, burst 20. */
  read?: RateLimitRule | false;
  write?: RateLimitRule | false;
  token?: RateLimitRule | false;
  /** The window of the burst allowance (default 10 s). */
  burstWindowSeconds?: number;
  /**
   * While the store cannot be reached: "open" (default) limits each replica on its own, in memory;
   * "closed" refuses the calls with UNAVAILABLE.
   */
  whenStoreDown?: "open" | "closed";
}

/** 30 calls a second with a burst of 20, as the service's own server does. */
export const DEFAULT_RATE_LIMIT: RateLimitRule = { perSecond: 30, burst: 20 };
export const DEFAULT_BURST_WINDOW_SECONDS = 10;

function checkRule(name: string, rule: RateLimitRule): void {
  for (const [field, value] of Object.entries(rule)) {
    if (!Number.isInteger(value) || value < (field === "perSecond" ? 1 : 0))
      throw new RangeError(`rateLimit.${name}.${field} must be a whole number${field === "perSecond" ? " >= 1" : " >= 0"}, not ${value}`);
  }
}

interface ClassLimiter {
  consume(key: string): Promise<unknown>;
}

export class RateLimiter {
  private constructor(
    private readonly limiters: ReadonlyMap<OperationClass, ClassLimiter>,
    private readonly failClosed: boolean,
    /** Called with the class of each refused call (metrics). */
    private readonly onLimited: (operationClass: OperationClass) => void,
  ) {}

  /** Builds the limiters (loads rate-limiter-flexible); the store must have been started. */
  static async create(store: Store, options: RateLimitOptions, onLimited: (operationClass: OperationClass) => void = () => {}): Promise<RateLimiter> {
    const module: RateLimiterModule = await import("rate-limiter-flexible");
    const burstWindow = options.burstWindowSeconds ?? DEFAULT_BURST_WINDOW_SECONDS;
    if (!Number.isInteger(burstWindow) || burstWindow < 1) throw new RangeError(`rateLimit.burstWindowSeconds must be a whole number >= 1, not ${burstWindow}`);
    const whenStoreDown = options.whenStoreDown ?? "open";
    if (whenStoreDown !== "open" && whenStoreDown !== "closed") throw new RangeError(`rateLimit.whenStoreDown must be "open" or "closed", not ${String(whenStoreDown)}`);
    const limiters = new Map<OperationClass, ClassLimiter>();
    for (const name of OPERATION_CLASSES) {
      const rule = options[name] ?? DEFAULT_RATE_LIMIT;
      if (rule === false) continue;
      checkRule(name, rule);
      // Fail-open: while the store is away each replica counts on its own (rate-limiter-flexible's insurance limiter).
      const limiter = (keyPrefix: string, points: number, durationSeconds: number): RateLimiterAbstract => {
        const insurance = whenStoreDown === "open" ? new module.RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }) : undefined;
        return store.rateLimiter(module, { keyPrefix, points, durationSeconds, insurance });
      };
      const sustained = limiter(`rl:${name}`, rule.perSecond, 1);
      limiters.set(name, rule.burst > 0 ? new module.BurstyRateLimiter(sustained, limiter(`rl:${name}:burst`, rule.burst, burstWindow)) : sustained);
    }
    return new RateLimiter(limiters, whenStoreDown === "closed", onLimited);
  }

  /** Counts one call of `operation` from `address`; throws TOO_MANY_REQUESTS (or UNAVAILABLE) when it may not go on. */
  async admit(operation: OperationSpec, address: string): Promise<void> {
    return this.admitClass(classOf(operation), address);
  }

  /** Counts one call of `operationClass` from `address` (routes mounted beside the operations use it). */
  async admitClass(operationClass: OperationClass, address: string): Promise<void> {
    const limiter = this.limiters.get(operationClass);
    if (!limiter) return;
    try {
      await limiter.consume(address);
    } catch (rejection) {
      if (rejection instanceof Error) {
        // The store failed and no insurance limiter stood in: fail closed, or let the call through.
        if (this.failClosed) throw storeUnavailable();
        return;
      }
      this.onLimited(operationClass);
      const retryAfter = Math.max(1, Math.ceil((rejection as RateLimiterRes).msBeforeNext / 1000));
      throw new ServiceError(
        "TOO_MANY_REQUESTS",
        `too many ${operationClass === "token" ? "token requests" : `${operationClass}s`} from this address; try again in ${retryAfter} s`,
        undefined,
        undefined,
        retryAfter,
      );
    }
  }
}
