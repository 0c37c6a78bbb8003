// Types other tools generate from the contracts agree with the generated types, checked by tsc for
// every operation's input and answer: the TypeScript of graphql-codegen (with the scalar mapping of
// generated/graphql/codegen.yml) and of openapi-typescript. The server's types (generated/types.ts)
// and the SDK's inputs agree with them both ways. The SDK's answers are open to what a newer service
// adds: every contract's answer is one of them, and with its open parts taken away (the index
// signature of unknown fields, the enums' `string & {}`) the SDK's answer agrees both ways too.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODEGEN_CONFIG_PATH, GRAPHQL_SCHEMA_PATH } from "../../generators/emit/graphql.js";
import { OPENAPI_PATH } from "../../generators/emit/openapi.js";
import { graphqlDocument } from "../../generators/emit/operation-text.js";
import { SDK_TYPES_MODULE, TYPES_MODULE } from "../../generators/emit/typescript.js";
import { loadIr } from "../../generators/generate.js";
import { REPO_ROOT } from "../helpers/project.js";

const run = promisify(execFile);
const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);
const ir = loadIr(REPO_ROOT);
let dir: string;

async function exec(command: string, args: string[]): Promise<void> {
  try {
    await run(command, args, { cwd: dir, timeout: 180_000, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}`.slice(0, 8000));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "contract-types-"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "junction");
  cpSync(join(REPO_ROOT, GRAPHQL_SCHEMA_PATH), join(dir, "schema.graphql"));
  cpSync(join(REPO_ROOT, CODEGEN_CONFIG_PATH), join(dir, "codegen.yml"));
  mkdirSync(join(dir, "src"));
  for (const op of ir.operations.filter((o) => o.graphql)) writeFileSync(join(dir, "src", `${op.name}.graphql`), `${graphqlDocument(ir, op)}\n`);
  await Promise.all([
    exec(bin("graphql-codegen"), ["--config", "codegen.yml"]),
    exec(bin("openapi-typescript"), [join(REPO_ROOT, OPENAPI_PATH), "-o", "openapi.ts", "--default-non-nullable", "false"]),
  ]);
}, 240_000);
afterAll(() => {
  if (dir && !process.env.KEEP_CONTRACT_TYPES) rmSync(dir, { recursive: true, force: true });
});

describe("types generated from the contracts by third-party tools", () => {
  it("agree with the generated types for every operation: both ways, the SDK's answers wider by their open parts alone (tsc)", async () => {
    const codegen = readFileSync(join(dir, "src", "graphql-types.ts"), "utf8");
    // graphql-codegen names each operation's types itself: find them by the root field they select.
    const operationType = (field: string) => new RegExp(`export type (\\w+(?:Query|Mutation)) = \\{ ${field}: `).exec(codegen)?.[1];
    const module = (path: string) => JSON.stringify(join(REPO_ROOT, path).replace(/\.ts$/, ".js"));
    const lines = [
      `import type * as G from "./src/graphql-types.js";`,
      `import type { paths } from "./openapi.js";`,
      `import type * as D from ${module(TYPES_MODULE)};`,
      `import type * as T from ${module(SDK_TYPES_MODULE)};`,
      "type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
      "type Assert<Check extends true> = Check;",
      // The enums' open member, string & {}: told from string (assignable both ways) by identity.
      "type OpenMember<M> = (<X>() => X extends M ? 1 : 2) extends (<X>() => X extends string & {} ? 1 : 2) ? true : false;",
      // An answer of the SDK without its open parts: its declared fields alone, their values closed.
      "type Declared<O> = { [K in keyof O as string extends K ? never : number extends K ? never : K]: Closed<O[K]> };",
      // A value without its open parts: an enum without string & {}; an object with an index signature of unknown and a declared field is an answer (a JSON object or a map declares none).
      "type Closed<V> = V extends readonly (infer Item)[] ? Closed<Item>[] : V extends string ? (OpenMember<V> extends true ? never : V) : V extends object ? (V extends { [field: string]: infer Value } ? (unknown extends Value ? ([keyof Declared<V>] extends [never] ? V : Declared<V>) : V) : V) : V;",
      // An answer of the SDK: wider than the contract's by its open parts alone. At the top an answer is never a JSON object: its index signature goes even where it declares no field.
      "type Answer<Contract, Sdk> = [Contract] extends [Sdk] ? Mutual<Contract, Declared<Sdk>> : false;",
    ];
    let checks = 0;
    for (const op of ir.operations) {
      const output = op.output.graphqlName;
      const input = op.input.graphqlInputName;
      if (op.graphql) {
        const name = operationType(op.name);
        expect(name, `codegen type of ${op.name}`).toBeDefined();
        lines.push(`type G_${op.name} = Assert<Mutual<G.${name}[${JSON.stringify(op.name)}], D.${output}>>;`);
        lines.push(`type GA_${op.name} = Assert<Answer<G.${name}[${JSON.stringify(op.name)}], T.${output}>>;`);
        checks += 2;
        if (op.graphql.argument) {
          lines.push(`type GV_${op.name} = Assert<Mutual<G.${name}Variables["params"], ${op.graphql.argument.required ? "" : "null | undefined | "}T.${input}>>;`);
          checks++;
        }
      }
      if (op.rest) {
        const route = `paths[${JSON.stringify(op.rest.path)}][${JSON.stringify(op.rest.method.toLowerCase())}]`;
        // A browser's route answers 302, its Location the output's one field.
        if (op.rest.answer === "redirect") {
          lines.push(`type R_${op.name} = Assert<Mutual<NonNullable<${route}["responses"][302]["headers"]["Location"]>, D.${output}["location"]>>;`);
          lines.push(`type RA_${op.name} = Assert<Mutual<NonNullable<${route}["responses"][302]["headers"]["Location"]>, T.${output}["location"]>>;`);
        } else {
          lines.push(`type R_${op.name} = Assert<Mutual<${route}["responses"][200]["content"]["application/json"], D.${output}>>;`);
          lines.push(`type RA_${op.name} = Assert<Answer<${route}["responses"][200]["content"]["application/json"], T.${output}>>;`);
        }
        checks += 2;
        if (op.rest.method === "POST" && op.input.fields.length > 0) {
          lines.push(`type RV_${op.name} = Assert<Mutual<NonNullable<${route}["requestBody"]>["content"]["application/json"], T.${input}>>;`);
          checks++;
        }
      }
    }
    writeFileSync(join(dir, "check.ts"), `${lines.join("\n")}\n`);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", skipLibCheck: true, noUnusedLocals: false },
        files: ["check.ts"],
      }),
    );
    await exec(bin("tsc"), ["-p", "tsconfig.json"]);
    expect(checks).toBeGreaterThan(ir.operations.length * 4);
  });
});
