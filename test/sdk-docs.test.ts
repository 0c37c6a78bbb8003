// Every contract states the server's rules, the SDKs' doc comments included: each rule of an input
// field, and each rule spanning an operation's fields, appears in the generated TypeScript types,
// the Python SDK and the Go SDK, in the same words (emitters/rules.ts says them once). The SDK
// READMEs and package docs show the manifest's own operations, whichever API it describes.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIr } from "../generators/ir/build-ir.js";
import { emitGo } from "../generators/sdk/go.js";
import { emitPython } from "../generators/sdk/python.js";
import { fieldRuleSentences, operationRuleSentences } from "../generators/emit/rules.js";
import { loadIr } from "../generators/generate.js";
import { loadManifestText } from "../generators/load/load.js";
import { emptyLock } from "../generators/load/lock.js";
import { readFixture, REPO_ROOT } from "./helpers/project.js";

/** A generated file's text with comment markers and line breaks folded away, so wrapped sentences read whole. */
function prose(path: string): string {
  return readFileSync(join(REPO_ROOT, path), "utf8")
    .replace(/\n[ \t]*(\/\/|\*|#)?[ \t]*/g, " ")
    .replace(/\s+/g, " ");
}

const ir = loadIr(REPO_ROOT);
const sdks = {
  typescript: prose("generated/types.ts"),
  // The types and the methods, one module per group in each of types/ and resources/.
  python: ["types", "resources"]
    .flatMap((folder) =>
      readdirSync(join(REPO_ROOT, "generated/python/src/identity_sdk", folder))
        .filter((file) => file.endsWith(".py"))
        .map((file) => prose(`generated/python/src/identity_sdk/${folder}/${file}`)),
    )
    .join(" "),
  go: prose("generated/go/types.go") + prose("generated/go/methods.go"),
};

describe("the SDKs' doc comments", () => {
  const fieldRules = [...new Set(ir.messages.filter((m) => m.usedAsInput).flatMap((m) => m.fields.flatMap((f) => fieldRuleSentences(ir, f))))];
  const operationRules = [...new Set(ir.operations.flatMap(operationRuleSentences))];

  it.each(Object.keys(sdks) as (keyof typeof sdks)[])("%s states every rule of every input field", (language) => {
    expect(fieldRules.length).toBeGreaterThan(20);
    const missing = fieldRules.filter((sentence) => !sdks[language].includes(sentence));
    expect(missing).toEqual([]);
  });

  it.each(["python", "go"] as const)("%s states every rule spanning an operation's fields", (language) => {
    expect(operationRules.length).toBeGreaterThan(3);
    const missing = operationRules.filter((sentence) => !sdks[language].includes(sentence));
    expect(missing).toEqual([]);
  });
});

describe("the SDK READMEs and package docs of another API", () => {
  // The minimal manifest: a paginated users list, a meta read answering the version, admin_signup on GraphQL only.
  const files = new Map(
    [...emitGo(buildIr(loadManifestText(readFixture("minimal.yaml")), emptyLock())), ...emitPython(buildIr(loadManifestText(readFixture("minimal.yaml")), emptyLock()))].map((f) => [
      f.path,
      f.content,
    ]),
  );
  const goReadme = files.get("generated/go/README.md")!;
  const goDoc = files.get("generated/go/doc.go")!;
  const pythonReadme = files.get("generated/python/README.md")!;
  const pythonInit = files.get("generated/python/src/mini_sdk/__init__.py")!;

  it("show its own operations, with the names each language gives them", () => {
    expect(goReadme).toContain("for user, err := range admin.AllUsers(ctx, &mini.UsersInput{}) { // every page");
    expect(goReadme).toContain("fmt.Println(user.ID, user.CreatedAt)");
    // No NOT_FOUND read in this manifest: no lookup example, and no import only it would use.
    expect(goReadme).not.toContain('"errors"');
    expect(goReadme).toContain("`delete_org_oidc_connection` is `DeleteOrgOIDCConnection`");
    expect(goReadme).toContain("(`AdminSignup not available over rest; use graphql`)");
    expect(goDoc).toContain("for user, err := range admin.AllUsers(ctx, &mini.UsersInput{}) { // every page");
    expect(pythonReadme).toContain('page = admin.users(pagination={"limit": 20, "page": 1})');
    expect(pythonReadme).toContain("async for user in admin.iter_users():\n            print(user.email)");
    expect(pythonReadme).toContain("(`AdminSignup not available over rest; use graphql`)");
  });

  it("name nothing of the identity API", () => {
    for (const [path, text] of [
      ["go/README.md", goReadme],
      ["go/doc.go", goDoc],
      ["python/README.md", pythonReadme],
      ["python/__init__.py", pythonInit],
    ]) {
      expect(text, path).not.toMatch(/AdminMeta|admin_meta|GetOrganization|organization|identity/i);
    }
  });
});
