// The generated API reference, tool catalogue and package manifests: every operation exactly once,
// with the right flags, and input schemas that accept what the service accepts.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import semver from "semver";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { loadIr } from "../../generators/generate.js";
import { DOCS_DIR } from "../../generators/emit/docs.js";
import { MCP_TOOLS_PATH } from "../../generators/emit/mcp.js";
import { sampleInput } from "../../generators/emit/operation-text.js";
import { OPTIONAL_PACKAGES } from "../../runtime/server/optional-packages.js";
import { CLIENT_PLATFORM_IMPORTS, MCP_PACKAGE_DIR, RUNTIME_DEPENDENCIES, SDK_PACKAGE_DIR, SERVER_PACKAGE_DIR } from "../../generators/emit/packages.js";
import { importsUnder } from "../../scripts/pack.mjs";
import { EXPLORER_PACKAGES } from "../../runtime/server/explorer-packages.js";
import { PROTOCOLS } from "../../generators/ir/ir.js";
import { schema } from "../../generated/schema.js";
import { sampleMessage } from "../helpers/recording-service.js";
import { REPO_ROOT } from "../helpers/project.js";

// The 2020-12 build of Ajv is CommonJS; loaded as the generators load it.
const Ajv2020 = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv").default;
const ir = loadIr(REPO_ROOT);
const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const destructive = ir.operations.filter((op) => op.destructive).map((op) => op.name);

interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  "x-protocols": string[];
  "x-min-versions": Record<string, string>;
  "x-auth": string;
}
const tools = (JSON.parse(read(MCP_TOOLS_PATH)) as { tools: Tool[] }).tools;

/** How many times `needle` occurs in `text`. */
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("the MCP tool catalogue", () => {
  it("defines one tool per operation, named after it, in manifest order", () => {
    expect(tools.map((t) => t.name)).toEqual(ir.operations.map((op) => op.name));
  });

  it("marks reads read-only and exactly the destructive operations destructive", () => {
    for (const op of ir.operations) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.annotations.readOnlyHint, op.name).toBe(op.kind === "read");
      expect(tool.annotations.openWorldHint).toBe(false);
      expect(tool["x-auth"]).toBe(op.auth);
      expect(tool["x-protocols"]).toEqual(op.protocols);
      expect(tool["x-min-versions"]).toEqual(Object.fromEntries(op.protocols.map((p) => [p, op[p]!.since])));
    }
    expect(tools.filter((t) => t.annotations.destructiveHint).map((t) => t.name)).toEqual(destructive);
    expect(tools.find((t) => t.name === "delete_org_oidc_connection")).toMatchObject({ title: "Delete org OIDC connection", annotations: { destructiveHint: true, idempotentHint: true } });
    expect(tools.find((t) => t.name === "create_client")!.annotations.idempotentHint).toBe(false);
  });

  it("has JSON Schemas (2020-12) that accept a valid input and a full answer, and refuse a missing required field", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
    for (const op of ir.operations) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.inputSchema).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" });
      const validInput = ajv.compile(tool.inputSchema);
      expect(validInput(sampleInput(ir, op)), `${op.name}: ${ajv.errorsText(validInput.errors)}`).toBe(true);
      const required = op.input.fields.find((f) => f.required);
      if (required) {
        const { [required.name]: _omitted, ...incomplete } = sampleInput(ir, op);
        expect(validInput(incomplete), op.name).toBe(false);
      }
      const validOutput = ajv.compile(tool.outputSchema);
      const answer = sampleMessage(schema, (schema.operations as Record<string, { output: string }>)[op.name]!.output);
      expect(validOutput(answer), `${op.name}: ${ajv.errorsText(validOutput.errors)}`).toBe(true);
    }
  });
});

describe("the API reference", () => {
  const pages = readdirSync(join(REPO_ROOT, DOCS_DIR)).filter((f) => f.endsWith(".md"));
  const index = read(`${DOCS_DIR}/README.md`);

  it("has an index, a types page and one page per group", () => {
    expect(pages.sort()).toEqual(["README.md", "types.md", ...ir.groups.map((g) => `${g.name}.md`)].sort());
  });

  it("describes every operation exactly once, on the page of its group, with its marks and versions", () => {
    const all = pages.map((page) => read(`${DOCS_DIR}/${page}`)).join("\n");
    for (const group of ir.groups) {
      const page = read(`${DOCS_DIR}/${group.name}.md`);
      for (const name of group.operations) {
        const op = ir.operations.find((o) => o.name === name)!;
        expect(count(all, `\n## ${name}\n`), name).toBe(1);
        const section = page.slice(page.indexOf(`\n## ${name}\n`)).split(/\n## /)[1]!;
        expect(section.includes("**Destructive.**"), name).toBe(op.destructive);
        expect(section).toContain(`Auth \`${op.auth}\``);
        for (const protocol of PROTOCOLS) {
          const since = op[protocol]?.since;
          expect(section).toMatch(since ? new RegExp(`\\| ${protocol === "grpc" ? "gRPC" : protocol === "rest" ? "REST" : "GraphQL"} \\| ${since.replace(/\./g, "\\.")} \\|`) : /not available/);
        }
        for (const field of op.input.fields) expect(section).toContain(`| \`${field.name}\` |`);
        if (op.graphql) expect(section).toContain("```graphql");
        if (op.rest) expect(section).toContain(`curl -X ${op.rest.method}`.replace("curl -X GET", "curl"));
        if (op.grpc) expect(section).toContain(`${op.grpc.serviceTypeName}/${op.grpc.rpc}`);
      }
    }
  });

  it("lists every operation exactly once in the index, destructive ones marked", () => {
    for (const op of ir.operations) {
      expect(count(index, `[\`${op.name}\`](`), op.name).toBe(1);
      const row = index.split("\n").find((line) => line.startsWith(`| [\`${op.name}\`](`))!;
      expect(row.includes("**yes**"), op.name).toBe(op.destructive);
    }
  });
});

describe("the package manifests and READMEs", () => {
  it("are named, versioned and described after the manifest", () => {
    const raw = parseYaml(read("operations.yaml")) as { api: Record<string, any> };
    expect([ir.api.sdkPackage, ir.api.serverPackage]).toEqual([raw.api.packages.npm.sdk, raw.api.packages.npm.server]);
    for (const [dir, name] of [
      [SDK_PACKAGE_DIR, ir.api.sdkPackage],
      [SERVER_PACKAGE_DIR, ir.api.serverPackage],
    ] as const) {
      const manifest = JSON.parse(read(`${dir}/package.json`)) as Record<string, unknown>;
      expect(manifest).toMatchObject({
        name,
        version: ir.api.version,
        type: "module",
        sideEffects: false,
        license: raw.api.license,
        homepage: raw.api.homepage,
        keywords: raw.api.keywords,
        repository: { type: "git", url: `git+${raw.api.repository}.git` },
        publishConfig: { access: "public" },
      });
      expect(manifest).not.toHaveProperty("scripts");
    }
    const sdk = JSON.parse(read(`${SDK_PACKAGE_DIR}/package.json`)) as { exports: Record<string, unknown> };
    expect(Object.keys(sdk.exports)).toEqual([".", "./grpc", "./package.json"]);
  });

  it("map the clients' #client-platform import as the runtime does: Node's module for node, the fetch one for browsers, Deno, Bun, workers and any other runtime", () => {
    const runtime = (JSON.parse(read("runtime/package.json")) as { imports: Record<string, Record<string, string>> }).imports;
    expect(importsUnder(runtime, "./runtime/")).toEqual(CLIENT_PLATFORM_IMPORTS);
    const platform = CLIENT_PLATFORM_IMPORTS["#client-platform"];
    expect(
      Object.entries(platform)
        .filter(([, target]) => target.endsWith("platform-node.js"))
        .map(([condition]) => condition),
    ).toEqual(["node"]);
    // Conditions are tried in order: each runtime's own name comes before "node", which Deno and Bun match too.
    const order = Object.keys(platform);
    for (const condition of ["browser", "deno", "bun", "worker"]) expect(order.indexOf(condition)).toBeLessThan(order.indexOf("node"));
    expect(order.at(-1)).toBe("default");
    for (const dir of [SDK_PACKAGE_DIR, MCP_PACKAGE_DIR]) expect((JSON.parse(read(`${dir}/package.json`)) as { imports: unknown }).imports).toEqual(CLIENT_PLATFORM_IMPORTS);
  });

  it("declare the runtime's dependencies in ranges the project's own versions satisfy", () => {
    for (const [name, range] of Object.entries(RUNTIME_DEPENDENCIES)) {
      const installed = (JSON.parse(read(`node_modules/${name}/package.json`)) as { version: string }).version;
      expect(semver.satisfies(installed, range), `${name} ${installed} in ${range}`).toBe(true);
      const declared = (JSON.parse(read("package.json")) as { dependencies: Record<string, string> }).dependencies[name];
      expect(declared && semver.intersects(declared, range), `${name}: package.json has ${declared}`).toBe(true);
    }
  });

  it("declare the explorer's browser packages (but React) and the packages of the Redis store, metrics and tracing as optional peers of the server (the SDK: the OpenTelemetry API alone), in ranges the project's own versions satisfy", () => {
    const server = JSON.parse(read(`${SERVER_PACKAGE_DIR}/package.json`)) as Record<string, Record<string, unknown>>;
    const sdk = JSON.parse(read(`${SDK_PACKAGE_DIR}/package.json`)) as Record<string, unknown>;
    // The SDK's one optional peer: the OpenTelemetry API, for the trace context of the caller's span.
    expect([sdk.peerDependencies, sdk.peerDependenciesMeta]).toEqual([{ "@opentelemetry/api": OPTIONAL_PACKAGES["@opentelemetry/api"]!.range }, { "@opentelemetry/api": { optional: true } }]);
    const explorerNames = Object.entries(EXPLORER_PACKAGES)
      .filter(([, { optionalPeer }]) => optionalPeer)
      .map(([name]) => name);
    expect(explorerNames).toEqual(["graphiql", "swagger-ui-dist"]);
    const names = [...explorerNames, ...Object.keys(OPTIONAL_PACKAGES)];
    expect(names).toEqual(["graphiql", "swagger-ui-dist", "ioredis", "prom-client", "@opentelemetry/api", "@modelcontextprotocol/sdk"]);
    expect(Object.keys(server.peerDependencies!)).toEqual(names);
    expect(server.peerDependenciesMeta).toEqual(Object.fromEntries(names.map((name) => [name, { optional: true }])));
    for (const name of names) expect(server.dependencies).not.toHaveProperty(name);
    const declared = (JSON.parse(read("package.json")) as { dependencies: Record<string, string> }).dependencies;
    for (const [name, { range }] of [...Object.entries(EXPLORER_PACKAGES), ...Object.entries(OPTIONAL_PACKAGES)]) {
      if (names.includes(name)) expect(server.peerDependencies![name]).toBe(range);
      const installed = (JSON.parse(read(`node_modules/${name}/package.json`)) as { version: string }).version;
      expect(semver.satisfies(installed, range), `${name} ${installed} in ${range}`).toBe(true);
      expect(declared[name] && semver.intersects(declared[name], range), `${name}: package.json has ${declared[name]}`).toBe(true);
    }
  });

  it("list every operation of their package once, with its destructive mark", () => {
    const sdkReadme = read(`${SDK_PACKAGE_DIR}/README.md`);
    const serverReadme = read(`${SERVER_PACKAGE_DIR}/README.md`);
    for (const op of ir.operations) {
      for (const readme of [sdkReadme, serverReadme]) {
        const rows = readme.split("\n").filter((line) => line.startsWith(`| \`${op.name}\` |`));
        expect(rows, op.name).toHaveLength(1);
        expect(rows[0]!.includes("**yes**"), op.name).toBe(op.destructive);
      }
    }
  });
});
