// The generated OpenAPI document works with openapi-python-client on the success paths: the test
// generates a client with the tool (pinned in the test virtualenv) and the configuration the
// generator writes beside the document (generated/openapi/openapi-python-client.yaml, which renames
// the schemas that would shadow the client's own classes, such as `Response`), installs it with pip
// into a folder of its own, and calls every REST operation against the reference service after its
// scenario's setup (the conformance scenario, or where that shows a refusal, the one of
// test/conformance/succeeding-scenarios.ts), through test/contracts/openapi_python_client_runner.py.
// Each call must answer 200 with the model of the document's answer schema, and the model, read back
// as a dict, must pass the scenario's checks.
//
// Not the token routes: openapi-python-client 0.29.1 writes a module that cannot be imported for a
// request body with two content types (form and JSON), as theirs have (`| Unset` without importing
// Unset: openapi-generators/openapi-python-client#1451, fixed by #1478, not yet released). The test
// checks that this is still so, and will say when a release of the tool mends it.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { OPENAPI_PYTHON_CLIENT_CONFIG_PATH, pythonClientClassOverrides } from "../../generators/emit/openapi-python-client.js";
import type { OperationSpec } from "../../runtime/schema.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { scenarios, type Answer, type OperationName, type Values } from "../conformance/scenarios.js";
import { setupContext } from "../conformance/setup.js";
import { SUCCEEDING_SCENARIOS } from "../conformance/succeeding-scenarios.js";
import { REPO_ROOT, tempDir } from "../helpers/project.js";
import { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys } from "../helpers/reference-server.js";

const run = promisify(execFile);
const OPENAPI_PATH = join(REPO_ROOT, "generated", "openapi", "openapi.yaml");
const OPERATIONS = schema.operations as Record<string, OperationSpec>;

type Ref = { $ref: string };
interface OpenapiOperation {
  operationId: string;
  tags: string[];
  requestBody?: { content: Record<string, { schema: Ref }> };
  /** 200 with a JSON answer, or (a browser's route) 302 with a Location. */
  responses: { "200": { content: { "application/json": { schema: Ref } } }; "302"?: { headers: { Location: unknown } } };
}
const openapi = parseYaml(readFileSync(OPENAPI_PATH, "utf8")) as { paths: Record<string, Record<string, OpenapiOperation>> };
const config = parseYaml(readFileSync(join(REPO_ROOT, OPENAPI_PYTHON_CLIENT_CONFIG_PATH), "utf8")) as { class_overrides: Record<string, { class_name: string }> };
const restOperations = new Map(Object.values(openapi.paths).flatMap((methods) => Object.values(methods).map((operation) => [operation.operationId, operation] as const)));
/** The class openapi-python-client gives a schema: its name, unless the configuration renames it. */
const classOf = (ref: Ref) => {
  const name = ref.$ref.split("/").at(-1)!;
  return config.class_overrides[name]?.class_name ?? name;
};

/** The routes that take form bodies, whose modules the tool's bug leaves unimportable. */
const TOOL_BUG = ["oauth_introspect"];
/** Token routes whose module now imports: their Idempotency-Key header parameter brings in the import of Unset the bug leaves out. Not called here (their two body types). */
const TOOL_BUG_MASKED = ["oauth_token", "oauth_revoke"];
const scenarioOf = (name: OperationName) => SUCCEEDING_SCENARIOS[name] ?? scenarios[name];
/** The routes a browser follows: they answer 302 with a Location, no model. */
const redirects = [...restOperations.values()].filter((o) => o.responses["302"] !== undefined).map((o) => o.operationId as OperationName);
const called = ([...restOperations.keys()] as OperationName[]).filter(
  (name) => !TOOL_BUG.includes(name) && !TOOL_BUG_MASKED.includes(name) && !redirects.includes(name) && "ok" in scenarioOf(name).expect,
);
const answeringResponse = [...restOperations.values()].filter((o) => o.responses["200"]?.content["application/json"].schema.$ref.endsWith("/Response")).map((o) => o.operationId);

let keys: TestKeys;
let server: SwappableServer;
let admin: AdminClient;
let runner: ChildProcessWithoutNullStreams;
let answers: AsyncIterator<string>;
let runnerErrors = "";
const timings = { generate: 0, install: 0, calls: 0 };

beforeAll(async () => {
  const env = await ensurePythonEnv({ log: (line) => console.log(line) });
  const bin = join(env.venv, "bin");
  const work = tempDir("openapi-python-client-");
  let started = performance.now();
  // The venv's bin first: the tool formats what it writes with ruff, which is there.
  const generated = await run(
    join(bin, "openapi-python-client"),
    ["generate", "--path", OPENAPI_PATH, "--config", join(REPO_ROOT, OPENAPI_PYTHON_CLIENT_CONFIG_PATH), "--meta", "setup", "--output-path", join(work, "client")],
    {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    },
  );
  expect(`${generated.stdout}${generated.stderr}`, "openapi-python-client warns").not.toMatch(/warning|error/i);
  timings.generate = performance.now() - started;
  started = performance.now();
  await run(join(bin, "python"), [
    "-m",
    "pip",
    "install",
    "--disable-pip-version-check",
    "--quiet",
    "--no-deps",
    "--no-build-isolation",
    "--no-index",
    "--target",
    join(work, "site"),
    join(work, "client"),
  ]);
  timings.install = performance.now() - started;
  runner = spawn(join(bin, "python"), [join(REPO_ROOT, "test", "contracts", "openapi_python_client_runner.py")], { env: { ...process.env, PYTHONPATH: join(work, "site") } });
  runner.stderr.on("data", (chunk: Buffer) => (runnerErrors += chunk));
  answers = createInterface({ input: runner.stdout })[Symbol.asyncIterator]();
  keys = await makeTestKeys();
  server = await startSwappableServer(createWorld(keys, "openapi-python-client").service);
  admin = new AdminClient({ serviceUrl: server.httpUrl, adminSecret: ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false });
}, 600_000);

afterAll(async () => {
  console.log(
    `openapi-python-client: ${called.length} operations called; generate ${(timings.generate / 1000).toFixed(1)} s, pip install ${(timings.install / 1000).toFixed(1)} s, calls ${(timings.calls / 1000).toFixed(1)} s`,
  );
  runner?.stdin.end();
  await admin?.close();
  await server?.close();
});

async function callThroughClient(request: Record<string, unknown>): Promise<{ status?: number; parsed_class?: string; parsed?: Answer; error?: string }> {
  runner.stdin.write(`${JSON.stringify(request)}\n`);
  const line = await answers.next();
  if (line.done) throw new Error(`the runner stopped:\n${runnerErrors}`);
  return JSON.parse(line.value) as { status?: number; parsed_class?: string; parsed?: Answer; error?: string };
}

/** The headers of the scenario's caller (as the conformance matrix makes them). */
function callerHeaders(operation: OperationSpec, caller: string | undefined, values: Values): Record<string, string> {
  const who = caller ?? (operation.surface === "admin" ? "admin" : operation.auth === "user" ? "user" : "anonymous");
  if (who === "admin") return { [schema.adminSecretHeader]: ADMIN_SECRET };
  if (who === "user" || who === "org_admin") return { authorization: `Bearer ${values.accessToken}` };
  return {};
}

describe("openapi-python-client", () => {
  it("is configured to rename exactly the schemas named like the client's own classes", () => {
    const schemas = Object.keys((parseYaml(readFileSync(OPENAPI_PATH, "utf8")) as { components: { schemas: Record<string, unknown> } }).components.schemas);
    expect(config.class_overrides).toEqual(pythonClientClassOverrides(schemas));
    expect(Object.keys(config.class_overrides)).toEqual(expect.arrayContaining(["Client", "Response"]));
    // A new name is never one the document or the client already has.
    expect(pythonClientClassOverrides(["Response", "ResponseModel", "Any", "Unset"])).toEqual({
      Any: { class_name: "AnyModel", module_name: "any_model" },
      Response: { class_name: "ResponseModelModel", module_name: "response_model_model" },
      Unset: { class_name: "UnsetModel", module_name: "unset_model" },
    });
  });

  it("calls every operation that answers Response, among others", () => {
    expect(answeringResponse.length).toBeGreaterThan(20);
    expect(answeringResponse.filter((name) => !called.includes(name as OperationName))).toEqual([]);
  });

  it("calls every REST operation but the token routes and the browser's routes", () => {
    expect([...restOperations.keys()].filter((name) => !called.includes(name as OperationName) && !redirects.includes(name as OperationName)).sort()).toEqual([...TOOL_BUG, ...TOOL_BUG_MASKED].sort());
    expect(redirects.sort()).toEqual(["oauth_authorize", "oauth_logout", "oauth_sso_callback"]);
  });

  it.each(TOOL_BUG)("%s: the module the tool writes still fails to import (its bug #1451)", async (name) => {
    const answer = await callThroughClient({ service_url: server.httpUrl, headers: {}, tag: restOperations.get(name)!.tags[0], operation: name, body_class: null, input: {} });
    expect(answer.error).toMatch(/NameError: name 'Unset' is not defined/);
  });

  it.each(TOOL_BUG_MASKED)("%s: the module the tool writes imports, since its header parameter imports Unset", async (name) => {
    const answer = await callThroughClient({ service_url: server.httpUrl, headers: {}, tag: restOperations.get(name)!.tags[0], operation: name, body_class: null, input: {} });
    expect(String(answer.error ?? "")).not.toMatch(/NameError/);
  });

  for (const name of called) {
    it(`${name}: 200 with its answer model, which passes the scenario's checks`, async () => {
      const operation = OPERATIONS[name]!;
      const rest = restOperations.get(name)!;
      const scenario = scenarioOf(name);
      const world = createWorld(keys, name);
      server.use(world.service);
      const values = scenario.setup ? await scenario.setup(setupContext(world, server.httpUrl, admin)) : {};
      await world.service.state.settled();
      const input = scenario.input(values);
      const bodyRef = rest.requestBody?.content["application/json"]?.schema;
      if (!bodyRef) expect(input, "an operation without a body takes no input").toEqual({});
      const started = performance.now();
      const answer = await callThroughClient({
        service_url: server.httpUrl,
        headers: callerHeaders(operation, scenario.as, values),
        tag: rest.tags[0],
        operation: name,
        body_class: bodyRef ? classOf(bodyRef) : null,
        input,
      });
      timings.calls += performance.now() - started;
      expect(answer.error, answer.error).toBeUndefined();
      expect({ status: answer.status, parsed_class: answer.parsed_class }).toEqual({ status: 200, parsed_class: classOf(rest.responses["200"].content["application/json"].schema) });
      if ("ok" in scenario.expect) scenario.expect.ok(answer.parsed!, values);
    });
  }
});
