// What a store failure answers on every protocol: a taken unique value is ALREADY_EXISTS with the
// rule's own message; a database that cannot be reached, is read-only or is full is UNAVAILABLE.
// No message quotes a value or a hash (URLs are printed by redactUrl of ../secrets.ts).
import { ServiceError } from "../../generated/server/index.js";

export const conflict = (message: string) => new ServiceError("ALREADY_EXISTS", message);

/** Seconds a caller is asked to wait (Retry-After) while the database is away: the store pings it about as often. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;
export const unavailable = (why: string) => new ServiceError("UNAVAILABLE", `the database ${why}; try again later`, undefined, undefined, DATABASE_RETRY_AFTER_SECONDS);
