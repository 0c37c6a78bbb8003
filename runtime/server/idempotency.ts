// Writes sent with an Idempotency-Key (runtime/idempotency.ts) are applied once. The first request
// with a key claims it; its answer is kept for the window (24 h by default) and given again to
// every repeat with the same input, marked as a replay, without running the operation again. A
// repeat with another input, or while the first still runs, is refused. The store is the service's
// (its database, so that replicas share it); an in-memory one serves a single process.
import { createHash } from "node:crypto";
import { ServiceError } from "../errors.js";
import { IDEMPOTENCY_KEY_FORM, IDEMPOTENCY_KEY_PATTERN } from "../idempotency.js";
import type { OperationSpec } from "../schema.js";
import type { Principal } from "./context.js";
import type { MaybePromise } from "./store.js";

type Plain = Record<string, unknown>;

/** What a request asks of the store: its key, who sent it, and what it asks to be done. */
export interface IdempotencyRequest {
  /** The caller (idempotencyScope) and the key: a key belongs to its caller alone. */
  readonly scope: string;
  readonly key: string;
  readonly operation: string;
  /** SHA-256 of the operation's validated input (inputHash): the same request, or another. */
  readonly inputHash: string;
}

/** What the store decided of a claim. */
export type IdempotencyClaim =
  /** The first request with this key (or the last one gave up): it runs the operation. */
  | { readonly state: "claimed" }
  /** The key's first request answered this: given again. */
  | { readonly state: "replay"; readonly answer: Plain }
  /** The key's first request is still running (or died less than a lease ago). */
  | { readonly state: "running" }
  /** The key was used for another operation or another input. */
  | { readonly state: "mismatch"; readonly operation: string };

export interface IdempotencyStore {
  /**
   * Claims `request.key` for `request.scope`, atomically across every process sharing the store:
   * of requests racing with one key, one is claimed. A claim that was neither completed nor
   * released within `leaseMs` (its process died) may be claimed again; a completed one is replayed
   * until `windowMs` after it was claimed.
   */
  claim(request: IdempotencyRequest, nowMs: number, leaseMs: number, windowMs: number): MaybePromise<IdempotencyClaim>;
  /** Keeps the answer of a claimed key, to be replayed until `windowMs` after the claim. */
  complete(request: IdempotencyRequest, answer: Plain, nowMs: number, windowMs: number): MaybePromise<void>;
  /** Gives a claimed key up (its operation failed, so nothing was written): the next request with it runs again. */
  release(request: IdempotencyRequest): MaybePromise<void>;
}

export interface IdempotencyOptions {
  /** Where keys and first answers are kept; by default this process's memory (not shared by replicas). */
  store?: IdempotencyStore;
  /** How long a first answer is replayed, from its request. Default 24 h. */
  windowMs?: number;
  /** How long a claim that is neither completed nor released holds its key (a request still running, or whose process died). Default 60 s. */
  leaseMs?: number;
}

export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60_000;
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 60_000;
/** What a request that meets its key's first request still running is asked to wait, in seconds. */
export const RUNNING_RETRY_AFTER_SECONDS = 1;

/** Whose key it is: keys of different callers never meet. An anonymous caller is known by its address. */
export function idempotencyScope(principal: Principal, address: string): string {
  switch (principal.kind) {
    case "secret":
      return "secret";
    case "user":
      return `user:${principal.userId}`;
    case "token":
      return `token:${principal.token}:${principal.holder}`;
    case "api_key":
      return `api_key:${principal.keyId}`;
    case "anonymous":
      return `address:${address}`;
  }
}

/** SHA-256 of the input as canonical JSON (keys sorted at every level): the same input, the same hash. */
export function inputHash(input: unknown): string {
  return createHash("sha256").update(canonicalJson(input)).digest("base64url");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Plain)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The key a call carries, checked; undefined when it carries none. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(header)) throw new ServiceError("INVALID_ARGUMENT", `the Idempotency-Key must be ${IDEMPOTENCY_KEY_FORM}`);
  return header;
}

/** The refusal of a claim that is not this request's to run, or undefined when it is (claimed) or replayed. */
export function refusalOf(claim: IdempotencyClaim, operation: OperationSpec): ServiceError | undefined {
  if (claim.state === "running") {
    return new ServiceError("UNAVAILABLE", "a request with this Idempotency-Key is still running; retry it after it ends", undefined, undefined, RUNNING_RETRY_AFTER_SECONDS);
  }
  if (claim.state === "mismatch") {
    const other = claim.operation === operation.name ? "with another input" : `for ${claim.operation}`;
    // The key is not repeated: no message quotes a value the caller sent.
    return new ServiceError("INVALID_ARGUMENT", `this Idempotency-Key was first sent ${other}; send a new key with a new request`);
  }
  return undefined;
}

interface MemoryEntry {
  operation: string;
  inputHash: string;
  claimedAt: number;
  answer?: Plain;
}

/** Keys in this process's memory: for one process; replicas need a shared store. Expired entries are swept as claims come. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, MemoryEntry>();
  private sweptAt = 0;

  claim(request: IdempotencyRequest, nowMs: number, leaseMs: number, windowMs: number): IdempotencyClaim {
    if (nowMs - this.sweptAt > 60_000) this.sweep(nowMs, windowMs);
    const id = `${request.scope}\0${request.key}`;
    const found = this.entries.get(id);
    const live = found && nowMs - found.claimedAt < (found.answer ? windowMs : leaseMs);
    if (!live) {
      this.entries.set(id, { operation: request.operation, inputHash: request.inputHash, claimedAt: nowMs });
      return { state: "claimed" };
    }
    if (found.operation !== request.operation || found.inputHash !== request.inputHash) return { state: "mismatch", operation: found.operation };
    return found.answer ? { state: "replay", answer: found.answer } : { state: "running" };
  }

  complete(request: IdempotencyRequest, answer: Plain): void {
    const found = this.entries.get(`${request.scope}\0${request.key}`);
    if (found) found.answer = answer;
  }

  release(request: IdempotencyRequest): void {
    const id = `${request.scope}\0${request.key}`;
    if (!this.entries.get(id)?.answer) this.entries.delete(id);
  }

  private sweep(nowMs: number, windowMs: number): void {
    this.sweptAt = nowMs;
    for (const [id, entry] of this.entries) if (nowMs - entry.claimedAt >= windowMs) this.entries.delete(id);
  }
}
