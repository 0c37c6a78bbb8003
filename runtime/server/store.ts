// The state the stubs keep between calls (secret lockout per address and across all of them,
// sessions, rate-limit counters) behind one interface: in this process by default, in Redis
// (store-redis.ts) when several replicas must share it. Every operation is atomic in its store, and
// none of them keeps a local copy of shared state, so a replica never lets through what another
// replica has locked out or logged out.
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { ServiceError } from "../errors.js";

/** A value now (the in-memory store) or later (a networked one): the in-memory path makes no promise. */
export type MaybePromise<T> = T | Promise<T>;

export interface LockoutPolicy {
  /** Failed secrets from one address within `windowMs` that lock it out. */
  maxFailures: number;
  windowMs: number;
}

/** 10 failures in 15 minutes, as the service documents. */
export const DEFAULT_LOCKOUT: LockoutPolicy = { maxFailures: 10, windowMs: 15 * 60_000 };

/**
 * 100 failures a minute from all addresses together. Far above what admins mistype, and it bounds
 * an attacker with many addresses, whom the lockout per address does not slow down.
 */
export const DEFAULT_GLOBAL_LOCKOUT: LockoutPolicy = { maxFailures: 100, windowMs: 60_000 };

/** What the store decided about one secret attempt. */
export interface SecretAttempt {
  /** The address, or every address (`everyone`), was locked out before this attempt: it is refused whatever the secret. */
  locked: boolean;
  /** Set when the lock is the global one: the failures of all addresses spent the budget of `global`. */
  everyone?: boolean;
  /** Failures within the window (of all addresses when `everyone`), this one included. */
  failures: number;
  /** Until the oldest counted failure leaves the window (when locked, or when this failure locked it). */
  retryAfterMs: number;
}

/** A session as stored: its id is never stored, only the SHA-256 of it, as the key. */
export interface StoredSession {
  /** Seconds since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Settings of one rate limiter (one operation class). */
export interface LimiterSettings {
  /** Key prefix of this limiter's counters, inside the store's own prefix. */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
  /** Counts in its stead while a networked store cannot be reached (rate-limiter-flexible's insurance limiter). */
  insurance?: RateLimiterAbstract;
}

/** rate-limiter-flexible, loaded only when rate limiting is on. */
export type RateLimiterModule = typeof import("rate-limiter-flexible");

export interface Store {
  /** "memory" or "redis": for start-up lines and errors. */
  readonly kind: string;
  /** Loads what the store needs and connects; `listen()` calls it. Never rejects because the backend is down. */
  start(onWarning: (message: string) => void): Promise<void>;
  /**
   * One secret attempt from `address`, decided atomically: if the address is locked out, or
   * the failures of all addresses have reached `global.maxFailures` (when `global` is given),
   * nothing is recorded; otherwise a failure (`ok` false) is recorded, for the address and for all.
   * So however many replicas race, at most `maxFailures` wrong secrets from one address, and at
   * most `global.maxFailures` from all of them, get an answer other than locked within a window.
   */
  secretAttempt(address: string, ok: boolean, policy: LockoutPolicy, nowMs: number, global?: LockoutPolicy): MaybePromise<SecretAttempt>;
  /** Keeps a session under `key` (the SHA-256 of its id, never the id) until it expires. */
  openSession(key: string, session: StoredSession, nowMs: number): MaybePromise<void>;
  sessionOf(key: string, nowMs: number): MaybePromise<StoredSession | undefined>;
  closeSession(key: string): MaybePromise<void>;
  /** A rate limiter of rate-limiter-flexible whose counters live in this store. */
  rateLimiter(module: RateLimiterModule, settings: LimiterSettings): RateLimiterAbstract;
  /** Resolves when the store answers; rejects with the reason otherwise. */
  ping(): Promise<void>;
  /** Whether the store was reachable at its last contact. */
  reachable(): boolean;
  /** Called with each change of reachable(); answers the function that unsubscribes. */
  onReachableChange(listener: (reachable: boolean) => void): () => void;
  close(): Promise<void>;
}

/**
 * What a call hears while the store cannot be reached: UNAVAILABLE on every protocol, with a retry
 * hint. The calls that need the store (calls of a secret scheme, rate-limited calls that fail closed) fail
 * closed; nothing is answered from a local copy.
 */
export function storeUnavailable(): ServiceError {
  return new ServiceError("UNAVAILABLE", "the service cannot reach its state store; try again shortly", undefined, undefined, 1);
}

export interface MemoryStoreOptions {
  /**
   * Most addresses whose failures are remembered (default 50 000); past it the address whose last
   * failure is oldest is forgotten first. Bounds memory when failures come from many addresses.
   */
  maxLockoutAddresses?: number;
}

export const DEFAULT_MAX_LOCKOUT_ADDRESSES = 50_000;

/** The default store: one process, nothing to install. Answers synchronously. */
export class MemoryStore implements Store {
  readonly kind = "memory";
  private readonly maxAddresses: number;
  /** Failure times per address; Map order is the order of last failure, oldest first. */
  private readonly failures = new Map<string, number[]>();
  /** Failure times of all addresses, oldest first: at most the global maxFailures, since a refused attempt records nothing. */
  private readonly allFailures: number[] = [];
  private readonly sessions = new Map<string, StoredSession>();

  constructor(options: MemoryStoreOptions = {}) {
    this.maxAddresses = options.maxLockoutAddresses ?? DEFAULT_MAX_LOCKOUT_ADDRESSES;
    if (!Number.isInteger(this.maxAddresses) || this.maxAddresses < 1) throw new RangeError("maxLockoutAddresses must be a positive integer");
  }

  /** Addresses with failures remembered now (for tests of the bound). */
  get lockoutAddresses(): number {
    return this.failures.size;
  }

  async start(): Promise<void> {}

  secretAttempt(address: string, ok: boolean, policy: LockoutPolicy, nowMs: number, global?: LockoutPolicy): SecretAttempt {
    if (global) {
      const all = this.allFailures;
      while (all.length > 0 && all[0]! <= nowMs - global.windowMs) all.shift();
      if (all.length >= global.maxFailures) return { locked: true, everyone: true, failures: all.length, retryAfterMs: all[0]! + global.windowMs - nowMs };
    }
    const known = this.failures.get(address);
    // The success path of an address that never failed costs one Map lookup.
    if (!known && ok) return { locked: false, failures: 0, retryAfterMs: 0 };
    const recent = (known ?? []).filter((t) => t > nowMs - policy.windowMs);
    const retryAfter = (times: number[]) => times[0]! + policy.windowMs - nowMs;
    if (recent.length >= policy.maxFailures) return { locked: true, failures: recent.length, retryAfterMs: retryAfter(recent) };
    if (!ok) {
      recent.push(nowMs);
      this.failures.delete(address); // re-inserted below, as the newest
      if (global) this.allFailures.push(nowMs);
    }
    if (recent.length === 0) this.failures.delete(address);
    else {
      this.failures.set(address, recent);
      if (this.failures.size > this.maxAddresses) this.failures.delete(this.failures.keys().next().value!);
    }
    return { locked: false, failures: recent.length, retryAfterMs: recent.length >= policy.maxFailures ? retryAfter(recent) : 0 };
  }

  openSession(key: string, session: StoredSession): void {
    this.sessions.set(key, { createdAt: session.createdAt, expiresAt: session.expiresAt });
  }

  sessionOf(key: string, nowMs: number): StoredSession | undefined {
    const session = this.sessions.get(key);
    if (session && session.expiresAt * 1000 <= nowMs) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }

  closeSession(key: string): void {
    this.sessions.delete(key);
  }

  rateLimiter(module: RateLimiterModule, settings: LimiterSettings): RateLimiterAbstract {
    return new module.RateLimiterMemory({ keyPrefix: settings.keyPrefix, points: settings.points, duration: settings.durationSeconds });
  }

  async ping(): Promise<void> {}

  reachable(): boolean {
    return true;
  }

  onReachableChange(): () => void {
    return () => {};
  }

  async close(): Promise<void> {}
}

export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}

/** `value` then `next`, without a promise when `value` is not one. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
