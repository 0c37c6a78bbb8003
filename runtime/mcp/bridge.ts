// Stateless Streamable HTTP for one long-lived MCP server: each POSTed JSON-RPC message goes into
// the SDK's Server through this in-memory transport, and its response comes back as the HTTP
// answer (JSON, never a stream). Building a Server and the SDK's web-standard HTTP transport for
// every request cost 600 µs a call; this costs a map entry. Request ids are renumbered inside, so
// that two callers both sending id 1 at once get their own answers, and each request's context
// (its credentials) is found again by the id the tool handler sees.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { answerToolCall, createToolServer, type McpServerOptions } from "./tools.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Message = Record<string, unknown> & { id?: string | number | null; method?: unknown };

const invalidRequest = (id: unknown) => ({
  jsonrpc: "2.0",
  id: typeof id === "string" || typeof id === "number" ? id : null,
  error: { code: -32600, message: "Invalid Request: a JSON-RPC 2.0 message with a method" },
});

export class McpRequestBridge<C> implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (message: Message) => void; context: C }>();

  /** `toolCall`: the server's own tools/call handler, which a plain call reaches without the SDK's request plumbing. */
  private constructor(private readonly toolCall?: (name: string, args: Record<string, unknown>, requestId: number) => Promise<unknown>) {}

  /** Connects `server` to a new bridge. */
  static async connect<C>(server: Server, toolCall?: (name: string, args: Record<string, unknown>, requestId: number) => Promise<unknown>): Promise<McpRequestBridge<C>> {
    const bridge = new McpRequestBridge<C>(toolCall);
    await server.connect(bridge);
    return bridge;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Responses of the server resolve their request; what it sends on its own (notifications) has nowhere to go without a stream. */
  async send(message: JSONRPCMessage): Promise<void> {
    const { id } = message as Message;
    if (typeof id !== "number" || !("result" in message || "error" in message)) return;
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    waiting.resolve(message as Message);
  }

  /** The context of the request the server is handling under `requestId`. */
  contextOf(requestId: string | number): C | undefined {
    return typeof requestId === "number" ? this.pending.get(requestId)?.context : undefined;
  }

  /** The JSON answer of one POST body (a message or a batch), or undefined when it held notifications only (HTTP 202). */
  async handle(body: unknown, context: C): Promise<unknown> {
    if (Array.isArray(body)) {
      const answers = (await Promise.all(body.map((message) => this.one(message, context)))).filter((answer) => answer !== undefined);
      return answers.length > 0 ? answers : undefined;
    }
    return this.one(body, context);
  }

  private async one(raw: unknown, context: C): Promise<unknown> {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return invalidRequest(null);
    const message = raw as Message;
    if (message.jsonrpc !== "2.0") return invalidRequest(message.id);
    // A response or an error from the client: this server never asks the client anything.
    if (typeof message.method !== "string") return "id" in message ? undefined : invalidRequest(null);
    if (!("id" in message) || message.id === undefined) {
      this.onmessage?.(message as unknown as JSONRPCMessage);
      return undefined;
    }
    if (typeof message.id !== "string" && typeof message.id !== "number") return invalidRequest(null);
    const callerId = message.id;
    const id = ++this.next;
    // A plain tools/call (a name, and arguments or none) goes straight to the handler the SDK would
    // call, answering the same JSON: the SDK's schema parse and per-request signal cost more than the
    // call itself. Anything else (other methods, _meta, a malformed call) takes the SDK's path.
    const params = message.params as Record<string, unknown> | undefined;
    if (this.toolCall && message.method === "tools/call" && isPlainToolCall(params)) {
      this.pending.set(id, { resolve: () => {}, context });
      try {
        return { result: await this.toolCall(params.name, (params.arguments ?? {}) as Record<string, unknown>, id), jsonrpc: "2.0", id: callerId };
      } finally {
        this.pending.delete(id);
      }
    }
    const answered = new Promise<Message>((resolve) => this.pending.set(id, { resolve, context }));
    this.onmessage?.({ ...message, id } as unknown as JSONRPCMessage);
    return { ...(await answered), id: callerId };
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Params of tools/call with a string name and object arguments (or none), and nothing else. */
function isPlainToolCall(params: unknown): params is { name: string; arguments?: Record<string, unknown> } {
  if (!isPlainObject(params) || typeof params.name !== "string") return false;
  for (const key in params) if (key !== "name" && key !== "arguments") return false;
  return params.arguments === undefined || isPlainObject(params.arguments);
}

/**
 * A tool server behind a bridge: `invoke` gets the context the request of each call was handled
 * with (its credentials). Both HTTP hosts, the stubs' /mcp and the standalone server, are this.
 */
export async function bridgedToolServer<C>(
  options: Omit<McpServerOptions, "invoke"> & { invoke(operation: string, args: Record<string, unknown>, context: C): Promise<Record<string, unknown>> },
): Promise<{ bridge: McpRequestBridge<C>; server: Server }> {
  let bridge: McpRequestBridge<C> | undefined;
  const serverOptions = { ...options, invoke: (operation: string, args: Record<string, unknown>, requestId: string | number) => options.invoke(operation, args, bridge!.contextOf(requestId)!) };
  const server = await createToolServer(serverOptions);
  bridge = await McpRequestBridge.connect<C>(server, (name, args, requestId) => answerToolCall(serverOptions, name, args, requestId));
  return { bridge, server };
}
