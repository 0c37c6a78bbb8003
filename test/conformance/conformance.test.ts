// The conformance matrix (issue 4, item 5): every operation of the manifest, over every protocol
// that carries it, against the reference service behind the generated stubs, through the
// generated clients. Each cell runs its scenario on a fresh service with deterministic ids, time,
// random bytes and keys, so the answers of all protocols must be deep-equal (errors: the same code
// and message). The matrix is printed at the end; any failing cell fails the suite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, operations, UserClient, type CallOptions, type Protocol } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { protocolsOf, type OperationSpec } from "../../runtime/schema.js";
import { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys, type World } from "../helpers/reference-server.js";
import { startLostAnswerProxy, type LostAnswerProxy } from "../helpers/lost-answer-proxy.js";
import { FAULT_MAX_RESPONSE_BYTES, FAULTS, faultDeadline, faultProtocols, startFaultServers, type Fault, type FaultServers } from "./faults.js";
import { LANGUAGE_RUNNERS, type ClientCall, type ClientColumn, type ClientOutcome, type RunnerProcess } from "./runners.js";
import { scenarios, type Answer, type Caller, type OperationName, type Scenario, type Values } from "./scenarios.js";
import { setupContext } from "./setup.js";
import { credentialsOf, defaultCaller } from "./callers.js";

const PROTOCOLS: readonly Protocol[] = ["graphql", "rest", "grpc"];
const SERVER_VERSION = schema.version;
const NAMES = Object.keys(operations) as OperationName[];
/**
 * The clients of the matrix: TypeScript (in this process), then every other language's columns;
 * CONFORMANCE_CLIENTS=ts,py-sync narrows them (a quick run; every client runs by default).
 */
const ONLY = process.env.CONFORMANCE_CLIENTS?.split(",").map((c) => c.trim());
const RUNNERS = LANGUAGE_RUNNERS.filter((runner) => !ONLY || runner.columns.some((c) => ONLY.includes(c.name)));
const COLUMNS = ["ts", ...RUNNERS.flatMap((runner) => runner.columns.map((c) => c.name))].filter((c) => !ONLY || ONLY.includes(c));

type Outcome = { ok: true; answer: Answer } | { ok: false; code: string; message: string };
/** "-": the protocol does not carry the operation; "?": the cell did not finish (filtered out, or timed out). */
type Cell = "pass" | "FAIL" | "-" | "?";
type Method = (input: object, options?: CallOptions) => Promise<unknown>;

let keys: TestKeys;
let server: SwappableServer;
const adminClients = new Map<Protocol, AdminClient>();
const userClients = new Map<Protocol, UserClient>();
const columns = new Map<string, ClientColumn>();
const runners: RunnerProcess[] = [];
const cellKey = (protocol: Protocol, column: string) => `${protocol}/${column}`;
const matrix = new Map<OperationName, Record<string, Cell>>(
  NAMES.map((name) => [name, Object.fromEntries(PROTOCOLS.flatMap((p) => COLUMNS.map((c) => [cellKey(p, c), operations[name][p] ? "?" : "-"]))) as Record<string, Cell>]),
);
const failures: string[] = [];
const cellMs: number[] = [];

/** The fault column's TypeScript admin clients, one per fault server and protocol, with the cell's deadline and size cap. */
const faultClients = new Map<string, AdminClient>();
function faultClient(call: ClientCall): AdminClient {
  const key = `${call.config.serviceUrl} ${call.protocol}`;
  let client = faultClients.get(key);
  if (!client) {
    const { serviceUrl, grpcEndpoint, serverVersion, adminSecret, timeoutMs, maxResponseBytes, retryAttempts } = call.config;
    const retry = retryAttempts === undefined ? (false as const) : { attempts: retryAttempts, baseDelayMs: 10 };
    client = new AdminClient({ serviceUrl, grpcEndpoint, serverVersion, adminSecret, protocol: call.protocol, retry, timeoutMs, maxResponseBytes });
    faultClients.set(key, client);
  }
  return client;
}

/** The generated TypeScript clients, one per protocol and surface. */
const typescriptColumn: ClientColumn = {
  name: "ts",
  async call(call) {
    const operation = operations[call.operation as OperationName];
    try {
      let answer: unknown;
      if (call.surface === "admin") {
        if (call.config.adminAccessToken) {
          // An org-admin's own client, with their token instead of the secret.
          const client = new AdminClient({
            serviceUrl: call.config.serviceUrl,
            grpcEndpoint: call.config.grpcEndpoint,
            serverVersion: call.config.serverVersion,
            accessToken: call.config.adminAccessToken,
            protocol: call.protocol,
            retry: false,
          });
          try {
            answer = await (client as unknown as Record<string, Method>)[operation.method]!(call.input, { headers: call.headers });
          } finally {
            await client.close();
          }
        } else {
          const client = call.config.timeoutMs === undefined && call.config.retryAttempts === undefined ? adminClients.get(call.protocol)! : faultClient(call);
          answer = await (client as unknown as Record<string, Method>)[operation.method]!(call.input, { headers: call.headers });
        }
      } else {
        const client = userClients.get(call.protocol)!;
        client.setAccessToken(call.accessToken);
        try {
          answer = await (client as unknown as Record<string, Method>)[operation.method]!(call.input);
        } finally {
          client.setAccessToken(undefined);
        }
      }
      return { ok: true, answer: answer as Answer };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const { code, message, refused, operation, protocol, status, retryAfterSeconds } = error;
      return { ok: false, code, message, refused, operation, protocol, status: status ?? null, retryAfterSeconds: retryAfterSeconds ?? null };
    }
  },
  close: async () => {},
};

/** MCP: the call as a tools/call on /mcp, with the caller's credential in the request's headers. */
const mcpCells = new Map<OperationName, Cell>();
let mcpRequests = 0;
const mcpColumn: ClientColumn = {
  name: "mcp",
  async call(call) {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (call.surface === "admin" && call.config.adminAccessToken) headers.authorization = `Bearer ${call.config.adminAccessToken}`;
    else if (call.surface === "admin") Object.assign(headers, { [schema.adminSecretHeader]: ADMIN_SECRET }, call.headers);
    else if (call.accessToken) headers.authorization = `Bearer ${call.accessToken}`;
    const response = await fetch(`${server.httpUrl}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++mcpRequests, method: "tools/call", params: { name: call.operation, arguments: call.input } }),
    });
    if (response.status === 401) {
      const { error } = (await response.json()) as { error: { message: string } };
      return { ok: false, code: "UNAUTHENTICATED", message: error.message, refused: false, operation: call.operation, protocol: call.protocol };
    }
    const { result } = (await response.json()) as { result: { isError?: boolean; structuredContent?: Answer; content: { text: string }[] } };
    if (!result.isError) return { ok: true, answer: result.structuredContent! };
    const { code, message } = JSON.parse(result.content[0]!.text) as { code: string; message: string };
    return { ok: false, code, message, refused: false, operation: call.operation, protocol: call.protocol };
  },
  close: async () => {},
};

beforeAll(async () => {
  keys = await makeTestKeys();
  server = await startSwappableServer(createWorld(keys, "boot").service, { mcp: true });
  const common = { serviceUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint, serverVersion: SERVER_VERSION, retry: false as const };
  for (const protocol of PROTOCOLS) {
    adminClients.set(protocol, new AdminClient({ ...common, adminSecret: ADMIN_SECRET, protocol }));
    userClients.set(protocol, new UserClient({ ...common, clientId: "reference", protocol }));
  }
  columns.set("ts", typescriptColumn);
  for (const language of RUNNERS) {
    const runner = await language.start();
    runners.push(runner);
    for (const { name, mode } of language.columns) columns.set(name, runner.column(name, mode));
  }
}, 300_000);

afterAll(async () => {
  printMatrix();
  printFaultColumn();
  for (const client of [...adminClients.values(), ...userClients.values(), ...faultClients.values()]) await client.close();
  await Promise.all([...faultServers.values()].map((servers) => servers.close()));
  await Promise.all(runners.map((runner) => runner.close()));
  await server?.close();
});

function printMatrix(): void {
  const width = Math.max(...NAMES.map((n) => n.length));
  const cells = [...matrix.values()].flatMap((row) => Object.values(row));
  const group = (render: (column: string) => string) => PROTOCOLS.map(() => COLUMNS.map(render).join(" ")).join(" | ");
  const label = (column: string) => column.padEnd(Math.max(4, column.length));
  const lines = [
    `conformance matrix: ${NAMES.length} operations x ${PROTOCOLS.length} protocols x ${COLUMNS.length} clients (${COLUMNS.join(", ")})`,
    `${"".padEnd(width)}  ${PROTOCOLS.map((p) => p.padEnd(COLUMNS.map(label).join(" ").length)).join(" | ")}`,
    `${"operation".padEnd(width)}  ${group(label)}`,
    ...NAMES.map((name) => {
      const row = matrix.get(name)!;
      return `${name.padEnd(width)}  ${PROTOCOLS.map((p) => COLUMNS.map((c) => row[cellKey(p, c)]!.padEnd(label(c).length)).join(" ")).join(" | ")}`;
    }),
    `cells: ${cells.filter((c) => c === "pass").length} pass, ${cells.filter((c) => c === "FAIL").length} FAIL, ${cells.filter((c) => c === "-").length} not carried, ` +
      `${cells.filter((c) => c === "?").length} not run; ${cellMs.length} cells took ${(cellMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s (slowest ${Math.max(0, ...cellMs)} ms)`,
    `mcp column: ${[...mcpCells.values()].filter((c) => c === "pass").length} pass, ${[...mcpCells.values()].filter((c) => c === "FAIL").length} FAIL of ${NAMES.filter((n) => operations[n].surface !== "oauth").length} operations`,
    ...failures.map((failure) => `FAIL ${failure}`),
  ];
  console.log(lines.join("\n"));
}

/** The paths at which two outcomes differ, with both values: `answer.headers: {} | {"a":"1"}`. */
function differences(left: unknown, right: unknown, path = ""): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  if (isObject(left) && isObject(right) && Array.isArray(left) === Array.isArray(right)) {
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
    return keys.flatMap((key) => differences(left[key], right[key], path ? `${path}.${key}` : key));
  }
  return JSON.stringify(left) === JSON.stringify(right) ? [] : [`${path || "(whole)"}: ${JSON.stringify(left)} | ${JSON.stringify(right)}`];
}

/** Every top-level input field must be declared by the operation's input message (a typo would otherwise go unnoticed on some protocols). */
function checkInputFields(operation: OperationSpec, input: Record<string, unknown>): void {
  const declared = new Set(schema.messages[operation.input]!.fields.map((f) => f.name));
  const unknown = Object.keys(input).filter((key) => !declared.has(key));
  expect(unknown, `input fields that ${operation.input} does not declare`).toEqual([]);
}

/** The call a cell makes, in the form every client column takes. */
function clientCall(operation: OperationSpec, protocol: Protocol, caller: Caller, input: Record<string, unknown>, values: Values): ClientCall {
  const { headers, accessToken, adminAccessToken } = credentialsOf(operation, caller, values, schema.adminSecretHeader);
  return {
    surface: operation.surface,
    operation: operation.name,
    protocol,
    input,
    headers,
    accessToken,
    config: {
      serviceUrl: server.httpUrl,
      grpcEndpoint: server.grpcEndpoint,
      serverVersion: SERVER_VERSION,
      ...(adminAccessToken ? { adminAccessToken } : { adminSecret: ADMIN_SECRET }),
      clientId: "reference",
    },
  };
}

/** Runs one cell: a fresh world, the setup over REST, the call over `protocol` through one client. */
async function runCell(name: OperationName, protocol: Protocol, column: ClientColumn): Promise<{ outcome: Outcome; values: Values; world: World }> {
  const scenario: Scenario = scenarios[name];
  const operation = operations[name];
  const world = createWorld(keys, name);
  server.use(world.service);
  const values = scenario.setup ? await scenario.setup(setupContext(world, server.httpUrl, adminClients.get("rest")!)) : {};
  await world.service.state.settled();
  const input = scenario.input(values);
  checkInputFields(operation, input);
  if (scenario.as === "user" || scenario.as === "org_admin" || (!scenario.as && defaultCaller(operation) === "user")) {
    expect(values.accessToken, "the setup must sign the caller in").toBeTruthy();
  }
  const result = await column.call(clientCall(operation, protocol, scenario.as ?? defaultCaller(operation), input, values));
  let outcome: Outcome;
  if (result.ok) {
    outcome = { ok: true, answer: result.answer };
  } else {
    expect(result, "refused by the client before sending").toMatchObject({ refused: false, operation: name, protocol: operation.surface === "oauth" ? "rest" : protocol });
    outcome = { ok: false, code: result.code, message: result.message };
  }
  await world.service.state.settled();
  expect(
    world.internalErrors.map((e) => `${e.operation}: ${String(e.error)}`),
    "internal errors of the implementation",
  ).toEqual([]);
  return { outcome, values, world };
}

it("has one scenario for every operation of the manifest", () => {
  expect(Object.keys(scenarios).sort()).toEqual(Object.keys(operations).sort());
  // Some scenarios are errors on purpose, and the token routes run too (over REST only).
  expect(Object.values(scenarios).filter((s) => "error" in s.expect).length).toBeGreaterThanOrEqual(8);
  expect(protocolsOf(operations.oauth_token)).toEqual(["rest"]);
});

describe("conformance matrix", () => {
  for (const name of NAMES) {
    const scenario = scenarios[name];
    const carriers = protocolsOf(operations[name]);
    describe(name, () => {
      /** The TypeScript outcome of each protocol: every other protocol and client must match it. */
      const outcomes = new Map<Protocol, Outcome>();
      for (const protocol of carriers) {
        for (const columnName of COLUMNS) {
          it(`over ${protocol} via ${columnName}: ${scenario.about}`, async () => {
            const started = Date.now();
            const key = cellKey(protocol, columnName);
            try {
              const column = columns.get(columnName);
              expect(column, `the ${columnName} client did not start`).toBeDefined();
              const { outcome, values, world } = await runCell(name, protocol, column!);
              const first = carriers[0]!;
              if (columnName === "ts") {
                outcomes.set(protocol, outcome);
                // The same answer (or the same error) as over the first protocol that carries it.
                if (protocol !== first) {
                  const base = outcomes.get(first);
                  expect(base, `the ${first} cell did not run`).toBeDefined();
                  expect(outcome, `${protocol} answered differently from ${first} (${first} | ${protocol}): ${differences(base, outcome).join("; ")}`).toEqual(base);
                }
              } else {
                const base = outcomes.get(protocol);
                expect(base, `the ts cell over ${protocol} did not run`).toBeDefined();
                expect(outcome, `${columnName} answered differently from ts over ${protocol} (ts | ${columnName}): ${differences(base, outcome).join("; ")}`).toEqual(base);
              }
              const expected = scenario.expect;
              if ("ok" in expected) {
                expect(outcome, "the call should succeed").toMatchObject({ ok: true });
                expected.ok((outcome as { answer: Answer }).answer, values);
              } else {
                expect(outcome, "the call should fail").toMatchObject({ ok: false, code: expected.error });
                if (expected.message !== undefined) expect((outcome as { message: string }).message).toMatch(expected.message);
              }
              await scenario.after?.(world.service.state, values);
              matrix.get(name)![key] = "pass";
            } catch (error) {
              matrix.get(name)![key] = "FAIL";
              failures.push(`${name} over ${protocol} via ${columnName}: ${String((error as Error).message ?? error).split("\n")[0]}`);
              throw error;
            } finally {
              cellMs.push(Date.now() - started);
            }
          });
        }
      }
      // The MCP column: the same scenario as a tools/call on the stubs' /mcp, answering as the first protocol did.
      if (operations[name].surface !== "oauth" && (!ONLY || ONLY.includes("mcp"))) {
        it(`over mcp: ${scenario.about}`, async () => {
          const started = Date.now();
          try {
            const { outcome } = await runCell(name, carriers[0]!, mcpColumn);
            const base = outcomes.get(carriers[0]!);
            expect(base, `the ${carriers[0]} cell did not run`).toBeDefined();
            expect(outcome, `mcp answered differently from ${carriers[0]} (${carriers[0]} | mcp): ${differences(base, outcome).join("; ")}`).toEqual(base);
            mcpCells.set(name, "pass");
          } catch (error) {
            mcpCells.set(name, "FAIL");
            failures.push(`${name} over mcp: ${String((error as Error).message ?? error).split("\n")[0]}`);
            throw error;
          } finally {
            cellMs.push(Date.now() - started);
          }
        });
      }
    });
  }
});

// The fault column: every client, over every protocol, against servers that misbehave; one answer per fault.
const faultServers = new Map<Fault, FaultServers>();
const faultCells = new Map<Fault, Record<string, Cell>>(
  FAULTS.map((fault) => [fault, Object.fromEntries(PROTOCOLS.flatMap((p) => COLUMNS.map((c) => [cellKey(p, c), faultProtocols(fault).includes(p) ? "?" : "-"])))]),
);

function printFaultColumn(): void {
  const width = Math.max(...FAULTS.map((f) => f.name.length));
  const label = (column: string) => column.padEnd(Math.max(4, column.length));
  const cells = [...faultCells.values()].flatMap((row) => Object.values(row));
  console.log(
    [
      `fault column: ${FAULTS.length} faults x ${PROTOCOLS.length} protocols x ${COLUMNS.length} clients`,
      `${"".padEnd(width)}  ${PROTOCOLS.map((p) => p.padEnd(COLUMNS.map(label).join(" ").length)).join(" | ")}`,
      `${"fault".padEnd(width)}  ${PROTOCOLS.map(() => COLUMNS.map(label).join(" ")).join(" | ")}`,
      ...FAULTS.map((fault) => `${fault.name.padEnd(width)}  ${PROTOCOLS.map((p) => COLUMNS.map((c) => faultCells.get(fault)![cellKey(p, c)]!.padEnd(label(c).length)).join(" ")).join(" | ")}`),
      `cells: ${cells.filter((c) => c === "pass").length} pass, ${cells.filter((c) => c === "FAIL").length} FAIL`,
    ].join("\n"),
  );
}

describe("fault column", () => {
  beforeAll(async () => {
    for (const fault of FAULTS) faultServers.set(fault, await startFaultServers(fault));
  });

  for (const fault of FAULTS) {
    for (const protocol of faultProtocols(fault)) {
      for (const columnName of COLUMNS) {
        it(`${fault.name}, over ${protocol} via ${columnName}: ${fault.expect === "answered" ? "answered" : fault.expect.code}`, async () => {
          const key = cellKey(protocol, columnName);
          try {
            const column = columns.get(columnName);
            expect(column, `the ${columnName} client did not start`).toBeDefined();
            const servers = faultServers.get(fault)!;
            const started = performance.now();
            const outcome: ClientOutcome = await column!.call({
              surface: "admin",
              operation: fault.operation,
              protocol,
              input: fault.input,
              headers: {},
              accessToken: undefined,
              config: {
                serviceUrl: servers.serviceUrl,
                grpcEndpoint: servers.grpcEndpoint,
                serverVersion: SERVER_VERSION,
                adminSecret: ADMIN_SECRET,
                clientId: "reference",
                timeoutMs: faultDeadline(fault),
                maxResponseBytes: FAULT_MAX_RESPONSE_BYTES,
              },
            });
            const elapsed = performance.now() - started;
            if (fault.expect === "answered") {
              expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
              faultCells.get(fault)![key] = "pass";
              return;
            }
            expect(outcome, "the call should fail").toMatchObject({ ok: false });
            const { code, message, refused, operation, status, retryAfterSeconds } = outcome as Extract<ClientOutcome, { ok: false }>;
            const expected = fault.expect;
            expect({ code, refused, operation, status: status ?? null, retryAfterSeconds: retryAfterSeconds ?? null }).toEqual({
              code: expected.code,
              refused: false,
              operation: fault.operation,
              status: protocol === "grpc" ? null : expected.status,
              retryAfterSeconds: expected.retryAfterSeconds,
            });
            const expectedMessage = (protocol === "grpc" ? expected.grpcMessage : undefined) ?? expected.message;
            if (typeof expectedMessage === "string") expect(message).toBe(expectedMessage);
            else expect(message).toMatch(expectedMessage);
            // No call outlives its deadline, with room for a loaded machine (a cold 2-core run took
            // 2.1 s through the Go runner's process); a fault that beat the deadline would hold the
            // call for the drip's 50 s or for ever.
            expect(elapsed, "milliseconds the call took").toBeLessThan(faultDeadline(fault) + 4_000);
            faultCells.get(fault)![key] = "pass";
          } catch (error) {
            faultCells.get(fault)![key] = "FAIL";
            failures.push(`fault "${fault.name}" over ${protocol} via ${columnName}: ${String((error as Error).message ?? error).split("\n")[0]}`);
            throw error;
          }
        });
      }
    }
  }
});

// The lost-answer column: every client, over every protocol, through a proxy that drops the answer
// of a write after the service committed it. With its Idempotency-Key the client retries, gets the
// first answer (replayed), and the write is applied once.
describe("lost-answer column", () => {
  let proxy: LostAnswerProxy;
  const cells = new Map<string, Cell>(PROTOCOLS.flatMap((p) => COLUMNS.map((c) => [cellKey(p, c), "?" as Cell])));
  beforeAll(async () => {
    proxy = await startLostAnswerProxy([{ httpUrl: server.httpUrl, grpcEndpoint: server.grpcEndpoint }]);
  });
  afterAll(async () => {
    await proxy?.close();
    const label = (column: string) => column.padEnd(Math.max(4, column.length));
    console.log(
      [
        `lost-answer column: create_organization's answer dropped after the commit, ${PROTOCOLS.length} protocols x ${COLUMNS.length} clients`,
        `${PROTOCOLS.map((p) => p.padEnd(COLUMNS.map(label).join(" ").length)).join(" | ")}`,
        `${PROTOCOLS.map(() => COLUMNS.map(label).join(" ")).join(" | ")}`,
        `${PROTOCOLS.map((p) => COLUMNS.map((c) => cells.get(cellKey(p, c))!.padEnd(label(c).length)).join(" ")).join(" | ")}`,
      ].join("\n"),
    );
  });

  for (const protocol of PROTOCOLS) {
    for (const columnName of COLUMNS) {
      it(`a write whose answer is lost, over ${protocol} via ${columnName}: retried with its key, applied once`, async () => {
        cells.set(cellKey(protocol, columnName), "FAIL");
        const column = columns.get(columnName);
        expect(column, `the ${columnName} client did not start`).toBeDefined();
        const name = `lost-answer-${protocol}-${columnName}`.replaceAll("_", "-");
        const keysBefore = new Set(proxy.keys.keys());
        const outcome = await column!.call({
          surface: "admin",
          operation: "create_organization",
          protocol,
          input: { name },
          headers: {},
          accessToken: undefined,
          config: { serviceUrl: proxy.httpUrl, grpcEndpoint: proxy.grpcEndpoint, serverVersion: SERVER_VERSION, adminSecret: ADMIN_SECRET, clientId: "reference", retryAttempts: 3 },
        });
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, answer: { name } });
        const histories = [...proxy.keys].filter(([key]) => !keysBefore.has(key)).map(([, history]) => history);
        // One key, its first answer dropped, its repeat answered with the first answer.
        expect(histories).toEqual([{ dropped: 1, relayed: 1, replayed: true }]);
        const all = await adminClients.get("rest")!.organizations({ pagination: { limit: 100 } });
        expect(all.organizations.filter((org) => org.name === name)).toHaveLength(1);
        cells.set(cellKey(protocol, columnName), "pass");
      });
    }
  }
});
