// The option mcp of the server, in a module of its own: the server's options (invoke.ts) name it
// and the MCP mount (mcp.ts) is built on the call pipeline of invoke.ts, so declared in either the
// two would import each other.
import type { ToolSelection } from "../mcp/tools.js";

export type McpOptions = Omit<ToolSelection, "protocol">;
