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

const SECRET = "s3cret-admin-key";
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let service: RecordingService;
/** The span context the implementation saw as active, per call. */
const seenInside: (SpanContext | undefined)[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Every root call traced, so that each test sees its span; sampling has tests of its own below.
  service = await startRecordingService(SECRET, { tracing: { sampleRatio: 1 } });
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

describe("sampling", () => {
  let sampled: RecordingService;
  beforeAll(async () => {
    sampled = await startRecordingService(SECRET, { tracing: { sampleRatio: 0.25 } });
    sampled.answers.set("adminMeta", () => {
      seenInside.push(trace.getActiveSpan()?.spanContext());
      return sampleMessage(schema, "AdminMeta");
    });
  });
  afterAll(() => sampled.close());

  it.each(PROTOCOLS)("follows a sampled caller whatever the ratio, over %s", async (protocol) => {
    for (let i = 0; i < 4; i++) expect((await rawAdminMeta(sampled, protocol)({ "x-service-admin-secret": SECRET, traceparent })).code).toBe("OK");
    expect(exporter.getFinishedSpans()).toHaveLength(4);
  });

  it.each(PROTOCOLS)("traces nothing for a caller that does not sample, and the implementation sees no span, over %s", async (protocol) => {
    const unsampled = `00-${TRACE_ID}-${CLIENT_SPAN_ID}-00`;
    for (let i = 0; i < 4; i++) expect((await rawAdminMeta(sampled, protocol)({ "x-service-admin-secret": SECRET, traceparent: unsampled })).code).toBe("OK");
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(seenInside).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("traces about the ratio of the calls that start a trace (0.25 of 400: 100 expected, 60 to 140 allowed, a 6-sigma band)", async () => {
    const call = rawAdminMeta(sampled, "rest");
    for (let i = 0; i < 400; i++) await call({ "x-service-admin-secret": SECRET });
    const traced = exporter.getFinishedSpans().length;
    expect(traced).toBeGreaterThanOrEqual(60);
    expect(traced).toBeLessThanOrEqual(140);
  });

  it("refuses a ratio outside 0 to 1 at start-up", async () => {
    await expect(startRecordingService(SECRET, { tracing: { sampleRatio: 1.5 } })).rejects.toThrow("tracing.sampleRatio must be between 0 and 1, not 1.5");
  });
});
