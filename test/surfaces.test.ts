// Surfaces named by the manifest (api.surfaces): each surface's client class and gRPC service take
// the names it declares, in every output: the TypeScript, Python and Go clients (the Go admin
// constructor New<name>, the user client's NewClient), the proto services, the MCP entry, the
// READMEs. (test/go/go.test.ts and test/python/python.test.ts compile such a module.)
import { describe, expect, it } from "vitest";
import { buildIr } from "../generators/ir/build-ir.js";
import { emitAll } from "../generators/generate.js";
import { loadManifestText } from "../generators/load/load.js";
import { emptyLock } from "../generators/load/lock.js";
import { namedSurfacesManifest, readFixture } from "./helpers/project.js";

const NAMED_SURFACES = namedSurfacesManifest();

describe("surfaces named by the manifest", () => {
  const ir = buildIr(loadManifestText(NAMED_SURFACES), emptyLock());
  const files = new Map(emitAll(ir).files.map((f) => [f.path, f.content]));
  const file = (path: string) => {
    expect(files.has(path), path).toBe(true);
    return files.get(path)!;
  };

  it("name the clients and services of the IR", () => {
    expect(NAMED_SURFACES).not.toBe(readFixture("minimal.yaml"));
    expect(ir.clients.map((c) => [c.role, c.name])).toEqual([
      ["admin", "OwnerClient"],
      ["user", "ShopClient"],
    ]);
    expect(ir.proto.services.map((s) => s.name)).toEqual(["OwnerService", "ShopService"]);
    expect(ir.operations.filter((op) => op.grpc).every((op) => ["mini.v1.OwnerService", "mini.v1.ShopService"].includes(op.grpc!.serviceTypeName))).toBe(true);
  });

  it("are the names of every SDK, contract and README, and the default names appear nowhere", () => {
    expect(file("generated/client/index.ts")).toContain(`export { OwnerClient } from "./admin-client.js";`);
    expect(file("generated/client/admin-client.ts")).toContain("export class OwnerClient extends AdminClientBase {");
    expect(file("generated/client/user-client.ts")).toContain("export class ShopClient extends UserClientBase {");
    expect(file("generated/mcp/main.ts")).toContain("admin: (config) => new OwnerClient(config),");
    expect(
      [...files.keys()]
        .filter((p) => p.endsWith(".proto"))
        .map((p) => files.get(p)!)
        .join("\n"),
    ).toMatch(/^service OwnerService \{$/m);
    expect(file("generated/python/src/mini_sdk/_clients.py")).toMatch(/^class AsyncShopClient\(/m);
    expect(file("generated/python/README.md")).toContain("### OwnerClient, AsyncOwnerClient");
    expect(file("generated/go/client.go")).toContain("func NewOwnerClient(serviceURL, adminSecret string, opts ...AdminOption) (*OwnerClient, error) {");
    expect(file("generated/go/client.go")).toContain("func NewClient(serviceURL string, opts ...Option) (*ShopClient, error) {");
    expect(file("generated/go/README.md")).toContain("### ShopClient");
    expect(file("generated/packages/sdk/README.md")).toContain("const admin = new OwnerClient({");
    for (const [path, content] of files) {
      if (!path.includes("/runtime/")) expect(content, path).not.toMatch(/\b(AdminClient|UserClient|AdminService|UserService|NewAdminClient)\b/);
    }
  });
});
