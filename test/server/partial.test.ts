// Partial implementations: with { partial: true } a service serves what it implements and every
// other operation answers UNIMPLEMENTED alike on every protocol; without it, start-up names every gap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, operations } from "../../generated/client/index.js";
import { createServer, ImplementationError, type Implementation, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { ERROR_WIRE } from "../../runtime/errors.js";
import { sampleMessage } from "../helpers/recording-service.js";

const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
const SECRET = "partial-secret";
const TOTAL = Object.keys(schema.operations).length;

/** Three operations, typed as the service interface says: what is implemented is still checked. */
const threeOperations: Partial<Implementation> = {
  async adminMeta() {
    return sampleMessage(schema, schema.operations.admin_meta!.output) as never;
  },
  async getWebhook(input) {
    return { ...(sampleMessage(schema, "Webhook") as { event_name: string; endpoint: string; enabled: boolean; created_at: number; updated_at: number }), id: input.id };
  },
  async deleteWebhook() {
    return { message: "deleted" };
  },
};

let server: ServiceServer;
let addresses: { httpUrl: string; grpcEndpoint: string };
const warnings: string[] = [];

beforeAll(async () => {
  server = createServer(threeOperations, { adminSecret: SECRET, port: 0, grpcPort: 0, partial: true, onWarning: (message) => warnings.push(message) });
  addresses = await server.listen();
});
afterAll(async () => {
  await server?.close();
});

const client = (protocol: (typeof PROTOCOLS)[number]) =>
  new AdminClient({ serviceUrl: addresses.httpUrl, grpcEndpoint: addresses.grpcEndpoint, adminSecret: SECRET, protocol, serverVersion: schema.version, retry: false });

describe("a partial implementation", () => {
  it("is listed once at start-up: every missing method, and only those", () => {
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^${TOTAL - 3} of ${TOTAL} operations are not implemented and answer UNIMPLEMENTED: `));
    expect(warnings[0]).toContain("users");
    expect(warnings[0]).not.toMatch(/\badminMeta\b|\bgetWebhook\b|\bdeleteWebhook\b/);
  });

  it.each(PROTOCOLS)("answers its three operations over %s", async (protocol) => {
    const admin = client(protocol);
    try {
      expect((await admin.adminMeta()).version).toBeTypeOf("string");
      expect((await admin.getWebhook({ id: "wh-1" })).id).toBe("wh-1");
      expect(await admin.deleteWebhook({ id: "wh-1" })).toEqual({ message: "deleted" });
    } finally {
      await admin.close();
    }
  });

  it.each(PROTOCOLS)("answers UNIMPLEMENTED for every other operation over %s", async (protocol) => {
    const admin = client(protocol);
    try {
      const error = await admin.users().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: "UNIMPLEMENTED", message: "Users is not implemented by this service", refused: false });
    } finally {
      await admin.close();
    }
  });

  it("answers REST 501 with the code in the body, and still checks the admin secret first", async () => {
    const path = operations.users.rest!.path;
    const answer = await fetch(`${addresses.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", [schema.adminSecretHeader]: SECRET }, body: "{}" });
    expect(answer.status).toBe(ERROR_WIRE.UNIMPLEMENTED.http);
    expect(await answer.json()).toEqual({ code: "UNIMPLEMENTED", message: "Users is not implemented by this service" });
    const anonymous = await fetch(`${addresses.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
  });
});

describe("an incomplete implementation without partial", () => {
  it("stops start-up with one message naming every missing method, and no stack frames", () => {
    let thrown: unknown;
    try {
      createServer(threeOperations as Implementation, { adminSecret: SECRET, port: 0, grpcPort: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ImplementationError);
    const error = thrown as ImplementationError;
    expect(error.message).toMatch(new RegExp(`^the implementation lacks ${TOTAL - 3} of ${TOTAL} operations: adminLogin, adminLogout, adminSession, users, `));
    expect(error.message).toContain("{ partial: true }");
    expect(error.message).toContain("apigen scaffold");
    expect(error.stack).toBe(`ImplementationError: ${error.message}`);
  });
});
