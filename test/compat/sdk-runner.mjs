// The TypeScript SDK of one release, driven by the compatibility run: copied beside the installed
// package (its folder's node_modules holds it) and given the package's name as its argument. It
// reads one call a line on stdin and answers one line on stdout:
//
//   request  {"id": 1, "surface": "admin" | "user" | "oauth", "operation": "get_organization", "protocol": "grpc",
//             "input": {...}, "accessToken": "..." | null, "headers": {...} (optional),
//             "config": {"serviceUrl": "...", "grpcEndpoint": "...", "serverVersion": "2.4.0", "adminSecret": "...",
//                        "adminAccessToken": "..." (optional: an org-admin's, instead of the secret), "clientId": "..."}}
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

function newClient(call) {
  const { serviceUrl, grpcEndpoint, serverVersion, adminSecret, adminAccessToken, clientId } = call.config;
  // The server's version as the run knows it, as the Python and Go runners are given it: no client asks for it first.
  const common = { serviceUrl, grpcEndpoint, serverVersion, protocol: call.protocol, retry: false };
  return call.surface === "admin"
    ? new AdminClient({ ...common, ...(adminAccessToken ? { accessToken: adminAccessToken } : { adminSecret }) })
    : new UserClient({ ...common, clientId, ...(call.accessToken ? { accessToken: call.accessToken } : {}) });
}

/** The client of a call: one per surface, protocol and service, kept; one carrying a token is the call's alone (each token is used once). */
async function withClient(call, use) {
  if (call.accessToken || call.config.adminAccessToken) {
    const client = newClient(call);
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }
  const key = JSON.stringify([call.surface, call.protocol, call.config]);
  if (!clients.has(key)) clients.set(key, newClient(call));
  return use(clients.get(key));
}

async function answer(call) {
  const operation = operations[call.operation];
  if (!operation) return { skipped: `this SDK has no operation ${call.operation}` };
  if (!operation[call.protocol]) return { skipped: `this SDK does not carry ${call.operation} over ${call.protocol}` };
  try {
    const options = call.headers && Object.keys(call.headers).length > 0 ? [{ headers: call.headers }] : [];
    return { ok: true, answer: await withClient(call, (client) => client[operation.method](call.input, ...options)) };
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
