// A tagged union's tag on JSON: found at any depth (lists, maps, recursive types), written beside
// its variant, required and checked by the server's REST body check, and answered.
import { describe, expect, it } from "vitest";
import { schema as bookstore } from "../../examples/bookstore/generated/schema.js";
import { defineSchema, type ApiSchema } from "../../runtime/schema.js";
import { normalizeMessage } from "../../runtime/shape.js";
import { forEachTaggedUnion, reachesTaggedUnion, withUnionTags } from "../../runtime/union-tags.js";
import { checkWireTypes } from "../../runtime/validate.js";

// A tree: Tree holds itself and Nodes, a Node (tagged) a Leaf or a Tree; Plain reaches no union.
const schema = defineSchema({
  ...bookstore,
  enums: {},
  messages: {
    Leaf: "name:string!",
    Node: "|shape|leaf:Leaf child:Tree",
    Tree: "self:Tree nodes:Node[] named:map<Node> root:Node",
    Loop: "again:Loop tree:Tree",
    Plain: "again:Plain leaf:Leaf",
  },
  operations: {},
}) as unknown as ApiSchema;

describe("tagged unions on JSON", () => {
  it("knows which messages reach one, through lists, maps and cycles", () => {
    expect(["Node", "Tree", "Loop"].map((name) => reachesTaggedUnion(schema, name))).toEqual([true, true, true]);
    expect(["Leaf", "Plain"].map((name) => reachesTaggedUnion(schema, name))).toEqual([false, false]);
  });

  it("writes each tag beside its variant at any depth, and leaves a union with none given untagged", () => {
    const value = {
      self: { root: { leaf: { name: "deep" } } },
      nodes: [{ leaf: { name: "a" } }, { child: { nodes: [{ leaf: { name: "b" } }] } }, {}],
      named: { first: { leaf: { name: "c" } } },
    };
    const paths: string[] = [];
    forEachTaggedUnion(schema, "Tree", value, "", (_message, _union, path) => paths.push(path));
    expect(paths).toEqual(["self.root", "nodes[0]", "nodes[1]", "nodes[1].child.nodes[0]", "nodes[2]", "named.first"]);
    expect(withUnionTags(schema, "Tree", structuredClone(value))).toEqual({
      self: { root: { shape: "leaf", leaf: { name: "deep" } } },
      nodes: [{ shape: "leaf", leaf: { name: "a" } }, { shape: "child", child: { nodes: [{ shape: "leaf", leaf: { name: "b" } }] } }, {}],
      named: { first: { shape: "leaf", leaf: { name: "c" } } },
    });
  });

  it("checks a tag that is given against the variant given, and answers it first", () => {
    expect(() => checkWireTypes(schema, { input: "Tree" } as never, { root: { shape: "leaf", leaf: { name: "x" } } })).not.toThrow();
    expect(() => checkWireTypes(schema, { input: "Tree" } as never, { nodes: [{ shape: "leaf", child: {} }] })).toThrow("nodes[0].shape: must be child, the variant given");
    expect(() => checkWireTypes(schema, { input: "Tree" } as never, { root: { leaf: { name: "x" }, colour: "red" } })).toThrow("root.colour: is not a field of this request");
    expect(JSON.stringify(normalizeMessage(schema, "Node", { child: {} }))).toBe('{"shape":"child","leaf":null,"child":{"self":null,"nodes":[],"named":{},"root":null}}');
  });
});
