// A stand-in implementation for protocol-level tests: answers every operation with a valid sample
// of its output and records what each call received.
import { createServer, type CallContext, type ServerOptions, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import type { ApiSchema, FieldSpec } from "../../runtime/schema.js";

export interface RecordedCall {
  method: string;
  input: Record<string, unknown>;
  headers: Record<string, string>;
  protocol: string;
  /** The caller's address as the pipeline resolved it (the listener's trusted proxies). */
  remoteAddress: string;
}

function sampleValue(api: ApiSchema, field: FieldSpec): unknown {
  switch (field.kind) {
    case "string":
      return `${field.name}-value`;
    case "bool":
      return true;
    case "int32":
    case "int64":
    case "float64":
      return 7;
    case "map":
      return { key: "value" };
    case "json":
      return { nested: { ok: true } };
    case "enum":
      return Object.keys(api.enums[field.ref!]!.values)[0];
    case "message":
      return sampleMessage(api, field.ref!);
  }
}

/** A valid answer of `messageName`: every field set, lists with one item. */
export function sampleMessage(api: ApiSchema, messageName: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of api.messages[messageName]!.fields) {
    const value = sampleValue(api, field);
    result[field.name] = field.list ? [value] : value;
  }
  return result;
}

export interface RecordingService {
  calls: RecordedCall[];
  httpUrl: string;
  grpcEndpoint: string;
  /** Where the metrics are served, when the option metrics is on. */
  metricsUrl?: string;
  /** The running server (health, close with options). */
  server: ServiceServer;
  /** Overrides the answer of one method. */
  answers: Map<string, (input: Record<string, unknown>) => unknown>;
  close(): Promise<void>;
}

/** Org-admin of org-a only: the user of bearer token "user-token". */
const ORG_ADMIN_OF = "org-a";

export async function startRecordingService(adminSecret = "s3cret-admin-key", options: Partial<ServerOptions> = {}): Promise<RecordingService> {
  const calls: RecordedCall[] = [];
  const answers = new Map<string, (input: Record<string, unknown>) => unknown>();
  const byMethod = new Map<string, { output: string }>(Object.values(schema.operations).map((op) => [op.method, op]));
  const implementation = new Proxy(
    {},
    {
      get: (_target, method: string) => async (input: Record<string, unknown>, context: CallContext) => {
        calls.push({ method, input, headers: { ...context.headers }, protocol: context.protocol, remoteAddress: context.remoteAddress });
        const answer = answers.get(method);
        return answer ? answer(input) : sampleMessage(schema, byMethod.get(method)!.output);
      },
    },
  );
  const server = createServer(implementation as never, {
    adminSecret,
    port: 0,
    grpcPort: 0,
    verifyUserToken: async (token) => (token === "user-token" ? { userId: "u1", roles: [] } : null),
    hasRole: async (_user, _operation, input) => input.org_id === ORG_ADMIN_OF,
    // Protocol tests send many wrong secrets on purpose; the lockouts have tests of their own.
    lockout: { maxFailures: 1_000_000, windowMs: 60_000 },
    globalLockout: { maxFailures: 1_000_000, windowMs: 60_000 },
    ...options,
  });
  const { httpUrl, grpcEndpoint, metricsUrl } = await server.listen();
  return { calls, httpUrl, grpcEndpoint, metricsUrl, server, answers, close: () => server.close() };
}
