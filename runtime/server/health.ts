// Whether the server should be sent calls: SERVING while its store and every dependency the
// service declared (its database, say) are reachable and it is not shutting down. HTTP answers it
// on /readyz (/healthz only says the process is alive); the gRPC port's grpc.health.v1 reads the
// same state through status() and onChange().
import type { ServerResponse } from "node:http";
import { sendJson } from "./http-body.js";

export type ServingStatus = "SERVING" | "NOT_SERVING";

/** A backend the server needs in order to answer: the stubs' store, or a service's database. */
export interface Dependency {
  /** Its name in /readyz answers ("redis", "PostgreSQL"). */
  readonly kind: string;
  /** Whether it answered at its last contact. */
  reachable(): boolean;
  /** Called with each change of reachable(). */
  onReachableChange(listener: (reachable: boolean) => void): unknown;
  /** Resolves when it answers now. */
  ping(): Promise<void>;
}

export class HealthState {
  private shuttingDown = false;
  private last: ServingStatus;
  private readonly listeners = new Set<(status: ServingStatus) => void>();

  constructor(readonly dependencies: readonly Dependency[]) {
    this.last = this.status();
    for (const dependency of dependencies) dependency.onReachableChange(() => this.changed());
  }

  status(): ServingStatus {
    return !this.shuttingDown && this.dependencies.every((dependency) => dependency.reachable()) ? "SERVING" : "NOT_SERVING";
  }

  /** Why it is not serving, for /readyz; undefined while serving. */
  reason(): string | undefined {
    if (this.shuttingDown) return "shutting down";
    const down = this.dependencies.find((dependency) => !dependency.reachable());
    return down ? `the ${down.kind} store cannot be reached` : undefined;
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
 * and every dependency answering a ping now.
 */
export async function answerHealthCheck(health: HealthState, path: string, response: ServerResponse): Promise<void> {
  if (path === "/healthz") return sendJson(response, 200, { status: "alive" });
  let reason = health.reason();
  if (!reason) {
    const pings = await Promise.all(
      health.dependencies.map((dependency) =>
        dependency.ping().then(
          () => undefined,
          () => `the ${dependency.kind} store does not answer`,
        ),
      ),
    );
    reason = pings.find((failure) => failure !== undefined);
  }
  const [store, ...others] = health.dependencies;
  sendJson(
    response,
    reason ? 503 : 200,
    reason ? { status: "NOT_SERVING", reason } : { status: "SERVING", store: store?.kind, ...(others.length > 0 ? { dependencies: others.map((d) => d.kind) } : {}) },
  );
}
