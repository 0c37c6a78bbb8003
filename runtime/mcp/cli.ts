// The standalone MCP server: the tools of the catalogue, each call made through the generated
// TypeScript client against a running service. stdio by default (credentials from the
// environment: the admin secret, an access token, and an API key where operations take one, never
// from argv, where `ps` shows them); Streamable HTTP with `--transport http`, where every request
// carries its own credentials and a tool call without the one its operation needs (or with a wrong
// admin secret or access token) is refused with HTTP 401 before it runs.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { authRequirementsOf, type ApiSchema, type OperationSpec } from "../schema.js";
import { GRPC_ENDPOINT } from "../client/grpc-target.js";
import { ERROR_WIRE, isErrorCode } from "../errors.js";
import { bridgedToolServer } from "./bridge.js";
import { FailureBudget } from "./failures.js";
import { createToolServer, mcpChallenge, operationOfCall, selectTools, type ToolDefinition, type ToolSelection } from "./tools.js";

/** The generated clients, as the CLI drives them: one method per operation, per-call headers. */
type ClientMethod = (input: object, options?: { headers?: Record<string, string> }) => Promise<Record<string, unknown>>;
interface AnyClient {
  close(): Promise<void>;
}
export interface GeneratedClients {
  schema: ApiSchema;
  /** Prefix of the environment variables (IDENTITY: IDENTITY_ADMIN_SECRET, ...). */
  envPrefix: string;
  /** The tool catalogue (generated/mcp/tools.ts). */
  tools: readonly ToolDefinition[];
  /** The clients of the API, those it has (an API without admin operations has no admin client). */
  admin?(config: { serviceUrl: string; grpcEndpoint?: string; protocol: "rest" | "graphql" | "grpc"; adminSecret: string; serverVersion: string; retry: false }): AnyClient;
  user?(config: { serviceUrl: string; grpcEndpoint?: string; protocol: "rest" | "graphql" | "grpc"; clientId: string; serverVersion: string; retry: false }): AnyClient;
}

/**
 * The environment variables of the credentials an API's tools take: the admin secret's where an
 * operation needs it, the access token's where a tool of the user surfaces needs a signed-in user,
 * the API key's where an operation takes one.
 */
const credentialVariables = (env: string, schema: ApiSchema | undefined) => [
  ...(schema?.features.adminSecret === false ? [] : [`${env}_ADMIN_SECRET`]),
  ...(schema && !Object.values(schema.operations).some((op) => op.surface !== "admin" && authRequirementsOf(op).some((r) => schema.authSchemes[r.scheme]?.token === "access"))
    ? []
    : [`${env}_ACCESS_TOKEN`]),
  ...(schema?.features.apiKey ? [`${env}_API_KEY`] : []),
];

export const usage = (
  command: string,
  env: string,
  schema?: ApiSchema,
) => `usage: ${command} --service-url <url> [--protocol rest|graphql|grpc] [--grpc-endpoint <host:port>] [--transport stdio|http] [--port 8765] [--host 127.0.0.1]
       [--read-only]${schema && !Object.values(schema.operations).some((op) => op.surface === "admin") ? "" : " [--surface admin|user]"} [--group <group,...>] [--operation <name,...>] [--tools all|dynamic]${schema?.features.clientId === false ? "" : " [--client-id <id>]"} [--server-version <x.y.z>]
environment: ${env}_SERVICE_URL, ${credentialVariables(env, schema)
  .join(", ")
  .replace(/, ([^,]+)$/, " and $1")} (stdio: the credentials of every call)${schema?.features.clientId === false ? "" : `, ${env}_CLIENT_ID`}
       ${env}_GRPC_ENDPOINT: the gRPC host:port of --protocol grpc, as --grpc-endpoint (default: the service URL's host, port ${schema?.grpcPort ?? "of the API"})`;

export class UsageError extends Error {}

export interface McpCliSettings {
  serviceUrl: string;
  /** The gRPC target (host:port) of --protocol grpc; the clients' default (the service URL's host, the API's gRPC port) when absent. */
  grpcEndpoint?: string;
  protocol: "rest" | "graphql" | "grpc";
  transport: "stdio" | "http";
  port: number;
  host: string;
  clientId: string;
  serverVersion: string;
  selection: ToolSelection;
  adminSecret?: string;
  accessToken?: string;
  /** Sent in the API's key header (schema.apiKeyHeader) on the tools of an api_key scheme; only where the API has them. */
  apiKey?: string;
}

/** The credentials the command line refuses to take, where other users of the machine can read them: flag -> the variable's suffix. */
const SECRET_FLAGS: Readonly<Record<string, string>> = { "--admin-secret": "ADMIN_SECRET", "--access-token": "ACCESS_TOKEN", "--api-key": "API_KEY" };

const VALUE_FLAGS = ["--service-url", "--grpc-endpoint", "--protocol", "--transport", "--port", "--host", "--surface", "--group", "--operation", "--tools", "--client-id", "--server-version"] as const;

export function parseMcpArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, schema: ApiSchema, prefix: string): McpCliSettings {
  const given = new Map<string, string>();
  let readOnly = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--read-only") {
      readOnly = true;
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const variable = SECRET_FLAGS[flag];
    if (variable !== undefined && (flag !== "--api-key" || schema.features.apiKey)) {
      throw new UsageError(`${flag} is not taken on the command line, where other users of the machine can read it: set ${prefix}_${variable} instead`);
    }
    if (!(VALUE_FLAGS as readonly string[]).includes(flag)) throw new UsageError(`unknown argument ${flag}`);
    const value = inline ?? argv[++index];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    given.set(flag, value);
  }
  const serviceUrl = given.get("--service-url") ?? env[`${prefix}_SERVICE_URL`];
  if (!serviceUrl || !/^https?:\/\/./.test(serviceUrl)) throw new UsageError(`--service-url (or ${prefix}_SERVICE_URL) must be the service's http:// or https:// URL`);
  const oneOf = <T extends string>(flag: string, allowed: readonly T[], fallback: T): T => {
    const value = given.get(flag) ?? fallback;
    if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, not ${value}`);
    return value as T;
  };
  const list = (flag: string) =>
    given
      .get(flag)
      ?.split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  const port = Number(given.get("--port") ?? "8765");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port must be a port number");
  const surface = given.get("--surface");
  if (surface !== undefined && surface !== "admin" && surface !== "user") throw new UsageError("--surface must be admin or user");
  const protocol = oneOf("--protocol", ["rest", "graphql", "grpc"] as const, "rest");
  const grpcEndpoint = given.get("--grpc-endpoint") ?? env[`${prefix}_GRPC_ENDPOINT`];
  if (grpcEndpoint !== undefined && grpcEndpoint !== "" && !GRPC_ENDPOINT.test(grpcEndpoint)) {
    throw new UsageError(`--grpc-endpoint (or ${prefix}_GRPC_ENDPOINT) must be the service's gRPC host:port, such as localhost:${schema.grpcPort}, not '${grpcEndpoint}'`);
  }
  if (given.has("--grpc-endpoint") && protocol !== "grpc") throw new UsageError(`--grpc-endpoint is where the tools call over gRPC: give it with --protocol grpc (the protocol is ${protocol})`);
  const serverVersion = given.get("--server-version") ?? schema.version;
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(serverVersion)) throw new UsageError(`--server-version must be a version such as ${schema.version}`);
  return {
    serviceUrl,
    ...(grpcEndpoint ? { grpcEndpoint } : {}),
    protocol,
    transport: oneOf("--transport", ["stdio", "http"] as const, "stdio"),
    port,
    host: given.get("--host") ?? "127.0.0.1",
    clientId: given.get("--client-id") ?? env[`${prefix}_CLIENT_ID`] ?? "mcp",
    serverVersion,
    selection: {
      readOnly,
      protocol,
      serverVersion,
      mode: oneOf("--tools", ["all", "dynamic"] as const, "all"),
      ...(surface ? { surfaces: [surface] } : {}),
      ...(list("--group") ? { groups: list("--group")! } : {}),
      ...(list("--operation") ? { operations: list("--operation")! } : {}),
    },
    ...(env[`${prefix}_ADMIN_SECRET`] ? { adminSecret: env[`${prefix}_ADMIN_SECRET`] } : {}),
    ...(env[`${prefix}_ACCESS_TOKEN`] ? { accessToken: env[`${prefix}_ACCESS_TOKEN`] } : {}),
    ...(schema.features.apiKey && env[`${prefix}_API_KEY`] ? { apiKey: env[`${prefix}_API_KEY`] } : {}),
  };
}

/** What a caller authenticates with: the environment's on stdio, each request's headers over HTTP. */
type Credentials = { adminSecret?: string; accessToken?: string; apiKey?: string };

/** The credential a tool needs, as the refusals and the variables name it. */
type CredentialKind = "admin" | "user" | "api_key";
/** The kinds of a tool's auth schemes, any one of which lets a caller in; the MCP server's own tools, of no scheme of the API, need nothing. */
const authKindsOf = (schema: ApiSchema, tool: ToolDefinition) => (tool["x-auth-any-of"] ?? [tool["x-auth"]]).map((name) => schema.authSchemes[name]?.kind ?? "none");
const kindOf = (schema: ApiSchema, tool: ToolDefinition): CredentialKind => neededOf(schema, tool)[0]!;
/** The credentials any one of which a tool takes, as the refusals name them. */
const neededOf = (schema: ApiSchema, tool: ToolDefinition): CredentialKind[] =>
  tool["x-surface"] === "admin" ? ["admin"] : [...new Set(authKindsOf(schema, tool).map((kind): CredentialKind => (kind === "api_key" ? "api_key" : "user")))];
const CREDENTIALS: Record<CredentialKind, { variable: string; text: string }> = {
  admin: { variable: "ADMIN_SECRET", text: "the admin secret" },
  user: { variable: "ACCESS_TOKEN", text: "a user's access token" },
  api_key: { variable: "API_KEY", text: "an API key" },
};

/**
 * The read that tells whether a credential of `kind` is accepted: one that needs exactly that
 * credential and takes no input, the one answering the server's version first (admin_meta), else
 * the first (profile); undefined where the API has none.
 */
export function probeOf(schema: ApiSchema, kind: CredentialKind): string | undefined {
  const needs = (op: OperationSpec) => {
    // Exactly: one scheme, without scopes (a token without them would be refused for another reason).
    if (op.authAnyOf) return false;
    const scheme = schema.authSchemes[op.auth];
    if (kind === "admin") return op.surface === "admin" && scheme?.kind === "secret";
    return op.surface !== "admin" && (kind === "api_key" ? scheme?.kind === "api_key" : scheme?.token === "access");
  };
  const candidates = Object.values(schema.operations).filter((op) => op.kind === "read" && schema.messages[op.input]!.fields.length === 0 && needs(op));
  return (candidates.find((op) => schema.messages[op.output]!.fields.some((f) => f.name === "version")) ?? candidates[0])?.name;
}

/**
 * The headers that carry a tool's credentials, from what a caller has: each it has of the schemes
 * the tool takes (any one lets it in; the service checks every one sent); undefined when it has
 * none of them and the tool is not open to anyone.
 */
function credentialHeaders(schema: ApiSchema, tool: ToolDefinition, credentials: Credentials): Record<string, string> | undefined {
  if (tool["x-surface"] === "admin") return credentials.adminSecret ? { [schema.adminSecretHeader]: credentials.adminSecret } : undefined;
  const kinds = authKindsOf(schema, tool);
  const headers = {
    ...(kinds.includes("api_key") && credentials.apiKey ? { [schema.apiKeyHeader]: credentials.apiKey } : {}),
    ...((kinds.includes("bearer") || kinds.includes("none")) && credentials.accessToken ? { authorization: `Bearer ${credentials.accessToken}` } : {}),
  };
  return Object.keys(headers).length > 0 || kinds.includes("none") ? headers : undefined;
}

/** Starts the server the settings ask for; answers how to stop it (and, over HTTP, its URL). */
export async function startMcp(
  settings: McpCliSettings,
  generated: GeneratedClients,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<{ url?: string; close(): Promise<void> }> {
  const { schema } = generated;
  const tools = selectTools(generated.tools, settings.selection);
  const mode = settings.selection.mode ?? "all";
  const common = {
    serviceUrl: settings.serviceUrl,
    ...(settings.grpcEndpoint ? { grpcEndpoint: settings.grpcEndpoint } : {}),
    protocol: settings.protocol,
    serverVersion: settings.serverVersion,
    retry: false as const,
  };
  const calling = `calling ${settings.protocol === "grpc" ? `gRPC ${settings.grpcEndpoint ?? `at the host of ${settings.serviceUrl}, port ${schema.grpcPort}`}` : `${settings.serviceUrl} over ${settings.protocol}`}`;
  // The admin client's own secret is never sent: each call names the caller's in its headers.
  const admin = generated.admin?.({ ...common, adminSecret: "per-call" });
  const user = generated.user?.({ ...common, clientId: settings.clientId });
  const methodOf = (name: string): ClientMethod => {
    const operation = schema.operations[name]!;
    // Every operation's client exists: the generated entry passes the clients its operations are on.
    const client = (operation.surface === "admin" ? admin : user) as unknown as Record<string, ClientMethod>;
    return client[operation.method]!.bind(client);
  };
  const invokeWith = (credentials: Credentials) => async (name: string, input: Record<string, unknown>) => {
    const tool = tools.find((candidate) => candidate.name === name)!;
    const headers = credentialHeaders(schema, tool, credentials);
    if (!headers) {
      const needed = neededOf(schema, tool).map((kind) => CREDENTIALS[kind]);
      throw Object.assign(new Error(`${name} needs ${needed.map((n) => n.text).join(" or ")}: set ${needed.map((n) => `${generated.envPrefix}_${n.variable}`).join(" or ")}`), {
        code: "UNAUTHENTICATED",
      });
    }
    return methodOf(name)(input, { headers });
  };
  const closeClients = async () => void (await Promise.all([admin?.close(), user?.close()]));

  if (settings.transport === "stdio") {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const server = await createToolServer({ name: `${schema.name}-mcp`, version: schema.version, tools, mode, invoke: invokeWith(settings) });
    await server.connect(new StdioServerTransport());
    log(`${schema.name}-mcp: ${mode === "dynamic" ? "3 tools (dynamic)" : `${tools.length} tools`} on stdio, ${calling}`);
    return { close: async () => (await server.close(), await closeClients()) };
  }

  // HTTP: one server for every request, each call with the credentials of the request that carries it.
  const { bridge, server } = await bridgedToolServer<Credentials>({
    name: `${schema.name}-mcp`,
    version: schema.version,
    tools,
    mode,
    invoke: (name, input, credentials) => invokeWith(credentials)(name, input),
  });
  // A credential is checked once against the service, by a read that needs it and takes no input
  // (probeOf: admin_meta, profile), then trusted for a minute. An API without such a read leaves the
  // check to the service: a call it refuses answers UNAUTHENTICATED as the tool's error, having run nothing.
  // Each caller has a budget of wrong credentials, and all of them together one that stays under the
  // service's lockout of this server's address (failures.ts): past it, a credential not yet verified
  // is refused here with 429, and the service hears nothing.
  const verified = new Map<string, number>();
  const failures = new FailureBudget();
  const probes = { admin: probeOf(schema, "admin"), user: probeOf(schema, "user"), api_key: probeOf(schema, "api_key") };
  const verify = async (kind: CredentialKind, headers: Record<string, string>, caller: string): Promise<boolean> => {
    const check = probes[kind];
    if (check === undefined) return true;
    const key = createHash("sha256")
      .update(`${kind}\n${JSON.stringify(headers)}`)
      .digest("hex");
    if ((verified.get(key) ?? 0) > Date.now()) return true;
    const wait = failures.retryAfterSeconds(caller);
    if (wait > 0) throw Object.assign(new Error(`too many wrong credentials through this MCP server; try again in ${wait} s`), { code: "TOO_MANY_REQUESTS", retryAfterSeconds: wait });
    try {
      await methodOf(check)({}, { headers });
      verified.set(key, Date.now() + 60_000);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== "UNAUTHENTICATED") throw error;
      failures.fail(caller);
      return false;
    }
  };
  const refuse = (response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
    const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
  };
  /**
   * A failure of the service while checking a credential, passed on with its own status (429 stays
   * 429, with its Retry-After; 503 stays 503); anything else is this server's fault (500).
   */
  const refuseFailed = (response: ServerResponse, error: unknown) => {
    const { code, message, retryAfterSeconds } = error as { code?: unknown; message?: string; retryAfterSeconds?: unknown };
    if (!isErrorCode(code)) return refuse(response, 500, "internal error");
    const retryAfter: Record<string, string> = typeof retryAfterSeconds === "number" && retryAfterSeconds >= 0 ? { "retry-after": String(Math.ceil(retryAfterSeconds)) } : {};
    refuse(response, ERROR_WIRE[code].http, `${code}: ${message ?? ""}`, retryAfter);
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? "/", "http://mcp.invalid").pathname !== "/mcp") return refuse(response, 404, "the MCP endpoint is /mcp");
    if (request.method !== "POST") return refuse(response, 405, "this MCP endpoint is stateless: POST JSON-RPC messages to it", { allow: "POST" });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 1024 * 1024) return refuse(response, 413, "the request body is larger than 1 MiB");
      chunks.push(chunk);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return refuse(response, 400, "the request body is not valid JSON");
    }
    const bearer = /^bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1]?.trim();
    const secret = request.headers[schema.adminSecretHeader.toLowerCase()];
    const apiKey = schema.features.apiKey ? request.headers[schema.apiKeyHeader.toLowerCase()] : undefined;
    const credentials: Credentials = {
      ...(typeof secret === "string" && secret ? { adminSecret: secret } : {}),
      ...(bearer ? { accessToken: bearer } : {}),
      ...(typeof apiKey === "string" && apiKey ? { apiKey } : {}),
    };
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
      if (method !== "tools/call" || typeof params?.name !== "string") continue;
      const call = operationOfCall(tools, mode, params.name, (params.arguments ?? {}) as Record<string, unknown>);
      if (!call) continue;
      const headers = credentialHeaders(schema, call.operation, credentials);
      const kind = kindOf(schema, call.operation);
      const needed = neededOf(schema, call.operation)
        .map((each) => (each === "admin" ? `the ${schema.adminSecretHeader} header` : each === "api_key" ? `an API key in the ${schema.apiKeyHeader} header` : "a bearer token"))
        .join(" or ");
      if (!headers || (Object.keys(headers).length > 0 && !(await verify(kind, headers, request.socket.remoteAddress ?? "")))) {
        return refuse(response, 401, `${call.operation.name} needs ${needed}${headers ? " that the service accepts" : ""}`, { "www-authenticate": mcpChallenge(schema) });
      }
    }
    const answer = await bridge.handle(body, credentials);
    if (answer === undefined) return void response.writeHead(202).end();
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuseFailed(response, error);
    });
  });
  await new Promise<void>((resolve, reject) => http.once("error", reject).listen(settings.port, settings.host, () => resolve()));
  const url = `http://${settings.host}:${(http.address() as AddressInfo).port}/mcp`;
  log(`${schema.name}-mcp: ${mode === "dynamic" ? "3 tools (dynamic)" : `${tools.length} tools`} on ${url}, ${calling}`);
  return {
    url,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
      await closeClients();
    },
  };
}

/** The command line: settings, start, and a clean exit on a usage error (2) or an unreachable port (1). */
export async function runMcpCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, generated: GeneratedClients): Promise<number | undefined> {
  let settings: McpCliSettings;
  try {
    settings = parseMcpArgs(argv, env, generated.schema, generated.envPrefix);
    selectTools(generated.tools, settings.selection);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof RangeError)) throw error;
    process.stderr.write(`error: ${error.message}\n${usage(`${generated.schema.name}-mcp`, generated.envPrefix, generated.schema)}\n`);
    return 2;
  }
  try {
    const running = await startMcp(settings, generated);
    const stop = () => void running.close().then(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return undefined;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  }
}
