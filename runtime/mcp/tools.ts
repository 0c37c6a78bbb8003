// The Model Context Protocol face of the API: one tool per operation of generated/mcp/tools.json
// (its JSON Schemas and behaviour hints), served with the official SDK's low-level Server. Where a
// call goes is the host's business (`invoke`): the server stubs run it through their call pipeline,
// the standalone server (`<api name>-mcp`) through the generated client. Token routes are never tools.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { compareVersions } from "../client/version.js";
import { ServiceError } from "../errors.js";
import type { ServiceFacts } from "../schema.js";

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: "object" };
  outputSchema: Record<string, unknown> & { type: "object" };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  "x-protocols": string[];
  "x-min-versions": Record<string, string>;
  /** The operation's auth scheme (the first where it takes several). */
  "x-auth": string;
  /** Every scheme the operation takes, any one of which lets a caller in: only where it takes several. */
  "x-auth-any-of"?: string[];
  "x-surface": string;
  "x-group": string;
}

/**
 * The WWW-Authenticate of a tool call refused for its credential (HTTP 401): a bearer token, and
 * the headers of the secret and of the API key where the API's operations take them;
 * `resourceMetadata`: the URL of the service's protected-resource metadata (RFC 9728), where an
 * MCP host learns which authorization server signs its users in.
 */
export const mcpChallenge = (schema: Pick<ServiceFacts, "adminSecretHeader" | "apiKeyHeader" | "features">, resourceMetadata?: string): string =>
  [
    `Bearer realm="mcp"${resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : ""}`,
    ...(schema.features.adminSecret ? [`${schema.adminSecretHeader}="secret tools"`] : []),
    ...(schema.features.apiKey ? [`${schema.apiKeyHeader}="api_key tools"`] : []),
  ].join(", ");

/** Which tools a host exposes. */
export interface ToolSelection {
  /** No tool that writes (readOnlyHint false). */
  readOnly?: boolean;
  /** Only these surfaces (admin, user). */
  surfaces?: readonly string[];
  /** Only these groups of the manifest. */
  groups?: readonly string[];
  /** Only these operations. */
  operations?: readonly string[];
  /** Only operations this protocol carries (the standalone server's client protocol). */
  protocol?: string;
  /** With `protocol`: only operations a server of this version carries on it (their minimum version is not above it). */
  serverVersion?: string;
  /**
   * "all" (default): one tool per operation. "dynamic": three tools, list_operations,
   * describe_operation and invoke_operation, for hosts that cannot take a hundred tools.
   */
  mode?: "all" | "dynamic";
}

/**
 * Runs one operation for a tool call; throws a ServiceError (or anything with a code) when it
 * fails. `requestId` is the JSON-RPC id the server handles the call under (McpRequestBridge.contextOf).
 */
export type ToolInvoker = (operation: string, args: Record<string, unknown>, requestId: string | number) => Promise<Record<string, unknown>>;

/** The tools of `catalogue` a selection keeps, in the catalogue's order; names it does not know are an error. */
export function selectTools(catalogue: readonly ToolDefinition[], selection: ToolSelection = {}): ToolDefinition[] {
  const known = new Set(catalogue.map((tool) => tool.name));
  const unknown = (selection.operations ?? []).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new RangeError(`no such operation: ${unknown.join(", ")}`);
  const groups = new Set(catalogue.map((tool) => tool["x-group"]));
  const unknownGroups = (selection.groups ?? []).filter((group) => !groups.has(group));
  if (unknownGroups.length > 0) throw new RangeError(`no such group: ${unknownGroups.join(", ")} (the groups: ${[...groups].join(", ")})`);
  return catalogue.filter(
    (tool) =>
      tool["x-surface"] !== "oauth" &&
      !(selection.readOnly && !tool.annotations.readOnlyHint) &&
      (!selection.surfaces || selection.surfaces.includes(tool["x-surface"])) &&
      (!selection.groups || selection.groups.includes(tool["x-group"])) &&
      (!selection.operations || selection.operations.includes(tool.name)) &&
      (!selection.protocol || tool["x-protocols"].includes(selection.protocol)) &&
      (!selection.protocol || !selection.serverVersion || compareVersions(tool["x-min-versions"][selection.protocol]!, selection.serverVersion) <= 0),
  );
}

const OBJECT = { type: "object" } as const;

/** The three tools of dynamic mode. */
function dynamicTools(): ToolDefinition[] {
  const common = { "x-protocols": [], "x-min-versions": {}, "x-auth": "public", "x-surface": "mcp", "x-group": "mcp" };
  const hints = (readOnly: boolean) => ({ readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: readOnly, openWorldHint: false });
  return [
    {
      name: "list_operations",
      title: "List operations",
      description: "Lists the operations this server can invoke: name, title, what each does, and whether it only reads or destroys.",
      inputSchema: { ...OBJECT, properties: { group: { type: "string", description: "Only operations of this group." } }, additionalProperties: false },
      outputSchema: { ...OBJECT, properties: { operations: { type: "array", items: OBJECT } }, required: ["operations"] },
      annotations: { title: "List operations", ...hints(true) },
      ...common,
    },
    {
      name: "describe_operation",
      title: "Describe an operation",
      description: "The input and output JSON Schemas and behaviour hints of one operation.",
      inputSchema: { ...OBJECT, properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
      outputSchema: { ...OBJECT },
      annotations: { title: "Describe an operation", ...hints(true) },
      ...common,
    },
    {
      name: "invoke_operation",
      title: "Invoke an operation",
      description: "Runs one operation with its input (see describe_operation). Some operations write, and some destroy data: list_operations says which.",
      inputSchema: { ...OBJECT, properties: { name: { type: "string" }, arguments: { ...OBJECT } }, required: ["name"], additionalProperties: false },
      outputSchema: { ...OBJECT },
      annotations: { title: "Invoke an operation", ...hints(false) },
      ...common,
    },
  ];
}

/** What a tools/call names: the operation and its input (dynamic mode reads them out of invoke_operation). */
export function operationOfCall(
  tools: readonly ToolDefinition[],
  mode: "all" | "dynamic",
  name: string,
  args: Record<string, unknown>,
): { operation: ToolDefinition; input: Record<string, unknown> } | undefined {
  if (mode === "dynamic") {
    if (name !== "invoke_operation") return undefined;
    const operation = tools.find((tool) => tool.name === args.name);
    const input = args.arguments;
    return operation ? { operation, input: typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {} } : undefined;
  }
  const operation = tools.find((tool) => tool.name === name);
  return operation ? { operation, input: args } : undefined;
}

interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const success = (output: Record<string, unknown>): ToolResult => ({ content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output });

/** A failed call as a tool result the model can read: the service's code, message and field. */
export function errorResult(error: unknown): ToolResult {
  const known = error instanceof ServiceError || (typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string");
  const { code, message, field } = known ? (error as { code: string; message: string; field?: string }) : { code: "INTERNAL", message: "internal error", field: undefined };
  // Keys in the order of the SDK's result schema, so that every path answers the same bytes.
  return { content: [{ type: "text", text: JSON.stringify({ code, message, ...(field ? { field } : {}) }) }], isError: true };
}

export interface McpServerOptions {
  name: string;
  version: string;
  /** The tools to serve, from selectTools. */
  tools: readonly ToolDefinition[];
  mode?: "all" | "dynamic";
  invoke: ToolInvoker;
}

/** An MCP server (the SDK's low-level Server) that lists `tools` and answers each call through `invoke` (answerToolCall). */
export async function createToolServer(options: McpServerOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), import("@modelcontextprotocol/sdk/types.js")]);
  const listed = options.mode === "dynamic" ? dynamicTools() : options.tools;
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: {} } });
  const served = listed.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({ name, title, description, inputSchema, outputSchema, annotations }));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => answerToolCall(options, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, extra.requestId));
  return server;
}

/** The result of one tools/call: the operation's answer, or its error as a result the model can read. */
export async function answerToolCall(options: McpServerOptions, name: string, args: Record<string, unknown>, requestId: string | number): Promise<ToolResult> {
  const mode = options.mode ?? "all";
  const { tools } = options;
  try {
    if (mode === "dynamic" && name === "list_operations") {
      const group = typeof args.group === "string" ? args.group : undefined;
      const operations = tools
        .filter((tool) => !group || tool["x-group"] === group)
        .map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          group: tool["x-group"],
          readOnly: tool.annotations.readOnlyHint,
          destructive: tool.annotations.destructiveHint,
        }));
      return success({ operations });
    }
    if (mode === "dynamic" && name === "describe_operation") {
      const tool = tools.find((candidate) => candidate.name === args.name);
      if (!tool) throw new ServiceError("NOT_FOUND", `no operation named ${JSON.stringify(String(args.name))} here; list_operations names them`);
      const { name: toolName, title, description, inputSchema, outputSchema, annotations } = tool;
      return success({ name: toolName, title, description, inputSchema, outputSchema, annotations });
    }
    const call = operationOfCall(tools, mode, name, args);
    if (!call) throw new ServiceError("NOT_FOUND", mode === "dynamic" ? "no such operation here; list_operations names them" : `no tool named ${JSON.stringify(name)} here`);
    return success(await options.invoke(call.operation.name, call.input, requestId));
  } catch (error) {
    return errorResult(error);
  }
}
