// Resource routes: GET, PUT, PATCH and DELETE on paths with {field} segments, served by the stubs'
// REST routes and called by the TypeScript client from the same schema, and what the manifest
// says of them (the OpenAPI's path and query parameters, the per-API prefix). The identity API's
// webhook operations are moved to /v1/admin/webhooks/{id} in a copy of its schema. The OpenAPI of
// another API states only the auth schemes and error bodies it has.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { descriptorSet } from "../../generated/server/descriptor-set.js";
import { graphqlSchemaText } from "../../generated/server/graphql-schema.js";
import { rules } from "../../generated/server/rules.js";
import { buildIr } from "../../generators/ir/build-ir.js";
import { buildOpenapi } from "../../generators/emit/openapi.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { ClientCore } from "../../runtime/client/core.js";
import type { ApiSchema, OperationSpec } from "../../runtime/schema.js";
import { createServiceServer, type ServiceServer } from "../../runtime/server/index.js";
import { readFixture } from "../helpers/project.js";
import { clientDefinitionOf, operationModulesOf } from "../helpers/client-definition.js";
import { sampleMessage } from "../helpers/recording-service.js";

const SECRET = "resource-routes-secret";
const WEBHOOK = "/v1/admin/webhooks/{id}";

function moved(name: string, method: NonNullable<OperationSpec["rest"]>["method"]): OperationSpec {
  const operation = (schema.operations as Readonly<Record<string, OperationSpec>>)[name]!;
  return { ...operation, rest: { ...operation.rest!, method, path: WEBHOOK, pathParams: ["id"], inQuery: method === "GET" || method === "DELETE" } };
}

const resources: ApiSchema = {
  ...schema,
  operations: { ...schema.operations, get_webhook: moved("get_webhook", "GET"), update_webhook: moved("update_webhook", "PATCH"), delete_webhook: moved("delete_webhook", "DELETE") },
};

let server: ServiceServer;
let httpUrl: string;
let client: ClientCore;
const calls: { method: string; input: Record<string, unknown> }[] = [];

const modules = operationModulesOf(resources);

beforeAll(async () => {
  const byMethod = new Map(Object.values(resources.operations).map((op) => [op.method, op]));
  const implementation = new Proxy(
    {},
    { get: (_target, method: string) => async (input: Record<string, unknown>) => (calls.push({ method, input }), sampleMessage(resources, byMethod.get(method)!.output)) },
  );
  server = createServiceServer(
    { schema: resources, rules, graphqlSchemaText, grpcServices: [], descriptorSet, explorer: { openapiDocument: async () => "", firstOperation: "admin_meta" } },
    implementation,
    { secret: SECRET, port: 0, grpcPort: 0, rateLimit: false },
  );
  ({ httpUrl } = await server.listen());
  client = new ClientCore(clientDefinitionOf(resources), { serviceUrl: httpUrl, protocol: "rest", serverVersion: schema.version, retry: false }, () => ({
    [schema.adminSecretHeader]: SECRET,
  }));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

const raw = (method: string, path: string, body?: unknown) =>
  fetch(`${httpUrl}${path}`, { method, headers: { [schema.adminSecretHeader]: SECRET, ...(body ? { "content-type": "application/json" } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });

describe("a resource route", () => {
  it("carries its {field} segment percent-encoded, GET and DELETE their other fields in the query, PATCH in the body", async () => {
    calls.length = 0;
    await client.call(modules.get_webhook!, { id: "hook/1 é" });
    await client.call(modules.update_webhook!, { id: "hook-2", enabled: false, endpoint: "https://hooks.example.com/b" });
    await client.call(modules.delete_webhook!, { id: "hook-3" });
    expect(calls).toEqual([
      { method: "getWebhook", input: { id: "hook/1 é" } },
      { method: "updateWebhook", input: { id: "hook-2", enabled: false, endpoint: "https://hooks.example.com/b" } },
      { method: "deleteWebhook", input: { id: "hook-3" } },
    ]);
  });

  it("answers another method on its path with 405 and every method it takes, and a path of no route with 404", async () => {
    const put = await raw("PUT", "/v1/admin/webhooks/hook-1", {});
    // In the manifest's order of the operations.
    expect([put.status, put.headers.get("allow"), await put.json()]).toEqual([405, "PATCH, DELETE, GET", { code: "METHOD_NOT_ALLOWED", message: "this route takes PATCH or DELETE or GET" }]);
    for (const path of ["/v1/admin/webhooks/", "/v1/admin/webhooks/hook-1/logs", "/v1/admin/webhooks/%E0%A4%A"]) {
      const missing = await raw("GET", path);
      expect([path, missing.status, ((await missing.json()) as { code: string }).code]).toEqual([path, 404, "NOT_FOUND"]);
    }
  });

  it("refuses a body that names another value than its path, and takes the same one", async () => {
    calls.length = 0;
    const other = await raw("PATCH", "/v1/admin/webhooks/hook-1", { id: "hook-2", enabled: true });
    expect([other.status, await other.json()]).toEqual([400, { code: "INVALID_ARGUMENT", message: 'id: the path says "hook-1", the request "hook-2"' }]);
    expect((await raw("PATCH", "/v1/admin/webhooks/hook-1", { id: "hook-1", enabled: true })).status).toBe(200);
    expect(calls).toEqual([{ method: "updateWebhook", input: { id: "hook-1", enabled: true } }]);
  });
});

describe("the contracts of another API: resource routes, a prefix, its own auth schemes", () => {
  const manifest = readFixture("minimal.yaml")
    .replace("  proto_package: mini.v1\n", "  proto_package: mini.v1\n  rest_prefix: /api/v2\n")
    .replace(
      "    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
      "    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    route:\n      method: DELETE\n      path: /api/v2/users/{id}\n    input:\n      id: string!\n      reason: string\n    output: Response\n  delete_org_oidc_connection:",
    );
  const ir = buildIr(loadManifestText(manifest), emptyLock());
  const openapi = buildOpenapi(ir) as {
    paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown; security?: unknown }>>;
    components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown>; responses: Record<string, unknown> };
  };

  it("state only the auth schemes and error bodies the API has: no admin session nor token-route errors where no operation has them", () => {
    expect(Object.keys(openapi.components.securitySchemes)).toEqual(["adminSecret", "userToken"]);
    expect(openapi.paths["/api/v2/admin/users"]!.post!.security).toEqual([{ adminSecret: [] }]);
    expect([openapi.components.schemas.OAuthError, openapi.components.responses.OAuthServerError]).toEqual([undefined, undefined]);
  });

  it("put derived routes under the API's prefix", () => {
    expect(ir.operations.find((op) => op.name === "users")!.rest).toMatchObject({ method: "POST", path: "/api/v2/admin/users", pathParams: [], inQuery: false });
  });

  it("state the path parameter and the query of a DELETE route in the OpenAPI, with no body", () => {
    expect(ir.operations.find((op) => op.name === "delete_user")!.rest).toMatchObject({ method: "DELETE", path: "/api/v2/users/{id}", pathParams: ["id"], inQuery: true });
    const operation = openapi.paths["/api/v2/users/{id}"]!.delete!;
    expect(operation.parameters).toMatchObject([
      { name: "id", in: "path", required: true, schema: { type: "string", minLength: 1 } },
      { name: "reason", in: "query", required: false, schema: { type: ["string", "null"] } },
      // A write: it takes an Idempotency-Key.
      { $ref: "#/components/parameters/IdempotencyKey" },
    ]);
    expect(operation.requestBody).toBeUndefined();
  });

  it("refuse two routes of one shape, or two that one request could match with neither the more fixed", () => {
    // /users/{id} and /users/{org_id} are one route: no request could tell them apart.
    const twice = manifest.replace(
      "  rotate_key:\n    surface: admin\n    group: orgs\n",
      "  rotate_key:\n    surface: admin\n    group: orgs\n    route:\n      method: DELETE\n      path: /api/v2/users/{org_id}\n",
    );
    expect(() => buildIr(loadManifestText(twice), emptyLock())).toThrow(
      /error duplicate-route: operation 'rotate_key': REST route DELETE \/api\/v2\/users\/\{org_id\} is already used by operation 'delete_user'/,
    );
    // /users/{id} and /{org_id}/current: a request for /users/current could reach either, and
    // each route is the more fixed at one of the segments they differ in.
    const overlapping = manifest.replace(
      "  rotate_key:\n    surface: admin\n    group: orgs\n",
      "  rotate_key:\n    surface: admin\n    group: orgs\n    route:\n      method: DELETE\n      path: /api/v2/{org_id}/current\n",
    );
    expect(() => buildIr(loadManifestText(overlapping), emptyLock())).toThrow(
      /error duplicate-route: operation 'rotate_key': REST route DELETE \/api\/v2\/\{org_id\}\/current overlaps DELETE \/api\/v2\/users\/\{id\} of operation 'delete_user': one request could match both, and neither has the fixed segment wherever they differ/,
    );
    // /users/{id} and /users/current: the fixed segment wins, as in OpenAPI.
    const literal = manifest.replace(
      "  rotate_key:\n    surface: admin\n    group: orgs\n",
      "  rotate_key:\n    surface: admin\n    group: orgs\n    route:\n      method: DELETE\n      path: /api/v2/users/current\n",
    );
    expect(buildIr(loadManifestText(literal), emptyLock()).operations.find((op) => op.name === "rotate_key")!.rest!.path).toBe("/api/v2/users/current");
  });
});
