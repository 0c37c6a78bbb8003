// Token pagination with the cursor fields a manifest declares (pagination: { style: token, cursor,
// next_cursor }): the manifest's rule, what the TypeScript iterator sends and reads, and the contract
// diff of a renamed cursor.
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { buildIr } from "../../generators/ir/build-ir.js";
import { manifestChanges } from "../../generators/diff/rules.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { ClientCore } from "../../runtime/client/core.js";
import type { ApiSchema } from "../../runtime/schema.js";
import { readFixture } from "../helpers/project.js";
import { clientDefinitionOf, operationModulesOf } from "../helpers/client-definition.js";

const TOKEN_LIST = `  tuples:
    surface: admin
    group: users
    description: Read tuples.
    kind: read
    auth: admin_secret
    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }
    pagination: { style: token, cursor: page_token, next_cursor: next_page_token }
    input:
      page_token: string
    output:
      names: string[]!
      next_page_token: string
`;
const manifest = (operation: string) => readFixture("minimal.yaml").replace(/^operations:\n/m, `operations:\n${operation}`);
const irOf = (text: string) => buildIr(loadManifestText(text), emptyLock());

describe("declared cursor fields", () => {
  it("are the IR's, and default to continuation_token in both directions", () => {
    const op = irOf(manifest(TOKEN_LIST)).operations.find((o) => o.name === "tuples")!;
    expect(op.pagination).toEqual({ style: "token", itemsField: "names", cursorField: "page_token", nextCursorField: "next_page_token" });
    const plain = manifest(
      TOKEN_LIST.replace("{ style: token, cursor: page_token, next_cursor: next_page_token }", "token")
        .replaceAll("page_token", "continuation_token")
        .replace("next_continuation_token", "continuation_token"),
    );
    expect(irOf(plain).operations.find((o) => o.name === "tuples")!.pagination).toMatchObject({ cursorField: "continuation_token", nextCursorField: "continuation_token" });
  });

  it("must be string fields of the input and the answer, or the manifest is refused at the pagination", () => {
    expect(() => irOf(manifest(TOKEN_LIST.replace("      page_token: string\n", "      page_token: int32\n")))).toThrow(
      /operations\.yaml:\d+:\d+: error invalid-pagination: .*pagination: token needs a string input field 'page_token' \(the cursor of the page asked for\)/,
    );
    expect(() => irOf(manifest(TOKEN_LIST.replace("      next_page_token: string\n", "")))).toThrow(/error invalid-pagination: .*needs a string output field 'next_page_token'/);
  });

  it("renamed, are a dangerous change of the contract: paging loops in clients must change", () => {
    const before = irOf(manifest(TOKEN_LIST));
    const after = irOf(manifest(TOKEN_LIST.replace("cursor: page_token", "cursor: after").replace("      page_token: string\n", "      page_token: string\n      after: string\n")));
    const change = manifestChanges(before, after).find((c) => c.id === "pagination-changed:tuples");
    expect(change).toMatchObject({ severity: "dangerous", message: "the cursor fields changed from page_token -> next_page_token to after -> next_page_token: paging loops in clients must change" });
  });

  it("are what the TypeScript iterator sends and reads", async () => {
    const operation = schema.operations.fga_read_tuples!;
    // The identity schema's token-paginated list, its continuation_token renamed page_token in the request and next_page_token in the answer.
    const rename = (message: string, to: string) => {
      const spec = schema.messages[message]!;
      return { ...spec, fields: spec.fields.map((field) => (field.name === "continuation_token" ? { ...field, name: to } : field)) };
    };
    const renamed: ApiSchema = {
      ...schema,
      messages: { ...schema.messages, [operation.input]: rename(operation.input, "page_token"), [operation.output]: rename(operation.output, "next_page_token") },
      operations: { ...schema.operations, fga_read_tuples: { ...operation, pagination: { ...operation.pagination!, cursorField: "page_token", nextCursorField: "next_page_token" } } },
    };
    const bodies: unknown[] = [];
    const answers = [
      { tuples: [{ user: "user:1", relation: "viewer", object: "doc:1" }], next_page_token: "b" },
      { tuples: [{ user: "user:2", relation: "viewer", object: "doc:1" }], next_page_token: "" },
    ];
    const fetch = (async (_url: string, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(JSON.stringify(answers[bodies.length - 1]));
    }) as typeof globalThis.fetch;
    const core = new ClientCore(clientDefinitionOf(renamed), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", serverVersion: schema.version, fetch }, () => ({}));
    const users: string[] = [];
    for await (const tuple of core.iterate(operationModulesOf(renamed).fga_read_tuples!, { object: "doc:1" })) users.push((tuple as { user: string }).user);
    expect(users).toEqual(["user:1", "user:2"]);
    expect(bodies).toEqual([{ object: "doc:1" }, { object: "doc:1", page_token: "b" }]);
  });
});
