// The clients' platform module for browsers, Deno, Bun and edge runtimes (runtime/client/platform-web.ts,
// grpc-web.ts), exercised here on Node with its fetch: the TLS options only Node can take are
// refused with the platform's own way; the global fetch is looked up at each call (a mock installed
// later is used) and its absence is named; RPCs go as Connect to serviceUrl, where an answer over
// maxResponseBytes is PAYLOAD_TOO_LARGE and a failed fetch UNAVAILABLE; and a write on a page
// without crypto.randomUUID (plain http) still carries a UUID as its Idempotency-Key.
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdminClient, type ApiError } from "../../generated/client/index.js";
import { grpcServices } from "../../generated/client/grpc-services.js";
import { schema } from "../../generated/schema.js";
import { createGrpcTransport } from "../../runtime/client/grpc-web.js";
import { createGrpcTransport as createEntryTransport } from "../../runtime/client/rpc-entry.js";
import { PLATFORM } from "../../runtime/client/platform-web.js";
import type { TransportSettings } from "../../runtime/client/transport.js";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const settings = (fetch: typeof globalThis.fetch, maxResponseBytes = 1024): TransportSettings => ({
  service: schema,
  serviceUrl: "https://identity.example.com",
  grpcEndpoint: "identity.example.com:9091",
  grpcEndpointIsDefault: true,
  fetch,
  grpcTls: false,
  maxResponseBytes,
  grpcInterceptors: [],
  warn: () => {},
});
const call = { operation: schema.operations.admin_meta!, schema, input: {}, headers: {}, signal: undefined };

describe("the web platform", () => {
  it("refuses the TLS options only Node's client can honour, naming the platform's way", () => {
    expect(() => PLATFORM.ownFetch({ ca: "-----BEGIN CERTIFICATE-----" })).toThrow(
      "tls.ca needs Node: here the platform's fetch trusts the platform's certificates (Deno: --cert or DENO_CERT; Bun: NODE_EXTRA_CA_CERTS; a browser: its own store); or pass a fetch of your own",
    );
    expect(() => PLATFORM.ownFetch({ cert: "c", key: "k" })).toThrow(/^tls\.cert, tls\.key need Node/);
    expect(() => PLATFORM.ownFetch({})).not.toThrow();
  });

  it("uses the global fetch of the moment of each call, and names its absence", async () => {
    const { fetch } = PLATFORM.ownFetch(undefined);
    const later = vi.fn(async () => new Response("mocked"));
    vi.stubGlobal("fetch", later);
    expect(await (await fetch("https://identity.example.com/x")).text()).toBe("mocked");
    expect(later).toHaveBeenCalledOnce();
    vi.stubGlobal("fetch", undefined);
    expect(() => fetch("https://identity.example.com/x")).toThrow("this runtime has no global fetch: pass one as the client's fetch option");
  });

  it("sends RPCs as Connect to serviceUrl, and refuses an answer over maxResponseBytes as PAYLOAD_TOO_LARGE", async () => {
    const urls: string[] = [];
    const big = async (input: RequestInfo | URL) => {
      urls.push(String(input));
      return new Response(new Uint8Array(10), { status: 200, headers: { "content-type": "application/proto", "content-length": "4096" } });
    };
    const transport = createGrpcTransport(settings(big as typeof fetch), grpcServices);
    const error = (await transport.call(call).catch((e: unknown) => e)) as ApiError;
    expect(urls).toEqual(["https://identity.example.com/identity.v1.AdminService/AdminMeta"]);
    expect([error.code, error.message]).toEqual(["PAYLOAD_TOO_LARGE", "admin_meta: the answer is larger than 1024 bytes (maxResponseBytes)"]);
  });

  it("sends RPCs to serviceUrl alone: grpcEndpoint and grpcTls are Node's, and the refusal in clear is serviceUrl's", () => {
    const url = new URL("http://10.0.0.5:8080");
    const overHttp = "refusing to send credentials in clear to http://10.0.0.5:8080";
    // Even a malformed grpcEndpoint is no TypeError here: the option is Node's, and nothing reads it.
    expect(PLATFORM.rpcTarget({ grpcEndpoint: "not an endpoint", grpcTls: true }, 9091, url, overHttp)).toEqual({
      grpcEndpoint: "10.0.0.5:8080",
      grpcEndpointIsDefault: false,
      grpcTls: false,
      inClear: overHttp,
    });
    expect(PLATFORM.rpcTarget({}, 9091, new URL("https://identity.example.com"), undefined).inClear).toBeUndefined();
  });

  it("reads a fetch that never reached the service as UNAVAILABLE", async () => {
    const refused = async () => {
      throw new TypeError("Failed to fetch");
    };
    const error = (await createGrpcTransport(settings(refused as typeof fetch), grpcServices)
      .call(call)
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.message]).toEqual(["UNAVAILABLE", "admin_meta: no answer from the service (Failed to fetch)"]);
  });
});

describe("the ./grpc entry's createGrpcTransport", () => {
  it("is the platform's RPC transport, loaded on its first call: on Node, gRPC to grpcEndpoint, never fetch to serviceUrl", async () => {
    const fetched: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      fetched.push(String(input));
      return new Response("");
    };
    // Nothing listens on port 1: made without a word, the transport fails its first call only.
    const transport = createEntryTransport(
      { ...settings(fetch as typeof globalThis.fetch), serviceUrl: "http://127.0.0.1:1", grpcEndpoint: "127.0.0.1:1", grpcEndpointIsDefault: false },
      grpcServices,
    );
    expect(transport.protocol).toBe("grpc");
    const error = (await transport.call(call).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toMatch(/^admin_meta: no answer from the service \(.*(ECONNREFUSED|connect).*\)$/);
    expect(fetched).toEqual([]);
    await transport.close();
  });
});

describe("an Idempotency-Key without crypto.randomUUID", () => {
  it("is still a version 4 UUID, from getRandomValues", async () => {
    Object.defineProperty(globalThis.crypto, "randomUUID", { value: undefined, configurable: true });
    const keys: string[] = [];
    const fetch = async (_input: RequestInfo | URL, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get("idempotency-key") ?? "");
      return new Response(JSON.stringify({ code: "NOT_FOUND", message: "no" }), { status: 404, headers: { "content-type": "application/json" } });
    };
    try {
      const admin = new AdminClient({
        serviceUrl: "http://localhost:8080",
        adminSecret: "s3cret-admin",
        protocol: "rest",
        serverVersion: schema.version,
        retry: false,
        fetch: fetch as typeof globalThis.fetch,
      });
      await admin.deleteOrganization({ id: "x" }).catch(() => undefined);
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(typeof globalThis.crypto.randomUUID).toBe("function");
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
