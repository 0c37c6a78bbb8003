// The standalone MCP server's own budget of wrong credentials. Over HTTP it checks each caller's
// credential against the service from its own address, so without a budget of its own an anonymous
// caller's wrong secrets spend the service's lockout of that address, and the secret's right holder behind the
// same MCP server is refused with it (the security review: 662 s of TOO_MANY_REQUESTS).

export interface FailurePolicy {
  maxFailures: number;
  windowMs: number;
}

/** Wrong credentials one caller (by address) may send through the MCP server in a window. */
export const CALLER_FAILURES: FailurePolicy = { maxFailures: 5, windowMs: 15 * 60_000 };
/**
 * Wrong credentials all callers together may send on to the service in a window: one fewer than the
 * service's own lockout of an address (10 in 15 minutes by default), so that the MCP server's
 * address is never locked out by what it forwards.
 */
export const FORWARDED_FAILURES: FailurePolicy = { maxFailures: 9, windowMs: 15 * 60_000 };
/** Most callers whose failures are remembered; the one whose last failure is oldest goes first. */
const MAX_CALLERS = 10_000;

export class FailureBudget {
  /** Failure times per caller, oldest first; Map order is the order of last failure. */
  private readonly byCaller = new Map<string, number[]>();
  private all: number[] = [];

  constructor(
    private readonly perCaller: FailurePolicy = CALLER_FAILURES,
    private readonly forwarded: FailurePolicy = FORWARDED_FAILURES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds `caller` must wait before a credential of theirs is checked again, or 0 when it may be now. */
  retryAfterSeconds(caller: string): number {
    const now = this.now();
    this.all = this.all.filter((time) => time > now - this.forwarded.windowMs);
    const mine = (this.byCaller.get(caller) ?? []).filter((time) => time > now - this.perCaller.windowMs);
    const waits = [
      mine.length >= this.perCaller.maxFailures ? mine[0]! + this.perCaller.windowMs - now : 0,
      this.all.length >= this.forwarded.maxFailures ? this.all[0]! + this.forwarded.windowMs - now : 0,
    ];
    return Math.ceil(Math.max(...waits) / 1000);
  }

  /** A wrong credential from `caller`, refused by the service. */
  fail(caller: string): void {
    const now = this.now();
    const mine = (this.byCaller.get(caller) ?? []).filter((time) => time > now - this.perCaller.windowMs);
    mine.push(now);
    this.byCaller.delete(caller);
    this.byCaller.set(caller, mine);
    if (this.byCaller.size > MAX_CALLERS) this.byCaller.delete(this.byCaller.keys().next().value!);
    this.all.push(now);
  }
}
