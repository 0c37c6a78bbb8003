// Prometheus metrics of the calls, with prom-client (an optional peer, loaded when the option is on).
// Label values are bounded: protocols, the manifest's operation names and the error codes, never a
// path, an address or anything else a caller sends.
import type { ServerResponse } from "node:http";
import type { Counter, Registry } from "prom-client";
import type { CallProtocol } from "./context.js";
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

/**
 * The figures of one protocol and operation, updated by plain additions. prom-client validates and
 * hashes the label values of every observation, even through a bound child (about 8% of a REST
 * call); here the labels are resolved once per pair and turned into samples only when scraped.
 */
class CallFigures {
  /** Calls by outcome code ("OK" or the error code). */
  readonly outcomes = new Map<string, number>();
  /** Timed calls per bucket (not cumulative), then those above the last bound. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(
    readonly protocol: CallProtocol,
    readonly operation: string,
  ) {}
}

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/**
 * A metric of the registry whose samples are computed from the figures when scraped: the shape
 * prom-client's Registry reads of each metric (name, help, type, get()), as its own metrics have.
 */
class ScrapedMetric {
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "histogram",
    private readonly samples: () => Sample[],
    readonly reset: () => void,
  ) {}

  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }> {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: this.aggregator };
  }
}

export class Metrics {
  /** Figures by protocol, then by operation name: two lookups of interned strings per call, no label work. */
  private readonly figures = new Map<CallProtocol, Map<string, CallFigures>>();

  private constructor(
    private readonly registry: Registry,
    private readonly lockouts: Counter,
    private readonly limited: Counter<"class">,
  ) {}

  static async create(options: MetricsOptions): Promise<Metrics> {
    const client = await loadOptionalPackage("prom-client", () => import("prom-client"));
    const registry = (options.registry as Registry | undefined) ?? new client.Registry();
    const registers = [registry];
    const metrics = new Metrics(
      registry,
      new client.Counter({ name: "api_admin_lockouts_total", help: "Addresses locked out after too many wrong secrets.", registers }),
      new client.Counter({ name: "api_rate_limited_total", help: "Calls refused by the rate limit, by operation class.", labelNames: ["class"], registers }),
    );
    const reset = () => metrics.figures.clear();
    registry.registerMetric(new ScrapedMetric("api_operations_total", "Calls by protocol, operation and outcome code (OK or the error code).", "counter", () => metrics.callSamples(), reset) as never);
    registry.registerMetric(new ScrapedMetric("api_operation_duration_seconds", "Duration of calls by protocol and operation.", "histogram", () => metrics.durationSamples(), reset) as never);
    return metrics;
  }

  /** One finished call; `seconds` is left out for a call refused before it ran. */
  observe(protocol: CallProtocol, operation: string, code: string, seconds?: number): void {
    let byOperation = this.figures.get(protocol);
    if (!byOperation) this.figures.set(protocol, (byOperation = new Map()));
    let figures = byOperation.get(operation);
    if (!figures) byOperation.set(operation, (figures = new CallFigures(protocol, operation)));
    figures.outcomes.set(code, (figures.outcomes.get(code) ?? 0) + 1);
    if (seconds === undefined) return;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    figures.buckets[bucket]!++;
    figures.sum += seconds;
    figures.count++;
  }

  private *allFigures(): Iterable<CallFigures> {
    for (const byOperation of this.figures.values()) yield* byOperation.values();
  }

  private callSamples(): Sample[] {
    const samples: Sample[] = [];
    for (const figures of this.allFigures()) {
      for (const [code, value] of figures.outcomes) samples.push({ value, labels: { protocol: figures.protocol, operation: figures.operation, code } });
    }
    return samples;
  }

  private durationSamples(): Sample[] {
    const name = "api_operation_duration_seconds";
    const samples: Sample[] = [];
    for (const figures of this.allFigures()) {
      if (figures.count === 0) continue;
      const labels = { protocol: figures.protocol, operation: figures.operation };
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, index) => {
        cumulative += figures.buckets[index]!;
        samples.push({ value: cumulative, labels: { ...labels, le: bound }, metricName: `${name}_bucket` });
      });
      samples.push({ value: figures.count, labels: { ...labels, le: "+Inf" }, metricName: `${name}_bucket` });
      samples.push({ value: figures.sum, labels, metricName: `${name}_sum` });
      samples.push({ value: figures.count, labels, metricName: `${name}_count` });
    }
    return samples;
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
