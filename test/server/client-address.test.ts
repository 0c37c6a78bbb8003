// The caller's address behind proxies (option trustProxy): the resolver on its own, then a server
// over every protocol, where a spoofed X-Forwarded-For from an untrusted peer is ignored and a
// trusted proxy's header keys the lockout per caller.
import { afterAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../generated/client/index.js";
import { codeOf } from "../helpers/raw-calls.js";
import { clientAddressResolver, normalizeAddress } from "../../runtime/server/client-address.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;

describe("the caller's address", () => {
  it("is the TCP peer without trustProxy, whatever the headers say", () => {
    const resolve = clientAddressResolver(undefined);
    expect(resolve("::ffff:10.1.2.3", { "x-forwarded-for": "203.0.113.7", forwarded: "for=203.0.113.8" })).toBe("10.1.2.3");
  });

  it("walks X-Forwarded-For from the nearest hop through trusted proxies only (CIDR list)", () => {
    const resolve = clientAddressResolver(["10.0.0.0/8"]);
    // The proxy 10.0.0.5 appended the real peer 198.51.100.4; the client wrote the rest itself.
    expect(resolve("10.0.0.5", { "x-forwarded-for": "1.1.1.1, 198.51.100.4" })).toBe("198.51.100.4");
    // Two trusted proxies in a row.
    expect(resolve("10.0.0.5", { "x-forwarded-for": "1.1.1.1, 198.51.100.4, 10.9.9.9" })).toBe("198.51.100.4");
    // A peer outside the list is the caller: its header is ignored.
    expect(resolve("192.0.2.50", { "x-forwarded-for": "198.51.100.4" })).toBe("192.0.2.50");
    expect(resolve("::ffff:10.0.0.5", { "x-forwarded-for": "198.51.100.4" })).toBe("198.51.100.4");
    expect(resolve("10.0.0.5", {})).toBe("10.0.0.5");
    // A hop that names no address is attributed to the trusted proxy that passed it on.
    expect(resolve("10.0.0.5", { "x-forwarded-for": "unknown" })).toBe("10.0.0.5");
    expect(resolve("10.0.0.5", { "x-forwarded-for": `${"x".repeat(5000)}, 10.0.0.7` })).toBe("10.0.0.7");
  });

  it("trusts exactly the given number of hops", () => {
    const resolve = clientAddressResolver(1);
    expect(resolve("192.0.2.1", { "x-forwarded-for": "6.6.6.6, 198.51.100.4" })).toBe("198.51.100.4");
    expect(clientAddressResolver(2)("192.0.2.1", { "x-forwarded-for": "6.6.6.6, 198.51.100.4" })).toBe("6.6.6.6");
    expect(clientAddressResolver(0)("192.0.2.1", { "x-forwarded-for": "6.6.6.6" })).toBe("192.0.2.1");
  });

  it("reads Forwarded (RFC 7239) when told to, and then ignores X-Forwarded-For", () => {
    const resolve = clientAddressResolver({ trust: ["loopback"], header: "forwarded" });
    expect(resolve("127.0.0.1", { forwarded: 'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"', "x-forwarded-for": "6.6.6.6" })).toBe("2001:db8:cafe::17");
    expect(resolve("127.0.0.1", { "x-forwarded-for": "6.6.6.6" })).toBe("127.0.0.1");
    // A malformed header names nobody: the peer stands.
    expect(resolve("127.0.0.1", { forwarded: "for=" })).toBe("127.0.0.1");
  });

  it("normalizes mapped IPv4, brackets and ports", () => {
    expect(normalizeAddress("::FFFF:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("192.0.2.1:8080")).toBe("192.0.2.1");
    expect(normalizeAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(normalizeAddress("ipv4:192.0.2.1:5000")).toBe("192.0.2.1");
    expect(normalizeAddress("ipv6:[2001:db8::1]:5000")).toBe("2001:db8::1");
  });

  it("refuses settings it cannot follow, with the reason", () => {
    expect(() => clientAddressResolver(-1)).toThrow("trustProxy: a hop count must be a whole number >= 0, not -1");
    expect(() => clientAddressResolver(["10.0.0.0/99"])).toThrow(/^trustProxy: /);
    expect(() => clientAddressResolver({ trust: 1, header: "x-real-ip" as never })).toThrow("header must be x-forwarded-for or forwarded");
  });
});

const servers: RecordingService[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** The same proxies trusted on both ports: the gRPC port's own trust has tests of its own (proxy-trust.test.ts). */
async function lockedServer(trustProxy: string[]) {
  const server = await startRecordingService("s3cret-admin-key", { lockout: { maxFailures: 3, windowMs: 60_000 }, trustProxy, grpcTrustProxy: trustProxy });
  servers.push(server);
  return (protocol: (typeof PROTOCOLS)[number], secret: string, forwardedFor: string) =>
    new AdminClient({ serviceUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint, adminSecret: secret, protocol, retry: false, extraHeaders: { "x-forwarded-for": forwardedFor } });
}

describe("behind a proxy", () => {
  it.each(PROTOCOLS)("over %s, a spoofed X-Forwarded-For from an untrusted peer neither dodges the lockout nor locks out another address", async (protocol) => {
    // The test's peer is 127.0.0.1, which this server does not trust.
    const client = await lockedServer(["10.0.0.0/8"]);
    for (let i = 0; i < 3; i++) expect(await codeOf(() => client(protocol, "guess", `198.51.100.${i}`).adminMeta())).toBe("UNAUTHENTICATED");
    // Every guess counted against the peer, whatever address the header claimed.
    expect(await codeOf(() => client(protocol, "guess", "198.51.100.99").adminMeta())).toBe("TOO_MANY_REQUESTS");
    expect(await codeOf(() => client(protocol, "s3cret-admin-key", "198.51.100.100").adminMeta())).toBe("TOO_MANY_REQUESTS");
  });

  it.each(PROTOCOLS)("over %s, a trusted proxy's X-Forwarded-For keys the lockout per caller", async (protocol) => {
    const client = await lockedServer(["loopback"]);
    for (let i = 0; i < 3; i++) expect(await codeOf(() => client(protocol, "guess", "203.0.113.66").adminMeta())).toBe("UNAUTHENTICATED");
    expect(await codeOf(() => client(protocol, "s3cret-admin-key", "203.0.113.66").adminMeta())).toBe("TOO_MANY_REQUESTS");
    // Another caller behind the same proxy is not locked out...
    expect(await codeOf(() => client(protocol, "s3cret-admin-key", "203.0.113.67").adminMeta())).toBe("OK");
    // ... and the locked caller cannot pose as it by writing its address in front: the proxy appends the real one.
    expect(await codeOf(() => client(protocol, "s3cret-admin-key", "203.0.113.67, 203.0.113.66").adminMeta())).toBe("TOO_MANY_REQUESTS");
  });
});
