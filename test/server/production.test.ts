// The stubs as operators run them, every production option on at once: two replicas on one Redis
// with rate limits, metrics and traces. Over each protocol the replicas limit a caller together,
// their /metrics count every call with its labels, every call continues the client's trace, and a
// replica closed while calls are in flight answers each of them.
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { PROTOCOLS, rawAdminMeta, type WireAnswer } from "../helpers/raw-calls.js";
import { sample } from "../helpers/prometheus.js";
import { sampleMessage, startRecordingService, type RecordingService } from "../helpers/recording-service.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

const SECRET = "s3cret-admin-key";
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN_ID = "b7ad6b7169203331";
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

let redis: RedisServer;
let replicas: RecordingService[];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  redis = await startRedis();
  const options = {
    store: redisStore({ url: redis.url, keyPrefix: "production-test:" }),
    rateLimit: { read: { perSecond: 4, burst: 0 }, write: false as const, token: false as const },
    metrics: true,
    tracing: true,
    trustProxy: ["loopback"],
    grpcTrustProxy: ["loopback"],
  };
  replicas = [await startRecordingService(SECRET, options), await startRecordingService(SECRET, { ...options, store: redisStore({ url: redis.url, keyPrefix: "production-test:" }) })];
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await redis?.stop();
  await provider.shutdown();
});

async function countOf(labels: Record<string, string>): Promise<number> {
  const texts = await Promise.all(replicas.map(async (replica) => (await fetch(`${replica.httpUrl}/metrics`)).text()));
  return texts.reduce((sum, text) => sum + sample(text, "api_operations_total", labels), 0);
}

describe("two replicas on one Redis with rate limits, metrics and traces on", () => {
  it.each(PROTOCOLS.map((protocol, index) => [protocol, index] as const))("over %s: limit a caller together, count and trace every call", async (protocol, index) => {
    const labels = (code: string) => ({ protocol, operation: "admin_meta", code });
    const [okBefore, limitedBefore] = [await countOf(labels("OK")), await countOf(labels("TOO_MANY_REQUESTS"))];
    exporter.reset();
    const calls = replicas.map((replica) => rawAdminMeta(replica, protocol));
    const headers = { "x-service-admin-secret": SECRET, "x-forwarded-for": `192.0.2.${index + 1}`, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01` };
    // Alternating replicas: 4 a second between them, then refused by either.
    const answers: WireAnswer[] = [];
    for (let i = 0; i < 12 && answers.at(-1)?.code !== "TOO_MANY_REQUESTS"; i++) answers.push(await calls[i % 2]!(headers));
    const passed = answers.filter((answer) => answer.code === "OK").length;
    expect(passed).toBeGreaterThanOrEqual(4);
    expect(passed).toBeLessThan(8);
    expect(answers.at(-1)).toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect((await calls[0]!(headers)).code).toBe("TOO_MANY_REQUESTS");
    expect((await calls[1]!(headers)).code).toBe("TOO_MANY_REQUESTS");
    const refused = answers.length - passed + 2;

    expect((await countOf(labels("OK"))) - okBefore).toBe(passed);
    expect((await countOf(labels("TOO_MANY_REQUESTS"))) - limitedBefore).toBe(refused);
    // One server span per call, each a child of the client's span, with the outcome.
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(passed + refused);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
      expect(span.attributes["api.protocol"]).toBe(protocol);
    }
    expect(spans.filter((span) => span.attributes["api.code"] === "TOO_MANY_REQUESTS")).toHaveLength(refused);
  });

  it("a replica closed with calls in flight answers every one of them, over every protocol", async () => {
    const closing = await startRecordingService(SECRET, { store: redisStore({ url: redis.url, keyPrefix: "production-test-close:" }), rateLimit: false, metrics: true, tracing: true });
    closing.answers.set("adminMeta", async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return sampleMessage(schema, "AdminMeta");
    });
    const inFlight = PROTOCOLS.flatMap((protocol) => Array.from({ length: 3 }, () => rawAdminMeta(closing, protocol)({ "x-service-admin-secret": SECRET })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closing.server.close({ graceMs: 5_000 });
    expect((await Promise.all(inFlight)).map((answer) => answer.code)).toEqual(Array(9).fill("OK"));
  });
});
