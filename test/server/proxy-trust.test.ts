// Proxies are trusted per listener: trustProxy names the proxies in front of the HTTP port (GraphQL,
// REST, Connect and gRPC-Web), grpcTrustProxy those in front of the gRPC port, where by default the
// x-forwarded-for metadata is the caller's own writing and is ignored. The address each call is
// seen from is what the implementation gets as context.remoteAddress, and what keys the lockout.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserService } from "../../generated/proto/identity/v1/user_service_pb.js";
import { parseServeArgs, USAGE } from "../../reference/cli.js";
import { clientAddressResolver } from "../../runtime/server/client-address.js";
import { rawAdminMeta, rawRead, type WireProtocol } from "../helpers/raw-calls.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "proxy-trust-admin-secret";
const FORWARDED = { "x-forwarded-for": "203.0.113.9" };

let httpOnly: RecordingService;
let bothPorts: RecordingService;
beforeAll(async () => {
  [httpOnly, bothPorts] = await Promise.all([startRecordingService(SECRET, { trustProxy: 1 }), startRecordingService(SECRET, { trustProxy: 1, grpcTrustProxy: 1 })]);
});
afterAll(async () => {
  await Promise.all([httpOnly?.close(), bothPorts?.close()]);
});

/** The address the implementation saw for one call of `meta` over `protocol` carrying `headers`. */
async function seenAs(service: RecordingService, protocol: WireProtocol | "connect" | "grpc-web", headers: Record<string, string>): Promise<string> {
  const before = service.calls.length;
  if (protocol === "connect" || protocol === "grpc-web") {
    // Connect and gRPC-Web are served on the HTTP port.
    const transport = (protocol === "connect" ? createConnectTransport : createGrpcWebTransport)({ baseUrl: service.httpUrl, httpVersion: "1.1" });
    await createClient(UserService, transport).meta({}, { headers });
  } else {
    expect((await rawRead(service, protocol, "meta")(headers)).code).toBe("OK");
  }
  const calls = service.calls.slice(before);
  expect(calls.map((call) => call.method)).toEqual(["meta"]);
  return calls[0]!.remoteAddress;
}

describe("with trustProxy: 1 and no grpcTrustProxy", () => {
  it.each(["rest", "graphql", "connect", "grpc-web"] as const)("a call over %s on the HTTP port is seen from the address its proxy forwarded", async (protocol) => {
    expect(await seenAs(httpOnly, protocol, FORWARDED)).toBe("203.0.113.9");
  });

  it("a gRPC call on the gRPC port is seen from its TCP peer, whatever its x-forwarded-for metadata says", async () => {
    expect(await seenAs(httpOnly, "grpc", FORWARDED)).toBe("127.0.0.1");
    expect(await seenAs(httpOnly, "grpc", { forwarded: "for=203.0.113.9", "x-forwarded-for": "198.51.100.1, 203.0.113.9" })).toBe("127.0.0.1");
  });

  it("so x-forwarded-for metadata on the gRPC port neither dodges the lockout nor spends another address's failures", async () => {
    const locked = await startRecordingService(SECRET, { trustProxy: 1, lockout: { maxFailures: 2, windowMs: 60_000 } });
    try {
      const grpc = rawAdminMeta(locked, "grpc");
      expect((await grpc({ "x-service-admin-secret": "guess-one", "x-forwarded-for": "198.51.100.1" })).code).toBe("UNAUTHENTICATED");
      expect((await grpc({ "x-service-admin-secret": "guess-two", "x-forwarded-for": "198.51.100.2" })).code).toBe("UNAUTHENTICATED");
      // Both guesses counted against 127.0.0.1, the peer: a third claimed address does not help.
      expect((await grpc({ "x-service-admin-secret": SECRET, "x-forwarded-for": "198.51.100.3" })).code).toBe("TOO_MANY_REQUESTS");
      // Through the HTTP port's trusted proxy, 198.51.100.1 and .2 are callers of their own and never failed.
      expect((await rawAdminMeta(locked, "rest")({ "x-service-admin-secret": SECRET, "x-forwarded-for": "198.51.100.1" })).code).toBe("OK");
    } finally {
      await locked.close();
    }
  });
});

describe("with grpcTrustProxy: 1 as well", () => {
  it("a gRPC call on the gRPC port is seen from the address its proxy forwarded", async () => {
    expect(await seenAs(bothPorts, "grpc", FORWARDED)).toBe("203.0.113.9");
    // One hop trusted: the address the caller wrote in front of its proxy's is not believed.
    expect(await seenAs(bothPorts, "grpc", { "x-forwarded-for": "6.6.6.6, 203.0.113.9" })).toBe("203.0.113.9");
  });

  it("the HTTP port keeps its own trust", async () => {
    expect(await seenAs(bothPorts, "rest", FORWARDED)).toBe("203.0.113.9");
  });
});

describe("with only grpcTrustProxy", () => {
  it("the HTTP port ignores forwarding headers and the gRPC port reads them", async () => {
    const grpcOnly = await startRecordingService(SECRET, { grpcTrustProxy: ["loopback"] });
    try {
      expect(await seenAs(grpcOnly, "rest", FORWARDED)).toBe("127.0.0.1");
      expect(await seenAs(grpcOnly, "connect", FORWARDED)).toBe("127.0.0.1");
      expect(await seenAs(grpcOnly, "grpc", FORWARDED)).toBe("203.0.113.9");
    } finally {
      await grpcOnly.close();
    }
  });
});

describe("settings", () => {
  it("a bad grpcTrustProxy is refused at start, named as such", async () => {
    expect(() => clientAddressResolver(-1, "grpcTrustProxy")).toThrow("grpcTrustProxy: a hop count must be a whole number >= 0, not -1");
    await expect(startRecordingService(SECRET, { grpcTrustProxy: ["10.0.0.0/99"] })).rejects.toThrow(/^grpcTrustProxy: /);
  });

  it("the reference CLI takes --grpc-trust-proxy (GRPC_TRUST_PROXY) with the syntax of --trust-proxy", () => {
    const env = { SERVICE_ADMIN_SECRET: SECRET };
    expect(parseServeArgs(["--trust-proxy", "1"], env)).toMatchObject({ trustProxy: 1, grpcTrustProxy: undefined });
    expect(parseServeArgs(["--grpc-trust-proxy", "10.0.0.0/8, loopback"], env)).toMatchObject({ trustProxy: undefined, grpcTrustProxy: ["10.0.0.0/8", "loopback"] });
    expect(parseServeArgs([], { ...env, GRPC_TRUST_PROXY: "2" })).toMatchObject({ grpcTrustProxy: 2 });
    // The forwarded header applies to both listeners, and needs at least one of them.
    expect(parseServeArgs(["--grpc-trust-proxy=1", "--forwarded-header", "forwarded"], env)).toMatchObject({ grpcTrustProxy: { trust: 1, header: "forwarded" } });
    expect(() => parseServeArgs(["--forwarded-header", "forwarded"], env)).toThrow("--forwarded-header needs --trust-proxy or --grpc-trust-proxy");
    expect(() => parseServeArgs(["--grpc-trust-proxy", ","], env)).toThrow("--grpc-trust-proxy needs a hop count or a list of addresses");
    expect(USAGE).toContain("[--grpc-trust-proxy <hops>|<cidr,...>]");
    expect(USAGE).toContain("GRPC_TRUST_PROXY");
  });
});
