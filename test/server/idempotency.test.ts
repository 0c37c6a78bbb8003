// Idempotency keys in the server stubs: a write with a key runs once, its repeat answers the first
// answer marked Idempotent-Replayed on every protocol, another input or a repeat while the first
// runs is refused, a failure frees the key, and reads and cookie-setting writes ignore keys.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../generated/server/index.js";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { schema } from "../../generated/schema.js";
import { graphqlDocument } from "../../runtime/client/graphql.js";
import { sampleMessage, startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";
const create = schema.operations.create_organization!;

let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET);
});
afterAll(async () => {
  await service.close();
});

/** create_organization over REST with `key`: the status, the replay mark and the body. */
async function restCreate(name: string, key?: string, endpoint = service) {
  const response = await fetch(`${endpoint.httpUrl}${create.rest!.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-admin-secret": SECRET, ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify({ name }),
  });
  return { status: response.status, replayed: response.headers.get("idempotent-replayed"), retryAfter: response.headers.get("retry-after"), body: (await response.json()) as Record<string, unknown> };
}

const runs = (method: string, since: number) => service.calls.slice(since).filter((call) => call.method === method).length;

describe("an Idempotency-Key on a write", () => {
  it("runs the write once and answers a repeat with the first answer, marked as a replay", async () => {
    let created = 0;
    service.answers.set("createOrganization", (input) => ({ ...sampleMessage(schema, create.output), id: `org-${++created}`, name: input.name }));
    const before = service.calls.length;
    const first = await restCreate("acme", "key-once");
    const again = await restCreate("acme", "key-once");
    expect(first).toMatchObject({ status: 200, replayed: null });
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(runs("createOrganization", before)).toBe(1);
    // Another key, another write.
    expect((await restCreate("acme", "key-twice")).body.id).not.toBe(first.body.id);
    expect(runs("createOrganization", before)).toBe(2);
    service.answers.delete("createOrganization");
  });

  it("refuses the key with another input, or for another operation, running nothing", async () => {
    await restCreate("acme", "key-input");
    const before = service.calls.length;
    const other = await restCreate("other", "key-input");
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: "INVALID_ARGUMENT", message: "this Idempotency-Key was first sent with another input; send a new key with a new request" });
    const response = await fetch(`${service.httpUrl}${schema.operations.update_user!.rest!.path.replace("{id}", "u1")}`, {
      method: schema.operations.update_user!.rest!.method,
      headers: { "content-type": "application/json", "x-service-admin-secret": SECRET, "idempotency-key": "key-input" },
      body: JSON.stringify({ id: "u1" }),
    });
    expect(await response.json()).toMatchObject({ code: "INVALID_ARGUMENT", message: "this Idempotency-Key was first sent for create_organization; send a new key with a new request" });
    expect(service.calls.length).toBe(before);
  });

  it("answers a repeat that comes while the first runs UNAVAILABLE with Retry-After, then the first answer", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    service.answers.set("createOrganization", async (input: Record<string, unknown>) => {
      await held;
      return { ...sampleMessage(schema, create.output), id: "org-slow", name: input.name };
    });
    const first = restCreate("slow", "key-running");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await restCreate("slow", "key-running");
    expect(during).toMatchObject({ status: 503, retryAfter: "1", body: { code: "UNAVAILABLE", message: "a request with this Idempotency-Key is still running; retry it after it ends" } });
    release();
    expect((await first).status).toBe(200);
    expect(await restCreate("slow", "key-running")).toMatchObject({ status: 200, replayed: "true", body: { id: "org-slow" } });
    service.answers.delete("createOrganization");
  });

  it("frees the key of a write that failed: the repeat runs again", async () => {
    let attempts = 0;
    service.answers.set("createOrganization", (input) => {
      if (++attempts === 1) throw new ServiceError("ALREADY_EXISTS", "taken");
      return { ...sampleMessage(schema, create.output), id: "org-after", name: input.name };
    });
    expect(await restCreate("retry", "key-failed")).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
    expect(await restCreate("retry", "key-failed")).toMatchObject({ status: 200, replayed: null, body: { id: "org-after" } });
    expect(attempts).toBe(2);
    service.answers.delete("createOrganization");
  });

  it("refuses a key that is not 1-255 printable ASCII characters", async () => {
    const before = service.calls.length;
    for (const key of ["has space", "k".repeat(256), "é"]) {
      const response = await fetch(`${service.httpUrl}${create.rest!.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-admin-secret": SECRET, "idempotency-key": encodeURI(key) === key ? key : "bad\u0001" },
        body: JSON.stringify({ name: "x" }),
      }).catch(() => undefined);
      if (!response) continue; // fetch itself refuses a control character in a header
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_ARGUMENT", message: "the Idempotency-Key must be 1 to 255 printable ASCII characters without spaces" });
    }
    expect(service.calls.length).toBe(before);
  });

  it("marks the replay over GraphQL (a header) and gRPC (metadata), sharing keys across protocols", async () => {
    const graphql = async () => {
      const response = await fetch(`${service.httpUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-admin-secret": SECRET, "idempotency-key": "key-protocols" },
        body: JSON.stringify({ query: graphqlDocument(schema, create), variables: { params: { name: "multi" } } }),
      });
      return { replayed: response.headers.get("idempotent-replayed"), body: (await response.json()) as { data: { create_organization: { id: string } } } };
    };
    const before = service.calls.length;
    const first = await graphql();
    expect(first.replayed).toBeNull();
    expect((await graphql()).replayed).toBe("true");
    const client = createClient(AdminService, createGrpcTransport({ baseUrl: `http://${service.grpcEndpoint}` }));
    let replayed: string | null = null;
    const answer = await client.createOrganization(
      { name: "multi" },
      { headers: { "x-service-admin-secret": SECRET, "idempotency-key": "key-protocols" }, onHeader: (headers) => (replayed = headers.get("idempotent-replayed")) },
    );
    expect(replayed).toBe("true");
    expect(answer.id).toBe(first.body.data.create_organization.id);
    expect(runs("createOrganization", before)).toBe(1);
  });

  it("is ignored on a read and on a write that sets a cookie, whose answer a replay could not give", async () => {
    expect(schema.operations.users!.idempotencyKey).toBe(false);
    expect(schema.operations.admin_login!.idempotencyKey).toBe(false);
    const before = service.calls.length;
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${service.httpUrl}${schema.operations.admin_login!.rest!.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "key-cookie" },
        body: JSON.stringify({ admin_secret: SECRET }),
      });
      expect(response.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(runs("adminLogin", before)).toBe(2);
  });
});

describe("idempotency: false", () => {
  it("ignores the header: every request runs", async () => {
    const plain = await startRecordingService(SECRET, { idempotency: false });
    try {
      const first = await restCreate("acme", "key-off", plain);
      const again = await restCreate("acme", "key-off", plain);
      expect([first.replayed, again.replayed]).toEqual([null, null]);
      expect(plain.calls.filter((call) => call.method === "createOrganization")).toHaveLength(2);
    } finally {
      await plain.close();
    }
  });
});
