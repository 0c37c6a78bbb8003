// A browser cannot be made to act with the admin session cookie from another site: a write that
// carries a cookie needs the JSON content type even without a body (a cross-site page can POST an
// untyped empty body without a preflight), and a request a browser marks as cross-site
// (Sec-Fetch-Site) is not authenticated by the cookie. Answers carry nosniff.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServiceServer } from "../../generated/server/index.js";
import { createReferenceService } from "../../reference/service.js";
import { testStorage } from "../helpers/test-storage.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "csrf-test-admin-secret";
let server: ServiceServer;
let base: string;
let cookie: string;

beforeAll(async () => {
  const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage: testStorage("sqlite") });
  server = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, ...service.serverOptions });
  base = (await server.listen()).httpUrl;
  const login = await fetch(`${base}/v1/admin/admin_login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ admin_secret: SECRET }) });
  cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  // Something to lose: a model an attacker would like reset.
  await fetch(`${base}/v1/admin/fga_write_model`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify({ dsl: "model\n  schema 1.1\ntype user" }) });
});
afterAll(() => server?.close());

const modelExists = async () =>
  (await fetch(`${base}/v1/admin/fga_get_model`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: "{}" })).status === 200;

describe("the admin session cookie from another site", () => {
  it("an empty-body write with the cookie but without the JSON content type is refused (415) and changes nothing", async () => {
    const answer = await fetch(`${base}/v1/admin/fga_reset`, { method: "POST", headers: { cookie } });
    expect(answer.status).toBe(415);
    expect(await answer.json()).toEqual({ code: "UNSUPPORTED_MEDIA_TYPE", message: "the body must be sent with Content-Type: application/json; the request has no Content-Type header" });
    expect(await modelExists()).toBe(true);
  });

  it("so is one to /graphql and to a Connect procedure, and a body of a type a form can send (text/plain, a form)", async () => {
    for (const [path, type] of [
      ["/graphql", undefined],
      ["/identity.v1.AdminService/AdminLogout", undefined],
      ["/identity.v1.AdminService/AdminLogout", "text/plain"],
      ["/v1/admin/fga_reset", "text/plain"],
      ["/v1/admin/fga_reset", "application/x-www-form-urlencoded"],
    ] as const) {
      const answer = await fetch(`${base}${path}`, { method: "POST", headers: { cookie, ...(type ? { "content-type": type } : {}) }, ...(type ? { body: "x=1" } : {}) });
      expect([path, type, answer.status]).toEqual([path, type, 415]);
    }
    expect(await modelExists()).toBe(true);
    expect((await fetch(`${base}/v1/admin/admin_meta`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" })).status).toBe(200);
  });

  it("a request the browser marks cross-site or same-site is not authenticated by the cookie, on REST and GraphQL", async () => {
    for (const site of ["cross-site", "same-site"]) {
      const rest = await fetch(`${base}/v1/admin/fga_reset`, { method: "POST", headers: { cookie, "content-type": "application/json", "sec-fetch-site": site }, body: "{}" });
      expect(rest.status, site).toBe(403);
      expect((await rest.json()).message).toBe("the admin session cookie is not accepted on a cross-site request; send the admin secret header");
      const graphql = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", "sec-fetch-site": site },
        body: JSON.stringify({ query: "mutation { fga_reset { message } }" }),
      });
      expect((await graphql.json()).errors[0].extensions.code, site).toBe("PERMISSION_DENIED");
    }
    expect(await modelExists()).toBe(true);
  });

  it("the service's own pages (same-origin, or a request typed by the user) still work with the cookie", async () => {
    for (const site of ["same-origin", "none"]) {
      const meta = await fetch(`${base}/v1/admin/admin_meta`, { method: "POST", headers: { cookie, "content-type": "application/json", "sec-fetch-site": site }, body: "{}" });
      expect(meta.status, site).toBe(200);
    }
  });

  it("answers carry nosniff, successes and errors alike", async () => {
    const ok = await fetch(`${base}/v1/admin/admin_meta`, { method: "POST", headers: { "x-service-admin-secret": SECRET, "content-type": "application/json" }, body: "{}" });
    const refused = await fetch(`${base}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    for (const answer of [ok, refused]) expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    // HSTS only over TLS (test/tls): over plaintext it would be ignored, and misleads.
    expect(ok.headers.get("strict-transport-security")).toBeNull();
  });
});
