// The refusal of an operation the server is too old to carry over the client's protocol. A module
// of its own, loaded by the first call of an operation newer than the API's oldest: a client whose
// calls are all as old as the API never loads it, nor asks the server's version.
import { protocolsOf, type OperationSpec, type Protocol } from "../schema.js";
import { ApiError } from "./errors.js";
import { fetchFailure } from "./transport.js";
import { compareVersions } from "./version.js";

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts (the promise runs on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", abort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", abort), reject(error)),
    );
  });
}

/**
 * Asks the server's version of the server, under the signal of the call that needs it: a promise,
 * or at once the refusal of asking (no version operation, or one that would go in clear).
 */
export type VersionQuestion = (caller: OperationSpec, protocol: Protocol, signal: AbortSignal | undefined) => Promise<string> | ApiError;

/** The server's version as a client learns it: from its config, or asked once of the server. */
export class ServerVersion {
  private asked: Promise<string> | undefined;

  constructor(
    private readonly question: VersionQuestion,
    known: string | undefined,
  ) {
    if (known !== undefined) this.asked = Promise.resolve(known);
  }

  /**
   * The server's version. The question runs under the signal of the call that asks it first; every
   * caller waits for it no longer than its own signal allows, and a failure is the calling
   * operation's (`caller`).
   */
  of(caller: OperationSpec, protocol: Protocol, signal: AbortSignal | undefined): Promise<string> {
    if (!this.asked) {
      const question = this.question(caller, protocol, signal);
      if (question instanceof ApiError) return Promise.reject(question);
      const asked = (this.asked = question);
      asked.catch(() => {
        if (this.asked === asked) this.asked = undefined;
      });
    }
    return untilAborted(this.asked, signal).catch((error: unknown) => {
      // The question ended at the deadline of the call that asked it, not this one's: ask again under this one's.
      const endedByAnother = !signal?.aborted && error instanceof ApiError && (error.code === "DEADLINE_EXCEEDED" || error.code === "CANCELLED");
      if (endedByAnother) return this.of(caller, protocol, signal);
      // The caller's own deadline or cancellation, or the question's failure: named after the caller's operation.
      const failure = error instanceof ApiError ? error : fetchFailure(error, { operation: caller, signal }, protocol);
      throw new ApiError(failure.code, failure.message.replace(/^[a-z_]+(?=: | timed out| was cancelled)/, caller.name), caller.name, protocol, {
        cause: failure,
        refused: failure.refused,
        ...(failure.status !== undefined ? { status: failure.status } : {}),
        ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
      });
    });
  }

  /** Why `operation` may not go over `protocol` to this server, or undefined when it may; `lowest` is the API's oldest version on that protocol. */
  async refusal(operation: OperationSpec, protocol: Protocol, lowest: string, signal: AbortSignal | undefined): Promise<ApiError | undefined> {
    const since = operation[protocol]!.since;
    if (compareVersions(since, lowest) <= 0) return undefined;
    const server = await this.of(operation, protocol, signal);
    if (compareVersions(server, since) >= 0) return undefined;
    const working = protocolsOf(operation).filter((p) => compareVersions(server, operation[p]!.since) >= 0);
    const hint = working.length > 0 ? `use ${working.join(" or ")}` : "no protocol carries it on this server";
    return new ApiError(
      "FAILED_PRECONDITION",
      `${operation.pascalName} not available over ${protocol}; ${hint} (needs server ${since} or later on ${protocol}; the server is ${server})`,
      operation.name,
      protocol,
      {
        refused: true,
      },
    );
  }
}
