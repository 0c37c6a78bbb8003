// Whether the server should be sent calls: SERVING while its store is reachable and it is not
// shutting down. HTTP answers it on /readyz (/healthz only says the process is alive); the gRPC
// port's grpc.health.v1 reads the same state through status() and onChange().
import type { ServerResponse } from "node:http";
import { sendJson } from "./http-body.js";
import type { Store } from "./store.js";

export type ServingStatus = "SERVING" | "NOT_SERVING";

export class HealthState {
  private shuttingDown = false;
  private last: ServingStatus;
  private readonly listeners = new Set<(status: ServingStatus) => void>();

  constructor(private readonly store: Store) {
    this.last = this.status();
    store.onReachableChange(() => this.changed());
  }

  status(): ServingStatus {
    return !this.shuttingDown && this.store.reachable() ? "SERVING" : "NOT_SERVING";
  }

  /** Why it is not serving, for /readyz; undefined while serving. */
  reason(): string | undefined {
    if (this.shuttingDown) return "shutting down";
    if (!this.store.reachable()) return `the ${this.store.kind} store cannot be reached`;
    return undefined;
  }

  /** Calls `listener` with each change of status(); answers the function that unsubscribes. */
  onChange(listener: (status: ServingStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** From now on NOT_SERVING, for good: close() calls it first, so balancers stop sending calls. */
  shutDown(): void {
    this.shuttingDown = true;
    this.changed();
  }

  private changed(): void {
    const status = this.status();
    if (status === this.last) return;
    this.last = status;
    for (const listener of this.listeners) listener(status);
  }
}

export const isHealthCheck = (method: string | undefined, path: string) => (method === "GET" || method === "HEAD") && (path === "/healthz" || path === "/readyz");

/**
 * `/healthz`: the process answers. `/readyz`: it should be sent calls, which takes the state above
 * and a store that answers a ping now.
 */
export async function answerHealthCheck(health: HealthState, store: Store, path: string, response: ServerResponse): Promise<void> {
  if (path === "/healthz") return sendJson(response, 200, { status: "alive" });
  const reason = health.reason() ?? (await store.ping().then(() => undefined, () => `the ${store.kind} store does not answer`));
  sendJson(response, reason ? 503 : 200, reason ? { status: "NOT_SERVING", reason } : { status: "SERVING", store: store.kind });
}
