// The stubs' idempotency keys kept in the service's database (SQLite, or PostgreSQL shared by
// replicas): a key is claimed by inserting its row, which the table's primary key lets one request
// do, whichever replica it reached; the first answer is kept in that row for the window.
import { ServiceError } from "../generated/server/index.js";
import type { IdempotencyClaim, IdempotencyRequest, IdempotencyStore } from "../generated/server/index.js";
import { sha256 } from "./secrets.js";
import type { IdempotencyKeyRecord, Storage } from "./storage.js";

/** Expired rows are deleted at most this often by one process, by the claim that comes after. */
const SWEEP_EVERY_MS = 60_000;

export class DatabaseIdempotencyStore implements IdempotencyStore {
  private sweptAt = 0;

  constructor(private readonly storage: Storage) {}

  async claim(request: IdempotencyRequest, nowMs: number, leaseMs: number): Promise<IdempotencyClaim> {
    const keys = this.storage.idempotencyKeys;
    if (nowMs - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = nowMs;
      await keys.deleteWhere({ expires_at: { lte: nowMs } });
    }
    const record: IdempotencyKeyRecord = { key: rowKey(request), operation: request.operation, input_hash: request.inputHash, claimed_at: nowMs, expires_at: nowMs + leaseMs, answer: null };
    // Twice at most: a row found expired is deleted, and the insert tried again (one wins a race).
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await inserted(() => keys.insert(record))) return { state: "claimed" };
      const found = await keys.get(record.key);
      if (!found) continue;
      if (found.expires_at <= nowMs) {
        await keys.delete(record.key);
        continue;
      }
      if (found.operation !== request.operation || found.input_hash !== request.inputHash) return { state: "mismatch", operation: found.operation };
      return found.answer ? { state: "replay", answer: found.answer } : { state: "running" };
    }
    return { state: "running" };
  }

  async complete(request: IdempotencyRequest, answer: Record<string, unknown>, _nowMs: number, windowMs: number): Promise<void> {
    const keys = this.storage.idempotencyKeys;
    const found = await keys.get(rowKey(request));
    if (found) await keys.update({ ...found, answer, expires_at: found.claimed_at + windowMs });
  }

  async release(request: IdempotencyRequest): Promise<void> {
    const keys = this.storage.idempotencyKeys;
    const found = await keys.get(rowKey(request));
    if (found && !found.answer) await keys.delete(found.key);
  }
}

const rowKey = (request: IdempotencyRequest) => sha256(`${request.scope}\n${request.key}`);

/** Whether `insert` added the row: false when its key is taken (ALREADY_EXISTS); other errors go on. */
async function inserted(insert: () => Promise<void>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if (error instanceof ServiceError && error.code === "ALREADY_EXISTS") return false;
    throw error;
  }
}
