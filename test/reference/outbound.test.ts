// Requests the service makes on a caller's behalf (webhooks, test_endpoint, a trusted issuer's
// keys) reach public addresses only, checked after DNS resolution; they follow no redirect and
// read an answer only up to a cap, so an endpoint cannot make the service call into its own
// network or hold gigabytes of a reply.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuerJwksFetcher } from "../../reference/assertions.js";
import { isPublicAddress, OutboundRefused } from "../../reference/outbound.js";
import { createHarness, expectCode } from "./context.js";

let server: Server;
let base: string;
const hits: string[] = [];
let streamed = 0;
let streamClosed: Promise<void>;

beforeAll(async () => {
  let closed: () => void;
  streamClosed = new Promise((resolve) => (closed = resolve));
  server = createServer((request, response) => {
    hits.push(request.url!);
    if (request.url === "/.well-known/openid-configuration") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ issuer: "https://someone-else.example.com", jwks_uri: `${base}/jwks` }));
    } else if (request.url === "/redirect") {
      response.writeHead(302, { location: `${base}/target` }).end();
    } else if (request.url === "/endless") {
      // An answer that never ends: the service must stop reading, not buffer it.
      response.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) streamed += chunk.length;
        if (!response.destroyed) response.once("drain", pump);
      };
      response.on("close", () => closed());
      pump();
    } else {
      response.writeHead(202).end("inside");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("outbound requests", () => {
  it("know which addresses are the service's own network", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "172.16.0.1",
      "192.168.1.1",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "224.0.0.1",
      "not-an-ip",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPublicAddress(address), address).toBe(true);
  });

  it("test_endpoint refuses loopback by address and by name, and the endpoint hears nothing", async () => {
    const h = createHarness();
    const before = hits.length;
    const byAddress = await expectCode(h.call("testEndpoint", { endpoint: `${base}/in`, event_name: "user.signup" }), "FAILED_PRECONDITION");
    expect(byAddress.message).toBe("the endpoint could not be reached (127.0.0.1 resolves to a loopback, private or link-local address)");
    const byName = await expectCode(h.call("testEndpoint", { endpoint: base.replace("127.0.0.1", "localhost") + "/in", event_name: "user.signup" }), "FAILED_PRECONDITION");
    expect(byName.message).toBe("the endpoint could not be reached (localhost resolves to a loopback, private or link-local address)");
    const metadata = await expectCode(h.call("testEndpoint", { endpoint: "http://169.254.169.254/latest/meta-data/", event_name: "user.signup" }), "FAILED_PRECONDITION");
    expect(metadata.message).toContain("resolves to a loopback, private or link-local address");
    expect(hits.length).toBe(before);
  });

  it("webhook deliveries to a private address are refused and logged as such", async () => {
    const h = createHarness();
    const hook = await h.call("addWebhook", { event_name: "user.signup", endpoint: `${base}/hook`, enabled: true });
    const before = hits.length;
    await h.call("signup", { email: "alice@example.com", password: "correct-horse-1", confirm_password: "correct-horse-1" });
    await h.service.state.settled();
    expect(hits.length).toBe(before);
    const { webhook_logs } = await h.call("webhookLogs", { webhook_id: hook.id });
    expect(webhook_logs[0]).toMatchObject({ http_status: null, response: "delivery failed: 127.0.0.1 resolves to a loopback, private or link-local address" });
  });

  it("with --allow-private-outbound (development): no redirect is followed and an endless answer is cut at 64 KiB", async () => {
    const h = createHarness({ allowPrivateOutbound: true });
    expect(await h.call("testEndpoint", { endpoint: `${base}/in`, event_name: "user.signup" })).toEqual({ http_status: 202, response: "inside" });
    const before = hits.length;
    expect((await h.call("testEndpoint", { endpoint: `${base}/redirect`, event_name: "user.signup" })).http_status).toBe(302);
    expect(hits.slice(before)).toEqual(["/redirect"]);
    const endless = await h.call("testEndpoint", { endpoint: `${base}/endless`, event_name: "user.signup" });
    expect(endless.http_status).toBe(200);
    expect(endless.response).toBe("x".repeat(2048));
    await streamClosed;
    // The service hung up: the endpoint could not push more than a few socket buffers past the cap.
    expect(streamed).toBeLessThan(16 * 1024 * 1024);
  });

  it("a discovery document that names another issuer is refused before its keys are fetched", async () => {
    const fetchKeys = issuerJwksFetcher({ allowPrivate: true });
    const issuer = { id: "i", service_account_id: "s", name: "n", issuer_url: base, key_source_type: "oidc_discovery", jwks_url: null, expected_aud: "a" } as never;
    const before = hits.length;
    await expect(fetchKeys(issuer)).rejects.toThrow("the discovery document names another issuer");
    expect(hits.slice(before)).toEqual(["/.well-known/openid-configuration"]);
  });

  it("a trusted issuer's keys are not fetched from a private address", async () => {
    const fetchKeys = issuerJwksFetcher({ allowPrivate: false });
    const issuer = { id: "i", service_account_id: "s", name: "n", issuer_url: base, key_source_type: "jwks_url", jwks_url: `${base}/jwks`, expected_aud: "a" } as never;
    const before = hits.length;
    await expect(fetchKeys(issuer)).rejects.toBeInstanceOf(OutboundRefused);
    expect(hits.length).toBe(before);
  });
});
