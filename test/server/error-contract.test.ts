// The errors of the contract: every code an operation may answer is stated in the OpenAPI document
// (with its status, body and example), and an implementation that answers a code its operation
// does not list is reported to the operator (the answer itself still goes out).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AdminClient, type ApiError } from "../../generated/client/index.js";
import { createServer, ServiceError, type Implementation, type ServerOptions, type ServiceServer } from "../../generated/server/index.js";
import { OPENAPI_PATH } from "../../generators/emit/openapi.js";
import { loadIr } from "../../generators/generate.js";
import { ERROR_WIRE, type ErrorCode } from "../../runtime/errors.js";
import { UndeclaredErrorCode } from "../../runtime/server/invoke.js";
import { REPO_ROOT } from "../helpers/project.js";
import { sampleMessage } from "../helpers/recording-service.js";
import { schema } from "../../generated/schema.js";

const ir = loadIr(REPO_ROOT);
const ADMIN_SECRET = "s3cret-admin-key";
const openapi = parse(readFileSync(join(REPO_ROOT, OPENAPI_PATH), "utf8")) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { $ref?: string; headers?: object }> }>>;
  components: { responses: Record<string, { content: { "application/json": { example: { code: string } } }; headers?: object }> };
};
const routes = new Map(Object.values(openapi.paths).flatMap((methods) => Object.values(methods).map((op) => [op.operationId, op] as const)));

describe("every error an operation may answer is in the OpenAPI document", () => {
  it("states a response for each code of each REST operation, and the server's own faults as default", () => {
    for (const op of ir.operations.filter((o) => o.rest && o.surface !== "oauth")) {
      const responses = routes.get(op.name)!.responses;
      for (const code of op.errorCodes) expect(responses, `${op.name} ${code}`).toHaveProperty(String(ERROR_WIRE[code as ErrorCode].http));
      expect(responses.default!.$ref).toBe("#/components/responses/ServerError");
      if (op.rest!.method === "POST") expect(Object.keys(responses)).toEqual(expect.arrayContaining(["413", "415"]));
    }
  });

  it("lists exactly what the manifest declares beside what every call of the auth level may answer", () => {
    const get = ir.operations.find((o) => o.name === "get_organization")!;
    expect(get.errorCodes).toEqual(["INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "TOO_MANY_REQUESTS"]);
    const login = ir.operations.find((o) => o.name === "login")!;
    expect(login.errorCodes).toEqual(["INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "FAILED_PRECONDITION", "TOO_MANY_REQUESTS"]);
  });

  it("gives each shared error response its code's example and 429 its Retry-After header", () => {
    const { responses } = openapi.components;
    expect(responses.NotFound!.content["application/json"].example.code).toBe("NOT_FOUND");
    expect(responses.TooManyRequests!.headers).toHaveProperty("Retry-After");
    expect(routes.get("admin_login")!.responses["200"]!.headers).toHaveProperty("Set-Cookie");
  });
});

describe("an implementation answering outside its contract", () => {
  const servers: ServiceServer[] = [];
  afterAll(async () => Promise.all(servers.map((server) => server.close())));
  /** A server of `implementation` (what it lacks answers UNIMPLEMENTED), listening. */
  const serve = (implementation: Partial<Implementation>, options: Pick<ServerOptions, "logger" | "onInternalError">) => {
    const server = createServer(implementation, { adminSecret: ADMIN_SECRET, port: 0, grpcPort: 0, partial: true, onWarning: () => {}, ...options });
    servers.push(server);
    return server.listen();
  };

  it("a code its operation does not list: reported to the operator, and the caller still gets the code", async () => {
    const reported: unknown[] = [];
    const { httpUrl, grpcEndpoint } = await serve(
      {
        async adminMeta() {
          throw new ServiceError("ALREADY_EXISTS", "not a thing admin_meta answers");
        },
        async getWebhook() {
          throw new ServiceError("NOT_FOUND", "webhook not found");
        },
      },
      { onInternalError: (_op, error) => reported.push(error) },
    );
    const admin = new AdminClient({ serviceUrl: httpUrl, grpcEndpoint, adminSecret: ADMIN_SECRET, protocol: "rest", retry: false });
    await expect(admin.adminMeta()).rejects.toMatchObject({ code: "ALREADY_EXISTS" } satisfies Partial<ApiError>);
    await expect(admin.getWebhook({ id: "w" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(UndeclaredErrorCode);
    expect((reported[0] as Error).message).toBe("admin_meta answered ALREADY_EXISTS, which operations.yaml does not list under its errors:");
  });

  it("a value JSON cannot carry: INTERNAL over REST, logged so, and the server serves on", async () => {
    const outcomes: string[] = [];
    const { httpUrl } = await serve(
      {
        // Every field set, and a bigint where a string belongs: the flat shape keeps it, and JSON.stringify throws on it.
        async adminMeta() {
          return { ...sampleMessage(schema, "AdminMeta"), version: 7n } as never;
        },
      },
      { logger: (entry) => outcomes.push(`${entry.operation} ${entry.outcome}`) },
    );
    const call = (path: string) => fetch(`${httpUrl}/v1/admin/${path}`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": ADMIN_SECRET }, body: "{}" });
    const answer = await call("admin_meta");
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 500, body: { code: "INTERNAL", message: "internal error" } });
    const next = await call("get_webhook");
    expect(next.status).toBe(400);
    expect(outcomes).toEqual(["admin_meta OK", "admin_meta INTERNAL", "get_webhook INVALID_ARGUMENT"]);
  });

  it("an answer without a required field, nested too: INTERNAL to the caller, the field's path to the operator", async () => {
    const reported: string[] = [];
    const { httpUrl } = await serve(
      {
        async adminMeta() {
          const { version: _left, ...rest } = sampleMessage(schema, "AdminMeta");
          return rest as never;
        },
        async users() {
          return { pagination: { limit: 10, page: 1, offset: 0 }, users: [] } as never;
        },
      },
      { onInternalError: (operation, error) => reported.push(`${operation}: ${(error as Error).message}`) },
    );
    const call = (path: string) => fetch(`${httpUrl}/v1/admin/${path}`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": ADMIN_SECRET }, body: "{}" });
    for (const path of ["admin_meta", "users"]) {
      const answer = await call(path);
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 500, body: { code: "INTERNAL", message: expect.stringContaining("failed") } });
    }
    expect(reported).toEqual([
      "admin_meta: the implementation of admin_meta answered without required field version",
      "users: the implementation of users answered without required field pagination.total",
    ]);
  });
});
