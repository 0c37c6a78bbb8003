// Fine-grained authorization with OpenFGA's semantics, over the tuples in the database. The model
// is the OpenFGA DSL (schema 1.1), parsed and type-checked by OpenFGA's own syntax transformer;
// checks, user lists and expansion follow its rewrites: direct relations with type restrictions
// (`[user, group#member, user:*]`), computed usersets (`or editor`), tuple-to-userset (`viewer from
// parent`), union, intersection (`and`) and exclusion (`but not`). The current model is read on
// every call (a new one applies to the next call on every replica); a compiled model is kept by id.
// Without a model every relation is direct and any subject may hold it.
import { transformer, validator } from "@openfga/syntax-transformer";
import { ServiceError } from "../generated/server/index.js";
import type { FGATuple } from "../generated/types.js";
import { invalid, type Core } from "./core.js";
import type { FGATupleRecord } from "./storage.js";

/** How deep a check may nest (OpenFGA's default resolution depth). */
export const MAX_DEPTH = 25;
/** How many tuple queries one call may make. */
export const MAX_QUERIES = 5_000;

interface RelationReference {
  type: string;
  relation?: string;
  wildcard?: object;
  condition?: string;
}

export type Userset = {
  this?: object;
  computedUserset?: { relation?: string };
  tupleToUserset?: { tupleset: { relation?: string }; computedUserset: { relation?: string } };
  union?: { child: Userset[] };
  intersection?: { child: Userset[] };
  difference?: { base: Userset; subtract: Userset };
};

interface TypeDefinition {
  relations: Map<string, Userset>;
  /** The subjects a tuple of each relation may name (its type restrictions). */
  directTypes: Map<string, RelationReference[]>;
}

/** A compiled model: its types by name. */
export type FgaModel = Map<string, TypeDefinition>;

const DIRECT: Userset = { this: {} };
const typeOf = (subject: string) => subject.slice(0, subject.indexOf(":"));

/** The model a DSL describes; INVALID_ARGUMENT with the line and the reason when it does not parse or type-check. */
export function compileModel(dsl: string): FgaModel {
  try {
    validator.validateDSL(dsl);
  } catch (error) {
    const first = (error as { errors?: { message: string; line?: { start: number } }[] }).errors?.[0];
    if (!first) throw invalid("dsl", `is not an OpenFGA model: ${(error as Error).message}`);
    const reason = first.message.replace(/^.*? at line=\d+, column=\d+: /, "");
    throw invalid("dsl", `line ${(first.line?.start ?? 0) + 1}: ${reason}`);
  }
  const json = transformer.transformDSLToJSONObject(dsl) as unknown as {
    type_definitions: { type: string; relations?: Record<string, Userset>; metadata?: { relations?: Record<string, { directly_related_user_types?: RelationReference[] }> } | null }[];
    conditions?: Record<string, unknown>;
  };
  if (json.conditions && Object.keys(json.conditions).length > 0) throw invalid("dsl", "conditions (`with <condition>`) are not supported");
  const model: FgaModel = new Map();
  for (const definition of json.type_definitions) {
    const directTypes = new Map<string, RelationReference[]>();
    for (const [relation, metadata] of Object.entries(definition.metadata?.relations ?? {})) {
      const references = metadata.directly_related_user_types ?? [];
      if (references.some((reference) => reference.condition)) throw invalid("dsl", `conditions (\`with <condition>\`) are not supported (relation ${relation} of ${definition.type})`);
      directTypes.set(relation, references);
    }
    model.set(definition.type, { relations: new Map(Object.entries(definition.relations ?? {})), directTypes });
  }
  return model;
}

const describeReference = (reference: RelationReference) => (reference.wildcard ? `${reference.type}:*` : reference.relation ? `${reference.type}#${reference.relation}` : reference.type);

/** Whether a subject is one a relation's type restrictions allow (`user:1` by `user`, `user:*` by `user:*`, `group:1#member` by `group#member`). */
function subjectAllowed(references: readonly RelationReference[], subject: string): boolean {
  const hash = subject.indexOf("#");
  const type = typeOf(subject);
  if (hash > 0) return references.some((reference) => reference.type === type && reference.relation === subject.slice(hash + 1));
  if (subject.endsWith(":*")) return references.some((reference) => reference.type === type && reference.wildcard !== undefined);
  return references.some((reference) => reference.type === type && reference.relation === undefined && reference.wildcard === undefined);
}

/** Refuses tuples the model does not allow, naming the tuple's place and the relation. */
export function checkTuples(model: FgaModel, tuples: readonly FGATuple[]): void {
  tuples.forEach((tuple, index) => {
    const objectType = typeOf(tuple.object);
    const definition = model.get(objectType);
    if (!definition) throw invalid(`tuples[${index}].object`, `type ${objectType} is not in the model`);
    if (!definition.relations.has(tuple.relation)) throw invalid(`tuples[${index}].relation`, `${objectType} has no relation ${tuple.relation} in the model`);
    if (tuple.user === `${tuple.object}#${tuple.relation}`)
      throw invalid(`tuples[${index}].user`, `${tuple.user} holds ${tuple.relation} on ${tuple.object} implicitly; such a tuple is never written`);
    const references = definition.directTypes.get(tuple.relation) ?? [];
    if (references.length === 0) throw invalid(`tuples[${index}].relation`, `${objectType}#${tuple.relation} takes no direct tuples (the model derives it)`);
    if (!subjectAllowed(references, tuple.user)) {
      throw invalid(`tuples[${index}].user`, `${objectType}#${tuple.relation} does not allow ${tuple.user} (it allows ${references.map(describeReference).join(", ")})`);
    }
  });
}

/** Members a userset evaluates to for list_users: each subject named, and whether every other subject of the type is in (a wildcard). */
interface Members {
  wildcard: boolean;
  /** Subjects named somewhere, and whether each is in. */
  named: Map<string, boolean>;
  /** Subjects named on the granting side (not only in what `but not` takes away): the ones listed, as OpenFGA lists them. */
  granted: Set<string>;
}
const memberIn = (members: Members, subject: string) => members.named.get(subject) ?? members.wildcard;

function combine(parts: Members[], rule: (values: boolean[]) => boolean, granting: readonly Members[] = parts): Members {
  const named = new Map<string, boolean>();
  for (const subject of new Set(parts.flatMap((part) => [...part.named.keys()]))) {
    named.set(subject, rule(parts.map((part) => memberIn(part, subject))));
  }
  return { wildcard: rule(parts.map((part) => part.wildcard)), named, granted: new Set(granting.flatMap((part) => [...part.granted])) };
}

/** One call's walk: its tuple reads (counted against MAX_QUERIES) and the model it follows. */
class Walk {
  private queries = 0;
  constructor(
    private readonly core: Core,
    readonly model: FgaModel | null,
  ) {}

  /** The tuples of (object, relation) the current model allows; without a model, all of them. */
  async tuples(object: string, relation: string): Promise<FGATupleRecord[]> {
    if (++this.queries > MAX_QUERIES) throw tooComplex(`more than ${MAX_QUERIES} tuple reads`);
    const all = await this.core.storage.fgaTuples.list({ object, relation });
    if (!this.model) return all;
    const references = this.model.get(typeOf(object))?.directTypes.get(relation) ?? [];
    // Tuples written under an earlier model that this one does not allow count for nothing, as in OpenFGA.
    return all.filter((tuple) => subjectAllowed(references, tuple.user));
  }

  /** The rewrite of `relation` on `object`'s type; INVALID_ARGUMENT when the model has no such relation. */
  rewrite(object: string, relation: string): Userset {
    if (!this.model) return DIRECT;
    const rewrite = this.model.get(typeOf(object))?.relations.get(relation);
    if (!rewrite) throw new ServiceError("INVALID_ARGUMENT", `${typeOf(object)} has no relation ${relation} in the model`, "relation");
    return rewrite;
  }

  relationDefined(object: string, relation: string): boolean {
    return !this.model || this.model.get(typeOf(object))?.relations.has(relation) === true;
  }
}

const tooComplex = (what: string) => new ServiceError("FAILED_PRECONDITION", `the question needs ${what}; the model or the tuples nest too deeply`);

export class FgaEngine {
  private compiled: { id: string; model: FgaModel } | undefined;

  constructor(private readonly core: Core) {}

  /** The current model, compiled (kept by id), or null when none is written. */
  async currentModel(): Promise<FgaModel | null> {
    const record = await this.core.storage.fgaModels.get("current");
    if (!record) return null;
    if (this.compiled?.id !== record.id) this.compiled = { id: record.id, model: compileModel(record.dsl) };
    return this.compiled.model;
  }

  private async walk(): Promise<Walk> {
    return new Walk(this.core, await this.currentModel());
  }

  /** Whether `user` holds `relation` on `object`. */
  async check(user: string, relation: string, object: string): Promise<boolean> {
    const walk = await this.walk();
    walk.rewrite(object, relation);
    return this.checkRelation(walk, user, relation, object, new Set(), 0);
  }

  private async checkRelation(walk: Walk, user: string, relation: string, object: string, path: Set<string>, depth: number): Promise<boolean> {
    // A subject is always its own userset (group:1#member holds member on group:1).
    if (user === `${object}#${relation}`) return true;
    const key = `${object}#${relation}`;
    // A cycle answers false on its own path, as OpenFGA's does.
    if (path.has(key)) return false;
    if (depth >= MAX_DEPTH) throw tooComplex(`more than ${MAX_DEPTH} nested steps`);
    const next = new Set(path).add(key);
    return this.checkUserset(walk, walk.rewrite(object, relation), user, relation, object, next, depth + 1);
  }

  private async checkUserset(walk: Walk, rewrite: Userset, user: string, relation: string, object: string, path: Set<string>, depth: number): Promise<boolean> {
    if (rewrite.this) {
      const concrete = !user.includes("#") && !user.endsWith(":*");
      const tuples = await walk.tuples(object, relation);
      for (const tuple of tuples) {
        if (tuple.user === user) return true;
        if (concrete && tuple.user === `${typeOf(user)}:*`) return true;
      }
      for (const tuple of tuples) {
        const hash = tuple.user.indexOf("#");
        if (hash > 0 && (await this.checkRelation(walk, user, tuple.user.slice(hash + 1), tuple.user.slice(0, hash), path, depth))) return true;
      }
      return false;
    }
    if (rewrite.computedUserset) return this.checkRelation(walk, user, rewrite.computedUserset.relation!, object, path, depth);
    if (rewrite.tupleToUserset) {
      const { tupleset, computedUserset } = rewrite.tupleToUserset;
      for (const tuple of await walk.tuples(object, tupleset.relation!)) {
        if (tuple.user.includes("#") || tuple.user.endsWith(":*")) continue;
        if (walk.relationDefined(tuple.user, computedUserset.relation!) && (await this.checkRelation(walk, user, computedUserset.relation!, tuple.user, path, depth))) return true;
      }
      return false;
    }
    if (rewrite.union) {
      for (const child of rewrite.union.child) if (await this.checkUserset(walk, child, user, relation, object, path, depth)) return true;
      return false;
    }
    if (rewrite.intersection) {
      for (const child of rewrite.intersection.child) if (!(await this.checkUserset(walk, child, user, relation, object, path, depth))) return false;
      return true;
    }
    if (rewrite.difference) {
      return (
        (await this.checkUserset(walk, rewrite.difference.base, user, relation, object, path, depth)) &&
        !(await this.checkUserset(walk, rewrite.difference.subtract, user, relation, object, path, depth))
      );
    }
    return false;
  }

  /** Subjects of `userType` holding `relation` on `object` (`<type>:*` when every subject of the type does). */
  async listUsers(object: string, relation: string, userType: string): Promise<string[]> {
    const walk = await this.walk();
    walk.rewrite(object, relation);
    const members = await this.membersOf(walk, relation, object, userType, new Set(), 0);
    const users = [...members.granted].filter((subject) => memberIn(members, subject));
    if (members.wildcard) users.push(`${userType}:*`);
    return users.sort();
  }

  private async membersOf(walk: Walk, relation: string, object: string, userType: string, path: Set<string>, depth: number): Promise<Members> {
    const key = `${object}#${relation}`;
    if (path.has(key)) return { wildcard: false, named: new Map(), granted: new Set() };
    if (depth >= MAX_DEPTH) throw tooComplex(`more than ${MAX_DEPTH} nested steps`);
    const next = new Set(path).add(key);
    return this.membersOfUserset(walk, walk.rewrite(object, relation), relation, object, userType, next, depth + 1);
  }

  private async membersOfUserset(walk: Walk, rewrite: Userset, relation: string, object: string, userType: string, path: Set<string>, depth: number): Promise<Members> {
    if (rewrite.this) {
      const parts: Members[] = [{ wildcard: false, named: new Map(), granted: new Set() }];
      for (const tuple of await walk.tuples(object, relation)) {
        const hash = tuple.user.indexOf("#");
        if (hash > 0) parts.push(await this.membersOf(walk, tuple.user.slice(hash + 1), tuple.user.slice(0, hash), userType, path, depth));
        else if (typeOf(tuple.user) !== userType) continue;
        else if (tuple.user.endsWith(":*")) parts.push({ wildcard: true, named: new Map(), granted: new Set() });
        else {
          parts[0]!.named.set(tuple.user, true);
          parts[0]!.granted.add(tuple.user);
        }
      }
      return combine(parts, (values) => values.some(Boolean));
    }
    if (rewrite.computedUserset) return this.membersOf(walk, rewrite.computedUserset.relation!, object, userType, path, depth);
    if (rewrite.tupleToUserset) {
      const { tupleset, computedUserset } = rewrite.tupleToUserset;
      const parts: Members[] = [{ wildcard: false, named: new Map(), granted: new Set() }];
      for (const tuple of await walk.tuples(object, tupleset.relation!)) {
        if (tuple.user.includes("#") || tuple.user.endsWith(":*") || !walk.relationDefined(tuple.user, computedUserset.relation!)) continue;
        parts.push(await this.membersOf(walk, computedUserset.relation!, tuple.user, userType, path, depth));
      }
      return combine(parts, (values) => values.some(Boolean));
    }
    const children = async (list: Userset[]) => Promise.all(list.map((child) => this.membersOfUserset(walk, child, relation, object, userType, path, depth)));
    if (rewrite.union) return combine(await children(rewrite.union.child), (values) => values.some(Boolean));
    if (rewrite.intersection) return combine(await children(rewrite.intersection.child), (values) => values.every(Boolean));
    if (rewrite.difference) {
      const [base, subtract] = await children([rewrite.difference.base, rewrite.difference.subtract]);
      return combine([base!, subtract!], ([inBase, inSubtract]) => inBase! && !inSubtract!, [base!]);
    }
    return { wildcard: false, named: new Map(), granted: new Set() };
  }

  /** One level of the relation's rewrite, as OpenFGA's Expand answers it, and the subjects of its direct tuples. */
  async expand(object: string, relation: string): Promise<{ users: string[]; tree: { root: unknown } }> {
    const walk = await this.walk();
    const rewrite = walk.rewrite(object, relation);
    const name = `${object}#${relation}`;
    const direct = (await walk.tuples(object, relation)).map((tuple) => tuple.user);
    const node = async (userset: Userset): Promise<Record<string, unknown>> => {
      if (userset.this) return { name, leaf: { users: { users: direct } } };
      if (userset.computedUserset) return { name, leaf: { computed: { userset: `${object}#${userset.computedUserset.relation}` } } };
      if (userset.tupleToUserset) {
        const { tupleset, computedUserset } = userset.tupleToUserset;
        const targets = (await walk.tuples(object, tupleset.relation!)).filter((tuple) => !tuple.user.includes("#") && walk.relationDefined(tuple.user, computedUserset.relation!));
        return { name, leaf: { tupleToUserset: { tupleset: `${object}#${tupleset.relation}`, computed: targets.map((tuple) => ({ userset: `${tuple.user}#${computedUserset.relation}` })) } } };
      }
      if (userset.union) return { name, union: { nodes: await Promise.all(userset.union.child.map(node)) } };
      if (userset.intersection) return { name, intersection: { nodes: await Promise.all(userset.intersection.child.map(node)) } };
      if (userset.difference) return { name, difference: { base: await node(userset.difference.base), subtract: await node(userset.difference.subtract) } };
      return { name };
    };
    return { users: direct, tree: { root: await node(rewrite) } };
  }
}
