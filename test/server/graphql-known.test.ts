// The documents the generated clients send are run without parsing, validating or walking
// resolvers; the answer must be byte for byte what graphql-js gives for the same document (sent
// with one more space, so that graphql-js runs it), for every operation, on success and on errors.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { schema } from "../../generated/schema.js";
import { graphqlDocument } from "../../runtime/graphql-document.js";
import type { OperationSpec } from "../../runtime/schema.js";
import { startRecordingService, sampleMessage, type RecordingService } from "../helpers/recording-service.js";

// Counts graphql-js executions, to tell which path answered.
const executions = vi.hoisted(() => ({ count: 0 }));
vi.mock("graphql", async (importOriginal) => {
  const graphql = await importOriginal<typeof import("graphql")>();
  return { ...graphql, execute: (...args: Parameters<typeof graphql.execute>) => (executions.count++, graphql.execute(...args)) };
});

const SECRET = "known-secret";
let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET);
});
afterAll(async () => {
  await service.close();
});

const operations = Object.values(schema.operations as Record<string, OperationSpec>).filter((op) => op.graphql);

async function post(query: string, variables: unknown, headers: Record<string, string>): Promise<{ status: number; text: string; cookies: string[] }> {
  const response = await fetch(`${service.httpUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  return { status: response.status, text: await response.text(), cookies: response.headers.getSetCookie() };
}

/** The same call through the known-document path and through graphql-js. */
async function both(op: OperationSpec, variables: unknown, headers: Record<string, string>) {
  const document = graphqlDocument(schema, op);
  const before = executions.count;
  const fast = await post(document, variables, headers);
  expect(executions.count, "the known document ran without graphql-js").toBe(before);
  const slow = await post(`${document} `, variables, headers);
  return { fast, slow };
}

describe("documents of the generated clients", () => {
  it("answer exactly as graphql-js does, for every operation carried over GraphQL", async () => {
    const admin = { [schema.adminSecretHeader]: SECRET, authorization: "Bearer user-token" };
    const before = executions.count;
    for (const op of operations) {
      const params = op.graphql!.params ? { params: sampleMessage(schema, op.input) } : undefined;
      const { fast, slow } = await both(op, params, admin);
      expect(fast, op.name).toEqual(slow);
      expect(JSON.parse(fast.text).data?.[op.name] ?? JSON.parse(fast.text).errors, op.name).toBeTruthy();
    }
    // The other path is graphql-js itself.
    expect(executions.count - before).toBeGreaterThan(operations.length / 2);
  });

  it("answer errors exactly as graphql-js does: no credentials, a bad input, unknown variables", async () => {
    const meta = operations.find((op) => op.name === "admin_meta")!;
    const deleteUser = operations.find((op) => op.name === "delete_user")!;
    for (const [op, variables, headers] of [
      [meta, undefined, {}],
      [deleteUser, { params: { id: "" } }, { [schema.adminSecretHeader]: SECRET }],
      [deleteUser, { params: { id: 42 } }, { [schema.adminSecretHeader]: SECRET }],
      [deleteUser, {}, { [schema.adminSecretHeader]: SECRET }],
      [deleteUser, { params: { id: "u1", nope: true } }, { [schema.adminSecretHeader]: SECRET }],
    ] as const) {
      const { fast, slow } = await both(op, variables, headers);
      expect(fast, `${op.name} ${JSON.stringify(variables)}`).toEqual(slow);
      expect(JSON.parse(fast.text).errors).toHaveLength(1);
    }
  });
});
