// The table of client options (generators/sdk/client-options.ts) is the one place an option is
// declared: the options tables of docs/ are what it writes (APIGEN_UPDATE_DOCS=1 rewrites them), the
// generated Python constructors and Go option functions are exactly its entries, and an option of
// the TypeScript runtime without an entry does not compile.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadIr } from "../../generators/generate.js";
import {
  CLIENT_OPTIONS,
  goOptions,
  goOptionsTable,
  pythonOptions,
  pythonOptionsTable,
  typescriptOptionsTable,
  type ClientOptionKey,
  type ClientOptionSpec,
} from "../../generators/sdk/client-options.js";
import { buildSdkFacts } from "../../generators/sdk/sdk-facts.js";
import { REPO_ROOT } from "../helpers/project.js";

const ir = loadIr(REPO_ROOT);
const facts = buildSdkFacts(ir);
const clients = ir.clients.map((c) => ({ role: c.role, name: `\`${c.name}\`` }));

// An option the runtime's ClientConfig declares without an entry in the table does not compile.
// @ts-expect-error the entries of every other option are missing
const incomplete: Record<ClientOptionKey, ClientOptionSpec> = { serviceUrl: CLIENT_OPTIONS.serviceUrl };
void incomplete;

const DOC_TABLES = {
  typescript: { file: "docs/typescript.md", table: () => typescriptOptionsTable(facts, clients) },
  python: { file: "docs/python.md", table: () => pythonOptionsTable(facts, clients) },
  go: { file: "docs/go.md", table: () => goOptionsTable(facts, clients) },
};

describe("the table of client options", () => {
  for (const [language, { file, table }] of Object.entries(DOC_TABLES)) {
    it(`writes the options table of ${file}`, () => {
      const path = join(REPO_ROOT, file);
      const text = readFileSync(path, "utf8");
      const section = new RegExp(`(<!-- options: ${language}, from generators/sdk/client-options.ts -->\\n)([\\s\\S]*?)(\\n<!-- /options -->)`);
      expect(section.test(text), `${file} has no options section for ${language}`).toBe(true);
      const written = text.replace(section, (_, open: string, _table: string, close: string) => `${open}${table()}${close}`);
      if (process.env.APIGEN_UPDATE_DOCS === "1") writeFileSync(path, written);
      else expect(text, `${file}'s options table is stale: run APIGEN_UPDATE_DOCS=1 npx vitest run test/sdk/client-options.test.ts`).toBe(written);
    });
  }

  it("declares in each generated Python client exactly the keywords of its entries", () => {
    const clientsModule = readFileSync(join(REPO_ROOT, "generated/python/src/identity_sdk/_clients.py"), "utf8");
    for (const client of ir.clients) {
      for (const [name, sync] of [
        [client.name, true],
        [`Async${client.name}`, false],
      ] as const) {
        const init = new RegExp(`class ${name}\\([^)]*\\):[\\s\\S]*?def __init__\\(\\s*self,\\s*\\*,([\\s\\S]*?)\\) -> None:`).exec(clientsModule);
        expect(init, `no constructor of ${name}`).not.toBeNull();
        const keywords = [...init![1]!.matchAll(/^\s*([a-z_]+):/gm)].map((m) => m[1]);
        expect(keywords, name).toEqual(pythonOptions({ facts, role: client.role, sync }).map((o) => o.name));
      }
    }
  });

  it("declares in the generated Go client exactly the option functions of its entries", () => {
    // Those of grpc's types in grpc.go, which a build without gRPC leaves out.
    const clientGo = ["client.go", "grpc.go"].map((file) => readFileSync(join(REPO_ROOT, "generated/go", file), "utf8")).join("\n");
    const declared = [...clientGo.matchAll(/^func (With\w+)\(.*\) (Option|AdminOption) \{/gm)].map((m) => m[1]);
    const expected = ir.clients.flatMap((c) => goOptions({ facts, role: c.role, sync: true }).map((o) => o.function));
    expect(declared.sort()).toEqual(expected.sort());
    expect(expected).toContain("WithAdminTimeout");
    expect(expected).toContain("WithTimeout");
  });

  it("leaves out the forms of features the API does not use", () => {
    const noOrgAdmin = { ...facts, features: { ...facts.features, orgAdmin: false, apiKey: false } };
    expect(pythonOptions({ facts: noOrgAdmin, role: "admin", sync: true }).map((o) => o.name)).not.toContain("access_token");
    expect(goOptions({ facts: noOrgAdmin, role: "admin", sync: true }).map((o) => o.function)).not.toContain("WithAdminAccessToken");
    const withApiKey = { ...facts, features: { ...facts.features, apiKey: true }, apiKeySchemes: ["partner_key"] };
    expect(goOptions({ facts: withApiKey, role: "user", sync: true }).find((o) => o.function === "WithAPIKey")?.doc).toContain("partner_key");
  });
});
