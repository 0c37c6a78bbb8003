// Prometheus metrics (option metrics): every call over every protocol counted with its protocol,
// operation and outcome code, durations per protocol and operation, lockouts and rate-limit
// refusals, and never a label a caller chose.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOLS, rawAdminMeta } from "../helpers/raw-calls.js";
import { sample } from "../helpers/prometheus.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";
let service: RecordingService;
let metricsUrl: string;

beforeAll(async () => {
  service = await startRecordingService(SECRET, {
    metrics: true,
    // Each test speaks from its own address on every port, through the loopback proxy.
    trustProxy: ["loopback"],
    grpcTrustProxy: ["loopback"],
    lockout: { maxFailures: 2, windowMs: 60_000 },
    rateLimit: { read: { perSecond: 5, burst: 0 }, write: false, token: false },
  });
  metricsUrl = `${service.httpUrl}/metrics`;
});
afterAll(() => service.close());

async function scrape(url = metricsUrl): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

describe("metrics", () => {
  it.each(PROTOCOLS)("count every call over %s with protocol, operation and code, and time it", async (protocol) => {
    const call = rawAdminMeta(service, protocol);
    const before = await scrape();
    const labels = (code: string) => ({ protocol, operation: "admin_meta", code });
    const address = `203.0.113.${PROTOCOLS.indexOf(protocol) + 10}`;
    expect((await call({ "x-service-admin-secret": SECRET, "x-forwarded-for": address })).code).toBe("OK");
    expect((await call({ "x-service-admin-secret": SECRET, "x-forwarded-for": address })).code).toBe("OK");
    expect((await call({ "x-service-admin-secret": "", "x-forwarded-for": address })).code).toBe("UNAUTHENTICATED");
    const after = await scrape();
    expect(sample(after, "api_operations_total", labels("OK")) - sample(before, "api_operations_total", labels("OK"))).toBe(2);
    expect(sample(after, "api_operations_total", labels("UNAUTHENTICATED")) - sample(before, "api_operations_total", labels("UNAUTHENTICATED"))).toBe(1);
    const count = (text: string) => sample(text, "api_operation_duration_seconds_count", { protocol, operation: "admin_meta" });
    // Every call ran the pipeline (over GraphQL, the clients' own document runs it directly), so all are timed.
    expect(count(after) - count(before)).toBe(3);
    expect(sample(after, "api_operation_duration_seconds_bucket", { protocol, operation: "admin_meta", le: "+Inf" })).toBe(count(after));
  });

  it("count calls refused before they ran: a body that is not JSON, GraphQL variables found wrong", async () => {
    const before = await scrape();
    await fetch(`${service.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: "{" });
    await fetch(`${service.httpUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-admin-secret": SECRET },
      body: JSON.stringify({ query: "query ($p: GetOrganizationInput!) { get_organization(params: $p) { id } }", variables: { p: { id: 7 } } }),
    });
    const after = await scrape();
    const delta = (labels: Record<string, string>) => sample(after, "api_operations_total", labels) - sample(before, "api_operations_total", labels);
    expect(delta({ protocol: "rest", operation: "admin_meta", code: "INVALID_ARGUMENT" })).toBe(1);
    expect(delta({ protocol: "graphql", operation: "get_organization", code: "INVALID_ARGUMENT" })).toBe(1);
  });

  it.each(PROTOCOLS.map((protocol, index) => [protocol, index] as const))("count lockouts and rate-limit refusals over %s", async (protocol, index) => {
    const before = await scrape();
    const call = rawAdminMeta(service, protocol);
    // Two wrong secrets lock the address; the third attempt is refused by the lockout.
    for (let i = 0; i < 3; i++) await call({ "x-service-admin-secret": "guess", "x-forwarded-for": `203.0.113.${20 + 2 * index}` });
    // 5 reads a second: some of 8 quick ones are refused (more pass if the second rolls over).
    let limited = 0;
    for (let i = 0; i < 8; i++) if ((await call({ "x-service-admin-secret": SECRET, "x-forwarded-for": `203.0.113.${21 + 2 * index}` })).code === "TOO_MANY_REQUESTS") limited++;
    expect(limited).toBeGreaterThan(0);
    const after = await scrape();
    expect(sample(after, "api_admin_lockouts_total") - sample(before, "api_admin_lockouts_total")).toBe(1);
    expect(sample(after, "api_rate_limited_total", { class: "read" }) - sample(before, "api_rate_limited_total", { class: "read" })).toBe(limited);
    const tooMany = { protocol, operation: "admin_meta", code: "TOO_MANY_REQUESTS" };
    expect(sample(after, "api_operations_total", tooMany) - sample(before, "api_operations_total", tooMany)).toBe(1 + limited);
  });

  it("never label what a caller chose: unknown routes, addresses and secrets stay out", async () => {
    await fetch(`${service.httpUrl}/v1/admin/no_such_operation_xyz`, { method: "POST" });
    await fetch(`${service.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "x-service-admin-secret": "a-secret-guess", "x-forwarded-for": "203.0.113.99" } });
    const text = await scrape();
    for (const word of ["no_such_operation_xyz", "a-secret-guess", "203.0.113", SECRET]) expect(text).not.toContain(word);
    const operations = new Set([...text.matchAll(/operation="([^"]+)"/g)].map((match) => match[1]));
    for (const operation of operations) expect(["admin_meta", "get_organization"]).toContain(operation);
  });

  it("are served on a port of their own when asked, and not on the API port", async () => {
    const separate = await startRecordingService(SECRET, { metrics: { port: 0 } });
    try {
      const meta = rawAdminMeta(separate, "grpc");
      expect((await meta({ "x-service-admin-secret": SECRET })).code).toBe("OK");
      const text = await scrape(separate.metricsUrl!);
      expect(sample(text, "api_operations_total", { protocol: "grpc", operation: "admin_meta", code: "OK" })).toBe(1);
      expect(new URL(separate.metricsUrl!).port).not.toBe(new URL(separate.httpUrl).port);
      expect((await fetch(`${separate.httpUrl}/metrics`)).status).toBe(404);
    } finally {
      await separate.close();
    }
  });

  it("are absent unless asked for", async () => {
    const plain = await startRecordingService(SECRET);
    try {
      expect((await fetch(`${plain.httpUrl}/metrics`)).status).toBe(404);
      expect(plain.metricsUrl).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
