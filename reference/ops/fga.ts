// Admin: the fine-grained authorization model and relationship tuples. The model is stored as
// written (one current model); checks, user lists and expansion work over the stored tuples,
// following usersets such as `group:eng#member` and wildcards such as `user:*`. Relations the model
// derives from other relations (`define viewer: editor`) are not interpreted.
import type { FGATuple } from "../../generated/types.js";
import { invalid, nowSeconds, notFound, type Core } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import type { FGATupleRecord } from "../storage.js";

const DEFAULT_TUPLE_PAGE = 50;
const MAX_DEPTH = 25;

const tupleKey = (tuple: FGATuple) => `${tuple.object}|${tuple.relation}|${tuple.user}`;
const typeOf = (subject: string) => subject.slice(0, subject.indexOf(":"));
const plain = (tuple: FGATupleRecord): FGATuple => ({ user: tuple.user, relation: tuple.relation, object: tuple.object });

/** Tuple questions answered over the stored tuples. */
export class TupleGraph {
  constructor(private readonly core: Core) {}

  private subjectsOf(object: string, relation: string): Promise<FGATupleRecord[]> {
    return this.core.storage.fgaTuples.list({ object, relation });
  }

  /** Whether `user` holds `relation` on `object`, directly, through a wildcard or through a userset. */
  async check(user: string, relation: string, object: string, seen = new Set<string>()): Promise<boolean> {
    const key = `${object}#${relation}`;
    if (seen.has(key) || seen.size > MAX_DEPTH) return false;
    seen.add(key);
    for (const tuple of await this.subjectsOf(object, relation)) {
      if (tuple.user === user || tuple.user === `${typeOf(user)}:*`) return true;
      const hash = tuple.user.indexOf("#");
      if (hash > 0 && (await this.check(user, tuple.user.slice(hash + 1), tuple.user.slice(0, hash), seen))) return true;
    }
    return false;
  }

  /** Subjects of type `userType` holding `relation` on `object`, usersets followed. */
  async users(object: string, relation: string, userType: string, seen = new Set<string>()): Promise<Set<string>> {
    const found = new Set<string>();
    const key = `${object}#${relation}`;
    if (seen.has(key) || seen.size > MAX_DEPTH) return found;
    seen.add(key);
    for (const tuple of await this.subjectsOf(object, relation)) {
      const hash = tuple.user.indexOf("#");
      if (hash > 0) {
        for (const user of await this.users(tuple.user.slice(0, hash), tuple.user.slice(hash + 1), userType, seen)) found.add(user);
      } else if (typeOf(tuple.user) === userType) {
        found.add(tuple.user);
      }
    }
    return found;
  }

  async direct(object: string, relation: string): Promise<string[]> {
    return (await this.subjectsOf(object, relation)).map((t) => t.user);
  }
}

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
  const graph = new TupleGraph(core);
  return {
    async fgaGetModel() {
      const model = await storage.fgaModels.get("current");
      if (!model) throw notFound("FGA model (none written yet)");
      return model;
    },

    async fgaWriteModel(input) {
      const model = { id: core.newId(), dsl: input.dsl, created_at: nowSeconds(core) };
      await storage.fgaModels.put(model);
      return model;
    },

    async fgaWriteTuples(input) {
      // Writing a tuple that exists already leaves it as it is; the tuples of one call are written together.
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
      return { users: [...(await graph.users(input.object, input.relation, input.user_type))] };
    },

    async fgaExpand(input) {
      const users = await graph.direct(input.object, input.relation);
      return { relation: input.relation, object: input.object, users, tree: { root: { name: `${input.object}#${input.relation}`, leaf: { users } } } };
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
