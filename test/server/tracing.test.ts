// OpenTelemetry traces (option tracing): with the SDK a service would register (W3C propagator,
// async context), a trace a client starts continues through the stub on every protocol: one server
// span per call, child of the client's span, with operation, protocol and outcome and nothing the
// caller sent; the implementation runs inside it.
import { context, propagation, trace, type SpanContext } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROTOCOLS, rawAdminMeta } from "../helpers/raw-calls.js";
import { sampleMessage, startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { schema } from "../../generated/schema.js";

const SECRET = "s3cret";
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let service: RecordingService;
/** The span context the implementation saw as active, per call. */
const seenInside: (SpanContext | undefined)[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  service = await startRecordingService(SECRET, { tracing: true });
  service.answers.set("adminMeta", () => {
    seenInside.push(trace.getActiveSpan()?.spanContext());
    return sampleMessage(schema, "AdminMeta");
  });
});
afterAll(async () => {
  await service.close();
  await provider.shutdown();
});
beforeEach(() => {
  exporter.reset();
  seenInside.length = 0;
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN_ID = "00f067aa0ba902b7";
const traceparent = `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01`;

describe("traces", () => {
  it.each(PROTOCOLS)("continue a trace the client started, over %s", async (protocol) => {
    const answer = await rawAdminMeta(service, protocol)({ "x-service-admin-secret": SECRET, traceparent });
    expect(answer.code).toBe("OK");
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span!.name).toBe("admin_meta");
    expect(span!.kind).toBe(1); // SpanKind.SERVER
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
    expect(span!.attributes).toEqual({ "api.operation": "admin_meta", "api.protocol": protocol, "api.code": "OK" });
    // The implementation ran inside the span: what it calls continues the trace.
    expect(seenInside.map((inside) => inside?.spanId)).toEqual([span!.spanContext().spanId]);
  });

  it.each(PROTOCOLS)("record the outcome code, and no secret or input, over %s", async (protocol) => {
    await rawAdminMeta(service, protocol)({ "x-service-admin-secret": "a-wrong-secret", traceparent });
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes["api.code"]).toBe("UNAUTHENTICATED");
    // A caller's mistake is not an error of the server.
    expect(span!.status.code).toBe(0);
    expect(JSON.stringify({ attributes: span!.attributes, events: span!.events })).not.toContain("a-wrong-secret");
  });

  it("mark server faults as errors of the span", async () => {
    service.answers.set("users", () => {
      throw new Error("broken store with an input in its message");
    });
    const response = await fetch(`${service.httpUrl}/v1/admin/users`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: "{}" });
    expect(response.status).toBe(500);
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes["api.code"]).toBe("INTERNAL");
    expect(span!.status).toEqual({ code: 2, message: "INTERNAL" });
    expect(JSON.stringify(span!.events)).not.toContain("input in its message");
  });

  it("start a new trace when the caller sends none", async () => {
    await rawAdminMeta(service, "rest")({ "x-service-admin-secret": SECRET });
    const [span] = exporter.getFinishedSpans();
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
  });
});
