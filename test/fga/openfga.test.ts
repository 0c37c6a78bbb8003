// The service's FGA answers against OpenFGA itself (the Go server, `go install`ed from the Go
// module proxy, memory datastore on loopback): for a corpus of models (direct relations with type
// restrictions and public access, computed usersets, tuple-to-userset, union, intersection,
// exclusion, nested groups and cycles) and tuple sets drawn at random from what each model allows,
// every check, user list and expansion must be the same. A longer proof (npm run proofs): OpenFGA's
// first build takes minutes. The model's own refusals are test/fga/model.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { transformer } from "@openfga/syntax-transformer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileModel, type FgaModel } from "../../reference/fga.js";
import { freePort } from "../helpers/redis.js";
import { ensureGoTool, type GoTool } from "../helpers/go-tools.js";
import { createHarness, type Harness } from "../reference/context.js";
import { MODELS } from "./models.js";

const OPENFGA: GoTool = { name: "openfga", module: "github.com/openfga/openfga/cmd/openfga", version: "v1.22.1" };
const CHECKER = { kind: "user" as const, userId: "checker", roles: ["admin"] };

/** A small seeded generator, so that a failure names a seed that reproduces it. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

interface Tuple {
  user: string;
  relation: string;
  object: string;
}

/** Tuples drawn at random from what the model allows: 3 objects of each type, 4 users. */
function randomTuples(model: FgaModel, seed: number): { tuples: Tuple[]; objects: string[]; subjects: string[] } {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const idsOf = (type: string) => (type === "user" ? ["anne", "bob", "carl", "dora"] : ["a", "b", "c"]);
  const objects = [...model.keys()].flatMap((type) => idsOf(type).map((id) => `${type}:${id}`));
  const tuples = new Map<string, Tuple>();
  for (const [type, definition] of model) {
    for (const [relation, references] of definition.directTypes) {
      if (references.length === 0) continue;
      for (const id of idsOf(type)) {
        const count = Math.floor(next() * 3);
        for (let n = 0; n < count; n++) {
          const reference = pick(references);
          const user = reference.wildcard ? `${reference.type}:*` : `${reference.type}:${pick(idsOf(reference.type))}${reference.relation ? `#${reference.relation}` : ""}`;
          const tuple = { user, relation, object: `${type}:${id}` };
          // A userset holds its own relation implicitly: OpenFGA refuses that tuple, and so does the service.
          if (user === `${tuple.object}#${relation}`) continue;
          tuples.set(`${tuple.object}|${relation}|${user}`, tuple);
        }
      }
    }
  }
  const subjects = [...idsOf("user").map((id) => `user:${id}`), ...[...tuples.values()].map((tuple) => tuple.user).filter((user) => user.includes("#"))];
  return { tuples: [...tuples.values()], objects, subjects: [...new Set(subjects)] };
}

let openfga: ChildProcess | undefined;
/** What was compared, for the report. */
const compared = { checks: 0, lists: 0 };
let api: string;

async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`OpenFGA ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A store on OpenFGA with the model and the tuples; answers its id and the model's. */
async function openfgaStore(dsl: string, tuples: readonly Tuple[]): Promise<{ store: string; model: string }> {
  const { id: store } = await call<{ id: string }>("/stores", { name: "differential" });
  const json = transformer.transformDSLToJSONObject(dsl) as unknown as Record<string, unknown>;
  const { authorization_model_id: model } = await call<{ authorization_model_id: string }>(`/stores/${store}/authorization-models`, json);
  for (let index = 0; index < tuples.length; index += 100) {
    await call(`/stores/${store}/write`, { authorization_model_id: model, writes: { tuple_keys: tuples.slice(index, index + 100) } });
  }
  return { store, model };
}

/** In batches, so that OpenFGA and the service are asked a few at a time. */
async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += size) results.push(...(await Promise.all(items.slice(index, index + size).map(run))));
  return results;
}

beforeAll(async () => {
  const { path } = await ensureGoTool(OPENFGA);
  const [http, grpc] = [await freePort(), await freePort()];
  api = `http://127.0.0.1:${http}`;
  openfga = spawn(
    path,
    ["run", "--datastore-engine", "memory", "--http-addr", `127.0.0.1:${http}`, "--grpc-addr", `127.0.0.1:${grpc}`, "--playground-enabled=false", "--metrics-enabled=false", "--log-level", "error"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  openfga.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  for (let tries = 0; ; tries++) {
    const healthy = await fetch(`${api}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (tries > 200 || openfga.exitCode !== null) throw new Error(`OpenFGA did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 900_000);

afterAll(() => {
  openfga?.kill();
  console.log(`fga: ${compared.checks} checks, ${compared.lists} user lists and as many expansions equal to OpenFGA ${OPENFGA.version}'s`);
});

describe.each(Object.entries(MODELS))("the model with %s", (_shape, dsl) => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("answers as OpenFGA does on random tuple set %i: every check, user list and expansion", async (seed) => {
    const model = compileModel(dsl);
    const { tuples, objects, subjects } = randomTuples(model, seed * 7919 + dsl.length);
    const h: Harness = createHarness();
    await h.call("fgaWriteModel", { dsl });
    await h.call("fgaWriteTuples", { tuples });
    const { store, model: modelId } = await openfgaStore(dsl, tuples);

    const questions = objects.flatMap((object) => [...model.get(object.slice(0, object.indexOf(":")))!.relations.keys()].map((relation) => ({ object, relation })));
    const differences: string[] = [];
    await inBatches(questions, 8, async ({ object, relation }) => {
      for (const user of subjects) {
        const theirs = (await call<{ allowed: boolean }>(`/stores/${store}/check`, { authorization_model_id: modelId, tuple_key: { user, relation, object } })).allowed;
        const [ours] = (await h.call("checkPermissions", { user, checks: [{ relation, object }] }, { principal: CHECKER })).results;
        if (ours!.allowed !== theirs) differences.push(`check ${user} ${relation} ${object}: OpenFGA ${theirs}, service ${ours!.allowed}`);
      }
      const listed = await call<{ users: { object?: { type: string; id: string }; wildcard?: { type: string } }[] }>(`/stores/${store}/list-users`, {
        authorization_model_id: modelId,
        object: { type: object.slice(0, object.indexOf(":")), id: object.slice(object.indexOf(":") + 1) },
        relation,
        user_filters: [{ type: "user" }],
      });
      const theirUsers = listed.users.map((user) => (user.wildcard ? `${user.wildcard.type}:*` : `${user.object!.type}:${user.object!.id}`)).sort();
      const ourUsers = (await h.call("fgaListUsers", { object, relation, user_type: "user" })).users;
      if (JSON.stringify(ourUsers) !== JSON.stringify(theirUsers)) differences.push(`list_users ${relation} ${object}: OpenFGA ${theirUsers.join(" ")}, service ${ourUsers.join(" ")}`);
      const expanded = await call<{ tree: unknown }>(`/stores/${store}/expand`, { authorization_model_id: modelId, tuple_key: { relation, object } });
      const ours = (await h.call("fgaExpand", { object, relation })).tree;
      if (JSON.stringify(sortLeaves(ours)) !== JSON.stringify(sortLeaves(expanded.tree)))
        differences.push(`expand ${relation} ${object}: OpenFGA ${JSON.stringify(expanded.tree)}, service ${JSON.stringify(ours)}`);
    });
    compared.checks += questions.length * subjects.length;
    compared.lists += questions.length;
    expect(differences.slice(0, 10), `${differences.length} differences (${questions.length} questions, ${tuples.length} tuples)`).toEqual([]);
  });
});

/** An expansion tree with every list of subjects sorted (OpenFGA's datastore decides their order). */
function sortLeaves(tree: unknown): unknown {
  if (Array.isArray(tree)) return tree.every((item) => typeof item === "string") ? [...tree].sort() : tree.map(sortLeaves);
  if (tree && typeof tree === "object") {
    const entries = Object.entries(tree as Record<string, unknown>).map(([key, value]) => [
      key,
      key === "computed" && Array.isArray(value) ? [...value].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : sortLeaves(value),
    ]);
    return Object.fromEntries(entries);
  }
  return tree;
}
