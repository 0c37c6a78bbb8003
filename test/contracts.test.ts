// Each operation appears in exactly the contracts of its protocols, and each contract is valid for
// the real tool that consumes it (graphql-js, an OpenAPI validator, buf).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildSchema, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { parse as parseYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "../generated/schema.js";
import { rules } from "../generated/server/rules.js";
import { loadIr } from "../generators/generate.js";
import type { Ir } from "../generators/ir/ir.js";
import { buildDescriptors } from "../generators/emit/proto-descriptors.js";
import { planProto } from "../generators/emit/proto-plan.js";
import { ServiceError } from "../runtime/errors.js";
import type { OperationSpec } from "../runtime/schema.js";
import { validateInput } from "../runtime/validate.js";
import { REPO_ROOT, tempDir } from "./helpers/project.js";

const BUF = join(REPO_ROOT, "node_modules", ".bin", "buf");
const buf = (args: string[], cwd = join(REPO_ROOT, "proto")) =>
  execFileSync(BUF, args, { cwd, encoding: "utf8", env: { ...process.env, PATH: `${join(REPO_ROOT, "node_modules", ".bin")}:${process.env.PATH}` } });

let ir: Ir;
let sdl: GraphQLSchema;
let openapi: { paths: Record<string, Record<string, { operationId: string; [k: string]: unknown }>> };

beforeAll(() => {
  ir = loadIr(REPO_ROOT);
  sdl = buildSchema(readFileSync(join(REPO_ROOT, "generated/graphql/schema.graphql"), "utf8"));
  openapi = parseYaml(readFileSync(join(REPO_ROOT, "generated/openapi/openapi.yaml"), "utf8"));
});

function throwsInvalidArgument(call: () => unknown): boolean {
  try {
    call();
    return false;
  } catch (error) {
    if (error instanceof ServiceError && error.code === "INVALID_ARGUMENT") return true;
    throw error;
  }
}

const carried = (protocol: "graphql" | "rest" | "grpc") =>
  ir.operations
    .filter((op) => op.protocols.includes(protocol))
    .map((op) => op.name)
    .sort();

describe("GraphQL SDL", () => {
  it("is valid for graphql-js buildSchema", () => {
    expect(sdl.getQueryType()?.name).toBe("Query");
  });

  it("has a root field for exactly the operations carried over graphql: reads on Query, writes on Mutation", () => {
    const query = Object.keys(sdl.getQueryType()!.getFields());
    const mutation = Object.keys(sdl.getMutationType()!.getFields());
    expect([...query, ...mutation].sort()).toEqual(carried("graphql"));
    for (const name of query) expect(ir.operations.find((o) => o.name === name)!.kind).toBe("read");
    for (const name of mutation) expect(ir.operations.find((o) => o.name === name)!.kind).toBe("write");
    expect(query).toContain("admin_meta");
    expect(mutation).toEqual(expect.arrayContaining(["admin_signup", "update_env", "generate_jwt_keys", "delete_org_oidc_connection"]));
    expect([...query, ...mutation]).not.toContain("oauth_token");
  });

  it("takes the request in one `params` argument and answers flat with descriptions from the manifest", () => {
    const field = sdl.getQueryType()!.getFields()["users"]!;
    expect(field.args.map((a) => `${a.name}: ${a.type}`)).toEqual(["params: UsersInput"]);
    expect(field.description).toBe(ir.operations.find((o) => o.name === "users")!.description);
    const answer = sdl.getType("UsersResponse") as GraphQLObjectType;
    expect(Object.keys(answer.getFields())).toEqual(["pagination", "users"]);
    expect(String(answer.getFields()["users"]!.type)).toBe("[User!]!");
    const deleteUser = sdl.getMutationType()!.getFields()["delete_user"]!;
    expect(String(deleteUser.args[0]!.type)).toBe("DeleteUserInput!");
    expect(String(deleteUser.type)).toBe("Response!");
  });

  it("marks update_env deprecated", () => {
    expect(sdl.getMutationType()!.getFields()["update_env"]!.deprecationReason).toBeTruthy();
  });
});

describe("OpenAPI", () => {
  it("passes a real OpenAPI 3.1 validator", async () => {
    const api = await SwaggerParser.validate(join(REPO_ROOT, "generated/openapi/openapi.yaml"));
    expect(api).toHaveProperty("openapi", "3.1.0");
  });

  it("is rejected by the same validator once broken, so the check above can fail", async () => {
    const broken = structuredClone(openapi) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    broken.paths["/v1/admin/users"]!["post"]!["responses"] = "none";
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });

  it("has an operation, with operationId = operation name, for exactly the operations carried over rest", () => {
    const ids = Object.values(openapi.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId));
    expect(ids.sort()).toEqual(carried("rest"));
  });

  it("tags by group, secures admin operations with the admin header and marks destructive flags and versions", () => {
    const op = openapi.paths["/v1/admin/delete_org_domain"]!["post"]!;
    expect(op).toMatchObject({
      operationId: "delete_org_domain",
      tags: ["org_domains"],
      "x-destructive": true,
      "x-min-versions": { graphql: "2.3.0-rc.9", rest: "2.4.0", grpc: "2.4.0" },
    });
    const doc = openapi as unknown as { components: { securitySchemes: Record<string, unknown> } };
    expect(doc.components.securitySchemes["adminSecret"]).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-service-admin-secret" }));
    // The admin secret header, or the session cookie admin_login opens.
    expect(openapi.paths["/v1/admin/users"]!["post"]!["security"]).toEqual([{ adminSecret: [] }, { adminSession: [] }]);
    expect(openapi.paths["/v1/meta"]!["get"]).toBeDefined();
  });

  it("requires a request body exactly when the server refuses an empty one", () => {
    const required: Record<string, boolean> = {};
    const refusesEmpty: Record<string, boolean> = {};
    for (const methods of Object.values(openapi.paths)) {
      for (const operation of Object.values(methods) as { operationId: string; requestBody?: { required: boolean } }[]) {
        if (!operation.requestBody) continue;
        required[operation.operationId] = operation.requestBody.required;
        refusesEmpty[operation.operationId] = throwsInvalidArgument(() => validateInput(schema, rules, (schema.operations as Record<string, OperationSpec>)[operation.operationId]!, {}));
      }
    }
    expect(required).toEqual(refusesEmpty);
    // Both kinds occur, so the comparison means something: a required field, a rule over several fields, nothing required.
    expect([required.delete_user, required.user, required.get_org_oidc_connection, required.users]).toEqual([true, true, true, false]);
  });

  it("includes the token routes with form and JSON bodies and RFC 6749 errors", () => {
    const token = openapi.paths["/oauth/token"]!["post"]! as Record<string, any>;
    expect(Object.keys(token.requestBody.content)).toEqual(["application/x-www-form-urlencoded", "application/json"]);
    expect(token.responses["400"].content["application/json"].schema.$ref).toBe("#/components/schemas/OAuthError");
    expect(token.responses["401"].description).toMatch(/^invalid_client/);
    expect(token.responses.default.$ref).toBe("#/components/responses/OAuthServerError");
    // Client authentication with HTTP Basic is optional.
    expect(token.security).toEqual([{}, { clientBasic: [] }]);
    expect(openapi.paths["/oauth/revoke"]!["post"]!.operationId).toBe("oauth_revoke");
  });

  it("states form bodies without null, which a form cannot carry, and with the same fields and rules as JSON", () => {
    const doc = openapi as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown>; allOf?: unknown }> } };
    for (const path of ["/oauth/token", "/oauth/revoke"]) {
      const content = (openapi.paths[path]!["post"]! as Record<string, any>).requestBody.content;
      const form = content["application/x-www-form-urlencoded"].schema;
      const json = doc.components.schemas[content["application/json"].schema.$ref.split("/").at(-1)]!;
      expect(JSON.stringify(form), path).not.toContain('"null"');
      expect(JSON.stringify(json), path).toContain('"null"');
      expect(Object.keys(form.properties)).toEqual(Object.keys(json.properties));
      expect(form.allOf).toEqual(json.allOf);
    }
  });
});

describe("proto", () => {
  let built: FileDescriptorProto[];

  beforeAll(() => {
    const dir = tempDir();
    buf(["build", "--exclude-source-info", "-o", join(dir, "image.binpb")]);
    built = fromBinary(FileDescriptorSetSchema, readFileSync(join(dir, "image.binpb"))).file;
  });

  it("is clean for buf lint", () => {
    expect(buf(["lint"])).toBe("");
  });

  it("has one public and one admin service with an RPC for exactly the operations carried over grpc", () => {
    const services = built.flatMap((f) => f.service.map((s) => ({ pkg: f.package, service: s })));
    expect(services.map((s) => `${s.pkg}.${s.service.name}`).sort()).toEqual(["identity.v1.AdminService", "identity.v1.UserService"]);
    const rpcs = services.flatMap((s) => s.service.method.map((m) => m.name)).sort();
    expect(rpcs).toEqual(
      ir.operations
        .filter((o) => o.grpc)
        .map((o) => o.pascalName)
        .sort(),
    );
    expect(rpcs.length).toBe(carried("grpc").length);
    expect(rpcs).toContain("DeleteOrgOIDCConnection");
    expect(rpcs).not.toContain("AdminSignup");
  });

  it("has one request and one response message per RPC", () => {
    const methods = built.flatMap((f) => f.service.flatMap((s) => s.method));
    const names = methods.flatMap((m) => [m.inputType, m.outputType]);
    expect(new Set(names).size).toBe(names.length);
    for (const m of methods) {
      expect(m.inputType).toBe(`.identity.v1.${m.name}Request`);
      expect(m.outputType).toBe(`.identity.v1.${m.name}Response`);
    }
  });

  it("agrees with the descriptors apigen builds from the IR (what protoc-gen-es runs on)", () => {
    // Well-known imports (google/protobuf/*) come from each tool's own copy; compare ours.
    const ours = buildDescriptors(planProto(ir))
      .filter((file) => !file.name.startsWith("google/"))
      .map((file) => {
        const copy = structuredClone(file);
        copy.sourceCodeInfo = undefined;
        return copy;
      });
    const byName = (files: FileDescriptorProto[]) => new Map(files.map((f) => [f.name, f]));
    // buf adds a private extension (field 8042) to each file; it is not part of the schema.
    const theirs = byName(built.filter((file) => !file.name.startsWith("google/")).map((file) => ({ ...file, $unknown: undefined })));
    for (const file of ours) {
      expect(theirs.get(file.name), file.name).toEqual(file);
    }
    expect([...theirs.keys()].sort()).toEqual(ours.map((f) => f.name).sort());
  });

  it("makes `buf generate` with protoc-gen-es write byte-identical TS messages", () => {
    const out = tempDir();
    const template = join(out, "buf.gen.yaml");
    writeFileSync(template, ["version: v2", "plugins:", "  - local: protoc-gen-es", `    out: ${join(out, "es")}`, "    opt: target=ts,import_extension=js", ""].join("\n"));
    mkdirSync(join(out, "es"));
    buf(["generate", "--template", template]);
    const generatedDir = join(REPO_ROOT, "generated/proto/identity/v1");
    const files = readdirSync(join(out, "es/identity/v1")).sort();
    expect(files).toEqual(readdirSync(generatedDir).sort());
    for (const file of files) {
      expect(readFileSync(join(out, "es/identity/v1", file), "utf8"), file).toBe(readFileSync(join(generatedDir, file), "utf8"));
    }
  });
});
