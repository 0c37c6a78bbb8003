// The checks of the API's secret (the secret schemes': constant time, with lockout of repeated
// failures per address and a budget of failures across all addresses), the sessions that stand in
// for it, and the auth schemes of the manifest. The lockout counts and the sessions live in the
// server's store (store.ts), so replicas sharing a store share them.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../errors.js";
import type { AuthSchemeSpec, ServiceFacts } from "../schema.js";
import type { Principal, Session, Sessions } from "./context.js";
import { andThen, DEFAULT_GLOBAL_LOCKOUT, DEFAULT_LOCKOUT, MemoryStore, type LockoutPolicy, type MaybePromise, type Store } from "./store.js";

export { DEFAULT_GLOBAL_LOCKOUT, DEFAULT_LOCKOUT, type LockoutPolicy } from "./store.js";

/**
 * How refusals and start-up errors name the API's secret and the session standing in for it: words
 * of the secret scheme's name, which the generated server module passes ("admin secret", "admin session").
 */
export interface SecretWords {
  readonly secret: string;
  readonly session: string;
}

export const DEFAULT_SECRET_WORDS: SecretWords = { secret: "secret", session: "session" };

/** "a" or "an" before a word. */
export const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

/** The answer of a call of a secret scheme while no secret is stored, unless the bootstrap says what to do (SecretBootstrap.missing). */
export const NO_SECRET_MESSAGE = "no secret is configured yet";

/**
 * The secret of a service that starts without one: an operation of the service stores it (the
 * service decides where, hashed) and from then on `verifier` answers its check. Until then every
 * call of a secret scheme is refused with `missing`.
 */
export interface SecretBootstrap {
  /** The check of a candidate against the stored secret; undefined while none is stored. */
  verifier(): Promise<((candidate: string) => Promise<boolean>) | undefined>;
  /** The one answer (UNAUTHENTICATED) of a call of a secret scheme while no secret is stored, whatever it carries: what to do first (default NO_SECRET_MESSAGE). */
  readonly missing?: string;
}

/**
 * The shortest secret a server starts with (characters). It is all that stands between the
 * network and every operation of a secret scheme, and the lockouts only slow guessing down.
 */
export const MIN_SECRET_LENGTH = 12;

/**
 * A secret the server cannot start with (missing or too short). Its message says everything: the
 * stack is left out, so an uncaught one prints as one clear message.
 */
export class SecretError extends Error {
  override name = "SecretError";
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** What a lockout shuts out: one address, or every address (the global budget is spent). */
export type LockoutScope = "address" | "everyone";

export class SecretGuard {
  private readonly expected: Buffer | undefined;
  /** Once a secret is stored it stays: the stored secret's check, asked for no more. */
  private verifier: ((candidate: string) => Promise<boolean>) | undefined;
  /** Until when (this.now()) the spent global budget has been reported: once per spell, not per refused call. */
  private everyoneReportedUntil = 0;

  constructor(
    private readonly secret: string | SecretBootstrap,
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
    private readonly words: SecretWords = DEFAULT_SECRET_WORDS,
  ) {
    checkPolicy("lockout", policy);
    checkPolicy("globalLockout", globalPolicy);
    if (typeof secret === "string") {
      if (!secret) throw new SecretError(`${article(words.secret)} ${words.secret} is required`);
      // Counted in characters (code points), as a manifest's min_length counts them.
      const length = [...secret].length;
      if (length < MIN_SECRET_LENGTH) {
        throw new SecretError(`the ${words.secret} must be at least ${MIN_SECRET_LENGTH} characters long; this one has ${length}`);
      }
      this.expected = Buffer.from(secret);
    }
  }

  /** Throws UNAUTHENTICATED (the bootstrap's `missing`) while no secret is stored; synchronous once one is. */
  requireSecret(): MaybePromise<void> {
    if (this.expected || this.verifier) return;
    const bootstrap = this.secret as SecretBootstrap;
    return bootstrap.verifier().then((verifier) => {
      if (!verifier) throw new ServiceError("UNAUTHENTICATED", bootstrap.missing ?? NO_SECRET_MESSAGE);
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
    if (!this.expected) return andThen(this.requireSecret(), () => andThen(this.decide(true, address), () => this.verifier!(candidate).then((ok) => this.decide(ok, address))));
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
          throw new ServiceError(
            "TOO_MANY_REQUESTS",
            `too many wrong ${this.words.secret}s from all addresses; every ${this.words.secret} check is refused for ${retryAfter} s`,
            undefined,
            undefined,
            retryAfter,
          );
        }
        throw new ServiceError("TOO_MANY_REQUESTS", `too many wrong ${this.words.secret}s from this address; try again in ${retryAfter} s`, undefined, undefined, retryAfter);
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

const SESSION_SECONDS = 24 * 3600;

/** The key of a session in the store: its id is a bearer credential and is never stored. */
export const sessionKey = (id: string) => createHash("sha256").update(id).digest("hex");

/** The sessions that stand in for the secret (a secret scheme's session), opened by the operation the manifest names. */
export class SessionStore {
  constructor(
    /** The cookie that carries the session's id (ServiceFacts.adminSessionCookie); empty where no scheme has a session. */
    readonly cookieName: string,
    private readonly store: Store = new MemoryStore(),
    private readonly now: () => number = Date.now,
  ) {}

  open(): MaybePromise<Session> {
    const createdAt = Math.floor(this.now() / 1000);
    const session = { id: randomBytes(24).toString("base64url"), createdAt, expiresAt: createdAt + SESSION_SECONDS };
    return andThen(this.store.openSession(sessionKey(session.id), session, this.now()), () => session);
  }

  get(id: string | undefined): MaybePromise<Session | undefined> {
    if (!id) return undefined;
    return andThen(this.store.sessionOf(sessionKey(id), this.now()), (stored) => (stored ? { id, createdAt: stored.createdAt, expiresAt: stored.expiresAt } : undefined));
  }

  close(id: string | undefined): MaybePromise<void> {
    if (id) return this.store.closeSession(sessionKey(id));
  }

  /** The per-call view handed to implementations. */
  forCall(guard: SecretGuard, address: string): Sessions {
    return {
      cookieName: this.cookieName,
      verifySecret: async (candidate) => guard.verify(candidate, address),
      open: async () => this.open(),
      get: async (id) => this.get(id),
      close: async (id) => this.close(id),
    };
  }
}

/** What the refusals of calls without credentials ask for, by kind; worded once per server (credentialsOf). */
export interface Credentials {
  /** A secret scheme's: the secret's header, and the session where the API opens one. */
  secret: string;
  apiKey: string;
}

export const credentialsOf = (schema: Pick<ServiceFacts, "adminSecretHeader" | "apiKeyHeader" | "features">, words: SecretWords = DEFAULT_SECRET_WORDS): Credentials => ({
  secret: `the ${words.secret} in header ${schema.adminSecretHeader}${schema.features.adminSession ? ` (or ${article(words.session)} ${words.session})` : ""}`,
  apiKey: `an API key in header ${schema.apiKeyHeader}`,
});

/**
 * Whether `principal` may call an operation of auth `scheme`; throws UNAUTHENTICATED or
 * PERMISSION_DENIED otherwise. Signed-in users a scheme lets in by the role it names (orgRole) are
 * checked by `hasRole`, which the service supplies: only that check returns a promise.
 */
export function authorize(scheme: AuthSchemeSpec, principal: Principal, operationName: string, credentials: Credentials, hasRole: () => Promise<boolean>): Promise<void> | undefined {
  switch (scheme.kind) {
    case "none":
      return;
    case "bearer":
      if (scheme.token !== undefined && scheme.token !== "access") {
        if (principal.kind === "token" && principal.token === scheme.token) return;
        throw new ServiceError("UNAUTHENTICATED", `${operationName} needs a bearer token of kind ${scheme.token}: send it as Authorization: Bearer <token>`);
      }
      if (principal.kind === "user") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs a signed-in user: send an access token as Authorization: Bearer <token>`);
    case "api_key":
      if (principal.kind === "api_key") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs ${credentials.apiKey}`);
    case "secret":
      if (principal.kind === "secret") return;
      if (principal.kind === "user") {
        const refused = () => new ServiceError("PERMISSION_DENIED", `${operationName} is for ${scheme.callers ?? "the secret's holders"} only`);
        if (!scheme.orgRole) throw refused();
        return hasRole().then((allowed) => {
          if (!allowed) throw refused();
        });
      }
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs ${credentials.secret}`);
  }
}

/** One scheme of an operation that takes several or asks for scopes, resolved once at start. */
export interface SchemeRequirement {
  readonly scheme: AuthSchemeSpec;
  /** bearer: the scopes the token must grant, each one. */
  readonly scopes: readonly string[];
}

/** What a call lacks for a scheme, as the refusal of a call carrying none of an operation's credentials lists it. */
function needOf(scheme: AuthSchemeSpec, credentials: Credentials): string {
  switch (scheme.kind) {
    case "none":
      return "no credentials";
    case "bearer":
      return scheme.token !== undefined && scheme.token !== "access" ? `a bearer token of kind ${scheme.token} (Authorization: Bearer <token>)` : "an access token (Authorization: Bearer <token>)";
    case "api_key":
      return credentials.apiKey;
    case "secret":
      return credentials.secret;
  }
}

/** The refusal (UNAUTHENTICATED) of a call of an operation taking several schemes that carries the credentials of none: each that would do. */
export function needsAnyOfText(schemes: readonly AuthSchemeSpec[], operationName: string, credentials: Credentials): string {
  return `${operationName} needs ${[...new Set(schemes.filter((s) => s.kind !== "none").map((s) => needOf(s, credentials)))].join(" or ")}`;
}

/** The refusal (PERMISSION_DENIED) of a bearer token that lacks scopes the operation asks for: the scopes, never the token. */
export function missingScopesText(operationName: string, missing: readonly string[]): string {
  return `${operationName} needs the scope${missing.length === 1 ? "" : "s"} ${missing.join(", ")}, which the bearer token does not grant`;
}

/** The scopes a principal's bearer token grants (what the service's verifier answered); none for other principals. */
const scopesOf = (principal: Principal): readonly string[] => (principal.kind === "user" || principal.kind === "token" ? (principal.scopes ?? []) : []);

/**
 * Whether a call may go on under an operation that takes any one of `requirements`, and as whom: the
 * first principal (from `principals`, every credential the call carries, each already verified;
 * anonymous where it carries none) that a scheme lets in, with every scope that scheme asks for,
 * trying the schemes in the manifest's order (a scheme of kind none last: a known caller is
 * preferred to anyone). When none lets the caller in, the refusal says why: a known caller's
 * PERMISSION_DENIED first (a missing scope, a role not held), else the one scheme's
 * UNAUTHENTICATED, or every credential that would do.
 */
export function authorizeAny(
  requirements: readonly SchemeRequirement[],
  principals: readonly Principal[],
  operationName: string,
  credentials: Credentials,
  hasRole: (principal: Principal) => Promise<boolean>,
): MaybePromise<Principal> {
  const candidates: readonly Principal[] = principals.length > 0 ? principals : [{ kind: "anonymous" }];
  const ordered = [...requirements.filter((r) => r.scheme.kind !== "none"), ...requirements.filter((r) => r.scheme.kind === "none")];
  const attempts = ordered.flatMap((requirement) => candidates.map((principal) => [requirement, principal] as const));
  const refusals: ServiceError[] = [];
  const refused = (error: unknown) => {
    if (!(error instanceof ServiceError)) throw error;
    refusals.push(error);
  };
  const scoped = (requirement: SchemeRequirement, principal: Principal): boolean => {
    const missing = requirement.scopes.filter((scope) => !scopesOf(principal).includes(scope));
    if (missing.length === 0) return true;
    refusals.push(new ServiceError("PERMISSION_DENIED", missingScopesText(operationName, missing)));
    return false;
  };
  const next = (index: number): MaybePromise<Principal> => {
    for (let i = index; i < attempts.length; i++) {
      const [requirement, principal] = attempts[i]!;
      let allowed: Promise<void> | undefined;
      try {
        allowed = authorize(requirement.scheme, principal, operationName, credentials, () => hasRole(principal));
      } catch (error) {
        refused(error);
        continue;
      }
      if (allowed) {
        return allowed.then(
          () => (scoped(requirement, principal) ? principal : next(i + 1)),
          (error: unknown) => {
            refused(error);
            return next(i + 1);
          },
        );
      }
      if (scoped(requirement, principal)) return principal;
    }
    const denied = refusals.find((error) => error.code === "PERMISSION_DENIED");
    if (denied) throw denied;
    if (requirements.length === 1 && refusals[0]) throw refusals[0];
    throw new ServiceError(
      "UNAUTHENTICATED",
      needsAnyOfText(
        requirements.map((r) => r.scheme),
        operationName,
        credentials,
      ),
    );
  };
  return next(0);
}
