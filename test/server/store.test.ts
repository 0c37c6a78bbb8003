// The in-memory store: lockout decisions, its bound on remembered addresses, and admin sessions kept
// only under the SHA-256 of their id.
import { describe, expect, it } from "vitest";
import { SecretGuard, SessionStore, sessionKey } from "../../runtime/server/auth.js";
import { DEFAULT_MAX_LOCKOUT_ADDRESSES, MemoryStore } from "../../runtime/server/store.js";
import { ServiceError } from "../../runtime/errors.js";

const policy = { maxFailures: 3, windowMs: 60_000 };

describe("the in-memory lockout", () => {
  it("locks an address after maxFailures within the window, and lets it in once the oldest failure has left the window", () => {
    const store = new MemoryStore();
    expect(store.secretAttempt("a", false, policy, 1_000)).toEqual({ locked: false, failures: 1, retryAfterMs: 0 });
    expect(store.secretAttempt("a", false, policy, 2_000)).toEqual({ locked: false, failures: 2, retryAfterMs: 0 });
    // The failure that locks it says until when.
    expect(store.secretAttempt("a", false, policy, 3_000)).toEqual({ locked: false, failures: 3, retryAfterMs: 58_000 });
    expect(store.secretAttempt("a", true, policy, 4_000)).toEqual({ locked: true, failures: 3, retryAfterMs: 57_000 });
    // Locked attempts are not recorded: the window still ends 60 s after the first failure.
    expect(store.secretAttempt("a", true, policy, 61_001)).toEqual({ locked: false, failures: 2, retryAfterMs: 0 });
    expect(store.secretAttempt("b", true, policy, 4_000)).toEqual({ locked: false, failures: 0, retryAfterMs: 0 });
  });

  it(`remembers at most ${DEFAULT_MAX_LOCKOUT_ADDRESSES} addresses by default: 1e5 addresses evict the oldest`, () => {
    const store = new MemoryStore();
    for (let i = 0; i < 100_000; i++) store.secretAttempt(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, false, policy, 1_000);
    expect(store.lockoutAddresses).toBe(DEFAULT_MAX_LOCKOUT_ADDRESSES);
    // The first address is forgotten, the last one is still counted.
    expect(store.secretAttempt("10.0.0.0", false, policy, 2_000).failures).toBe(1);
    expect(store.secretAttempt("10.1.134.159", false, policy, 2_000).failures).toBe(2);
  });

  it("evicts by last failure: a locked address is forgotten once maxLockoutAddresses newer addresses have failed", () => {
    const store = new MemoryStore({ maxLockoutAddresses: 100 });
    for (let i = 0; i < 3; i++) store.secretAttempt("locked", false, policy, 1_000);
    for (let i = 0; i < 1_000; i++) {
      store.secretAttempt(`other-${i}`, false, policy, 1_000);
      // Refused attempts record nothing, so they do not make the locked address any newer.
      if (i % 50 === 0) expect([i, store.secretAttempt("locked", true, policy, 1_000).locked]).toEqual([i, i < 99]);
    }
    expect(store.lockoutAddresses).toBe(100);
  });

  it("refuses a bound that is not a positive whole number", () => {
    expect(() => new MemoryStore({ maxLockoutAddresses: 0 })).toThrow("maxLockoutAddresses must be a positive integer");
  });

  it("answers TOO_MANY_REQUESTS with the seconds to wait through the guard", () => {
    let now = 0;
    const guard = new SecretGuard("s3cret-admin-key", policy, new MemoryStore(), () => now);
    for (let i = 0; i < 3; i++) expect(guard.verify("guess", "a")).toBe(false);
    now = 10_000;
    let error: unknown;
    try {
      guard.verify("s3cret-admin-key", "a");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 50 });
  });
});

describe("a stored admin secret (bootstrap) under lockout", () => {
  // The security review: requests already answered 429 still cost 0.64-0.83 s of scrypt each, and 2
  // a second slowed every login to 7-10 s. The check of the stored secret runs only when the
  // lockouts let the attempt through.
  it("never runs the stored secret's check for an address locked out, nor while the global budget is spent", async () => {
    let now = 0;
    const checked: string[] = [];
    const bootstrap = { verifier: async () => async (candidate: string) => (checked.push(candidate), candidate === "s3cret-admin-key") };
    const guard = new SecretGuard(
      bootstrap,
      policy,
      new MemoryStore(),
      () => now,
      () => {},
      { maxFailures: 5, windowMs: 60_000 },
    );
    for (let i = 0; i < 3; i++) expect(await guard.verify(`guess-${i}`, "a")).toBe(false);
    expect(checked).toEqual(["guess-0", "guess-1", "guess-2"]);
    for (const candidate of ["guess-3", "s3cret-admin-key"]) await expect(Promise.resolve().then(() => guard.verify(candidate, "a"))).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect(checked).toHaveLength(3);
    // Another address is checked as usual, until all addresses together spend the global budget.
    expect(await guard.verify("guess-b1", "b")).toBe(false);
    expect(await guard.verify("guess-b2", "b")).toBe(false);
    await expect(Promise.resolve().then(() => guard.verify("s3cret-admin-key", "c"))).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect(checked).toEqual(["guess-0", "guess-1", "guess-2", "guess-b1", "guess-b2"]);
    // Once the windows have passed, the right secret is checked and let through.
    now = 120_000;
    expect(await guard.verify("s3cret-admin-key", "a")).toBe(true);
    expect(checked.at(-1)).toBe("s3cret-admin-key");
  });
});

describe("admin sessions in the in-memory store", () => {
  it("are kept under the SHA-256 of their id and end at expiry or close", async () => {
    let now = 1_000_000;
    const store = new MemoryStore();
    const sessions = new SessionStore("session", store, () => now);
    const session = await sessions.open();
    expect(store.sessionOf(sessionKey(session.id), now)).toEqual({ createdAt: session.createdAt, expiresAt: session.expiresAt });
    expect(store.sessionOf(session.id, now)).toBeUndefined();
    expect(await sessions.get(session.id)).toEqual(session);
    now += 24 * 3600_000;
    expect(await sessions.get(session.id)).toBeUndefined();
    const second = await sessions.open();
    await sessions.close(second.id);
    expect(await sessions.get(second.id)).toBeUndefined();
  });
});
