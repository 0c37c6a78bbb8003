// Prometheus metrics of the calls, with prom-client (an optional peer, loaded when the option is on).
// Label values are bounded: protocols, the manifest's operation names and the error codes, never a
// path, an address or anything else a caller sends.
import type { ServerResponse } from "node:http";
import type { Counter, Histogram, Registry } from "prom-client";
import type { Protocol } from "../schema.js";
import { sendJson } from "./http-body.js";
import { loadOptionalPackage } from "./optional-packages.js";
import type { OperationClass } from "./rate-limit.js";

export interface MetricsOptions {
  /** Path of the metrics on the HTTP port, when no `port` is given (default "/metrics"). */
  path?: string;
  /** Serve the metrics on a port of their own instead (0 picks a free one), at `path`. */
  port?: number;
  /** prom-client Registry to register in (default: a new one), e.g. one with collectDefaultMetrics(). */
  registry?: unknown;
}

export const DEFAULT_METRICS_PATH = "/metrics";

/** Seconds: from a cached admin read (well under a millisecond) to a slow write. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  // prom-client hashes the label values of each observation; the bound children are kept instead.
  private readonly callChildren = new Map<string, Counter.Internal>();
  private readonly durationChildren = new Map<string, Histogram.Internal<string>>();

  private constructor(
    private readonly registry: Registry,
    private readonly calls: Counter<"protocol" | "operation" | "code">,
    private readonly durations: Histogram<"protocol" | "operation">,
    private readonly lockouts: Counter,
    private readonly limited: Counter<"class">,
  ) {}

  static async create(options: MetricsOptions): Promise<Metrics> {
    const client = await loadOptionalPackage("prom-client", () => import("prom-client"));
    const registry = (options.registry as Registry | undefined) ?? new client.Registry();
    const registers = [registry];
    return new Metrics(
      registry,
      new client.Counter({ name: "api_operations_total", help: "Calls by protocol, operation and outcome code (OK or the error code).", labelNames: ["protocol", "operation", "code"], registers }),
      new client.Histogram({ name: "api_operation_duration_seconds", help: "Duration of calls by protocol and operation.", labelNames: ["protocol", "operation"], buckets: DURATION_BUCKETS, registers }),
      new client.Counter({ name: "api_admin_lockouts_total", help: "Addresses locked out after too many wrong admin secrets.", registers }),
      new client.Counter({ name: "api_rate_limited_total", help: "Calls refused by the rate limit, by operation class.", labelNames: ["class"], registers }),
    );
  }

  /** One finished call; `seconds` is left out for a call refused before it ran. */
  observe(protocol: Protocol, operation: string, code: string, seconds?: number): void {
    const key = `${protocol} ${operation}`;
    let counter = this.callChildren.get(`${key} ${code}`);
    if (!counter) this.callChildren.set(`${key} ${code}`, (counter = this.calls.labels(protocol, operation, code)));
    counter.inc();
    if (seconds === undefined) return;
    let histogram = this.durationChildren.get(key);
    if (!histogram) this.durationChildren.set(key, (histogram = this.durations.labels(protocol, operation)));
    histogram.observe(seconds);
  }

  lockout(): void {
    this.lockouts.inc();
  }

  rateLimited(operationClass: OperationClass): void {
    this.limited.labels(operationClass).inc();
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** Answers the exposition of `metrics`; false (nothing sent) when metrics are off. */
export function sendMetrics(metrics: Metrics | undefined, response: ServerResponse): boolean {
  if (!metrics) return false;
  metrics.exposition().then(
    ({ contentType, text }) => response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(text),
    () => sendJson(response, 500, { code: "INTERNAL", message: "metrics unavailable" }),
  );
  return true;
}
