// Routes mounted beside the operations (the `mounts` option): they own their prefix and the paths
// under it only, and share the port's body limit, caller address and rate limits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpMount } from "../../generated/server/index.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const seen: { path: string; clientAddress: string }[] = [];

const echo: HttpMount = {
  prefix: "/hooks",
  async handle(request, response, context) {
    if (request.url === "/hooks/fail") throw new Error("a bug in the mount");
    try {
      await context.admit("write");
      const body = await context.readBody(request);
      seen.push({ path: request.url ?? "", clientAddress: context.clientAddress });
      response.writeHead(200, { "content-type": "text/plain" }).end(`${request.url} ${body.length} ${context.bodyLimit}`);
    } catch (error) {
      const { code, retryAfterSeconds } = error as { code: string; retryAfterSeconds?: number };
      response.writeHead(code === "PAYLOAD_TOO_LARGE" ? 413 : 429, retryAfterSeconds ? { "retry-after": String(retryAfterSeconds) } : {}).end(code);
    }
  },
};

describe("mounts", () => {
  let service: RecordingService;
  beforeAll(async () => {
    service = await startRecordingService("s3cret-admin-key", { mounts: [echo], bodyLimitBytes: 1000, rateLimit: { write: { perSecond: 3, burst: 0 }, read: false, token: false } });
  });
  afterAll(() => service.close());

  it("own their prefix and the paths under it, nothing else", async () => {
    const own = await fetch(`${service.httpUrl}/hooks/deliver?x=1`, { method: "POST", body: "hello" });
    expect(await own.text()).toBe("/hooks/deliver?x=1 5 1000");
    expect((await fetch(`${service.httpUrl}/hooks`, { method: "POST" })).status).toBe(200);
    const neighbour = await fetch(`${service.httpUrl}/hooksmith`);
    expect(neighbour.status).toBe(404);
    expect(await neighbour.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(seen.map((entry) => entry.path)).toEqual(["/hooks/deliver?x=1", "/hooks"]);
    expect(seen[0]!.clientAddress).toMatch(/127\.0\.0\.1/);
  });

  it("read bodies within the port's limit and count against its rate limits", async () => {
    const large = await fetch(`${service.httpUrl}/hooks/large`, { method: "POST", body: "x".repeat(5000) });
    expect(large.status).toBe(413);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${service.httpUrl}/hooks/burst`, { method: "POST", body: "." })).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
  });

  it("answer a generic 500 when the mount itself fails, without its message", async () => {
    const failed = await fetch(`${service.httpUrl}/hooks/fail`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ code: "INTERNAL", message: "internal error" });
  });
});
