// One OpenTelemetry span per call, through @opentelemetry/api only (an optional peer, loaded when
// the option is on): the service brings the SDK, its exporter and its propagator. The caller's
// trace context comes from the request headers (gRPC: metadata) through the registered propagator
// (W3C traceparent with the SDK's defaults), and the implementation runs inside the span, so what it
// calls continues the trace. Attributes hold the operation, protocol and outcome, never inputs.
import type { Context, Span, Tracer } from "@opentelemetry/api";
import { ERROR_WIRE, isErrorCode } from "../errors.js";
import type { OperationSpec } from "../schema.js";
import type { CallProtocol } from "./context.js";
import { loadOptionalPackage } from "./optional-packages.js";

export interface TracingOptions {
  /** The TracerProvider to take the tracer from (default: the global one the SDK registered). */
  tracerProvider?: { getTracer(name: string, version?: string): unknown };
  /**
   * Share of calls that start a trace of their own (no trace context in the request) to trace, from
   * 0 to 1 (default DEFAULT_SAMPLE_RATIO, 0.1). A call that continues a caller's trace follows the
   * caller's decision (parent-based): traced when the caller's span is sampled, not otherwise.
   * Calls that are not traced cost no span, no context and no propagator work beyond a header look-up.
   */
  sampleRatio?: number;
}

/** Root calls traced when the service sets no sampleRatio: enough to see every hot path, cheap at any rate. */
export const DEFAULT_SAMPLE_RATIO = 0.1;

/** The span of one call. */
export interface CallSpan {
  /** Runs `work` with the span as the active context. */
  run<T>(work: () => T): T;
  end(code: string): void;
}

type Api = typeof import("@opentelemetry/api");

export class Tracing {
  private constructor(
    private readonly api: Api,
    private readonly tracer: Tracer,
    private readonly sampleRatio: number,
    /** The headers the registered propagator reads (W3C: traceparent, tracestate). */
    private readonly contextHeaders: readonly string[],
  ) {}

  static async create(options: TracingOptions, tracerName: string): Promise<Tracing> {
    const sampleRatio = options.sampleRatio ?? DEFAULT_SAMPLE_RATIO;
    if (!(sampleRatio >= 0 && sampleRatio <= 1)) throw new RangeError(`tracing.sampleRatio must be between 0 and 1, not ${sampleRatio}`);
    const api = await loadOptionalPackage("@opentelemetry/api", () => import("@opentelemetry/api"));
    const tracer = (options.tracerProvider?.getTracer(tracerName) as Tracer | undefined) ?? api.trace.getTracer(tracerName);
    return new Tracing(
      api,
      tracer,
      sampleRatio,
      api.propagation.fields().map((field) => field.toLowerCase()),
    );
  }

  /** The span of a call, or undefined when the call is not traced (see TracingOptions.sampleRatio). */
  start(operation: OperationSpec, protocol: CallProtocol, headers: Readonly<Record<string, string>>): CallSpan | undefined {
    const { api } = this;
    let parent: Context = api.ROOT_CONTEXT;
    if (this.contextHeaders.some((name) => headers[name] !== undefined)) {
      parent = api.propagation.extract(api.ROOT_CONTEXT, headers);
      const caller = api.trace.getSpanContext(parent);
      if (caller && api.isSpanContextValid(caller)) {
        if ((caller.traceFlags & api.TraceFlags.SAMPLED) === 0) return undefined;
      } else if (!(Math.random() < this.sampleRatio)) return undefined;
    } else if (!(Math.random() < this.sampleRatio)) return undefined;
    const span: Span = this.tracer.startSpan(operation.name, { kind: api.SpanKind.SERVER, attributes: { "api.operation": operation.name, "api.protocol": protocol } }, parent);
    const active = api.trace.setSpan(parent, span);
    return {
      run: (work) => api.context.with(active, work),
      end: (code) => {
        span.setAttribute("api.code", code);
        // Server faults are errors of the span; a caller's mistake (4xx) is not.
        if (isErrorCode(code) && ERROR_WIRE[code].http >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR, message: code });
        span.end();
      },
    };
  }
}
