// MCP tool calls against REST calls of the same operation, in the same run and the same server
// (the stubs with option mcp): admin_meta as a tools/call over Streamable HTTP (stateless, JSON
// answers) and as POST /v1/admin/admin_meta. Target: at least 50% of REST's throughput.
import "./banner.js";
import { schema } from "../generated/schema.js";
import { CONNECTIONS, ROUNDS_TEXT, SECRET_HEADER, base, http, pair, row } from "./load.js";
import { startTarget } from "./targets.js";

const target = await startTarget("stubs", { mcp: true });
try {
  const rest = http(target, schema.operations.admin_meta!.rest!.path, "{}");
  const toolCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "admin_meta", arguments: {} } });
  const mcp = http(target, "/mcp", toolCall, { ...SECRET_HEADER, accept: "application/json, text/event-stream" });
  const [restMeasure, mcpMeasure] = await pair(rest, mcp);
  console.log(`MCP tools/call against REST, same operation (admin_meta), same server: ${CONNECTIONS} connections, ${ROUNDS_TEXT}`);
  console.log(base("REST", restMeasure));
  console.log(row("MCP tools/call", mcpMeasure, restMeasure, "REST", 50));
} finally {
  target.child.kill();
}
