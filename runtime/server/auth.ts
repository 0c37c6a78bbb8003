// Admin-secret checks (constant time, with lockout of repeated failures per address and a budget of
// failures across all addresses), admin sessions, and the auth schemes of the manifest. The lockout
// counts and the sessions live in the server's store (store.ts), so replicas sharing a store share them.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../errors.js";
import type { AuthSchemeSpec, ServiceFacts } from "../schema.js";
import type { AdminSession, AdminSessions, Principal } from "./context.js";
import { andThen, DEFAULT_GLOBAL_LOCKOUT, DEFAULT_LOCKOUT, MemoryStore, type LockoutPolicy, type MaybePromise, type Store } from "./store.js";

export { DEFAULT_GLOBAL_LOCKOUT, DEFAULT_LOCKOUT, type LockoutPolicy } from "./store.js";

/** The one answer of an admin call while no admin exists, whatever it carries. */
export const NO_ADMIN_MESSAGE = "no admin is configured: call admin_signup first";

/**
 * The admin secret of a service that starts without one: admin_signup stores it (the service
 * decides where, hashed) and from then on `verifier` answers its check. Until then every admin
 * call is refused with NO_ADMIN_MESSAGE.
 */
export interface AdminBootstrap {
  /** The check of a candidate against the stored admin secret; undefined while none is stored. */
  verifier(): Promise<((candidate: string) => Promise<boolean>) | undefined>;
}

/**
 * The shortest admin secret a server starts with (characters). It is all that stands between the
 * network and every admin operation, and the lockouts only slow guessing down.
 */
export const MIN_ADMIN_SECRET_LENGTH = 12;

/**
 * An admin secret the server cannot start with (missing or too short). Its message says
 * everything: the stack is left out, so an uncaught one prints as one clear message.
 */
export class AdminSecretError extends Error {
  override name = "AdminSecretError";
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** What a lockout shuts out: one address, or every address (the global budget is spent). */
export type LockoutScope = "address" | "everyone";

export class AdminSecretGuard {
  private readonly expected: Buffer | undefined;
  /** Once an admin exists it stays: the stored secret's check, asked for no more. */
  private verifier: ((candidate: string) => Promise<boolean>) | undefined;
  /** Until when (this.now()) the spent global budget has been reported: once per spell, not per refused call. */
  private everyoneReportedUntil = 0;

  constructor(
    private readonly secret: string | AdminBootstrap,
    private readonly policy: LockoutPolicy = DEFAULT_LOCKOUT,
    private readonly store: Store = new MemoryStore(),
    private readonly now: () => number = Date.now,
    /**
     * Called each time an address becomes locked out (for the lockout counter of the metrics), and
     * once when the global budget is found spent (for the operator's log), with the seconds it lasts.
     */
    private readonly onLockout: (scope: LockoutScope, retryAfterSeconds: number) => void = () => {},
    /** Failures of all addresses together that lock every address out (the server's globalLockout). */
    private readonly globalPolicy: LockoutPolicy = DEFAULT_GLOBAL_LOCKOUT,
  ) {
    checkPolicy("lockout", policy);
    checkPolicy("globalLockout", globalPolicy);
    if (typeof secret === "string") {
      if (!secret) throw new AdminSecretError("an admin secret is required");
      // Counted in characters (code points), as admin_signup's min_length and the reference CLI count them.
      const length = [...secret].length;
      if (length < MIN_ADMIN_SECRET_LENGTH) {
        throw new AdminSecretError(`the admin secret must be at least ${MIN_ADMIN_SECRET_LENGTH} characters long; this one has ${length}`);
      }
      this.expected = Buffer.from(secret);
    }
  }

  /** Throws UNAUTHENTICATED (NO_ADMIN_MESSAGE) while no admin exists; synchronous once one does. */
  requireAdmin(): MaybePromise<void> {
    if (this.expected || this.verifier) return;
    return (this.secret as AdminBootstrap).verifier().then((verifier) => {
      if (!verifier) throw new ServiceError("UNAUTHENTICATED", NO_ADMIN_MESSAGE);
      this.verifier = verifier;
    });
  }

  /**
   * Constant-time comparison; a candidate of another length is compared with the secret itself,
   * so that the work done is the same either way. The store then decides the attempt in one atomic
   * step: refused with TOO_MANY_REQUESTS while the address is locked out or the global budget is
   * spent (whatever the secret), a mismatch recorded otherwise.
   */
  verify(candidate: string, address: string): MaybePromise<boolean> {
    // A stored secret's check is scrypt (tens of milliseconds of CPU): the lockouts are asked first
    // (as a right secret would be, which records nothing), so a refused attempt costs no hash.
    if (!this.expected) return andThen(this.requireAdmin(), () => andThen(this.decide(true, address), () => this.verifier!(candidate).then((ok) => this.decide(ok, address))));
    const presented = Buffer.from(candidate);
    const sameLength = presented.length === this.expected.length;
    return this.decide(timingSafeEqual(sameLength ? presented : this.expected, this.expected) && sameLength, address);
  }

  private decide(ok: boolean, address: string): MaybePromise<boolean> {
    const now = this.now();
    return andThen(this.store.secretAttempt(address, ok, this.policy, now, this.globalPolicy), (attempt) => {
      if (attempt.locked) {
        const retryAfter = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
        if (attempt.everyone) {
          // The right secret is refused too while the budget is spent: were it let through, each
          // further guess would still be told right or wrong, and the budget would stop nothing.
          if (now >= this.everyoneReportedUntil) {
            this.everyoneReportedUntil = now + attempt.retryAfterMs;
            this.onLockout("everyone", retryAfter);
          }
          throw new ServiceError("TOO_MANY_REQUESTS", `too many wrong admin secrets from all addresses; every admin-secret check is refused for ${retryAfter} s`, undefined, undefined, retryAfter);
        }
        throw new ServiceError("TOO_MANY_REQUESTS", `too many wrong admin secrets from this address; try again in ${retryAfter} s`, undefined, undefined, retryAfter);
      }
      if (!ok && attempt.failures === this.policy.maxFailures) this.onLockout("address", Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)));
      return ok;
    });
  }
}

/** A policy the stores can count with: whole numbers, at least one failure and one millisecond. */
function checkPolicy(option: string, policy: LockoutPolicy): void {
  const { maxFailures, windowMs } = policy;
  if (!Number.isInteger(maxFailures) || maxFailures < 1 || !Number.isInteger(windowMs) || windowMs < 1) {
    throw new RangeError(`${option}: maxFailures and windowMs must be whole numbers >= 1, not ${maxFailures} and ${windowMs}`);
  }
}

/** The admin session's cookie of a manifest that declares no auth_schemes (the default of its session). */
export const ADMIN_SESSION_COOKIE = "service_admin_session";
const ADMIN_SESSION_SECONDS = 24 * 3600;

/** The key of a session in the store: its id is a bearer credential and is never stored. */
export const sessionKey = (id: string) => createHash("sha256").update(id).digest("hex");

export class AdminSessionStore {
  constructor(
    private readonly store: Store = new MemoryStore(),
    private readonly now: () => number = Date.now,
    /** The cookie that carries the session's id (ServiceFacts.adminSessionCookie). */
    readonly cookieName: string = ADMIN_SESSION_COOKIE,
  ) {}

  open(): MaybePromise<AdminSession> {
    const createdAt = Math.floor(this.now() / 1000);
    const session = { id: randomBytes(24).toString("base64url"), createdAt, expiresAt: createdAt + ADMIN_SESSION_SECONDS };
    return andThen(this.store.openSession(sessionKey(session.id), session, this.now()), () => session);
  }

  get(id: string | undefined): MaybePromise<AdminSession | undefined> {
    if (!id) return undefined;
    return andThen(this.store.sessionOf(sessionKey(id), this.now()), (stored) => (stored ? { id, createdAt: stored.createdAt, expiresAt: stored.expiresAt } : undefined));
  }

  close(id: string | undefined): MaybePromise<void> {
    if (id) return this.store.closeSession(sessionKey(id));
  }

  /** The per-call view handed to implementations. */
  forCall(guard: AdminSecretGuard, address: string): AdminSessions {
    return {
      cookieName: this.cookieName,
      verifySecret: async (candidate) => guard.verify(candidate, address),
      open: async () => this.open(),
      get: async (id) => this.get(id),
      close: async (id) => this.close(id),
    };
  }
}

/** What an admin call must carry, as the refusal of a call without it says: the secret's header, and the admin session where the API opens one. */
const adminCredentialsOf = (schema: Pick<ServiceFacts, "adminSecretHeader" | "features">): string =>
  `the admin secret in header ${schema.adminSecretHeader}${schema.features.adminSession ? " (or an admin session)" : ""}`;

/** What the refusals of calls without credentials ask for, by kind; worded once per server (credentialsOf). */
export interface Credentials {
  admin: string;
  apiKey: string;
}

export const credentialsOf = (schema: Pick<ServiceFacts, "adminSecretHeader" | "apiKeyHeader" | "features">): Credentials => ({
  admin: adminCredentialsOf(schema),
  apiKey: `an API key in header ${schema.apiKeyHeader}`,
});

/**
 * Whether `principal` may call an operation of auth `scheme`; throws UNAUTHENTICATED or
 * PERMISSION_DENIED otherwise. Callers a scheme lets in by their org role are checked against the
 * organization by `isOrgAdmin`, which the service supplies: only that check returns a promise.
 */
export function authorize(scheme: AuthSchemeSpec, principal: Principal, operationName: string, credentials: Credentials, isOrgAdmin: () => Promise<boolean>): Promise<void> | undefined {
  switch (scheme.kind) {
    case "none":
      return;
    case "bearer":
      if (scheme.token === "scim") {
        if (principal.kind === "scim") return;
        throw new ServiceError("UNAUTHENTICATED", `${operationName} needs the bearer token of an organization's SCIM endpoint`);
      }
      if (principal.kind === "user") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs a signed-in user: send an access token as Authorization: Bearer <token>`);
    case "api_key":
      if (principal.kind === "api_key") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs ${credentials.apiKey}`);
    case "secret":
      if (principal.kind === "super_admin") return;
      if (principal.kind === "user") {
        const refused = () => new ServiceError("PERMISSION_DENIED", `${operationName} is for ${scheme.callers ?? "admins"} only`);
        if (!scheme.orgRole) throw refused();
        return isOrgAdmin().then((allowed) => {
          if (!allowed) throw refused();
        });
      }
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs ${credentials.admin}`);
  }
}
