// `apigen init <dir>`: a starter project of its own — a manifest of a few operations, a service
// implementing them on the generated stubs, a test calling it with the generated client over every
// protocol, package.json scripts, a tsconfig and a README — that installs, generates and tests
// outside this repository, with every package its documented commands use. The toolchain comes as
// two packages: `apigen` (this command line, with the templates) and `@apigen/runtime` (what
// generated code imports). Run from a checkout of the toolchain, init packs that checkout's
// toolchain into the starter's toolchain/ folder and depends on it there; `--toolchain <folder>`
// points the starter at tarballs packed before; anywhere else the starter asks the registry.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../load/diagnostics.js";
import { RUNTIME_PACKAGE } from "../emit/runtime-package.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { PUBLISHED_NODE_RANGE, TOOLCHAIN_RANGES } from "./version.js";

/** The name of the command-line package, which holds the generators and templates. */
export const TOOLCHAIN_PACKAGE = "apigen";

/** File names `npm pack` gives the toolchain's packages at `version`. */
export const toolchainTarballs = (version: string) => ({
  cli: `${TOOLCHAIN_PACKAGE}-${version}.tgz`,
  runtime: `${RUNTIME_PACKAGE.replace("@", "").replace("/", "-")}-${version}.tgz`,
});

export interface InitOptions {
  /** The folder to create (or an empty one to fill). */
  dir: string;
  /** The toolchain's version: the starter asks for it. */
  version: string;
  /** A folder holding the packed toolchain tarballs; the starter depends on them by file path. */
  toolchain?: string;
  /** With toolchain: copy the tarballs into the starter's toolchain/ folder and depend on them there, so the starter needs nothing outside it. */
  bundleToolchain?: boolean;
}

/** The starter's folder holding the toolchain tarballs, when init packed them from a checkout. */
export const BUNDLED_TOOLCHAIN_DIR = "toolchain";

/**
 * The checkout of the toolchain that `moduleFile` (the running command line: dist/apigen.mjs, or
 * generators/cli/cli.ts run from source) belongs to, or undefined when it is an installed package.
 * A checkout is a folder with the script that packs the toolchain and the runtime's workspace.
 */
export function checkoutOf(moduleFile: string): string | undefined {
  for (const candidate of [resolve(dirname(moduleFile), ".."), resolve(dirname(moduleFile), "..", "..")]) {
    if (existsSync(join(candidate, "scripts", "pack-toolchain.mjs")) && existsSync(join(candidate, "runtime", "package.json"))) return candidate;
  }
  return undefined;
}

/** Packs the toolchain of `checkout` (npm run pack:toolchain there) into a new temporary folder; answers the folder. */
export async function packCheckoutToolchain(checkout: string): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), "apigen-init-toolchain-"));
  const packed = await runProcess(process.execPath, [join(checkout, "scripts", "pack-toolchain.mjs"), "--out", out], { cwd: checkout });
  if (packed.code !== 0) {
    rmSync(out, { recursive: true, force: true });
    throw new UsageError(`could not pack the toolchain of ${checkout} (npm run pack:toolchain there):\n${packed.output.trim()}`);
  }
  return out;
}

export interface InitResult {
  dir: string;
  files: string[];
}

/** An API name from a folder name, as api.name takes it: lower-case words joined by hyphens (My Books -> my-books). */
function apiNameOf(dir: string): string {
  const words = basename(resolve(dir))
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const name = words.join("-").replace(/^[0-9-]+/, "");
  return name || "tasks";
}

const title = (name: string) =>
  name
    .split("-")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ");

function manifest(name: string): string {
  return `# yaml-language-server: $schema=./node_modules/${TOOLCHAIN_PACKAGE}/manifest.schema.json
# The one source of the API: edit it, then \`npm run generate\`. Reference: the toolchain's docs/manifest.md.
manifest_version: 1

api:
  name: ${name}
  title: ${title(name)} Service
  description: A starter API of tasks, over GraphQL, REST and gRPC.
  version: 0.1.0
  proto_package: ${name.replace(/-/g, "_")}.v1
  grpc_port: 9091
  # int64 fields travel as decimal strings, as proto3's JSON mapping writes them: exact past 2^53.
  int64_json: string
  # The client class and gRPC service of each surface (an admin surface is named alike).
  surfaces:
    user: { client: UserClient, service: UserService }
  # Who may call: each operation's auth names one of these. Kinds: none, bearer (a user's token),
  # api_key (a key in a header), secret (the admin secret), rule (a secret scheme and an org role).
  auth_schemes:
    public: { kind: none }
  groups:
    tasks: Tasks

types:
  Task:
    description: Something to do.
    fields:
      id: string!
      title: string!
      done: bool!

operations:
  add_task:
    surface: user
    group: tasks
    description: Add a task.
    kind: write
    auth: public
    protocols: { graphql: 0.1.0, rest: 0.1.0, grpc: 0.1.0 }
    input:
      title: { type: string!, max_length: 200 }
    output: Task
  get_task:
    surface: user
    group: tasks
    description: One task, by id.
    kind: read
    auth: public
    protocols: { graphql: 0.1.0, rest: 0.1.0, grpc: 0.1.0 }
    route: { method: GET, path: "/v1/tasks/{id}" }
    errors: [NOT_FOUND]
    input:
      id: string!
    output: Task
  list_tasks:
    surface: user
    group: tasks
    description: Every task, oldest first.
    kind: read
    auth: public
    protocols: { graphql: 0.1.0, rest: 0.1.0, grpc: 0.1.0 }
    route: { method: GET, path: /v1/tasks }
    output:
      tasks: Task[]!
  complete_task:
    surface: user
    group: tasks
    description: Mark a task done.
    kind: write
    auth: public
    protocols: { graphql: 0.1.0, rest: 0.1.0, grpc: 0.1.0 }
    route: { method: POST, path: "/v1/tasks/{id}/complete" }
    errors: [NOT_FOUND]
    input:
      id: string!
    output: Task
`;
}

const SERVICE = `// The service: one method per operation of operations.yaml, on the generated stubs.
import { randomUUID } from "node:crypto";
import { createServer, ServiceError, type Implementation } from "../generated/server/index.js";
import type { Task } from "../generated/types.js";

export function createTaskService(): Implementation {
  const tasks = new Map<string, Task>();
  const find = (id: string): Task => {
    const task = tasks.get(id);
    if (!task) throw new ServiceError("NOT_FOUND", "no task has this id");
    return task;
  };
  return {
    async addTask({ title }) {
      const task = { id: randomUUID(), title, done: false };
      tasks.set(task.id, task);
      return task;
    },
    async getTask({ id }) {
      return find(id);
    },
    async listTasks() {
      return { tasks: [...tasks.values()] };
    },
    async completeTask({ id }) {
      const task = find(id);
      task.done = true;
      return task;
    },
  };
}

/** The service on its ports; \`explore\` adds the explorer (GraphiQL on /graphql, Swagger UI on /docs) and MCP on /mcp. */
export function startServer(port = 8080, grpcPort = 9091, { explore = false } = {}) {
  return createServer(createTaskService(), { port, grpcPort, ...(explore ? { explorer: true, mcp: true } : {}) });
}
`;

const MAIN = `// \`npm start\`: serves the API on http://127.0.0.1:8080 (GraphQL, REST; in a browser, GraphiQL on
// /graphql and Swagger UI on /docs; MCP on /mcp) and 127.0.0.1:9091 (gRPC).
import { startServer } from "./service.js";

const server = startServer(Number(process.env.PORT ?? 8080), Number(process.env.GRPC_PORT ?? 9091), { explore: true });
const { httpUrl, grpcEndpoint } = await server.listen();
console.log(\`serving on \${httpUrl} and gRPC on \${grpcEndpoint} (explorer: \${httpUrl}/graphql and \${httpUrl}/docs; MCP: \${httpUrl}/mcp)\`);
process.once("SIGTERM", () => void server.close());
process.once("SIGINT", () => void server.close());
`;

const TEST = `// The service answers the generated client alike over every protocol.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, UserClient } from "../generated/client/index.js";
import { startServer } from "../src/service.js";

const server = startServer(0, 0);
let endpoints: { httpUrl: string; grpcEndpoint: string };
beforeAll(async () => {
  endpoints = await server.listen();
});
afterAll(() => server.close());

describe.each(["graphql", "rest", "grpc"] as const)("over %s", (protocol) => {
  it("adds, reads, lists and completes a task", async () => {
    const client = new UserClient({ serviceUrl: endpoints.httpUrl, grpcEndpoint: endpoints.grpcEndpoint, protocol });
    const added = await client.addTask({ title: \`write the \${protocol} docs\` });
    expect(added).toMatchObject({ title: \`write the \${protocol} docs\`, done: false });
    expect(await client.getTask({ id: added.id })).toEqual(added);
    expect((await client.listTasks()).tasks).toContainEqual(added);
    expect(await client.completeTask({ id: added.id })).toEqual({ ...added, done: true });
    await client.close();
  });

  it("answers NOT_FOUND for an unknown task, and refuses a title over 200 characters", async () => {
    const client = new UserClient({ serviceUrl: endpoints.httpUrl, grpcEndpoint: endpoints.grpcEndpoint, protocol });
    await expect(client.getTask({ id: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const refused = await client.addTask({ title: "x".repeat(201) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "INVALID_ARGUMENT" });
    await client.close();
  });
});
`;

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "skipLibCheck": true,
    "noEmit": true,
    "types": ["node"]
  },
  "include": ["src", "test", "generated"]
}
`;

/** The range of a package as the toolchain itself installs it (package.json), so the starter gets the versions the toolchain is tested with. */
function pinned(name: string): string {
  const range = TOOLCHAIN_RANGES[name];
  if (range === undefined) throw new Error(`the toolchain's package.json installs no ${name}`);
  return range;
}

/** The packages the starter's documented commands use beyond generating and testing: each, and what needs it. */
export const STARTER_PACKAGES = {
  dependencies: {
    "@modelcontextprotocol/sdk": "MCP: the server's /mcp (npm start) and the standalone MCP server (generated/mcp/main.ts)",
    graphiql: "the explorer's GraphiQL on /graphql (npm start)",
    react: "the explorer's GraphiQL on /graphql (npm start)",
    "react-dom": "the explorer's GraphiQL on /graphql (npm start)",
    "swagger-ui-dist": "the explorer's Swagger UI on /docs (npm start)",
  },
  devDependencies: {
    "@bufbuild/buf": "the gRPC contract check of npm run diff (buf breaking)",
    "ts-morph": "npx apigen scaffold (reads the service with the TypeScript type checker)",
    prettier: "npx apigen scaffold (formats the stubs it adds)",
  },
} as const;

function packageJson(name: string, options: InitOptions): string {
  const tarballs = toolchainTarballs(options.version);
  const dependency = (pkg: "cli" | "runtime") =>
    options.toolchain ? (options.bundleToolchain ? `file:${BUNDLED_TOOLCHAIN_DIR}/${tarballs[pkg]}` : `file:${join(resolve(options.toolchain), tarballs[pkg])}`) : `^${options.version}`;
  const ranges = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, pinned(n)]));
  const pkg = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: PUBLISHED_NODE_RANGE },
    scripts: {
      generate: "apigen generate",
      check: "apigen generate --check && tsc -p tsconfig.json",
      test: "apigen generate --check && tsc -p tsconfig.json && vitest run",
      start: "tsx src/main.ts",
      diff: "apigen diff --against HEAD",
    },
    dependencies: { [RUNTIME_PACKAGE]: dependency("runtime"), ...ranges(["@bufbuild/protobuf", ...Object.keys(STARTER_PACKAGES.dependencies)]) },
    devDependencies: {
      [TOOLCHAIN_PACKAGE]: dependency("cli"),
      "@types/node": "^22.19.0",
      ...ranges(["tsx", "typescript", "vitest", ...Object.keys(STARTER_PACKAGES.devDependencies)]),
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function readme(name: string, bundled: boolean): string {
  return `# ${title(name)} Service

\`\`\`sh
npm install && npm run generate   # install, then generate the contracts, stubs and SDKs from operations.yaml
npm test                          # generated files up to date, type check, and the service's tests
npm start                         # serve it: GraphQL and REST on :8080, gRPC on :9091
\`\`\`

- \`operations.yaml\`: the API — operations, their protocols and minimum versions, auth, input and output.
- \`generated/\`: what \`npm run generate\` writes from it (commit it; \`npm test\` fails when it is stale):
  \`proto/\`, GraphQL SDL, OpenAPI, TypeScript server stubs and client, Python and Go SDKs, and an MCP server.
- \`src/service.ts\`: the service, one method per operation; \`npm start\` serves it, with the
  explorer in a browser (GraphiQL on http://127.0.0.1:8080/graphql, the OpenAPI document in Swagger UI
  on http://127.0.0.1:8080/docs) and MCP on http://127.0.0.1:8080/mcp.
- \`test/\`: the service called with the generated client over GraphQL, REST and gRPC.
${
  bundled
    ? `- \`${BUNDLED_TOOLCHAIN_DIR}/\`: the toolchain (\`${TOOLCHAIN_PACKAGE}\` and \`${RUNTIME_PACKAGE}\`), packed from the checkout
  \`apigen init\` ran from; \`package.json\` installs it from there. Commit it with the project.
`
    : ""
}
Add an operation: describe it in \`operations.yaml\`, run \`npm run generate\`, then
\`npx apigen scaffold src/service.ts\` adds a stub for the method the service now lacks.
Before a release, \`npm run diff\` lists what changed in the contracts since the last commit.

An MCP host (an AI agent's tools) starts the standalone MCP server over stdio, calling the running
service: \`npx tsx generated/mcp/main.ts --service-url http://127.0.0.1:8080\` (with \`--protocol grpc
--grpc-endpoint 127.0.0.1:9091\`, over gRPC).
`;
}

const GITIGNORE = "node_modules/\ndist/\n";

/** Refuses a target folder that holds anything: init writes into a new or empty one. */
export function refuseOccupied(target: string): void {
  const dir = resolve(target);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${target} is not empty; apigen init writes a new project into a new or empty folder`);
}

/** Writes the starter into `options.dir`, all files or none. */
export function init(options: InitOptions): InitResult {
  const dir = resolve(options.dir);
  refuseOccupied(options.dir);
  const tarballs = Object.values(toolchainTarballs(options.version));
  if (options.toolchain) {
    const missing = tarballs.filter((tarball) => !existsSync(join(options.toolchain!, tarball)));
    if (missing.length > 0) throw new UsageError(`--toolchain ${options.toolchain} lacks ${missing.join(" and ")}; make them with npm run pack:toolchain in the toolchain's repository`);
  }
  const bundled = options.toolchain !== undefined && options.bundleToolchain === true;
  const name = apiNameOf(dir);
  const files: Record<string, string> = {
    "operations.yaml": manifest(name),
    "package.json": packageJson(name, options),
    "tsconfig.json": TSCONFIG,
    "README.md": readme(name, bundled),
    ".gitignore": GITIGNORE,
    "src/service.ts": SERVICE,
    "src/main.ts": MAIN,
    "test/service.test.ts": TEST,
  };
  // Written beside the target first, then moved into place: a failure leaves no half-made project.
  mkdirSync(dirname(dir), { recursive: true });
  const staging = `${dir}.init-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(staging, path)), { recursive: true });
      writeFileSync(join(staging, path), content);
    }
    if (bundled) {
      mkdirSync(join(staging, BUNDLED_TOOLCHAIN_DIR));
      for (const tarball of tarballs) copyFileSync(join(options.toolchain!, tarball), join(staging, BUNDLED_TOOLCHAIN_DIR, tarball));
    }
    if (existsSync(dir)) rmSync(dir, { recursive: true });
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return { dir, files: [...Object.keys(files), ...(bundled ? tarballs.map((tarball) => `${BUNDLED_TOOLCHAIN_DIR}/${tarball}`) : [])] };
}
