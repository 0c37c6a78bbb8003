// The gRPC port as an independent client sees it: grpcurl (grpc-go) lists and describes the
// services through server reflection, calls them, and reads UNIMPLEMENTED, the body limit and
// grpc.health.v1 as grpc-go reports them. grpcurl is installed with `go install` when missing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, MethodDescriptorProtoSchema, ServiceDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { UserService } from "../../generated/proto/identity/v1/user_service_pb.js";
import { schema } from "../../generated/schema.js";
import { descriptorSet } from "../../generated/server/descriptor-set.js";
import { rules } from "../../generated/server/rules.js";
import { GrpcPort, type ServingStatusName } from "../../runtime/server/grpc.js";
import { CallPipeline } from "../../runtime/server/invoke.js";
import { runProcess, type ProcessResult } from "../../scripts/run-process.mjs";
import { ensureGoTool, GRPCURL } from "../helpers/go-tools.js";
import { tempDir } from "../helpers/project.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "grpcurl-secret";
let grpcurlPath: string;
let service: RecordingService;

beforeAll(async () => {
  const tool = await ensureGoTool(GRPCURL);
  if (tool.installedMs !== undefined) console.log(`installed grpcurl ${GRPCURL.version} in ${(tool.installedMs / 1000).toFixed(1)} s`);
  grpcurlPath = tool.path;
  service = await startRecordingService(SECRET);
}, 600_000);
afterAll(async () => {
  await service?.close();
});

/** grpcurl exits 0 on success and 64 + the status code when the call fails. */
const grpcurl = (args: string[], stdin = "") => runProcess(grpcurlPath, ["-plaintext", "-max-time", "20", ...args], { input: stdin });
const statusOf = (run: ProcessResult) => (run.code === 0 ? 0 : run.code! - 64);
const admin = ["-H", `x-service-admin-secret: ${SECRET}`];

describe("grpcurl against the gRPC port", () => {
  it("lists both services, reflection and health", async () => {
    const run = await grpcurl([service.grpcEndpoint, "list"]);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n")).toEqual([
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
      AdminService.typeName,
      UserService.typeName,
    ]);
    const methods = await grpcurl([service.grpcEndpoint, "list", AdminService.typeName]);
    expect(methods.stdout.trim().split("\n")).toEqual(AdminService.methods.map((m) => `${AdminService.typeName}.${m.name}`).sort());
  });

  it("describes services and messages, with explicit presence on request scalars", async () => {
    const described = await grpcurl([service.grpcEndpoint, "describe", UserService.typeName]);
    expect(described.stdout).toContain(`${UserService.typeName} is a service:`);
    expect(described.stdout).toContain("rpc Meta ( .identity.v1.MetaRequest ) returns ( .identity.v1.MetaResponse ) {\n    option idempotency_level = NO_SIDE_EFFECTS;");
    expect(described.stdout).toContain("rpc Login ( .identity.v1.LoginRequest ) returns ( .identity.v1.LoginResponse );");
    const request = await grpcurl([service.grpcEndpoint, "describe", "identity.v1.AddWebhookRequest"]);
    expect(request.stdout).toContain("optional bool enabled = 4;");
    expect(request.stdout).toContain("map<string, string> headers = 5;");
  });

  it("calls AdminMeta with the admin secret, and is refused without it", async () => {
    const before = service.calls.length;
    const ok = await grpcurl([...admin, service.grpcEndpoint, "identity.v1.AdminService/AdminMeta"]);
    expect([ok.code, ok.stderr]).toEqual([0, ""]);
    expect(JSON.parse(ok.stdout)).toMatchObject({ version: "version-value", isScimEnabled: true });
    expect(service.calls.slice(before).map((call) => [call.method, call.protocol])).toEqual([["adminMeta", "grpc"]]);
    const refused = await grpcurl([service.grpcEndpoint, "identity.v1.AdminService/AdminMeta"]);
    expect(statusOf(refused)).toBe(16);
    expect(refused.stderr).toContain("AdminMeta needs the admin secret in header x-service-admin-secret");
  });

  it("reports a required bool left out as INVALID_ARGUMENT, as REST and GraphQL do, and stores nothing", async () => {
    const before = service.calls.length;
    const run = await grpcurl([...admin, "-d", JSON.stringify({ event_name: "user.created", endpoint: "https://hooks.example.com/in" }), service.grpcEndpoint, "identity.v1.AdminService/AddWebhook"]);
    expect(statusOf(run)).toBe(3);
    expect(run.stderr).toContain("Message: enabled: is required");
    expect(service.calls.length).toBe(before);
  });

  it("gets UNIMPLEMENTED for a method or a service the server does not have", async () => {
    // A client built from other protos (here: AdminService with a retired method, and a retired service).
    const set = fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorSet, "base64"));
    const file = set.file.find((f) => f.service.some((s) => s.name === AdminService.name))!;
    const adminMeta = file.service.find((s) => s.name === AdminService.name)!.method.find((m) => m.name === "AdminMeta")!;
    file.service.find((s) => s.name === AdminService.name)!.method.push(create(MethodDescriptorProtoSchema, { ...adminMeta, name: "RetiredMethod" }));
    file.service.push(create(ServiceDescriptorProtoSchema, { name: "RetiredService", method: [adminMeta] }));
    const protoset = join(tempDir("grpcurl-"), "other.binpb");
    writeFileSync(protoset, toBinary(FileDescriptorSetSchema, set));
    for (const method of ["identity.v1.AdminService/RetiredMethod", "identity.v1.RetiredService/AdminMeta"]) {
      const run = await grpcurl(["-protoset", protoset, ...admin, service.grpcEndpoint, method]);
      expect(statusOf(run)).toBe(12);
      expect(run.stderr).toContain("Code: Unimplemented");
    }
  });

  it("refuses a message over the body limit with RESOURCE_EXHAUSTED, storing nothing", async () => {
    const before = service.calls.length;
    for (const size of [rules.limits.requestBytes + 1, 20 * 1024 * 1024]) {
      const body = JSON.stringify({ event_name: "user.created", event_description: "d".repeat(size), endpoint: "https://hooks.example.com/in", enabled: true });
      const run = await grpcurl([...admin, "-d", "@", service.grpcEndpoint, "identity.v1.AdminService/AddWebhook"], body);
      expect(statusOf(run)).toBe(8);
      expect(run.stderr).toContain(`vs ${rules.limits.requestBytes})`);
    }
    expect(service.calls.length).toBe(before);
  });

  it("answers grpc.health.v1 Check for the server and each service", async () => {
    for (const name of ["", AdminService.typeName, UserService.typeName]) {
      const run = await grpcurl(["-d", JSON.stringify({ service: name }), service.grpcEndpoint, "grpc.health.v1.Health/Check"]);
      expect([run.code, JSON.parse(run.stdout)]).toEqual([0, { status: "SERVING" }]);
    }
    const unknown = await grpcurl(["-d", JSON.stringify({ service: "identity.v1.RetiredService" }), service.grpcEndpoint, "grpc.health.v1.Health/Check"]);
    expect(statusOf(unknown)).toBe(5);
  });
});

describe("health follows a serving state", () => {
  it("reports NOT_SERVING while the state says so, and SERVING again after", async () => {
    let status: ServingStatusName = "NOT_SERVING";
    const listeners = new Set<(status: ServingStatusName) => void>();
    const servingState = {
      status: () => status,
      onChange(listener: (status: ServingStatusName) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const pipeline = new CallPipeline(schema, {}, { secret: SECRET, partial: true, onWarning: () => {} }, rules);
    const port = new GrpcPort(pipeline, [AdminService, UserService], { bodyLimit: rules.limits.requestBytes, descriptorSet, servingState });
    const endpoint = `127.0.0.1:${await port.listen("127.0.0.1", 0)}`;
    const check = async () => JSON.parse((await grpcurl([endpoint, "grpc.health.v1.Health/Check"])).stdout).status;
    try {
      expect(await check()).toBe("NOT_SERVING");
      status = "SERVING";
      for (const listener of listeners) listener(status);
      expect(await check()).toBe("SERVING");
    } finally {
      await port.close();
    }
    expect(listeners.size).toBe(0);
  });
});
