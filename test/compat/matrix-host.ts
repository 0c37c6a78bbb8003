// The conformance matrix of one tree (today's, or a release's checked out beside it), hosted for
// the compatibility run: `node --import tsx test/compat/matrix-host.ts --tree <root>`. It loads that
// tree's own reference service, stubs and conformance scenarios (test/conformance/scenarios.ts),
// serves one fresh deterministic world at a time on free ports, and prepares each call the way
// that tree's matrix does. It prints its addresses and scenarios as one JSON line, then answers
// one line per request on stdin:
//
//   request  {"id": 1, "operation": "get_organization"}
//   answer   {"id": 1, "surface": "admin", "input": {...}, "headers": {...}, "accessToken": "..." | null,
//             "adminAccessToken": "..." | null}
//         or {"id": 1, "error": "why the setup failed"}
//
// Each request swaps in a fresh world and runs the scenario's setup on it; the SDK under test then
// makes the call itself, against the addresses of the first line.
import { registerHooks } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { credentialsOf, defaultCaller } from "../conformance/callers.js";

// The scenarios import expect (and the stores inject) from vitest, which only runs inside its workers.
const outside = pathToFileURL(join(import.meta.dirname, "vitest-outside.ts")).href;
registerHooks({ resolve: (specifier, context, next) => (specifier === "vitest" ? { url: outside, shortCircuit: true } : next(specifier, context)) });

const { values: args } = parseArgs({ options: { tree: { type: "string" } } });
const tree = args.tree!;
const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
const { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer } = await load("test/helpers/reference-server.ts");
const { scenarios } = await load("test/conformance/scenarios.ts");
const { setupContext } = await load("test/conformance/setup.ts");
const { AdminClient } = await load("generated/client/index.ts");
const { schema } = await load("generated/schema.ts");

interface Scenario {
  about: string;
  as?: "admin" | "org_admin" | "user" | "anonymous";
  setup?: (context: unknown) => Promise<Record<string, string>>;
  input: (values: Record<string, string>) => Record<string, unknown>;
  expect: { ok: unknown } | { error: string };
}

const keys = await makeTestKeys();
const server = await startSwappableServer(createWorld(keys, "boot").service);
const admin = new AdminClient({ serviceUrl: server.httpUrl, adminSecret: ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false });

const listed = Object.entries(scenarios as Record<string, Scenario>).map(([operation, scenario]) => ({
  operation,
  about: scenario.about,
  fails: "error" in scenario.expect ? scenario.expect.error : null,
}));
process.stdout.write(`${JSON.stringify({ httpUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint, adminSecret: ADMIN_SECRET, scenarios: listed })}\n`);

async function prepare(name: string): Promise<Record<string, unknown>> {
  const scenario = (scenarios as Record<string, Scenario>)[name];
  const operation = schema.operations[name];
  if (!scenario || !operation) throw new Error(`this tree has no scenario ${name}`);
  const world = createWorld(keys, name);
  server.use(world.service);
  const values = scenario.setup ? await scenario.setup(setupContext(world, server.httpUrl, admin)) : {};
  await world.service.state.settled();
  const credentials = credentialsOf(operation, scenario.as ?? defaultCaller(operation), values, schema.adminSecretHeader);
  return { surface: operation.surface, input: scenario.input(values), ...credentials, accessToken: credentials.accessToken ?? null, adminAccessToken: credentials.adminAccessToken ?? null };
}

const stop = () => void Promise.allSettled([admin.close(), server.close()]).then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// One request at a time, in order: each swaps the world the previous call was made on.
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const request = JSON.parse(line) as { id: number; operation: string };
  try {
    process.stdout.write(`${JSON.stringify({ id: request.id, ...(await prepare(request.operation)) })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: request.id, error: String((error as Error).stack ?? error) })}\n`);
  }
}
// The run closed stdin: it has ended (or died), and so does this host.
stop();
