// What a developer sees of every request: raw responses (withResponse, error.response), hooks and
// Connect interceptors on every protocol, a log line per attempt with credentials redacted, and
// the W3C trace context of the caller's span.
import { context, propagation, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AdminClient, ApiError, type Logger, type RequestEvent, type ResponseEvent } from "../../generated/client/index.js";
import { ServiceError } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
const SECRET = "s3cret-admin-key";
let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET);
});
afterAll(async () => {
  await service.close();
});

const client = (protocol: (typeof PROTOCOLS)[number], extra: Partial<ConstructorParameters<typeof AdminClient>[0]> = {}) =>
  new AdminClient({ serviceUrl: service.httpUrl, grpcEndpoint: service.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: { attempts: 3, baseDelayMs: 1 }, ...extra });

describe.each(PROTOCOLS)("over %s", (protocol) => {
  it("withResponse() gives the answer with its status, headers and attempts; a failure carries them too", async () => {
    const admin = client(protocol);
    try {
      const { data, response } = await admin.createOrganization({ name: `raw-${protocol}` }, { idempotencyKey: `raw-${protocol}` }).withResponse();
      expect(data).toMatchObject({ id: expect.any(String) });
      expect(response).toMatchObject({ protocol, attempts: 1, status: protocol === "grpc" ? undefined : 200 });
      expect(response.headers.get("content-type")).toMatch(protocol === "grpc" ? /^application\/grpc/ : /^application\/json/);
      // The repeat is answered from the key: the service marks it, and the raw response shows it.
      const again = await admin.createOrganization({ name: `raw-${protocol}` }, { idempotencyKey: `raw-${protocol}` }).withResponse();
      expect(again.response.headers.get("idempotent-replayed")).toBe("true");
      // The plain promise still gives the answer alone.
      expect((await admin.users()).pagination).toBeDefined();
      service.answers.set("user", () => {
        throw new ServiceError("NOT_FOUND", "no user u9");
      });
      const failure = await admin.user({ id: "u9" }).then(
        () => expect.fail("NOT_FOUND"),
        (error: unknown) => error as ApiError,
      );
      expect(failure).toBeInstanceOf(ApiError);
      expect(failure.response).toMatchObject({ protocol, attempts: 1, status: protocol === "grpc" ? undefined : protocol === "graphql" ? 200 : 404 });
      if (protocol === "grpc") expect(failure.response!.headers.get("x-error-code")).toBe("NOT_FOUND");
    } finally {
      service.answers.delete("user");
      await admin.close();
    }
  });

  it("hooks see every attempt, may add a header, and watch retries; a logger gets a line per attempt without credentials", async () => {
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = { debug: (message, fields) => lines.push({ level: "debug", message, fields }), warn: (message, fields) => lines.push({ level: "warn", message, fields }) };
    let failures = 1;
    service.answers.set("users", () => {
      if (failures-- > 0) throw new ServiceError("UNAVAILABLE", "busy");
      return { users: [], pagination: { limit: 10, page: 1, offset: 0, total: 0 } };
    });
    const admin = client(protocol, {
      logger,
      hooks: {
        onRequest: (event) => {
          requests.push({ ...event, headers: { ...event.headers } });
          event.headers["x-request-id"] = `req-${event.attempt}`;
        },
        onResponse: (event) => responses.push(event),
      },
    });
    try {
      const before = service.calls.length;
      await admin.users();
      expect(requests.map((r) => [r.operation, r.protocol, r.attempt])).toEqual([
        ["users", protocol, 1],
        ["users", protocol, 2],
      ]);
      expect(service.calls.slice(before).map((call) => call.headers["x-request-id"])).toEqual(["req-1", "req-2"]);
      expect(responses.map((r) => [r.attempt, r.willRetry, r.error?.code])).toEqual([
        [1, true, "UNAVAILABLE"],
        [2, false, undefined],
      ]);
      expect(lines.map((l) => l.level)).toEqual(["warn", "debug"]);
      expect(lines[0]!.message).toMatch(new RegExp(`^identity: users over ${protocol}, attempt 1: UNAVAILABLE.* in \\d+ ms, retrying$`));
      expect(lines[1]!.fields).toMatchObject({ operation: "users", protocol, attempt: 2, willRetry: false });
      const logged = JSON.stringify(lines);
      expect(logged).not.toContain(SECRET);
      expect(logged).toContain('"x-service-admin-secret":"[redacted]"');
    } finally {
      service.answers.delete("users");
      await admin.close();
    }
  });
});

describe("the environment's log level, interceptors and trace context", () => {
  it("IDENTITY_LOG=debug logs every attempt on the console; info only failures; unset nothing", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const saved = process.env.IDENTITY_LOG;
    try {
      for (const [level, expected] of [
        ["debug", 1],
        ["info", 0],
        [undefined, 0],
      ] as const) {
        if (level === undefined) delete process.env.IDENTITY_LOG;
        else process.env.IDENTITY_LOG = level;
        debug.mockClear();
        const admin = client("rest");
        await admin.users();
        await admin.close();
        expect(debug, String(level)).toHaveBeenCalledTimes(expected);
      }
      expect(warn).not.toHaveBeenCalled();
    } finally {
      if (saved === undefined) delete process.env.IDENTITY_LOG;
      else process.env.IDENTITY_LOG = saved;
      debug.mockRestore();
      warn.mockRestore();
    }
  });

  it("grpcInterceptors see each gRPC call, with the metadata the client sends", async () => {
    const seen: string[] = [];
    const interceptor: Interceptor = (next) => async (request) => {
      seen.push(`${request.method.name} ${request.header.get("x-api-client")?.split(" ")[0]}`);
      return next(request);
    };
    const admin = client("grpc", { grpcInterceptors: [interceptor] });
    await admin.users();
    await admin.close();
    expect(seen).toEqual([`Users typescript/${schema.version}`]);
  });

  it("sends the W3C trace context of the caller's active span, on every protocol", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const span = trace.wrapSpanContext({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED });
      for (const protocol of PROTOCOLS) {
        const admin = client(protocol);
        const before = service.calls.length;
        await context.with(trace.setSpan(context.active(), span), () => admin.users());
        await admin.close();
        expect(service.calls[before]!.headers.traceparent, protocol).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
      }
    } finally {
      propagation.disable();
      context.disable();
    }
  });
});
