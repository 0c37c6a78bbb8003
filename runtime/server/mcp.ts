// MCP on /mcp (Streamable HTTP, stateless: each POST is answered on its own, JSON in and out): every
// tool call runs through the call pipeline like a call of any other protocol (validation, auth,
// rate limits, metrics, traces, logs) with the credentials of the HTTP request that carries it.
// Nothing is ambient: a tool call without the credential its operation needs (the secret
// header, a bearer token, or the API key header) is refused with HTTP 401 before any tool runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { ServiceError } from "../errors.js";
import { mcpChallenge, operationOfCall, selectTools, type ToolDefinition } from "../mcp/tools.js";
import type { McpOptions } from "./mcp-options.js";
import type { ApiSchema } from "../schema.js";
import { bridgedToolServer, type McpRequestBridge } from "../mcp/bridge.js";
import { flatHeaders, sendJson } from "./http-body.js";
import type { Principal } from "./context.js";
import type { CallPipeline, HttpMount, MountContext } from "./invoke.js";
import { loadOptionalPackage } from "./optional-packages.js";

export const MCP_PATH = "/mcp";

const jsonRpcError = (response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  response.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...headers }).end(body);
};

interface RequestContext {
  headers: Record<string, string>;
  remoteAddress: string;
  principals: Map<string, Principal>;
}

/** Where an API that declares it serves its protected-resource metadata (RFC 9728). */
const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

export function mcpMount(pipeline: CallPipeline, schema: ApiSchema, catalogue: () => Promise<readonly ToolDefinition[]>, options: McpOptions): HttpMount & { ready(): Promise<unknown> } {
  const servesResourceMetadata = Object.values(schema.operations).some((operation) => operation.rest?.method === "GET" && operation.rest.path === RESOURCE_METADATA_PATH);
  /** The metadata's URL on the host the request reached (its Host header, or HTTP/2's :authority; only a plain host name). */
  const resourceMetadataUrl = (request: IncomingMessage): string | undefined => {
    const host = request.headers.host ?? (request.headers[":authority"] as string | undefined) ?? "";
    if (!servesResourceMetadata || !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) return undefined;
    return `${(request.socket as TLSSocket).encrypted ? "https" : "http"}://${host}${RESOURCE_METADATA_PATH}`;
  };

  const mode = options.mode ?? "all";
  let started: Promise<{ tools: readonly ToolDefinition[]; bridge: McpRequestBridge<RequestContext> }> | undefined;
  /** One server for every request, made at the first: the tools, and the SDK (an optional package). */
  const start = async () => {
    await loadOptionalPackage("@modelcontextprotocol/sdk", () => import("@modelcontextprotocol/sdk/server/index.js"));
    const tools = selectTools(await catalogue(), options);
    const { bridge } = await bridgedToolServer<RequestContext>({
      name: `${schema.name}-mcp`,
      version: schema.version,
      tools,
      mode,
      invoke: (name, input, { headers, remoteAddress, principals }) => {
        const principal = principals.get(name);
        return pipeline.invoke({
          protocol: "mcp",
          listener: "http",
          operation: schema.operations[name]!,
          input,
          headers,
          remoteAddress,
          setCookie: () => {},
          // A tool's result has no header to carry the mark.
          markReplayed: () => {},
          ...(principal ? { checked: { principal } } : {}),
        });
      },
    });
    return { tools, bridge };
  };

  /**
   * The caller of each tools/call of `messages`, by operation, checked (and counted against the rate
   * limits) now: one without its credential refuses the whole request.
   */
  const checkCredentials = async (tools: readonly ToolDefinition[], messages: unknown[], headers: Record<string, string>, remoteAddress: string) => {
    const principals = new Map<string, Principal>();
    for (const message of messages) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
      if (method !== "tools/call" || typeof params?.name !== "string") continue;
      const args = typeof params.arguments === "object" && params.arguments !== null ? (params.arguments as Record<string, unknown>) : {};
      const call = operationOfCall(tools, mode, params.name, args);
      if (!call) continue;
      principals.set(call.operation.name, await pipeline.preauthorize(schema.operations[call.operation.name]!, headers, remoteAddress));
    }
    return principals;
  };

  return {
    prefix: MCP_PATH,
    /** Loads the SDK and the tools before the port opens: a missing package is a MissingPackageError at listen(). */
    ready: () => (started ??= start()),
    async handle(request: IncomingMessage, response: ServerResponse, context: MountContext) {
      if (request.method !== "POST") {
        request.resume();
        jsonRpcError(response, 405, "this MCP endpoint is stateless: POST JSON-RPC messages to it", { allow: "POST" });
        return;
      }
      const { tools, bridge } = await (started ??= start());
      const headers = flatHeaders(request.headers);
      const remoteAddress = request.socket.remoteAddress ?? "";
      let body: unknown;
      try {
        body = JSON.parse(await context.readBody(request));
      } catch (error) {
        if (error instanceof ServiceError) jsonRpcError(response, error.code === "PAYLOAD_TOO_LARGE" ? 413 : 400, error.message);
        else jsonRpcError(response, 400, "the request body is not valid JSON");
        return;
      }
      let principals = new Map<string, Principal>();
      try {
        principals = await checkCredentials(tools, Array.isArray(body) ? body : [body], headers, remoteAddress);
      } catch (error) {
        const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
        if (serviceError.code === "UNAUTHENTICATED") {
          jsonRpcError(response, 401, serviceError.message, { "www-authenticate": mcpChallenge(schema, resourceMetadataUrl(request)) });
          return;
        }
        if (serviceError.code === "TOO_MANY_REQUESTS") {
          jsonRpcError(response, 429, serviceError.message, serviceError.retryAfterSeconds ? { "retry-after": String(serviceError.retryAfterSeconds) } : {});
          return;
        }
        // Other refusals (a signed-in user without the role the call needs) answer as the tool's error.
      }
      const answer = await bridge.handle(body, { headers, remoteAddress, principals });
      if (answer === undefined) response.writeHead(202).end();
      else sendJson(response, 200, answer);
    },
  };
}
