// What a store failure answers on every protocol: a taken unique value is ALREADY_EXISTS with the
// rule's own message; a database that cannot be reached, is read-only or is full is UNAVAILABLE.
// No message quotes a value, a hash or a URL with its password.
import { ServiceError } from "../../generated/server/index.js";

export const conflict = (message: string) => new ServiceError("ALREADY_EXISTS", message);

export const unavailable = (why: string) => new ServiceError("UNAVAILABLE", `the database ${why}; try again later`);

/** A database URL as it may be printed: without its password. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
  }
}
