// Idempotency keys (the IETF httpapi draft "The Idempotency-Key HTTP Header Field"): a write sent
// with a key is applied once; the same key again answers the first answer, marked as a replay.
// The header names are those of HTTP, lower-cased as gRPC metadata and Node's headers spell them.

/** The request header (gRPC metadata) that carries the key. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** The answer header (gRPC metadata) of a replayed answer, with the value "true". */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
/** A key as the service takes it: visible ASCII, 1 to 255 characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** The form a key takes, as errors name it. */
export const IDEMPOTENCY_KEY_FORM = "1 to 255 printable ASCII characters without spaces";
