// One OpenTelemetry span per call, through @opentelemetry/api only (an optional peer, loaded when
// the option is on): the service brings the SDK, its exporter and its propagator. The caller's
// trace context comes from the request headers (gRPC: metadata) through the registered propagator
// (W3C traceparent with the SDK's defaults), and the implementation runs inside the span, so what it
// calls continues the trace. Attributes hold the operation, protocol and outcome, never inputs.
import type { Context, Span, Tracer } from "@opentelemetry/api";
import { ERROR_WIRE, isErrorCode } from "../errors.js";
import type { OperationSpec, Protocol } from "../schema.js";
import { loadOptionalPackage } from "./optional-packages.js";

export interface TracingOptions {
  /** The TracerProvider to take the tracer from (default: the global one the SDK registered). */
  tracerProvider?: { getTracer(name: string, version?: string): unknown };
}

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
  ) {}

  static async create(options: TracingOptions, tracerName: string): Promise<Tracing> {
    const api = await loadOptionalPackage("@opentelemetry/api", () => import("@opentelemetry/api"));
    const tracer = (options.tracerProvider?.getTracer(tracerName) as Tracer | undefined) ?? api.trace.getTracer(tracerName);
    return new Tracing(api, tracer);
  }

  start(operation: OperationSpec, protocol: Protocol, headers: Readonly<Record<string, string>>): CallSpan {
    const { api } = this;
    const parent: Context = api.propagation.extract(api.ROOT_CONTEXT, headers);
    const span: Span = this.tracer.startSpan(
      operation.name,
      { kind: api.SpanKind.SERVER, attributes: { "api.operation": operation.name, "api.protocol": protocol } },
      parent,
    );
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
