// Browsers' cross-origin calls: listed origins get CORS headers (credentials, a cached preflight)
// on the user surface and token routes; the admin surface answers no page of another origin unless
// cors.adminOrigins lists it, whatever the credentials; unlisted origins get nothing to read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { parseServeArgs, UsageError } from "../../reference/cli.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";
const APP = "https://app.example.com";
const STAFF = "https://staff.example.com";
const profile = schema.operations.profile!.rest!;
const adminMeta = schema.operations.admin_meta!.rest!;

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET, { cors: { origins: [APP], adminOrigins: [STAFF], maxAgeSeconds: 900 } });
});
afterAll(async () => {
  await service.close();
});

const call = (path: string, method: string, headers: Record<string, string>) => fetch(`${service.httpUrl}${path}`, { method, headers, ...(method === "POST" ? { body: "{}" } : {}) });

describe("CORS", () => {
  it("answers a listed origin's preflight itself: its origin, credentials, the headers the SDKs send, cached", async () => {
    const response = await call(profile.path, "OPTIONS", { origin: APP, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" });
    expect(response.status).toBe(204);
    expect(Object.fromEntries(["access-control-allow-origin", "access-control-allow-credentials", "access-control-max-age", "vary"].map((name) => [name, response.headers.get(name)]))).toEqual({
      "access-control-allow-origin": APP,
      "access-control-allow-credentials": "true",
      "access-control-max-age": "900",
      vary: "Origin",
    });
    const allowed = response.headers.get("access-control-allow-headers")!.split(", ");
    for (const header of ["authorization", "content-type", "idempotency-key", "x-api-client", "traceparent", "connect-protocol-version"]) expect(allowed).toContain(header);
  });

  it("refuses an unlisted origin's preflight and gives its calls no CORS header", async () => {
    const preflight = await call(profile.path, "OPTIONS", { origin: "https://evil.example", "access-control-request-method": "POST" });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const plain = await call(profile.path, profile.method, { origin: "https://evil.example", "content-type": "application/json" });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("gives a listed origin's call its headers, and the answer headers a page may read", async () => {
    const response = await call(profile.path, profile.method, { origin: APP, "content-type": "application/json", authorization: "Bearer user-token" });
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-expose-headers")).toContain("idempotent-replayed");
  });

  it("refuses an admin call from a page of another origin unless adminOrigins lists it, even with the secret", async () => {
    const before = service.calls.length;
    const fromApp = await call(adminMeta.path, adminMeta.method, { origin: APP, "content-type": "application/json", "x-service-admin-secret": SECRET });
    expect(fromApp.status).toBe(403);
    expect(await fromApp.json()).toEqual({
      code: "PERMISSION_DENIED",
      message: `the admin surface does not answer pages of ${APP}; list the origin in cors.adminOrigins (--cors-admin-origin) to allow it`,
    });
    expect(service.calls.length).toBe(before);
    const fromStaff = await call(adminMeta.path, adminMeta.method, { origin: STAFF, "content-type": "application/json", "x-service-admin-secret": SECRET });
    expect(fromStaff.status).toBe(200);
    expect(fromStaff.headers.get("access-control-allow-origin")).toBe(STAFF);
    // The service's own pages (the explorer) are the same origin: not a cross-origin call.
    const own = await call(adminMeta.path, adminMeta.method, { origin: service.httpUrl, "content-type": "application/json", "x-service-admin-secret": SECRET });
    expect(own.status).toBe(200);
  });

  it("without the option: no CORS header, and still no admin call from another origin's page", async () => {
    const plain = await startRecordingService(SECRET);
    try {
      const preflight = await fetch(`${plain.httpUrl}${profile.path}`, { method: "OPTIONS", headers: { origin: APP, "access-control-request-method": "POST" } });
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
      const admin = await fetch(`${plain.httpUrl}${adminMeta.path}`, {
        method: adminMeta.method,
        headers: { origin: APP, "content-type": "application/json", "x-service-admin-secret": SECRET },
        body: "{}",
      });
      expect(admin.status).toBe(403);
    } finally {
      await plain.close();
    }
  });

  it("refuses an origin that is not scheme://host[:port], in the option and on the command line", async () => {
    await expect(startRecordingService(SECRET, { cors: { origins: ["https://app.example.com/path"] } })).rejects.toThrow("cors: 'https://app.example.com/path' is not an origin");
    expect(() => parseServeArgs(["--cors-origin", "app.example.com"], {})).toThrow(UsageError);
    expect(() => parseServeArgs(["--cors-origin", "app.example.com"], {})).toThrow("--cors-origin: 'app.example.com' is not an origin; give scheme://host[:port], such as https://app.example.com");
    expect(parseServeArgs(["--cors-origin", `${APP},http://localhost:5173`, "--cors-admin-origin", STAFF], {}).cors).toEqual({ origins: [APP, "http://localhost:5173"], adminOrigins: [STAFF] });
  });
});
