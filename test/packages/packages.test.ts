// The published packages, used from outside this repository: both are packed with `npm run pack`,
// installed from their tarballs into a fresh project under the system temp dir, and type-checked
// there with tsc. The SDK then runs against the reference service over every protocol; the server
// stubs are implemented and served by that project and called over every protocol; the MCP server's
// bin serves its tools. Each of the three runs on every Node line the packages declare: the project's
// own Node and the newest of the older line (test/helpers/node-lines.ts).
import { execFile, spawn, type ChildProcess, type ExecFileOptions } from "node:child_process";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import type { ServiceServer } from "../../generated/server/index.js";
import { loadIr } from "../../generators/generate.js";
import { REPO_ROOT, timed } from "../helpers/project.js";
import { startReferenceServer } from "../helpers/reference-server.js";
import { CURRENT_NODE, OLDER_NODE_VERSION, olderNode, type NodeLine } from "../helpers/node-lines.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium } from "../helpers/chromium.js";

const execFileAsync = promisify(execFile);
/** execFile, failing with what the command printed (tsc reports its errors on stdout). */
const run = (file: string, args: string[], options: ExecFileOptions = {}): Promise<{ stdout: string; stderr: string }> =>
  execFileAsync(file, args, { ...options, encoding: "utf8" }).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`${error.message}\n${String(error.stdout ?? "")}${String(error.stderr ?? "")}`);
  });
const PROTOCOLS = ["graphql", "rest", "grpc"] as const;
const ADMIN_SECRET = "consumer-secret";
const TSC = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
/** The newest TypeScript major the consumers are checked with too. */
const NEWEST_TYPESCRIPT = "7";
const ir = loadIr(REPO_ROOT);
const { sdkPackage, serverPackage, adminSecretHeader } = ir.api;

/** The version of a package installed in this repository, so that npm can take it from its cache. */
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    // Checking every library's declarations triples the time; the consumers' @ts-expect-error lines
    // prove instead that the packages' declarations resolve to real types, not to any.
    skipLibCheck: true,
    types: ["node"],
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src"],
};

/** Uses the SDK as an application would: both clients on each protocol, then ./grpc with Connect. */
const CLIENT_SOURCE = `import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AdminClient, ApiError, UserClient, type Organization, type Protocol } from "${sdkPackage}";
import { AdminService, grpcServices } from "${sdkPackage}/grpc";

const serviceUrl = process.env.SERVICE_URL!;
const grpcEndpoint = process.env.GRPC_ENDPOINT!;
const adminSecret = process.env.ADMIN_SECRET!;

async function codeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "none";
  } catch (error) {
    return error instanceof ApiError ? \`\${error.code} \${error.protocol}\` : String(error);
  }
}

/** Never called: fails to compile if the SDK's declarations were lost (everything would be any). */
export function typeChecks(admin: AdminClient): void {
  // @ts-expect-error unknown input field
  void admin.createOrganization({ nme: "acme" });
  // @ts-expect-error unknown protocol
  void new AdminClient({ serviceUrl, adminSecret, protocol: "soap" });
  // @ts-expect-error a field getOrganization does not declare is unknown, not a string
  void admin.getOrganization({ id: "x" }).then((organization) => organization.secret.length);
  // @ts-expect-error a declared field keeps its type beside the unknown fields
  void admin.getOrganization({ id: "x" }).then((organization): number => organization.name);
}

const results: Record<string, unknown> = {};
const protocols: readonly Protocol[] = ["graphql", "rest", "grpc"];
for (const protocol of protocols) {
  const admin = new AdminClient({ serviceUrl, grpcEndpoint, adminSecret, protocol });
  const readOnly = new AdminClient({ serviceUrl, grpcEndpoint, adminSecret, protocol, readOnly: true });
  const user = new UserClient({ serviceUrl, grpcEndpoint, clientId: "consumer-app", protocol });
  const meta = await admin.adminMeta();
  // One organization per protocol and Node line: the script runs once on each line against one service.
  const created: Organization = await admin.createOrganization({ name: \`acme-\${protocol}-node\${process.versions.node.split(".")[0]}\`, display_name: "Acme" });
  const fetched = await admin.getOrganization({ id: created.id });
  results[protocol] = {
    version: meta.version,
    sameOrganization: JSON.stringify(fetched) === JSON.stringify(created),
    name: fetched.name,
    displayName: fetched.display_name,
    notFound: await codeOf(() => admin.getOrganization({ id: "no-such-org" })),
    refused: await codeOf(() => readOnly.deleteOrganization({ id: created.id })),
    userMeta: (await user.meta()).version,
  };
  await Promise.all([admin.close(), readOnly.close(), user.close()]);
}

const rpc = createClient(AdminService, createGrpcTransport({ baseUrl: \`http://\${grpcEndpoint}\` }));
const direct = await rpc.adminMeta({}, { headers: { "${adminSecretHeader}": adminSecret } });
results.direct = { version: direct.version, services: grpcServices.map((s) => s.typeName) };
results.node = process.version;
process.stdout.write(JSON.stringify(results));
`;

/**
 * The SDK where Node is not: run as it is by Deno and Bun (which pick the package's fetch platform),
 * and bundled for a browser page. Each protocol reads the service and makes an organization; a TLS
 * option that only Node can honour is refused with its reason, which proves the platform module.
 */
const WEB_SMOKE_SOURCE = `import { AdminClient, ApiError, UserClient } from "${sdkPackage}";

const serviceUrl = (globalThis.process?.env ?? globalThis.Deno?.env.toObject()).SERVICE_URL;
const adminSecret = (globalThis.process?.env ?? globalThis.Deno?.env.toObject()).ADMIN_SECRET;
const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "other";
const results = { runtime };
for (const protocol of ["graphql", "rest", "grpc"]) {
  const admin = new AdminClient({ serviceUrl, adminSecret, protocol });
  const user = new UserClient({ serviceUrl, clientId: "consumer-app", protocol });
  const created = await admin.createOrganization({ name: \`acme-\${protocol}-\${runtime}\`, display_name: "Acme" });
  let notFound = "none";
  try {
    await admin.getOrganization({ id: "no-such-org" });
  } catch (error) {
    notFound = error instanceof ApiError ? \`\${error.code} \${error.protocol}\` : String(error);
  }
  results[protocol] = { version: (await admin.adminMeta()).version, name: (await admin.getOrganization({ id: created.id })).name, notFound, userMeta: (await user.meta()).version };
  await Promise.all([admin.close(), user.close()]);
}
try {
  new UserClient({ serviceUrl, clientId: "consumer-app", tls: { ca: "-----BEGIN CERTIFICATE-----" } });
  results.tls = "accepted";
} catch (error) {
  results.tls = error.message;
}
console.log(JSON.stringify(results));
`;

/**
 * A web app's module: signs a user up and in, reads the profile and refreshes the token through the
 * SDK (REST), reads the profile over GraphQL and over RPC (Connect), from the page's own origin.
 */
const BROWSER_APP_SOURCE = `import { ApiError, UserClient } from "${sdkPackage}";

async function outcome(call) {
  try {
    return { ok: await call() };
  } catch (error) {
    return { error: error instanceof ApiError ? error.code : String(error), message: String(error.message) };
  }
}

window.signUpAndIn = async (serviceUrl, email) => {
  const user = new UserClient({ serviceUrl, clientId: "browser-app", protocol: "rest" });
  const password = "Browser-passw0rd!";
  const signedUp = await outcome(() => user.signup({ email, password, confirm_password: password, scope: ["offline_access"] }));
  if (signedUp.error) return { signedUp };
  const loggedIn = await user.login({ email, password, scope: ["offline_access"] });
  user.setAccessToken(loggedIn.access_token);
  const profile = await user.profile();
  const clientId = (await user.meta()).client_id;
  const refreshed = await user.oauthToken({ grant_type: "refresh_token", refresh_token: loggedIn.refresh_token, client_id: clientId });
  const others = {};
  for (const protocol of ["graphql", "grpc"]) {
    const client = new UserClient({ serviceUrl, clientId: "browser-app", protocol, accessToken: refreshed.access_token });
    others[protocol] = (await client.profile()).email;
  }
  return {
    signedUp: { ok: signedUp.ok.user?.email ?? null },
    loggedIn: typeof loggedIn.access_token === "string" && typeof loggedIn.refresh_token === "string",
    profile: profile.email,
    refreshed: typeof refreshed.access_token === "string" && refreshed.access_token !== loggedIn.access_token,
    others,
  };
};
`;

/** Implements the server stubs in a few methods (the rest refuse) and serves them on free ports. */
const SERVER_SOURCE = `import { createServer, ExplorerSetupError, MissingPackageError, ServiceError, type CallContext, type Implementation } from "${serverPackage}";
import type { CreateOrganizationInput, Organization } from "${serverPackage}/types";

const organizations = new Map<string, Organization>();

const implemented: Partial<Implementation> = {
  async createOrganization(input: CreateOrganizationInput, context: CallContext) {
    const now = Math.floor(Date.now() / 1000);
    const organization: Organization = {
      id: \`org-\${organizations.size + 1}\`,
      name: input.name,
      display_name: \`\${input.display_name ?? input.name} via \${context.protocol}\`,
      enabled: true,
      created_at: now,
      updated_at: now,
    };
    organizations.set(organization.id, organization);
    return organization;
  },
  async getOrganization({ id }) {
    const organization = organizations.get(id);
    if (!organization) throw new ServiceError("NOT_FOUND", \`no organization \${id}\`);
    return organization;
  },
  async deleteOrganization({ id }) {
    if (!organizations.delete(id)) throw new ServiceError("NOT_FOUND", \`no organization \${id}\`);
    return { message: "deleted" };
  },
};

/** Never called: fails to compile if the server package's declarations were lost. */
export function typeChecks(): void {
  // @ts-expect-error an answer of createOrganization needs the fields of Organization
  const incomplete: Implementation["createOrganization"] = async () => ({ id: "x" });
  // @ts-expect-error the options need the admin secret
  createServer(implemented, { port: 0, partial: true });
  // @ts-expect-error an implementation that lacks operations needs { partial: true }
  createServer(implemented, { adminSecret: "s" });
  void incomplete;
}

// The explorer's browser packages are optional peers, not installed here: turning it on must say so.
let explorerRefusal = "";
try {
  createServer(implemented, { adminSecret: "unused-admin-secret", explorer: true, partial: true, onWarning: () => {} });
} catch (error) {
  explorerRefusal = error instanceof ExplorerSetupError ? error.message : \`not an ExplorerSetupError: \${String(error)}\`;
}

// Three operations: every other one answers UNIMPLEMENTED, listed once as a warning on stderr.
const server = createServer(implemented, { adminSecret: process.env.ADMIN_SECRET!, port: 0, grpcPort: 0, partial: true });
const addresses = await server.listen();
// prom-client is an optional peer too: metrics without it must say what to install.
let metricsRefusal = "";
try {
  await createServer(implemented, { adminSecret: "unused-admin-secret", port: 0, grpcPort: 0, metrics: true, partial: true, onWarning: () => {} }).listen();
} catch (error) {
  metricsRefusal = error instanceof MissingPackageError ? error.message : \`not a MissingPackageError: \${String(error)}\`;
}
process.stdout.write(JSON.stringify({ ...addresses, explorerRefusal, metricsRefusal, node: process.version }) + "\\n");
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
`;

/**
 * The SDK README's everyday examples (from "## Errors" to "## Operations"), each a module of its own,
 * its printed address the reference service's (as the docs test does); one that names a placeholder
 * such as "<id>" cannot run as printed and is type-checked only.
 */
function sdkReadmeExamples(): { name: string; source: string; runs: boolean }[] {
  const text = readFileSync(join(REPO_ROOT, "generated", "packages", "sdk", "README.md"), "utf8");
  const section = text.slice(text.indexOf("## Errors"), text.indexOf("## Operations"));
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => {
    let source = match[1]!.replaceAll('"http://localhost:8080"', "process.env.SERVICE_URL!");
    const clients = [...new Set([...source.matchAll(/new (\w+)\(/g)].map((made) => made[1]!))];
    if (!source.includes(`from "${sdkPackage}"`)) source = `import { ${clients.join(", ")} } from "${sdkPackage}";\n${source}`;
    return { name: `readme-sdk-${index + 1}`, source: `${source}\nexport {};\n`, runs: !/"<[a-z_]+>"/.test(source) };
  });
}

/** The first TypeScript block of a README's section. */
function readmeExample(path: string, heading: string): string {
  const text = readFileSync(path, "utf8");
  const section = text.slice(text.indexOf(heading));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (text.indexOf(heading) < 0 || !block) throw new Error(`${path} has no TypeScript example under ${heading}`);
  return block[1]!;
}

let workDir: string;
let consumerDir: string;
let tarballs: string[];
let referenceServer: ServiceServer;
let referenceAddresses: { httpUrl: string; grpcEndpoint: string };
/** Serves the browser app's page and bundle; the service lists its 127.0.0.1 origin, never its localhost one. */
let pageServer: Server;
let pageOrigin: string;
let unlistedOrigin: string;
const consumerServers: ChildProcess[] = [];
/** The Node lines the packages run on, the project's own first; the older one is installed in beforeAll. */
const NODE_LINES = [CURRENT_NODE.line, OLDER_NODE_VERSION.split(".")[0]!];
const nodes = new Map<string, NodeLine>([[CURRENT_NODE.line, CURRENT_NODE]]);
const nodeOf = (line: string): NodeLine => nodes.get(line) ?? expect.unreachable(`Node ${line} was not installed`);
const timings: Record<string, number> = {};
let packOutput = "";

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "apigen-packages-"));
  const packDir = join(workDir, "tarballs");
  consumerDir = join(workDir, "consumer");
  // --first-release: this repository has no release yet (no v* tag, no release.json); once it has one, the gate compares with it and the flag changes nothing.
  packOutput = (await timed(timings, "pack", () => run(process.execPath, [join(REPO_ROOT, "scripts", "pack.mjs"), "--out", packDir, "--only", "npm", "--first-release"], { cwd: REPO_ROOT }))).stdout;
  tarballs = readdirSync(packDir).map((file) => join(packDir, file));

  mkdirSync(join(consumerDir, "src"), { recursive: true });
  writeFileSync(join(consumerDir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  writeFileSync(join(consumerDir, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
  writeFileSync(join(consumerDir, "src", "client.ts"), CLIENT_SOURCE);
  for (const example of sdkReadmeExamples()) writeFileSync(join(consumerDir, "src", `${example.name}.ts`), example.source);
  writeFileSync(join(consumerDir, "src", "server.ts"), SERVER_SOURCE);
  // The server package README's first service must compile as printed (it is type-checked, not run: it listens on 8080).
  writeFileSync(join(consumerDir, "src", "readme-service.ts"), readmeExample(join(REPO_ROOT, "generated", "packages", "server", "README.md"), "## A service of a few operations"));
  const tools = ["@types/node", "@connectrpc/connect", "@connectrpc/connect-node"].map((name) => `${name}@${installedVersion(name)}`);
  await timed(timings, "npm install", () => run("npm", ["install", ...tarballs, ...tools, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: consumerDir }));
  await timed(timings, "tsc", () => run(process.execPath, [TSC, "-p", consumerDir], { cwd: consumerDir }));
  // And with the newest TypeScript, which consumers may well have (7 needs "types": ["node"], as the READMEs say).
  const newest = join(workDir, "typescript-newest");
  mkdirSync(newest);
  await timed(timings, "npm install typescript@latest", () =>
    run("npm", ["install", `typescript@${NEWEST_TYPESCRIPT}`, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "--no-save"], { cwd: newest }),
  );
  await timed(timings, `tsc ${NEWEST_TYPESCRIPT}`, () => run(join(newest, "node_modules", ".bin", "tsc"), ["-p", consumerDir, "--noEmit"], { cwd: consumerDir }));

  const older = await timed(timings, `node ${OLDER_NODE_VERSION}`, olderNode);
  nodes.set(older.line, older);

  // The browser app, bundled from the installed package as a web app's bundler would (its "browser" condition).
  writeFileSync(join(consumerDir, "browser-app.js"), BROWSER_APP_SOURCE);
  writeFileSync(join(consumerDir, "web-smoke.js"), WEB_SMOKE_SOURCE);
  const bundle = await build({ entryPoints: [join(consumerDir, "browser-app.js")], absWorkingDir: consumerDir, bundle: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  const page = '<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/app.js"></script>';
  pageServer = createHttpServer((request, response) => {
    const [type, body] = request.url === "/app.js" ? ["text/javascript", bundle.outputFiles[0]!.contents] : ["text/html", page];
    response.writeHead(200, { "content-type": type }).end(body);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  const { port } = pageServer.address() as AddressInfo;
  pageOrigin = `http://127.0.0.1:${port}`;
  unlistedOrigin = `http://localhost:${port}`;

  ({ server: referenceServer, addresses: referenceAddresses } = await startReferenceServer(ADMIN_SECRET, { cors: { origins: [pageOrigin] } }));
}, 240_000);

afterAll(async () => {
  for (const server of consumerServers) if (server.pid !== undefined && server.exitCode === null) server.kill("SIGTERM");
  await referenceServer?.close();
  pageServer?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  console.log(`packages test steps (ms): ${JSON.stringify(timings)}`);
});

describe("the packed packages", () => {
  it("are three tarballs named after the manifest, each holding compiled modules, declarations and a README", async () => {
    expect(tarballs.map((t) => t.slice(t.lastIndexOf("/") + 1)).sort()).toEqual([ir.api.sdkTarball, ir.api.serverTarball, ir.api.mcpTarball].sort());
    const installed = (name: string, path: string) => readFileSync(join(consumerDir, "node_modules", name, path), "utf8");
    for (const name of [sdkPackage, serverPackage]) {
      const manifest = JSON.parse(installed(name, "package.json")) as Record<string, unknown>;
      expect(manifest).toMatchObject({ name, version: ir.api.version, type: "module", sideEffects: false });
      expect(manifest.scripts).toBeUndefined();
      expect(installed(name, "README.md")).toContain(`# ${name}`);
      expect(readdirSync(join(consumerDir, "node_modules", name, "runtime")).some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toBe(false);
    }
    expect(installed(sdkPackage, "generated/client/index.d.ts")).toContain("AdminClient");
    expect(installed(sdkPackage, "package.json")).toContain('"./grpc"');
  });

  it(`declare the Node lines they are run on here (${NODE_LINES.join(" and ")})`, () => {
    for (const name of [sdkPackage, serverPackage, ir.api.mcpPackage]) {
      const { engines } = JSON.parse(readFileSync(join(consumerDir, "node_modules", name, "package.json"), "utf8")) as { engines: { node: string } };
      const minimum = /^>=(\d+)\.(\d+)$/.exec(engines.node);
      expect(minimum, `${name} engines.node ${engines.node}`).not.toBeNull();
      for (const { version } of nodes.values()) {
        const [major, minor] = version.slice(1).split(".").map(Number) as [number, number];
        expect(major > Number(minimum![1]) || (major === Number(minimum![1]) && minor >= Number(minimum![2])), `${name} on Node ${version}`).toBe(true);
      }
    }
    expect([...nodes.keys()].sort()).toEqual([...NODE_LINES].sort());
  });

  it("each passed npm publish --dry-run as pack made it", () => {
    for (const name of [sdkPackage, serverPackage, ir.api.mcpPackage]) expect(packOutput).toMatch(new RegExp(`^${name}@${ir.api.version}: .*npm publish --dry-run passed\\)$`, "m"));
  });

  it("type-check in a project outside the repository (tsc ran in beforeAll) and hold no link to it", () => {
    for (const name of [sdkPackage, serverPackage]) {
      const manifest = JSON.parse(readFileSync(join(consumerDir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
      expect(manifest.dependencies[name]).toMatch(/^file:.*\.tgz$/);
      expect(readFileSync(join(consumerDir, "node_modules", name, "package.json"), "utf8")).not.toContain(REPO_ROOT);
    }
  });
});

describe.each(NODE_LINES)("the MCP package on Node %s", (line) => {
  it("installs its bin, which serves the tools over stdio against the reference service", async () => {
    const node = nodeOf(line);
    const PATH = `${dirname(node.path)}${delimiter}${process.env.PATH ?? ""}`;
    expect((await run("/usr/bin/env", ["node", "-p", "process.version"], { env: { PATH } })).stdout.trim()).toBe(node.version);
    const manifest = JSON.parse(readFileSync(join(consumerDir, "node_modules", ir.api.mcpPackage, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(Object.keys(manifest.bin)).toEqual([`${ir.api.name}-mcp`]);
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const client = new Client({ name: "packages-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        // The bin as a host starts it: its "#!/usr/bin/env node" finds this line's node first on the PATH.
        command: join(consumerDir, "node_modules", ".bin", `${ir.api.name}-mcp`),
        args: ["--service-url", referenceAddresses.httpUrl],
        env: { PATH, [`${ir.api.envPrefix}_ADMIN_SECRET`]: ADMIN_SECRET },
        cwd: consumerDir,
      }),
    );
    expect((await client.listTools()).tools.some((tool) => tool.name === "admin_meta")).toBe(true);
    const meta = (await client.callTool({ name: "admin_meta", arguments: {} })) as unknown as { structuredContent: { version: string } };
    expect(meta.structuredContent.version).toBe(ir.api.version);
    await client.close();
  });
});

describe.each(NODE_LINES)("the SDK package on Node %s against the reference service", (line) => {
  it("answers over GraphQL, REST and gRPC alike, and over ./grpc with Connect", async () => {
    const { stdout } = await run(nodeOf(line).path, [join(consumerDir, "dist", "client.js")], {
      cwd: consumerDir,
      env: { ...process.env, SERVICE_URL: referenceAddresses.httpUrl, GRPC_ENDPOINT: referenceAddresses.grpcEndpoint, ADMIN_SECRET },
    });
    const results = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    for (const protocol of PROTOCOLS) {
      expect(results[protocol]).toEqual({
        version: ir.api.version,
        sameOrganization: true,
        name: `acme-${protocol}-node${line}`,
        displayName: "Acme",
        notFound: `NOT_FOUND ${protocol}`,
        refused: `FAILED_PRECONDITION ${protocol}`,
        userMeta: ir.api.version,
      });
    }
    expect(results.direct).toEqual({ version: ir.api.version, services: ir.proto.services.map((s) => s.typeName) });
    expect(results.node).toBe(nodeOf(line).version);
  });
});

describe("the SDK README's examples", () => {
  it("run as printed against the reference service (those naming a placeholder are type-checked only)", async () => {
    const examples = sdkReadmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(7);
    const ran: string[] = [];
    for (const example of examples.filter((e) => e.runs)) {
      const { IDENTITY_LOG: _, ...env } = process.env;
      await run(nodeOf(CURRENT_NODE.line).path, [join(consumerDir, "dist", `${example.name}.js`)], { cwd: consumerDir, env: { ...env, SERVICE_URL: referenceAddresses.httpUrl, ADMIN_SECRET } });
      ran.push(example.name);
    }
    console.log(`SDK README examples: ${ran.length} of ${examples.length} run as printed; the others name a placeholder and are type-checked`);
    expect(ran.length).toBeGreaterThanOrEqual(examples.length - 1);
  });
});

describe.each(NODE_LINES)("the server-stub package implemented and served by the consumer on Node %s", (line) => {
  let addresses: { httpUrl: string; grpcEndpoint: string; explorerRefusal: string; metricsRefusal: string; node: string };

  beforeAll(async () => {
    const consumerServer = spawn(nodeOf(line).path, [join(consumerDir, "dist", "server.js")], { cwd: consumerDir, env: { ...process.env, ADMIN_SECRET }, stdio: ["ignore", "pipe", "inherit"] });
    consumerServers.push(consumerServer);
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: consumerServer.stdout! }).once("line", resolve);
      consumerServer.once("exit", (code) => reject(new Error(`the consumer's server exited (${code})`)));
    });
    addresses = JSON.parse(firstLine) as typeof addresses;
  });

  it("runs on that Node", () => {
    expect(addresses.node).toBe(nodeOf(line).version);
  });

  it("refuses the explorer and metrics without their optional peers, naming them and the command that installs them", async () => {
    expect(readdirSync(join(consumerDir, "node_modules"))).not.toContain("graphiql");
    expect(addresses.explorerRefusal).toMatch(/not installed: graphiql, react, react-dom, swagger-ui-dist\. Install them with: npm install graphiql@/);
    expect(addresses.metricsRefusal).toBe("metrics (option metrics) needs the package prom-client, which is not installed. Install it with: npm install prom-client@^15.1.3");
    // The OpenAPI module the explorer loads on demand is packed although only a dynamic import reaches it.
    expect(readdirSync(join(consumerDir, "node_modules", serverPackage, "generated", "server"))).toContain("openapi-document.js");
  });

  it.each(PROTOCOLS)("serves its implementation over %s", async (protocol) => {
    const admin = new AdminClient({ serviceUrl: addresses.httpUrl, grpcEndpoint: addresses.grpcEndpoint, adminSecret: ADMIN_SECRET, protocol, serverVersion: ir.api.version });
    try {
      const created = await admin.createOrganization({ name: `shop-${protocol}` });
      expect(created).toMatchObject({ name: `shop-${protocol}`, display_name: `shop-${protocol} via ${protocol}`, enabled: true });
      expect(await admin.getOrganization({ id: created.id })).toEqual(created);
      expect(await admin.deleteOrganization({ id: created.id })).toEqual({ message: "deleted" });
      const missing = await admin.getOrganization({ id: created.id }).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(ApiError);
      expect((missing as ApiError).code).toBe("NOT_FOUND");
      // The runtime inside the package checks auth and input before the implementation runs.
      const wrongSecret = new AdminClient({ serviceUrl: addresses.httpUrl, grpcEndpoint: addresses.grpcEndpoint, adminSecret: "wrong", protocol, serverVersion: ir.api.version });
      await expect(wrongSecret.getOrganization({ id: "x" })).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
      await expect(admin.createOrganization({ name: "Not A Slug" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      // Everything it does not implement answers UNIMPLEMENTED, alike on every protocol.
      await expect(admin.users()).rejects.toMatchObject({ code: "UNIMPLEMENTED", message: "Users is not implemented by this service" });
      await wrongSecret.close();
    } finally {
      await admin.close();
    }
  });
});

describe("the SDK package beyond Node", () => {
  const expectedRuns = (runtime: string) => ({
    runtime,
    ...Object.fromEntries(PROTOCOLS.map((protocol) => [protocol, { version: ir.api.version, name: `acme-${protocol}-${runtime}`, notFound: `NOT_FOUND ${protocol}`, userMeta: ir.api.version }])),
    tls: expect.stringMatching(/^tls\.ca needs Node: here the platform's fetch trusts the platform's certificates/),
  });
  const env = () => ({ PATH: process.env.PATH ?? "", HOME: workDir, SERVICE_URL: referenceAddresses.httpUrl, ADMIN_SECRET, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" });

  it("runs under Deno (npm package deno), over GraphQL, REST and RPC through its fetch", async () => {
    const deno = join(REPO_ROOT, "node_modules", ".bin", "deno");
    const { stdout } = await run(deno, ["run", "--allow-net", "--allow-env", "--allow-read", "web-smoke.js"], { cwd: consumerDir, env: { ...env(), DENO_DIR: join(workDir, "deno-cache") } });
    expect(JSON.parse(stdout)).toEqual(expectedRuns("deno"));
  });

  it("runs under Bun (npm package bun), over GraphQL, REST and RPC through its fetch", async () => {
    const { stdout } = await run(join(REPO_ROOT, "node_modules", ".bin", "bun"), ["web-smoke.js"], { cwd: consumerDir, env: env() });
    expect(JSON.parse(stdout)).toEqual(expectedRuns("bun"));
  });

  it("bundles for browsers without a node: module or Node's HTTP client, the clients and the ./grpc entry", async () => {
    /** The modules a browser bundle of `entry` (a file of the consumer app) takes in, as a web app's bundler makes it. */
    const bundledModules = async (entry: string) => {
      const result = await build({
        entryPoints: [join(consumerDir, entry)],
        absWorkingDir: consumerDir,
        bundle: true,
        format: "esm",
        platform: "browser",
        splitting: true,
        outdir: join(workDir, `${entry}-out`),
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      return Object.keys(result.metafile.inputs);
    };
    const nodeOnly = (input: string) => /node_modules\/(undici|@connectrpc\/connect-node)\/|^node:/.test(input) || /runtime\/client\/(platform-node|grpc)\.js$/.test(input);
    const inputs = await bundledModules("browser-app.js");
    expect(inputs.filter(nodeOnly)).toEqual([]);
    expect(inputs.some((input) => input.endsWith("platform-web.js"))).toBe(true);
    // The ./grpc entry likewise: its createGrpcTransport is Connect over fetch there.
    writeFileSync(
      join(consumerDir, "browser-grpc.js"),
      `import { createGrpcTransport, grpcServices } from "${sdkPackage}/grpc";\nexport const make = (settings) => createGrpcTransport(settings, grpcServices);\n`,
    );
    const entryInputs = await bundledModules("browser-grpc.js");
    expect(entryInputs.filter(nodeOnly)).toEqual([]);
    expect(
      entryInputs
        .filter((input) => /(rpc-entry|platform-web|grpc-web)\.js$/.test(input))
        .map((input) => input.replace(/^.*\//, ""))
        .sort(),
    ).toEqual(["grpc-web.js", "platform-web.js", "rpc-entry.js"]);
  });

  it("serves a page of another origin in headless Chromium: sign-up, sign-in, profile and refresh; a page of an unlisted origin is refused and changes nothing", async () => {
    await ensureChromium();
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const open = async (origin: string) => {
        const page = await browser.newPage();
        await page.goto(`${origin}/`);
        await page.waitForFunction(() => "signUpAndIn" in window);
        return page;
      };
      const listed = await open(pageOrigin);
      const email = "browser-user@example.com";
      const flow = await listed.evaluate(
        ([url, address]) => (window as unknown as { signUpAndIn(u: string, e: string): Promise<unknown> }).signUpAndIn(url!, address!),
        [referenceAddresses.httpUrl, email],
      );
      expect(flow).toEqual({ signedUp: { ok: email }, loggedIn: true, profile: email, refreshed: true, others: { graphql: email, grpc: email } });

      const unlisted = await open(unlistedOrigin);
      const refusedEmail = "unlisted-origin@example.com";
      const refused = (await unlisted.evaluate(
        ([url, address]) => (window as unknown as { signUpAndIn(u: string, e: string): Promise<unknown> }).signUpAndIn(url!, address!),
        [referenceAddresses.httpUrl, refusedEmail],
      )) as {
        signedUp: { error: string; message: string };
      };
      // The browser keeps the preflight's answer from the page: the SDK sees no answer, and the sign-up never ran.
      expect(refused.signedUp.error).toBe("UNAVAILABLE");
      expect(refused.signedUp.message).toMatch(/^signup: no answer from the service/);
      const admin = new AdminClient({ serviceUrl: referenceAddresses.httpUrl, adminSecret: ADMIN_SECRET, protocol: "rest" });
      const users = await admin.users({ pagination: { page: 1, limit: 100 } });
      expect(users.users.map((user) => user.email)).toContain(email);
      expect(users.users.map((user) => user.email)).not.toContain(refusedEmail);
      await admin.close();
    } finally {
      await browser.close();
    }
  });
});
