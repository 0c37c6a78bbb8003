// Admin: the fine-grained authorization model and relationship tuples. One current model, checked
// when written; tuples checked against it; user lists and expansion answered from it (../fga.ts).
import type { FGATuple } from "../../generated/types.js";
import { invalid, nowSeconds, notFound } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { checkTuples, compileModel, FgaEngine } from "../fga.js";
import type { FGATupleRecord } from "../storage.js";

const DEFAULT_TUPLE_PAGE = 50;

const tupleKey = (tuple: FGATuple) => `${tuple.object}|${tuple.relation}|${tuple.user}`;
const plain = (tuple: FGATupleRecord): FGATuple => ({ user: tuple.user, relation: tuple.relation, object: tuple.object });

function encodeContinuation(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString("base64url");
}

function decodeContinuation(token: string): number {
  try {
    const { offset } = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { offset: unknown };
    if (typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    // answered below
  }
  throw invalid("continuation_token", "is not a token this service handed out");
}

export function fgaOperations({ core }: Deps): Operations<"fgaGetModel" | "fgaWriteModel" | "fgaWriteTuples" | "fgaDeleteTuples" | "fgaReadTuples" | "fgaListUsers" | "fgaExpand" | "fgaReset"> {
  const { storage } = core;
  const fga = new FgaEngine(core);
  return {
    async fgaGetModel() {
      const model = await storage.fgaModels.get("current");
      if (!model) throw notFound("FGA model (none written yet)");
      return model;
    },

    async fgaWriteModel(input) {
      compileModel(input.dsl);
      const model = { id: core.newId(), dsl: input.dsl, created_at: nowSeconds(core) };
      await storage.fgaModels.put(model);
      return model;
    },

    async fgaWriteTuples(input) {
      // Writing a tuple that exists already leaves it as it is; the tuples of one call are written together.
      const model = await fga.currentModel();
      if (model) checkTuples(model, input.tuples);
      await storage.transaction(async () => {
        for (const tuple of input.tuples) await storage.fgaTuples.put({ user: tuple.user, relation: tuple.relation, object: tuple.object, key: tupleKey(tuple) });
      });
      return { message: `${input.tuples.length} tuple(s) written` };
    },

    async fgaDeleteTuples(input) {
      let deleted = 0;
      await storage.transaction(async () => {
        for (const tuple of input.tuples) if (await storage.fgaTuples.delete(tupleKey(tuple))) deleted++;
      });
      return { message: `${deleted} tuple(s) deleted` };
    },

    async fgaReadTuples(input) {
      // A filter given as "" matches "" (the contract makes "" a value), hence == null and not a falsy test.
      const where = {
        ...(input.user == null ? {} : { user: input.user }),
        ...(input.relation == null ? {} : { relation: input.relation }),
        ...(input.object == null ? {} : { object: input.object }),
      };
      const offset = input.continuation_token ? decodeContinuation(input.continuation_token) : 0;
      const size = input.page_size ?? DEFAULT_TUPLE_PAGE;
      // One more than the page tells whether another page follows.
      const matching = await storage.fgaTuples.list(where, { offset, limit: size + 1 });
      return { tuples: matching.slice(0, size).map(plain), continuation_token: matching.length > size ? encodeContinuation(offset + size) : "" };
    },

    async fgaListUsers(input) {
      return { users: await fga.listUsers(input.object, input.relation, input.user_type) };
    },

    async fgaExpand(input) {
      const { users, tree } = await fga.expand(input.object, input.relation);
      return { relation: input.relation, object: input.object, users, tree };
    },

    async fgaReset() {
      const tuples = await storage.transaction(async () => {
        await storage.fgaModels.deleteWhere({});
        return storage.fgaTuples.deleteWhere({});
      });
      return { message: `FGA data reset: the model and ${tuples} tuple(s) removed` };
    },
  };
}
