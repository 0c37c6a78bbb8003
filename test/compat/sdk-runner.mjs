// The TypeScript SDK of one release, driven by the compatibility run: copied beside the installed
// package (its folder's node_modules holds it) and given the package's name as its argument. It
// reads one call a line on stdin and answers one line on stdout:
//
//   request  {"id": 1, "surface": "admin" | "user", "operation": "get_organization", "protocol": "grpc",
//             "input": {...}, "accessToken": "..." | null,
//             "config": {"serviceUrl": "...", "grpcEndpoint": "...", "adminSecret": "...", "clientId": "..."}}
//   answer   {"id": 1, "ok": true, "answer": {...}}
//         or {"id": 1, "ok": false, "code": "NOT_FOUND", "message": "...", "refused": false}
//         or {"id": 1, "skipped": "why this SDK cannot make the call"}
//
// Only what every release of the SDK has is used: the clients, `operations` (each with its method
// name and protocols) and ApiError's code, message and refused.
import { createInterface } from "node:readline";

const sdk = await import(process.argv[2]);
const { AdminClient, UserClient, ApiError, operations } = sdk;
const clients = new Map();

function clientFor(call) {
  const key = JSON.stringify([call.surface, call.protocol, call.accessToken, call.config]);
  let client = clients.get(key);
  if (!client) {
    const { serviceUrl, grpcEndpoint, adminSecret, clientId } = call.config;
    const common = { serviceUrl, grpcEndpoint, protocol: call.protocol, retry: false };
    client = call.surface === "admin" ? new AdminClient({ ...common, adminSecret }) : new UserClient({ ...common, clientId, ...(call.accessToken ? { accessToken: call.accessToken } : {}) });
    clients.set(key, client);
  }
  return client;
}

async function answer(call) {
  const operation = operations[call.operation];
  if (!operation) return { skipped: `this SDK has no operation ${call.operation}` };
  if (!operation[call.protocol]) return { skipped: `this SDK does not carry ${call.operation} over ${call.protocol}` };
  try {
    return { ok: true, answer: await clientFor(call)[operation.method](call.input) };
  } catch (error) {
    if (!(error instanceof ApiError)) return { ok: false, code: "CRASH", message: String(error?.stack ?? error), refused: false };
    return { ok: false, code: error.code, message: error.message, refused: error.refused === true };
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const call = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ id: call.id, ...(await answer(call)) })}\n`);
}
await Promise.all([...clients.values()].map((client) => client.close()));
