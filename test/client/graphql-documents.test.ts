// The client builds its GraphQL documents from the schema value at run time; the API reference
// prints them from the IR. Both must say the same thing, and be valid for the SDL.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, parse, print, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { loadIr } from "../../generators/generate.js";
import { graphqlDocument as documentForDocs } from "../../generators/emit/operation-text.js";
import { graphqlDocument as documentForClients } from "../../runtime/client/graphql.js";
import type { OperationSpec } from "../../runtime/schema.js";
import { REPO_ROOT } from "../helpers/project.js";

describe("GraphQL documents", () => {
  const ir = loadIr(REPO_ROOT);
  const sdl = buildSchema(readFileSync(join(REPO_ROOT, "generated/graphql/schema.graphql"), "utf8"));
  const carried = ir.operations.filter((op) => op.graphql);

  it("are the same in the clients and in the API reference, and valid against the SDL", () => {
    expect(carried.length).toBeGreaterThan(0);
    for (const op of carried) {
      const client = parse(documentForClients(schema, (schema.operations as Record<string, OperationSpec>)[op.name]!));
      expect(print(client), op.name).toBe(print(parse(documentForDocs(ir, op))));
      expect(
        validate(sdl, client).map((e) => e.message),
        op.name,
      ).toEqual([]);
    }
  });
});
