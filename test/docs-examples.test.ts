// The examples of the API reference run: every operation's page in generated/docs/ shows the same call
// as a GraphQL document with variables, a curl line and a grpcurl line. This test reads those pages
// (what users read, not the generator's functions) and
//   - checks that each printed input is valid as it stands (the server's own validation, with the
//     <field> placeholders left in: a placeholder only ever stands for a free-form string);
//   - for each operation (but admin_signup and update_env, which always refuse), runs each form on a
//     fresh deterministic service after its scenario's setup (the conformance scenario, or where that
//     shows a refusal, test/conformance/succeeding-scenarios.ts), with the shell variables ($SERVICE_URL, $ADMIN_SECRET,
//     $ACCESS_TOKEN, $SCIM_TOKEN) set and each printed field's value taken from the scenario (its
//     input, or for a placeholder the value its setup answered): the GraphQL document through fetch,
//     the curl line through bash and curl, the grpcurl line through bash and grpcurl from the repository
//     root (with the test server's gRPC address for the default localhost:9091). Each must succeed, and
//     the three answers must be the same.
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { create, fromJson, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../generated/client/index.js";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { UserService } from "../generated/proto/identity/v1/user_service_pb.js";
import { schema } from "../generated/schema.js";
import { rules } from "../generated/server/rules.js";
import type { OperationSpec } from "../runtime/schema.js";
import { fromProtoInput, normalizeMessage, toProtoInit } from "../runtime/shape.js";
import { validateInput } from "../runtime/validate.js";
import { scenarios, type OperationName, type Scenario, type Values } from "./conformance/scenarios.js";
import { setupContext } from "./conformance/setup.js";
import { SUCCEEDING_SCENARIOS } from "./conformance/succeeding-scenarios.js";
import { ensureDebianProgram } from "./helpers/apt.js";
import { ensureGoTool, GRPCURL } from "./helpers/go-tools.js";
import { REPO_ROOT, tempDir } from "./helpers/project.js";
import { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys } from "./helpers/reference-server.js";

const DOCS = join(REPO_ROOT, "generated", "docs");
const OPERATIONS = schema.operations as Record<string, OperationSpec>;
/** The gRPC address the examples print: the manifest's default port. */
const PRINTED_GRPC_ADDRESS = `localhost:${schema.grpcPort}`;

/** One operation's three forms, as its page prints them. */
interface Example {
  page: string;
  graphql?: { document: string; header?: { name: string; value: string }; variables?: { params?: Record<string, unknown> } };
  curl?: string;
  grpcurl?: string;
}

const GRAPHQL_FORM = /\*\*GraphQL\*\* \(`POST \$SERVICE_URL\/graphql`(?: with header `([^:`]+): ([^`]+)`)?\)\n\n```graphql\n([\s\S]*?)\n```(?:\n\nvariables:\n\n```json\n([\s\S]*?)\n```)?/;
const REST_FORM = /\*\*REST\*\*\n\n```sh\n([\s\S]*?)\n```/;
const GRPC_FORM = /\*\*gRPC\*\*\n\n```sh\n([\s\S]*?)\n```/;
/** The JSON body of a printed command: `-d '...'`, with `'\''` for a quote inside. */
const DATA_ARGUMENT = /-d '((?:[^']|'\\'')*)'/;

function readExamples(): Map<string, Example> {
  const examples = new Map<string, Example>();
  for (const page of readdirSync(DOCS).filter((name) => name.endsWith(".md") && name !== "README.md" && name !== "types.md")) {
    const text = readFileSync(join(DOCS, page), "utf8");
    for (const section of text.split(/^## /m).slice(1)) {
      const name = section.slice(0, section.indexOf("\n")).trim();
      const calls = section.slice(section.indexOf("### The same call over each protocol"));
      const example: Example = { page };
      const graphql = GRAPHQL_FORM.exec(calls);
      if (graphql) {
        example.graphql = {
          document: graphql[3]!,
          ...(graphql[1] ? { header: { name: graphql[1], value: graphql[2]! } } : {}),
          ...(graphql[4] ? { variables: JSON.parse(graphql[4]) } : {}),
        };
      }
      const rest = REST_FORM.exec(calls);
      if (rest) example.curl = rest[1]!;
      const grpc = GRPC_FORM.exec(calls);
      if (grpc) example.grpcurl = grpc[1]!;
      examples.set(name, example);
    }
  }
  return examples;
}

const examples = readExamples();

/** The input a printed command sends (its `-d` JSON), or {} when it sends none. */
/** The query string of a printed GET or DELETE: `curl "$SERVICE_URL/path?a=1&b=2"`. */
const QUERY_ARGUMENT = /^curl (?:-X \w+ )?"(\$SERVICE_URL[^"?]*)\?([^"]*)"/;

function commandInput(command: string): Record<string, unknown> {
  const data = DATA_ARGUMENT.exec(command);
  if (data) return JSON.parse(data[1]!.replace(/'\\''/g, "'")) as Record<string, unknown>;
  const query = QUERY_ARGUMENT.exec(command);
  return query ? Object.fromEntries(new URLSearchParams(query[2]!)) : {};
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The command with its `-d` JSON replaced by `input`. */
const withInput = (command: string, input: Record<string, unknown>) =>
  DATA_ARGUMENT.test(command)
    ? command.replace(DATA_ARGUMENT, () => `-d ${shellQuote(JSON.stringify(input))}`)
    : command.replace(QUERY_ARGUMENT, (_, path: string) => `curl "${path}?${new URLSearchParams(Object.entries(input).map(([key, value]) => [key, String(value)])).toString()}"`);

/** The protobuf-es descriptors of an operation's request and answer, from the generated services. */
function grpcMessages(operation: OperationSpec): { input: DescMessage; output: DescMessage } {
  const service = [AdminService, UserService].find((s) => s.typeName === operation.grpc!.service)!;
  const method = service.methods.find((m) => m.name === operation.grpc!.rpc)!;
  return { input: method.input, output: method.output };
}

/** A printed gRPC (proto JSON) input as the plain snake_case input the server validates. */
function grpcInputAsPlain(operation: OperationSpec, json: Record<string, unknown>): Record<string, unknown> {
  return fromProtoInput(schema, operation.input, fromJson(grpcMessages(operation).input, json as JsonValue));
}

const PLACEHOLDER = /^<([a-z_]+)>$/;
const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The printed input with each field's value taken from the scenario: its input when it gives the
 * field, else, for a placeholder such as "<org_id>", the value its setup answered (orgId). Fields the
 * printed input does not send stay unsent. `grpc`: the values in proto JSON, as grpcurl reads them.
 */
function fillInput(operation: OperationSpec, printed: Record<string, unknown>, input: Record<string, unknown>, values: Values, grpc: boolean): Record<string, unknown> {
  const filled: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(printed)) {
    if (input[field] !== undefined) {
      filled[field] = input[field];
      continue;
    }
    const placeholder = typeof value === "string" ? PLACEHOLDER.exec(value) : null;
    if (!placeholder) {
      expect(JSON.stringify(value), `${operation.name}: ${field} holds a placeholder inside`).not.toMatch(/"<[a-z_]+>"/);
      filled[field] = value;
      continue;
    }
    const answered = values[camelCase(placeholder[1]!)] ?? values[placeholder[1]!];
    expect(answered, `${operation.name}: nothing in the scenario fills ${value}`).toBeDefined();
    filled[field] = answered;
  }
  if (!grpc) return filled;
  // Scenario values are in the wire form; grpcurl reads proto JSON (enum names such as KEY_SOURCE_TYPE_JWKS_URL).
  const { input: descriptor } = grpcMessages(operation);
  const proto = toJson(descriptor, create(descriptor, toProtoInit(schema, operation.input, filled) as never), { useProtoFieldName: true }) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(filled).map((field) => [field, proto[field] ?? filled[field]]));
}

/**
 * The scenario each example runs: the conformance scenario, or where that shows a refusal, one in
 * which the call succeeds (SUCCEEDING_SCENARIOS); and for oauth_token, whose scenario exchanges
 * client credentials, the authorization code the example shows.
 */
const EXAMPLE_SCENARIOS: Partial<Record<OperationName, Scenario>> = {
  ...SUCCEEDING_SCENARIOS,
  oauth_token: {
    about: "an authorization code of a signed-up user",
    setup: async (c) => {
      const verifier = "the-verifier-of-ada-at-least-43-characters-0123456789";
      const codeChallenge = createHash("sha256").update(verifier).digest("base64url");
      return { code: await c.state.issueAuthorizationCode({ userId: (await c.signUp("ada@example.com")).userId, codeChallenge }), code_verifier: verifier };
    },
    input: (v) => ({ grant_type: "authorization_code", code: v.code, code_verifier: v.code_verifier }),
    expect: { ok: (a) => expect(a).toMatchObject({ token_type: "Bearer", refresh_token: expect.any(String) }) },
  },
};

const runnable = (Object.keys(OPERATIONS) as OperationName[]).filter((name) => "ok" in (EXAMPLE_SCENARIOS[name] ?? scenarios[name]).expect);
/** Not run: they refuse whatever the call (admin_signup, update_env). */
const notRunnable = (Object.keys(OPERATIONS) as OperationName[]).filter((name) => !runnable.includes(name));

let keys: TestKeys;
let server: SwappableServer;
let admin: AdminClient;
let grpcurlDir: string;
let curlHome: string;
const timings: Record<string, number> = { graphql: 0, rest: 0, grpc: 0, setup: 0 };

beforeAll(async () => {
  ensureDebianProgram("curl", "/usr/bin/curl", "test/docs-examples.test.ts");
  grpcurlDir = dirname((await ensureGoTool(GRPCURL)).path);
  keys = await makeTestKeys();
  server = await startSwappableServer(createWorld(keys, "docs").service);
  admin = new AdminClient({ serviceUrl: server.httpUrl, adminSecret: ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false });
  // curl as printed, with only its output settled here: quiet, errors shown, the status after the body.
  curlHome = tempDir("docs-curl-");
  writeFileSync(join(curlHome, ".curlrc"), 'silent\nshow-error\nwrite-out = "\\n%{http_code}"\n');
}, 600_000);

afterAll(async () => {
  console.log(
    `docs examples: ${runnable.length} operations run (GraphQL ${(timings.graphql! / 1000).toFixed(1)} s, curl ${(timings.rest! / 1000).toFixed(1)} s, ` +
      `grpcurl ${(timings.grpc! / 1000).toFixed(1)} s, setups ${(timings.setup! / 1000).toFixed(1)} s); not run (they always refuse): ${notRunnable.join(", ")}`,
  );
  await admin?.close();
  await server?.close();
});

function shell(command: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", command], { cwd: REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A fresh world with the scenario's setup done; answers what the setup answered. */
async function prepare(name: OperationName, scenario: Scenario): Promise<Values> {
  const started = performance.now();
  const world = createWorld(keys, name);
  server.use(world.service);
  const values = scenario.setup ? await scenario.setup(setupContext(world, server.httpUrl, admin)) : {};
  await world.service.state.settled();
  timings.setup! += performance.now() - started;
  return values;
}

function shellVariables(values: Values): Record<string, string> {
  return { SERVICE_URL: server.httpUrl, ADMIN_SECRET: ADMIN_SECRET, ACCESS_TOKEN: values.accessToken ?? "", SCIM_TOKEN: values.token ?? "" };
}

/** Runs one form on a fresh world; answers the call's answer in the flat shape. */
async function runForm(name: OperationName, protocol: "graphql" | "rest" | "grpc"): Promise<Record<string, unknown>> {
  const operation = OPERATIONS[name]!;
  const example = examples.get(name)!;
  const scenario = EXAMPLE_SCENARIOS[name] ?? scenarios[name];
  const values = await prepare(name, scenario);
  const input = scenario.input(values);
  const variables = shellVariables(values);
  const started = performance.now();
  try {
    if (protocol === "graphql") {
      const graphql = example.graphql!;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (graphql.header) headers[graphql.header.name] = graphql.header.value.replace(/\$([A-Z_]+)/g, (_, variable: string) => variables[variable] ?? "");
      const params = graphql.variables?.params ? { params: fillInput(operation, graphql.variables.params, input, values, false) } : undefined;
      const response = await fetch(`${server.httpUrl}/graphql`, { method: "POST", headers, body: JSON.stringify({ query: graphql.document, ...(params ? { variables: params } : {}) }) });
      const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      expect({ status: response.status, errors: body.errors }, `${name} over GraphQL`).toEqual({ status: 200, errors: undefined });
      // The root field the document selects: the first name of its second line.
      const field = /^\s*(\w+)/.exec(graphql.document.split("\n")[1]!)![1]!;
      return normalizeMessage(schema, operation.output, body.data![field]);
    }
    if (protocol === "rest" && operation.rest!.answer === "redirect") {
      // A browser's route: it answers 302, and the answer is where it sends the browser.
      const command = `${withInput(example.curl!, fillInput(operation, commandInput(example.curl!), input, values, false))} -w '\n%{redirect_url}\n%{http_code}'`;
      const run = await shell(command, { ...variables, CURL_HOME: curlHome, XDG_CONFIG_HOME: curlHome });
      const [location = "", status = ""] = run.stdout.split("\n").slice(-2);
      expect({ exit: run.code, status, stderr: run.stderr }, `${name} with curl: ${run.stdout}`).toEqual({ exit: 0, status: "302", stderr: "" });
      return { location };
    }
    if (protocol === "rest") {
      const command = withInput(example.curl!, fillInput(operation, commandInput(example.curl!), input, values, false));
      const run = await shell(command, { ...variables, CURL_HOME: curlHome, XDG_CONFIG_HOME: curlHome });
      const status = run.stdout.slice(run.stdout.lastIndexOf("\n") + 1);
      const body = run.stdout.slice(0, run.stdout.lastIndexOf("\n"));
      expect({ exit: run.code, status, stderr: run.stderr }, `${name} with curl: ${body}`).toEqual({ exit: 0, status: "200", stderr: "" });
      return normalizeMessage(schema, operation.output, JSON.parse(body));
    }
    const command = withInput(example.grpcurl!, fillInput(operation, commandInput(example.grpcurl!), input, values, true)).replace(PRINTED_GRPC_ADDRESS, server.grpcEndpoint);
    const run = await shell(command, { ...variables, PATH: `${grpcurlDir}:${process.env.PATH}` });
    expect({ exit: run.code, stderr: run.stderr }, `${name} with grpcurl`).toEqual({ exit: 0, stderr: "" });
    const answer = fromJson(grpcMessages(operation).output, JSON.parse(run.stdout) as JsonValue);
    return normalizeMessage(schema, operation.output, answer, "protoName");
  } finally {
    timings[protocol]! += performance.now() - started;
  }
}

describe("the API reference's examples", () => {
  it("show every operation once, in the form of each protocol that carries it", () => {
    expect([...examples.keys()].sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const [name, example] of examples) {
      const operation = OPERATIONS[name]!;
      expect({ graphql: !!example.graphql, rest: !!example.curl, grpc: !!example.grpcurl }, name).toEqual({ graphql: !!operation.graphql, rest: !!operation.rest, grpc: !!operation.grpc });
      if (example.grpcurl) expect(example.grpcurl, name).toContain(PRINTED_GRPC_ADDRESS);
    }
  });

  it("are valid input as printed, placeholders left in, for every operation and protocol", () => {
    const refusals: string[] = [];
    for (const [name, example] of examples) {
      const operation = OPERATIONS[name]!;
      const printed: [string, Record<string, unknown>][] = [];
      if (example.graphql) printed.push(["GraphQL", example.graphql.variables?.params ?? {}]);
      if (example.curl) printed.push(["curl", commandInput(example.curl)]);
      if (example.grpcurl) printed.push(["grpcurl", grpcInputAsPlain(operation, commandInput(example.grpcurl))]);
      for (const [form, input] of printed) {
        try {
          validateInput(schema, rules, operation, input);
        } catch (error) {
          refusals.push(`${name} (${form}, ${example.page}): ${(error as Error).message}`);
        }
      }
    }
    expect(refusals).toEqual([]);
  });

  for (const name of runnable) {
    const operation = OPERATIONS[name]!;
    const protocols = (["graphql", "rest", "grpc"] as const).filter((p) => operation[p]);
    it(`${name}: ${protocols.map((p) => ({ graphql: "GraphQL", rest: "curl", grpc: "grpcurl" })[p]).join(", ")} succeed with the same answer`, async () => {
      const answers: Record<string, unknown>[] = [];
      for (const protocol of protocols) answers.push(await runForm(name, protocol));
      for (const [index, answer] of answers.entries()) expect(answer, `${protocols[index]} answered unlike ${protocols[0]}`).toEqual(answers[0]);
    });
  }
});
