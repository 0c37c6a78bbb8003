// The FGA model as the service takes it: refused with the line and the reason when it does not
// parse or type-check, tuples refused when it does not allow them, a new model applied to the next
// call. (Its answers against OpenFGA's: test/fga/openfga.test.ts.)
import { describe, expect, it } from "vitest";
import { createHarness, expectCode } from "../reference/context.js";
import { MODELS } from "./models.js";

const CHECKER = { kind: "user" as const, userId: "checker", roles: ["admin"] };

interface Tuple {
  user: string;
  relation: string;
  object: string;
}

describe("the model's own refusals", () => {
  it("refuses a model that does not parse or type-check, naming the line and the reason, and keeps the current one", async () => {
    const h = createHarness();
    const good = await h.call("fgaWriteModel", { dsl: MODELS["tuple-to-userset through nested folders"]! });
    const syntax = await expectCode(h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user\n  relations\n    define x: [usr" }), "INVALID_ARGUMENT");
    expect(syntax.message).toMatch(/^dsl: line \d+: /);
    const undefinedRelation = await expectCode(h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user] or editr" }), "INVALID_ARGUMENT");
    expect(undefinedRelation.message).toBe("dsl: line 6: the relation `editr` does not exist.");
    expect(await h.call("fgaGetModel", {})).toEqual(good);
  });

  it("refuses tuples the model does not allow, naming the relation, and writes none of the call's", async () => {
    const h = createHarness();
    await h.call("fgaWriteModel", { dsl: MODELS["direct, public access, computed usersets and nested groups (with cycles)"]! });
    const refused = async (tuple: Tuple, field: string, message: RegExp) => {
      const error = await expectCode(h.call("fgaWriteTuples", { tuples: [{ user: "user:anne", relation: "owner", object: "document:1" }, tuple] }), "INVALID_ARGUMENT");
      expect(error.field).toBe(field);
      expect(error.message).toMatch(message);
    };
    await refused({ user: "user:*", relation: "owner", object: "document:1" }, "tuples[1].user", /document#owner does not allow user:\* \(it allows user\)/);
    await refused({ user: "group:eng#owner", relation: "viewer", object: "document:1" }, "tuples[1].user", /does not allow group:eng#owner/);
    await refused({ user: "user:anne", relation: "reader", object: "document:1" }, "tuples[1].relation", /document has no relation reader/);
    await refused({ user: "user:anne", relation: "member", object: "team:1" }, "tuples[1].object", /type team is not in the model/);
    await refused({ user: "group:eng#member", relation: "member", object: "group:eng" }, "tuples[1].user", /holds member on group:eng implicitly/);
    expect((await h.call("fgaReadTuples", {})).tuples).toEqual([]);
  });

  it("applies a new model to the next call, and asks about relations the model has only", async () => {
    const h = createHarness();
    await h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define editor: [user]\n    define viewer: [user]" });
    await h.call("fgaWriteTuples", { tuples: [{ user: "user:anne", relation: "editor", object: "doc:1" }] });
    const viewer = async () => (await h.call("checkPermissions", { user: "user:anne", checks: [{ relation: "viewer", object: "doc:1" }] }, { principal: CHECKER })).results[0]!.allowed;
    expect(await viewer()).toBe(false);
    await h.call("fgaWriteModel", { dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define editor: [user]\n    define viewer: [user] or editor" });
    expect(await viewer()).toBe(true);
    expect((await h.call("fgaListUsers", { object: "doc:1", relation: "viewer", user_type: "user" })).users).toEqual(["user:anne"]);
    const unknown = await expectCode(h.call("checkPermissions", { user: "user:anne", checks: [{ relation: "owner", object: "doc:1" }] }, { principal: CHECKER }), "INVALID_ARGUMENT");
    expect(unknown.message).toContain("doc has no relation owner in the model");
  });
});
