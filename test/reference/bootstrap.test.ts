// admin_signup bootstraps the first admin of a service started without an admin secret (§4.3):
// until then every admin call answers one error on every protocol; two sign-ups at once make one
// admin; the secret is stored hashed with the service's data and survives a restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { createServer, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService, NO_ADMIN_MESSAGE } from "../../reference/service.js";
import type { Storage } from "../../reference/storage.js";
import { openStorage } from "../../reference/store/open.js";
import { PROTOCOLS } from "../helpers/raw-calls.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "first-admin-secret-1";
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "apigen-bootstrap-"));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Running {
  server: ServiceServer;
  storage: Storage;
  endpoint: { httpUrl: string; grpcEndpoint: string };
  admin(protocol?: (typeof PROTOCOLS)[number], secret?: string): AdminClient;
  close(): Promise<void>;
}

async function start(databaseUrl: string, adminSecret?: string): Promise<Running> {
  const { storage } = await openStorage(databaseUrl);
  const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage, bootstrapAdmin: adminSecret === undefined });
  const server = createServer(service.implementation, { adminSecret: adminSecret ?? service.adminBootstrap, port: 0, grpcPort: 0, ...service.serverOptions });
  const endpoint = await server.listen();
  return {
    server,
    storage,
    endpoint,
    admin: (protocol = "rest", secret = SECRET) =>
      new AdminClient({ serviceUrl: endpoint.httpUrl, grpcEndpoint: endpoint.grpcEndpoint, adminSecret: secret, protocol, serverVersion: schema.version, retry: false }),
    async close() {
      await server.close();
      await storage.close();
    },
  };
}

async function failure(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return `${error.code}: ${error.message}`;
}

describe("a service started without an admin secret", () => {
  it("refuses every admin call with one error until admin_signup, which one of two concurrent callers wins", async () => {
    const url = `sqlite:${join(folder, "identity.sqlite")}`;
    let running = await start(url);
    try {
      for (const protocol of PROTOCOLS) {
        expect(await failure(running.admin(protocol).adminMeta({}))).toBe(`UNAUTHENTICATED: ${NO_ADMIN_MESSAGE}`);
        expect(await failure(running.admin(protocol).users({}))).toBe(`UNAUTHENTICATED: ${NO_ADMIN_MESSAGE}`);
      }
      // Without any credential, and by admin_login, the answer is the same.
      const anonymous = await fetch(`${running.endpoint.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ code: "UNAUTHENTICATED", message: NO_ADMIN_MESSAGE });
      expect(await failure(running.admin("rest").adminLogin({ admin_secret: SECRET }))).toBe(`UNAUTHENTICATED: ${NO_ADMIN_MESSAGE}`);

      expect(await failure(running.admin("graphql", "too-short").adminSignup({ admin_secret: "too-short" }))).toMatch(/^INVALID_ARGUMENT: .*admin_secret.*12/);

      const contenders = ["contender-secret-a", "contender-secret-b"];
      const outcomes = await Promise.all(
        contenders.map((secret) =>
          running
            .admin("graphql", secret)
            .adminSignup({ admin_secret: secret })
            .then(
              () => "OK",
              (error: ApiError) => `${error.code}: ${error.message}`,
            ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === "OK")).toHaveLength(1);
      expect(outcomes).toContain("FAILED_PRECONDITION: an admin is configured already; use admin_login");
      const winner = contenders[outcomes.indexOf("OK")]!;
      const loser = contenders[1 - outcomes.indexOf("OK")]!;
      for (const protocol of PROTOCOLS) {
        expect((await running.admin(protocol, winner).adminMeta({})).version).toBe(schema.version);
        expect((await failure(running.admin(protocol, loser).adminMeta({}))).startsWith("UNAUTHENTICATED: wrong admin secret")).toBe(true);
      }
      expect(await failure(running.admin("graphql", winner).adminSignup({ admin_secret: "yet-another-secret" }))).toBe("FAILED_PRECONDITION: an admin is configured already; use admin_login");
      // The secret is kept hashed, never as given.
      expect(JSON.stringify(await running.storage.adminSecrets.list())).not.toContain(winner);
      await running.close();

      running = await start(url);
      expect((await running.admin("grpc", winner).adminMeta({})).version).toBe(schema.version);
      expect(await failure(running.admin("graphql", winner).adminSignup({ admin_secret: winner }))).toBe("FAILED_PRECONDITION: an admin is configured already; use admin_login");
    } finally {
      await running.close();
    }
  });

  it("admin_signup opens an admin session, as admin_login does", async () => {
    const running = await start("sqlite::memory:");
    try {
      const response = await fetch(`${running.endpoint.httpUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `mutation { admin_signup(params: { admin_secret: "${SECRET}" }) { message } }` }),
      });
      const cookie = response.headers.get("set-cookie")?.split(";")[0];
      expect(await response.json()).toEqual({ data: { admin_signup: { message: "admin created; admin session opened" } } });
      expect(cookie).toMatch(/^service_admin_session=/);
      const byCookie = await fetch(`${running.endpoint.httpUrl}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", cookie: cookie! }, body: "{}" });
      expect(byCookie.status).toBe(200);
    } finally {
      await running.close();
    }
  });
});

describe("a service started with an admin secret", () => {
  it("refuses admin_signup, as before", async () => {
    const running = await start("sqlite::memory:", SECRET);
    try {
      expect(await failure(running.admin("graphql").adminSignup({ admin_secret: "another-long-secret" }))).toBe(
        "FAILED_PRECONDITION: the admin secret is set with --admin-secret when the server starts; use admin_login",
      );
      expect((await running.admin("rest").adminMeta({})).version).toBe(schema.version);
    } finally {
      await running.close();
    }
  });
});
