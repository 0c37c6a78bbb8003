// Admin-secret checks (constant time, with lockout of repeated failures per address), admin
// sessions, and the auth levels of the manifest.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../errors.js";
import type { AuthLevel } from "../schema.js";
import type { AdminSession, AdminSessions, Principal } from "./context.js";

export interface LockoutPolicy {
  /** Failed secrets from one address within `windowMs` that lock it out. */
  maxFailures: number;
  windowMs: number;
}

/** 10 failures in 15 minutes, as the service documents. */
export const DEFAULT_LOCKOUT: LockoutPolicy = { maxFailures: 10, windowMs: 15 * 60_000 };


export class AdminSecretGuard {
  private readonly expected: Buffer;
  private readonly failures = new Map<string, number[]>();

  constructor(
    secret: string,
    private readonly policy: LockoutPolicy = DEFAULT_LOCKOUT,
    private readonly now: () => number = Date.now,
  ) {
    if (!secret) throw new Error("an admin secret is required");
    this.expected = Buffer.from(secret);
  }

  /** Throws TOO_MANY_REQUESTS while `address` is locked out. */
  assertNotLocked(address: string): void {
    if (!this.failures.has(address)) return;
    const recent = this.recentFailures(address);
    if (recent.length >= this.policy.maxFailures) {
      const retryAfter = Math.ceil((recent[0]! + this.policy.windowMs - this.now()) / 1000);
      throw new ServiceError("TOO_MANY_REQUESTS", `too many wrong admin secrets from this address; try again in ${retryAfter} s`);
    }
  }

  /**
   * Constant-time comparison; a candidate of another length is compared with the secret itself,
   * so that the work done is the same either way. A mismatch is recorded.
   */
  verify(candidate: string, address: string): boolean {
    this.assertNotLocked(address);
    const presented = Buffer.from(candidate);
    const sameLength = presented.length === this.expected.length;
    const ok = timingSafeEqual(sameLength ? presented : this.expected, this.expected) && sameLength;
    if (!ok) this.failures.set(address, [...this.recentFailures(address), this.now()]);
    return ok;
  }

  private recentFailures(address: string): number[] {
    const since = this.now() - this.policy.windowMs;
    const recent = (this.failures.get(address) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.failures.delete(address);
    else this.failures.set(address, recent);
    return recent;
  }
}

export const ADMIN_SESSION_COOKIE = "service_admin_session";
const ADMIN_SESSION_SECONDS = 24 * 3600;

export class AdminSessionStore {
  private readonly sessions = new Map<string, AdminSession>();
  constructor(private readonly now: () => number = Date.now) {}

  open(): AdminSession {
    const createdAt = Math.floor(this.now() / 1000);
    const session = { id: randomBytes(24).toString("base64url"), createdAt, expiresAt: createdAt + ADMIN_SESSION_SECONDS };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string | undefined): AdminSession | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (session && session.expiresAt * 1000 <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  close(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  /** The per-call view handed to implementations. */
  forCall(guard: AdminSecretGuard, address: string): AdminSessions {
    return {
      cookieName: ADMIN_SESSION_COOKIE,
      verifySecret: (candidate) => guard.verify(candidate, address),
      open: () => this.open(),
      get: (id) => this.get(id),
      close: (id) => this.close(id),
    };
  }
}

const ADMIN_LEVELS: readonly AuthLevel[] = ["admin_secret", "org_admin", "super_admin"];
export const needsAdminCheck = (level: AuthLevel) => ADMIN_LEVELS.includes(level);

/**
 * Whether `principal` may call an operation of auth `level`; throws UNAUTHENTICATED or
 * PERMISSION_DENIED otherwise. Org-admin callers are checked against the organization by
 * `isOrgAdmin`, which the service supplies: only that check returns a promise.
 */
export function authorize(
  level: AuthLevel,
  principal: Principal,
  operationName: string,
  secretHeader: string,
  isOrgAdmin: () => Promise<boolean>,
): Promise<void> | undefined {
  const missingSecret = () =>
    new ServiceError("UNAUTHENTICATED", `${operationName} needs the admin secret in header ${secretHeader} (or an admin session)`);
  switch (level) {
    case "public":
      return;
    case "user":
      if (principal.kind === "user") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs a signed-in user: send an access token as Authorization: Bearer <token>`);
    case "scim_token":
      if (principal.kind === "scim") return;
      throw new ServiceError("UNAUTHENTICATED", `${operationName} needs the bearer token of an organization's SCIM endpoint`);
    case "admin_secret":
      if (principal.kind === "super_admin") return;
      if (principal.kind === "user") throw new ServiceError("PERMISSION_DENIED", `${operationName} is for admins only`);
      throw missingSecret();
    case "super_admin":
      if (principal.kind === "super_admin") return;
      if (principal.kind === "user") throw new ServiceError("PERMISSION_DENIED", `${operationName} is for super-admins only`);
      throw missingSecret();
    case "org_admin":
      if (principal.kind === "super_admin") return;
      if (principal.kind === "user") {
        return isOrgAdmin().then((allowed) => {
          if (!allowed) throw new ServiceError("PERMISSION_DENIED", `${operationName} is for super-admins and the organization's own org-admins only`);
        });
      }
      throw missingSecret();
  }
}
