// The reference's examples of a required tagged union: one variant, and on REST its tag beside it.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadIr } from "../generators/generate.js";
import { graphqlVariables, grpcCommand, restCommand, sampleMessage } from "../generators/emit/operation-text.js";
import { messageByName } from "../generators/ir/ir.js";
import { REPO_ROOT } from "./helpers/project.js";

const dir = mkdtempSync(join(tmpdir(), "union-samples-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("examples of a tagged union", () => {
  cpSync(join(REPO_ROOT, "examples", "bookstore", "proto"), join(dir, "proto"), { recursive: true });
  const manifest = readFileSync(join(REPO_ROOT, "examples", "bookstore", "operations.yaml"), "utf8");
  // add_book's edition made required, so that every example carries one.
  writeFileSync(
    join(dir, "operations.yaml"),
    manifest.replace("      edition: Edition\n      other_editions: Edition[]\n    output: Book", "      edition: Edition!\n      other_editions: Edition[]\n    output: Book"),
  );
  const ir = loadIr(dir);
  const addBook = ir.operations.find((op) => op.name === "add_book")!;

  it("samples one variant, whatever the rule asks for", () => {
    expect(addBook.input.fields.find((f) => f.name === "edition")!.required).toBe(true);
    expect(sampleMessage(ir, messageByName(ir, "Edition"), "all")).toEqual({ print: { binding: "<binding>" } });
  });

  it("writes the tag first in the curl body, and nowhere in GraphQL's variables or grpcurl's message", () => {
    expect(restCommand(ir, addBook)).toContain('"edition":{"kind":"print","print":{"binding":"<binding>"}}');
    expect(JSON.stringify(graphqlVariables(ir, addBook))).toContain('"edition":{"print":{"binding":"<binding>"}}');
    expect(grpcCommand(ir, addBook)).toContain('"edition":{"print":{"binding":"<binding>"}}');
  });
});
