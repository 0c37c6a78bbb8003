// MCP with the official SDK's own Client: the stubs' /mcp (Streamable HTTP, in process, through
// the call pipeline) and the standalone server (`npm run mcp`: stdio, and HTTP) against the
// reference service. Listing, a read, a write, a destructive call, bad input and missing or wrong
// credentials; read-only, filtered and dynamic modes.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServerOptions, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import type { LogEntry } from "../../runtime/server/index.js";
import { createReferenceService } from "../../reference/service.js";
import { compareVersions } from "../../runtime/client/version.js";
import { startHttpMcpServer } from "../helpers/mcp-http.js";
import { REPO_ROOT } from "../helpers/project.js";
import { testStorage } from "../helpers/test-storage.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "mcp-test-admin-secret";
const ADMIN_HEADER = schema.adminSecretHeader;
const TOOL_OPERATIONS = Object.values(schema.operations).filter((operation) => operation.surface !== "oauth");

interface Running {
  base: string;
  grpcEndpoint: string;
  logs: LogEntry[];
  close(): Promise<void>;
}

async function serve(options: Partial<ServerOptions> = {}): Promise<Running> {
  const logs: LogEntry[] = [];
  const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage: testStorage() });
  const server: ServiceServer = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, logger: (entry) => logs.push(entry), ...service.serverOptions, ...options });
  const { httpUrl: base, grpcEndpoint } = await server.listen();
  service.setAddresses({ issuer: base });
  return { base, grpcEndpoint, logs, close: async () => (await server.close(), await service.state.storage.close()) };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

type CallResult = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallResult;
const errorOf = (result: CallResult) => {
  expect(result.isError).toBe(true);
  return JSON.parse(result.content[0]!.text) as { code: string; message: string; field?: string };
};

describe("MCP on the stubs' /mcp", () => {
  let running: Running;
  let admin: Client;
  beforeAll(async () => {
    running = await serve({ mcp: true });
    admin = await connect(`${running.base}/mcp`, { [ADMIN_HEADER]: SECRET });
  });
  afterAll(async () => {
    await admin.close();
    await running.close();
  });

  it("lists one tool per admin and user operation, with schemas and hints; token routes are not tools", async () => {
    const { tools } = await admin.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_OPERATIONS.map((operation) => operation.name).sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("admin_meta")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get("delete_user")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("delete_user")!.description).toContain("Destructive.");
    expect(byName.get("create_organization")!.inputSchema.required).toContain("name");
    expect(byName.get("create_organization")!.outputSchema).toBeDefined();
    expect(byName.has("oauth_token")).toBe(false);
  });

  it("calls a read, a write and a destructive tool through the pipeline, answering structuredContent and its JSON text", async () => {
    const meta = await call(admin, "admin_meta");
    expect(meta.isError).toBeFalsy();
    expect(meta.structuredContent).toMatchObject({ version: schema.version });
    expect(JSON.parse(meta.content[0]!.text)).toEqual(meta.structuredContent);
    const created = await call(admin, "create_organization", { name: "mcp-org", display_name: "MCP" });
    expect(created.structuredContent).toMatchObject({ name: "mcp-org" });
    const orgId = created.structuredContent!.id as string;
    expect((await call(admin, "delete_organization", { id: orgId })).isError).toBeFalsy();
    expect(errorOf(await call(admin, "get_organization", { id: orgId })).code).toBe("NOT_FOUND");
    // Logged as MCP calls, as every protocol's calls are.
    expect(running.logs.filter((entry) => entry.protocol === "mcp").map((entry) => `${entry.operation} ${entry.outcome}`)).toEqual(
      expect.arrayContaining(["admin_meta OK", "create_organization OK", "delete_organization OK", "get_organization NOT_FOUND"]),
    );
  });

  it("answers bad input as a tool error naming the field, and the session goes on", async () => {
    const missing = errorOf(await call(admin, "create_organization", { display_name: "no name" }));
    expect(missing).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(missing.message).toContain("name");
    const wrongType = errorOf(await call(admin, "create_organization", { name: 42 }));
    expect(wrongType.code).toBe("INVALID_ARGUMENT");
    expect(errorOf(await call(admin, "no_such_tool")).code).toBe("NOT_FOUND");
    expect((await call(admin, "admin_meta")).isError).toBeFalsy();
  });

  it("refuses a tool call without its credential, or with a wrong one, with HTTP 401 and WWW-Authenticate; no tool runs", async () => {
    const before = running.logs.length;
    for (const headers of [{}, { [ADMIN_HEADER]: "wrong-admin-secret" }]) {
      const response = await fetch(`${running.base}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_organization", arguments: { name: "sneaky" } } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
    }
    expect(running.logs.slice(before).filter((entry) => entry.operation === "create_organization")).toEqual([]);
    const anonymous = await connect(`${running.base}/mcp`);
    expect((await anonymous.listTools()).tools.length).toBe(TOOL_OPERATIONS.length);
    await expect(call(anonymous, "admin_meta")).rejects.toMatchObject({ code: 401 });
    await anonymous.close();
  });

  it("answers a plain tools/call (the direct path) exactly as the SDK's request handling does", async () => {
    const post = async (params: Record<string, unknown>, id: number | string) => {
      const response = await fetch(`${running.base}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [ADMIN_HEADER]: SECRET },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    // With _meta the call takes the SDK's path; the answers must be byte for byte the same.
    for (const [index, params] of [
      { name: "admin_meta" },
      { name: "admin_meta", arguments: {} },
      { name: "get_organization", arguments: { id: "no-such-org" } },
      { name: "create_organization", arguments: { name: 42 } },
      { name: "no_such_tool", arguments: {} },
    ].entries()) {
      const direct = await post(params, `call-${index}`);
      expect(direct, JSON.stringify(params)).toBe(await post({ ...params, _meta: {} }, `call-${index}`));
      expect(JSON.parse(direct)).toMatchObject({ jsonrpc: "2.0", id: `call-${index}`, result: expect.any(Object) });
    }
    // A malformed call is the SDK's to refuse: a JSON-RPC error, not a tool run.
    const malformed = JSON.parse(await post({ name: 7 }, 9)) as { error?: { code: number; message: string } };
    expect(malformed).not.toHaveProperty("result");
    expect(malformed.error?.message).toMatch(/name/);
  });

  it("calls user tools with the bearer token of the request", async () => {
    const anonymous = await connect(`${running.base}/mcp`);
    const signup = await call(anonymous, "signup", { email: "mcp-user@example.com", password: "mcp-password-1", confirm_password: "mcp-password-1" });
    expect(signup.isError).toBeFalsy();
    await anonymous.close();
    const signedIn = await connect(`${running.base}/mcp`, { authorization: `Bearer ${signup.structuredContent!.access_token}` });
    expect((await call(signedIn, "profile")).structuredContent).toMatchObject({ email: "mcp-user@example.com" });
    await signedIn.close();
  });
});

describe("MCP modes on /mcp", () => {
  it("read-only lists no writing tool, and a surface filter keeps one surface", async () => {
    const running = await serve({ mcp: { readOnly: true, surfaces: ["admin"] } });
    const client = await connect(`${running.base}/mcp`, { [ADMIN_HEADER]: SECRET });
    const { tools } = await client.listTools();
    expect(tools.length).toBe(TOOL_OPERATIONS.filter((operation) => operation.kind === "read" && operation.surface === "admin").length);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(errorOf(await call(client, "delete_user", { id: "x" })).code).toBe("NOT_FOUND");
    await client.close();
    await running.close();
  });

  it("dynamic mode serves three tools that reach every operation", async () => {
    const running = await serve({ mcp: { mode: "dynamic" } });
    const client = await connect(`${running.base}/mcp`, { [ADMIN_HEADER]: SECRET });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_operations", "describe_operation", "invoke_operation"]);
    const listed = (await call(client, "list_operations")).structuredContent!.operations as { name: string; destructive: boolean }[];
    expect(listed.map((operation) => operation.name).sort()).toEqual(TOOL_OPERATIONS.map((operation) => operation.name).sort());
    expect(listed.find((operation) => operation.name === "delete_user")!.destructive).toBe(true);
    expect((await call(client, "describe_operation", { name: "create_organization" })).structuredContent!.inputSchema.required).toContain("name");
    expect((await call(client, "invoke_operation", { name: "admin_meta", arguments: {} })).structuredContent).toMatchObject({ version: schema.version });
    expect(errorOf(await call(client, "invoke_operation", { name: "create_organization", arguments: {} })).code).toBe("INVALID_ARGUMENT");
    await client.close();
    await running.close();
  });
});

describe("the standalone identity-mcp (generated/mcp/main.ts)", () => {
  let running: Running;
  beforeAll(async () => {
    running = await serve();
  });
  afterAll(() => running.close());
  const main = join(REPO_ROOT, "generated", "mcp", "main.ts");
  const stdio = async (args: string[], env: Record<string, string> = {}) => {
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", main, "--service-url", running.base, ...args],
        env: { PATH: process.env.PATH ?? "", ...env },
        cwd: REPO_ROOT,
        stderr: "pipe",
      }),
    );
    return client;
  };

  it("over stdio: lists, reads, writes and refuses bad input, with the admin secret from the environment", async () => {
    const client = await stdio([], { IDENTITY_ADMIN_SECRET: SECRET });
    const { tools } = await client.listTools();
    expect(tools.length).toBe(TOOL_OPERATIONS.filter((operation) => operation.rest).length);
    expect((await call(client, "admin_meta")).structuredContent).toMatchObject({ version: schema.version });
    const created = await call(client, "create_organization", { name: "stdio-org", display_name: "stdio" });
    expect(created.structuredContent).toMatchObject({ name: "stdio-org" });
    expect((await call(client, "delete_organization", { id: created.structuredContent!.id })).isError).toBeFalsy();
    expect(errorOf(await call(client, "create_organization", { display_name: "no name" })).code).toBe("INVALID_ARGUMENT");
    await client.close();
  }, 60_000);

  it("over stdio without the admin secret: admin tools answer UNAUTHENTICATED, public ones work", async () => {
    const client = await stdio(["--surface", "user"]);
    const { tools } = await client.listTools();
    expect(tools.every((tool) => !tool.name.startsWith("admin_"))).toBe(true);
    expect((await call(client, "meta")).isError).toBeFalsy();
    expect(errorOf(await call(client, "profile")).code).toBe("UNAUTHENTICATED");
    await client.close();
  }, 60_000);

  it("read-only and operation filters list what they should", async () => {
    const client = await stdio(["--read-only", "--operation", "admin_meta,users,delete_user"], { IDENTITY_ADMIN_SECRET: SECRET });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["admin_meta", "users"]);
    await client.close();
  }, 60_000);

  it("lists only the operations the server version it is told of carries", async () => {
    const client = await stdio(["--server-version", "2.3.0-rc.1"], { IDENTITY_ADMIN_SECRET: SECRET });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    const carried = TOOL_OPERATIONS.filter((operation) => operation.rest && compareVersions(operation.rest.since, "2.3.0-rc.1") <= 0).map((operation) => operation.name);
    expect(names.sort()).toEqual(carried.sort());
    expect(names).not.toContain("admin_meta");
    await client.close();
  }, 60_000);

  it("over stdio with --protocol grpc: calls the gRPC endpoint --grpc-endpoint or IDENTITY_GRPC_ENDPOINT names", async () => {
    // The service's gRPC port is not the API's default (9091), so only the named endpoint reaches it.
    expect(running.grpcEndpoint).not.toMatch(new RegExp(`:${schema.grpcPort}$`));
    for (const [args, env] of [
      [["--protocol", "grpc", "--grpc-endpoint", running.grpcEndpoint], {}],
      [["--protocol", "grpc"], { IDENTITY_GRPC_ENDPOINT: running.grpcEndpoint }],
    ] as const) {
      const client = await stdio([...args], { IDENTITY_ADMIN_SECRET: SECRET, ...env });
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names.sort()).toEqual(
        TOOL_OPERATIONS.filter((operation) => operation.grpc)
          .map((operation) => operation.name)
          .sort(),
      );
      expect((await call(client, "admin_meta")).structuredContent).toMatchObject({ version: schema.version });
      const created = await call(client, "create_organization", { name: `grpc-org-${names.length}-${Object.keys(env).length}`, display_name: "over gRPC" });
      expect(created.structuredContent).toMatchObject({ display_name: "over gRPC" });
      await client.close();
    }
  }, 60_000);

  it("refuses a gRPC endpoint that is not host:port, and --grpc-endpoint without --protocol grpc, with exit 2", () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ["--import", "tsx", main, "--service-url", running.base, ...args], { cwd: REPO_ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } });
    const malformed = run(["--protocol", "grpc", "--grpc-endpoint", "http://127.0.0.1:9091"]);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain(`error: --grpc-endpoint (or IDENTITY_GRPC_ENDPOINT) must be the service's gRPC host:port, such as localhost:${schema.grpcPort}, not 'http://127.0.0.1:9091'`);
    expect(malformed.stderr).toContain("[--grpc-endpoint <host:port>]");
    const fromEnvironment = run(["--protocol", "grpc"], { IDENTITY_GRPC_ENDPOINT: "127.0.0.1" });
    expect(fromEnvironment.status).toBe(2);
    expect(fromEnvironment.stderr).toContain("not '127.0.0.1'");
    const overRest = run(["--grpc-endpoint", running.grpcEndpoint]);
    expect(overRest.status).toBe(2);
    expect(overRest.stderr).toContain("error: --grpc-endpoint is where the tools call over gRPC: give it with --protocol grpc (the protocol is rest)");
    for (const result of [malformed, fromEnvironment, overRest]) expect(result.stderr).not.toContain("    at ");
  }, 60_000);

  it("refuses the admin secret on the command line, and unknown filters, with exit 2", () => {
    const run = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", main, "--service-url", running.base, ...args], { cwd: REPO_ROOT, encoding: "utf8" });
    const secret = run(["--admin-secret", SECRET]);
    expect(secret.status).toBe(2);
    expect(secret.stderr).toContain("IDENTITY_ADMIN_SECRET");
    const group = run(["--group", "nonsense"]);
    expect(group.status).toBe(2);
    expect(group.stderr).toContain("no such group: nonsense");
  }, 60_000);

  it("passes the MCP inspector's CLI mode (@modelcontextprotocol/inspector 2 --cli): tools/list and tools/call over stdio", async () => {
    const inspector = (...args: string[]) =>
      promisify(execFile)(
        join(REPO_ROOT, "node_modules", ".bin", "mcp-inspector"),
        ["--cli", "-e", `IDENTITY_ADMIN_SECRET=${SECRET}`, process.execPath, "--import", "tsx", main, "--service-url", running.base, ...args],
        {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? "" },
        },
      );
    const listed = JSON.parse((await inspector("--method", "tools/list")).stdout) as { tools: { name: string; annotations: { destructiveHint: boolean } }[] };
    expect(listed.tools.length).toBe(TOOL_OPERATIONS.filter((operation) => operation.rest).length);
    expect(listed.tools.find((tool) => tool.name === "delete_organization")!.annotations.destructiveHint).toBe(true);
    const created = JSON.parse((await inspector("--method", "tools/call", "--tool-name", "create_organization", "--tool-arg", "name=inspected")).stdout) as CallResult;
    expect(created.structuredContent).toMatchObject({ name: "inspected" });
    // A tool result with isError: the inspector prints it, then exits with its tool-error status (5).
    const failed = (await inspector("--method", "tools/call", "--tool-name", "get_organization", "--tool-arg", "id=missing").then(
      () => expect.unreachable("the inspector exited 0 on a tool error"),
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string };
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stderr).toContain('"code":"tool_is_error"');
    const refused = JSON.parse(failed.stdout) as CallResult;
    expect(errorOf(refused).code).toBe("NOT_FOUND");
  }, 120_000);

  it("starts over stdio as docs/server.md prints it, alone and under the inspector: stdout carries JSON-RPC only", async () => {
    // The printed lines, with this test's service URL and admin secret for the printed ones.
    const docs = readFileSync(join(REPO_ROOT, "docs", "server.md"), "utf8");
    const printed = (prefix: string) => {
      const line = docs.split("\n").find((l) => l.startsWith(prefix) && l.includes("generated/mcp/main.ts"));
      expect(line, `docs/server.md prints no line starting '${prefix}' that starts the MCP server`).toBeDefined();
      return line!.replaceAll("s3cret-admin-key", SECRET).replace("http://127.0.0.1:8080", running.base).split(" ");
    };
    const [assignment, command, ...args] = printed("IDENTITY_ADMIN_SECRET=");
    expect(command).toBe("node");
    const client = new Client({ name: "docs-reader", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args,
        env: { PATH: process.env.PATH ?? "", [assignment!.split("=")[0]!]: assignment!.split("=")[1]! },
        cwd: REPO_ROOT,
        stderr: "pipe",
      }),
    );
    expect((await call(client, "admin_meta")).structuredContent).toMatchObject({ version: schema.version });
    await client.close();

    const [npx, inspector, ...inspectorArgs] = printed("npx mcp-inspector");
    expect([npx, inspector]).toEqual(["npx", "mcp-inspector"]);
    const nodeAt = inspectorArgs.indexOf("node");
    const listed = await promisify(execFile)(
      join(REPO_ROOT, "node_modules", ".bin", "mcp-inspector"),
      ["--cli", ...inspectorArgs.slice(0, nodeAt), process.execPath, ...inspectorArgs.slice(nodeAt + 1), "--method", "tools/list"],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "" } },
    );
    expect((JSON.parse(listed.stdout) as { tools: unknown[] }).tools.length).toBe(TOOL_OPERATIONS.filter((operation) => operation.rest).length);
  }, 120_000);

  /** The standalone server over HTTP against `base`, and a tools/call posted to it from `localAddress`. */
  async function httpMcp(base: string) {
    const { url, stop } = await startHttpMcpServer(main, base);
    const toolCall = (secret: string, localAddress: string) =>
      new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "admin_meta", arguments: {} } });
        const request = httpRequest(
          url,
          { method: "POST", localAddress, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [ADMIN_HEADER]: secret } },
          (response) => {
            let text = "";
            response.on("data", (chunk: Buffer) => (text += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode!, retryAfter: response.headers["retry-after"] as string | undefined, body: text }));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    return { url, toolCall, stop };
  }

  // The security review: ten wrong secrets from an anonymous caller locked the MCP server's own
  // address out at the service, so the right admin's secret got TOO_MANY_REQUESTS for 662 s, and
  // the MCP server answered 500 where the service said 429.
  it("over HTTP: a caller's wrong secrets spend its own budget, never the MCP server's address at the service", async () => {
    const service = await serve();
    const mcp = await httpMcp(service.base);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await mcp.toolCall(`wrong-admin-secret-${i}`, "127.0.0.1")).status);
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
      const refused = await mcp.toolCall("another-wrong-secret", "127.0.0.1");
      expect([refused.status, Number(refused.retryAfter) > 800]).toEqual([429, true]);
      // Another caller, with the right secret: the service heard 5 wrong ones from the MCP server, under its lockout of 10.
      const right = await mcp.toolCall(SECRET, "127.0.0.2");
      expect(right.status, right.body).toBe(200);
      expect(right.body).toContain(schema.version);
      // A second anonymous caller spends what is left of the forwarded budget (9), then is refused here too.
      const others: number[] = [];
      for (let i = 0; i < 6; i++) others.push((await mcp.toolCall(`wrong-again-${i}`, "127.0.0.3")).status);
      expect(others).toEqual([401, 401, 401, 401, 429, 429]);
      expect((await mcp.toolCall(SECRET, "127.0.0.2")).status).toBe(200); // verified a minute ago: not asked again
    } finally {
      mcp.stop();
      await service.close();
    }
  }, 60_000);

  it("over HTTP: the service's refusal passes through with its status, 429 and its Retry-After", async () => {
    const service = await serve();
    const mcp = await httpMcp(service.base);
    try {
      // The service's lockout of 127.0.0.1 (the MCP server's address too), spent directly.
      for (let i = 0; i < 10; i++) {
        await fetch(`${service.base}/v1/admin/admin_meta`, { method: "POST", headers: { "content-type": "application/json", [ADMIN_HEADER]: `direct-wrong-${i}` }, body: "{}" });
      }
      const answer = await mcp.toolCall(SECRET, "127.0.0.2");
      expect(answer.status, answer.body).toBe(429);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      expect(answer.body).toContain("TOO_MANY_REQUESTS");
    } finally {
      mcp.stop();
      await service.close();
    }
  }, 60_000);

  it("over HTTP: each request's own credential, 401 when it is missing or wrong", async () => {
    const mcp = await httpMcp(running.base);
    try {
      const { url } = mcp;
      const admin = await connect(url, { [ADMIN_HEADER]: SECRET });
      expect((await call(admin, "admin_meta")).structuredContent).toMatchObject({ version: schema.version });
      await admin.close();
      for (const headers of [{}, { [ADMIN_HEADER]: "wrong-admin-secret" }]) {
        const client = await connect(url, headers);
        await expect(call(client, "admin_meta")).rejects.toMatchObject({ code: 401 });
        await client.close();
      }
    } finally {
      mcp.stop();
    }
  }, 60_000);
});
