// The Go SDK's own checks, run by `npm test`: gofmt and go vet on the generated module and the Go
// tests, a tidy go.mod with a complete go.sum, the Go test suite of its runtime (test/go/sdk, fed
// with the status mapping of the TypeScript runtime), the view model's names and layout, and the
// templates compiled from source against the committed files.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDescriptors } from "../../generators/emit/proto-descriptors.js";
import { planProto } from "../../generators/emit/proto-plan.js";
import { buildIr } from "../../generators/ir/build-ir.js";
import { emitGo, emitGoDescriptors, goKeyedLines, goSpecLines } from "../../generators/sdk/go.js";
import { GO_TRANSPORT_DIR, goClientPlaceholder, goExportedDeclarations, goName, goNames, goRuntimeDeclarations } from "../../generators/sdk/go-names.js";
import { buildSdkFacts } from "../../generators/sdk/sdk-facts.js";
import { loadIr } from "../../generators/generate.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { render } from "../../generators/write/writer.js";
import { codeOfGrpcStatus, codeOfHttpStatus } from "../../runtime/errors.js";
import { GO_TEST_MODULE, goToolchain } from "../../scripts/go-env.mjs";
import { apigen, namedSurfacesManifest, projectWithManifest, readFixture, REPO_ROOT } from "../helpers/project.js";

const exec = promisify(execFile);
const ir = loadIr(REPO_ROOT);
const facts = buildSdkFacts(ir);
const MODULE = join(REPO_ROOT, "generated", "go");
const TESTS = join(REPO_ROOT, GO_TEST_MODULE);
const timings: Record<string, number> = {};
const temporary: string[] = [];

/** Runs a Go tool; resolves with its exit code and output whatever the exit code. */
async function tool(label: string, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env: { ...goToolchain().env, ...env }, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

const go = (label: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => tool(label, goToolchain().go, args, cwd, { GOFLAGS: "-mod=readonly", ...env });

/**
 * What a Go tool found: its output without the progress lines the go command prints while it fills a
 * cold module cache ("go: downloading ..."), which say nothing about the code.
 */
function goFindings(output: string): string {
  return output
    .split("\n")
    .filter((line) => !/^go: (downloading|finding module|extracting) /.test(line))
    .join("\n")
    .trim();
}

let gofmt: string;

/**
 * The Go examples of a generated module's README, each a program of its own (package main), in a
 * consumer module that requires the generated one through a `replace` directive: gofmt-clean, and
 * passing go vet (which type-checks them against the module's API).
 */
async function checkReadmeExamples(module: string, label: string): Promise<number> {
  const blocks = [...readFileSync(join(module, "README.md"), "utf8").matchAll(/```go\n([\s\S]*?)\n```/g)].map((m) => `${m[1]!}\n`);
  const goMod = readFileSync(join(module, "go.mod"), "utf8");
  const path = /^module (\S+)$/m.exec(goMod)![1]!;
  const dir = mkdtempSync(join(tmpdir(), "apigen-go-readme-"));
  temporary.push(dir);
  // The module's own requirements (gRPC, protobuf), which the examples may import too.
  const requirements = goMod.slice(goMod.indexOf("\nrequire"));
  // A version of the module path's major version (/v2: v2.0.0), which the replace directive stands for.
  const version = `v${/\/v(\d+)$/.exec(path)?.[1] ?? "0"}.0.0`;
  writeFileSync(join(dir, "go.mod"), `module example.com/readme\n\ngo 1.23.0\n\nrequire ${path} ${version}\n${requirements}\nreplace ${path} => ${module}\n`);
  copyFileSync(join(module, "go.sum"), join(dir, "go.sum"));
  blocks.forEach((code, i) => {
    expect(code, `${label} README example ${i + 1} is a program`).toMatch(/^package main\n/);
    mkdirSync(join(dir, `example${i + 1}`));
    writeFileSync(join(dir, `example${i + 1}`, "main.go"), code);
  });
  const formatted = await tool(`gofmt README ${label}`, gofmt, ["-l", dir], dir);
  expect(formatted.output.trim(), `${label}: README examples gofmt would change`).toBe("");
  const vetted = await go(`vet README ${label}`, ["vet", "./..."], dir);
  expect(goFindings(vetted.output), `${label}: go vet of the README's examples`).toBe("");
  expect(vetted.code).toBe(0);
  return blocks.length;
}

beforeAll(async () => {
  const { output } = await go("go env", ["env", "GOROOT"], REPO_ROOT);
  gofmt = join(output.trim(), "bin", "gofmt");
  // Fetch both modules' dependencies first, so that on a cold module cache the checks below judge the
  // code, not the download; a fetch that fails fails here with the go command's own words.
  for (const dir of [MODULE, TESTS]) {
    const fetched = await go(`mod download ${dir === MODULE ? "module" : "tests"}`, ["mod", "download"], dir);
    expect(fetched.code, `go mod download in ${dir}:\n${fetched.output}`).toBe(0);
  }
}, 600_000);

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  console.log(`go test steps (ms): ${JSON.stringify(timings)}`);
});

describe("the generated Go module", () => {
  it("is gofmt-clean, and so are the Go tests", async () => {
    const result = await tool("gofmt", gofmt, ["-l", MODULE, TESTS], REPO_ROOT);
    expect(result.output.trim(), "files gofmt would change").toBe("");
    expect(result.code).toBe(0);
  });

  it("passes go vet, and so do the Go tests", async () => {
    const [module, tests] = await Promise.all([go("vet module", ["vet", "./..."], MODULE), go("vet tests", ["vet", "./..."], TESTS)]);
    expect(goFindings(module.output)).toBe("");
    expect(module.code).toBe(0);
    expect(goFindings(tests.output)).toBe("");
    expect(tests.code).toBe(0);
  }, 240_000);

  it("has a tidy go.mod and the complete go.sum of its pinned dependencies", async () => {
    for (const dir of [MODULE, TESTS]) {
      const tidy = await go(`tidy ${dir === MODULE ? "module" : "tests"}`, ["mod", "tidy", "-diff"], dir, { GOFLAGS: "" });
      expect(goFindings(tidy.output), `go mod tidy -diff in ${dir}`).toBe("");
      expect(tidy.code).toBe(0);
    }
    const verified = await go("mod verify", ["mod", "verify"], MODULE);
    expect(goFindings(verified.output)).toBe("all modules verified");
  }, 120_000);

  it("passes the Go test suite of its runtime, mapping statuses as the TypeScript runtime does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apigen-go-facts-"));
    temporary.push(dir);
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
    const statusFacts = join(dir, "status-facts.json");
    writeFileSync(
      statusFacts,
      JSON.stringify({
        http: Object.fromEntries(range(100, 600).map((status) => [status, codeOfHttpStatus(status)])),
        grpc: Object.fromEntries(range(0, 17).map((status) => [status, codeOfGrpcStatus(status)])),
        grpcBare: facts.errors.grpcBareStatuses,
        grpcNoAnswerStatuses: facts.errors.grpcNoAnswerStatuses,
        grpcUnreadableStatuses: facts.errors.grpcUnreadableStatuses,
      }),
    );
    const result = await go("go test", ["test", "-v", "./sdk/"], TESTS, { SDK_STATUS_FACTS: statusFacts });
    expect(result.output, result.output).not.toMatch(/--- FAIL|--- SKIP|^FAIL/m);
    expect(result.output).toMatch(/^ok\s+\S+\/sdk/m);
    expect(result.output.match(/^--- PASS/gm)?.length ?? 0).toBeGreaterThanOrEqual(20);
    expect(result.code).toBe(0);
  }, 300_000);

  it("built with -tags identity_nogrpc, links neither grpc nor protobuf, calls over REST and GraphQL and refuses a gRPC client", async () => {
    const [deps, vetted, tested] = await Promise.all([
      go("list -deps nogrpc", ["list", "-deps", "-tags", "identity_nogrpc", "."], MODULE),
      go("vet nogrpc", ["vet", "-tags", "identity_nogrpc", "./..."], MODULE),
      go("test nogrpc", ["test", "-v", "-tags", "identity_nogrpc", "./nogrpc/"], TESTS),
    ]);
    expect(deps.code, deps.output).toBe(0);
    const linked = deps.output.split("\n");
    expect(linked).toContain("github.com/identity-interface/identity-go/v2/internal/transport");
    expect(linked.filter((name) => name === "google.golang.org/grpc" || name.startsWith("google.golang.org/grpc/credentials") || name.startsWith("google.golang.org/protobuf/"))).toEqual([]);
    // Without the tag, the same listing has them: the check can fail.
    const full = await go("list -deps", ["list", "-deps", "."], MODULE);
    expect(full.output.split("\n")).toEqual(expect.arrayContaining(["google.golang.org/grpc", "google.golang.org/protobuf/types/dynamicpb"]));
    expect(goFindings(vetted.output)).toBe("");
    expect(vetted.code).toBe(0);
    expect(tested.output, tested.output).toMatch(/^--- PASS: TestCallsOverRESTAndGraphQL/m);
    expect(tested.output).toMatch(/^--- PASS: TestAClientOverGRPCIsRefusedNamingTheTag/m);
    expect(tested.code).toBe(0);
  }, 300_000);

  it("has a README whose every example compiles, as the bookstore's does", async () => {
    // Use, Errors, Timeouts, Pagination, Logging, Middleware, Raw responses, Forward compatibility, Configuration from the environment.
    expect(await checkReadmeExamples(MODULE, "identity")).toBe(9);
    expect(await checkReadmeExamples(join(REPO_ROOT, "examples", "bookstore", "generated", "go"), "bookstore")).toBe(9);
  }, 240_000);

  it("documents the fields of APIError where go doc shows them", async () => {
    const doc = await go("go doc APIError", ["doc", ".", "APIError"], MODULE);
    expect(doc.code, doc.output).toBe(0);
    for (const field of ["Code ErrorCode", "Message string", "Operation string", "Protocol Protocol", "HTTPStatus int", "RetryAfter time.Duration", "Refused bool"]) {
      expect(doc.output).toMatch(new RegExp(`// .+\\n\\t${field.replace(".", "\\.")}\\n`));
    }
  });

  it("is the module test/go builds against", () => {
    const goMod = readFileSync(join(TESTS, "go.mod"), "utf8");
    expect(goMod).toContain(`\t${ir.api.go.modulePath} v${ir.api.version}\n`);
    expect(goMod).toContain(`replace ${ir.api.go.modulePath} => ../../generated/go\n`);
  });
});

describe("the Go view model", () => {
  it("writes exported names with Go's initialisms and the manifest's acronyms", () => {
    const initialisms = new Set(["ID", "URL", "OIDC", "SAML", "JWKS", "HTTP"]);
    expect(["client_id", "jwks_url", "idp_sso_url", "http_status", "is_org_oidc_enabled", "HS256", "access_token", "identifier"].map((w) => goName(w, initialisms))).toEqual([
      "ClientID",
      "JWKSURL",
      "IdpSsoURL",
      "HTTPStatus",
      "IsOrgOIDCEnabled",
      "HS256",
      "AccessToken",
      "Identifier",
    ]);
  });

  it("lays out keyed literals and const groups exactly as gofmt does", async () => {
    const keys = ["a", "name", "defaultsClientID", "averyveryveryverylongkeythatgoespastfortychars", "b", "multi", "c", "dd"];
    const literal = goKeyedLines(
      keys.map((key) => ({ key, value: key === "multi" ? "[]int{\n\t\t1,\n\t}" : `"${key}"` })),
      "\t",
    );
    const specs = goSpecLines(
      [
        { name: "short", value: `"x"` },
        { name: "muchLongerName", value: "2" },
      ],
      "\t",
    );
    const source = `package p\n\nvar m = map[string]any{\n${literal.join("\n")}\n}\n\nconst (\n${specs.join("\n")}\n)\n`;
    const dir = mkdtempSync(join(tmpdir(), "apigen-gofmt-"));
    temporary.push(dir);
    writeFileSync(join(dir, "p.go"), source);
    const result = await tool("gofmt layout", gofmt, ["-d", join(dir, "p.go")], dir);
    expect(result.output, "gofmt -d").toBe("");
  });

  it("refuses a manifest whose names would collide in Go, and writes nothing", () => {
    const manifest = readFixture("minimal.yaml").replace(/^types:\n/m, "types:\n  APIError:\n    description: Clashes with the error type of the Go runtime.\n    fields:\n      id: string!\n");
    expect(manifest).toContain("APIError:");
    const root = projectWithManifest(manifest);
    temporary.push(root);
    const result = apigen(root, "generate");
    expect(result.stderr).toContain("the Go name APIError of type APIError is taken by the runtime; rename one in the manifest");
    expect(result.code).not.toBe(0);
    expect(existsSync(join(root, "generated")), "files written by a failed generate").toBe(false);
  });
});

describe("the names the runtime takes, read from the templates", () => {
  /** A copy of the minimal manifest with `operations` added before its own. */
  const withOperations = (operations: string) => readFixture("minimal.yaml").replace(/^operations:\n/m, `operations:\n${operations}`);
  const namesOf = (manifest: string) => {
    const mini = buildIr(loadManifestText(manifest), emptyLock());
    return () => goNames(mini, buildSdkFacts(mini));
  };
  const operation = (name: string, surface: string) =>
    `  ${name}:\n    surface: ${surface}\n    group: users\n    description: Collides in Go.\n    kind: write\n    auth: public\n    protocols: { graphql: 2.3.0-rc.9 }\n    input:\n      id: string!\n    output: Response\n`;

  it("are every exported name Go finds in the generated packages, besides the manifest's", async () => {
    // go/ast over the generated files: each exported top-level name, and each exported method as Receiver.Method.
    const dir = mkdtempSync(join(tmpdir(), "apigen-go-decls-"));
    temporary.push(dir);
    writeFileSync(join(dir, "go.mod"), "module decls\n\ngo 1.23.0\n");
    writeFileSync(
      join(dir, "main.go"),
      `package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

func main() {
	for _, path := range os.Args[1:] {
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			panic(err)
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					fmt.Println(d.Name.Name)
				} else if d.Name.IsExported() {
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					fmt.Println(typ.(*ast.Ident).Name + "." + d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						fmt.Println(s.Name.Name)
					case *ast.ValueSpec:
						for _, name := range s.Names {
							fmt.Println(name.Name)
						}
					}
				}
			}
		}
	}
}
`,
    );
    const runtime = goRuntimeDeclarations();
    const names = goNames(ir, facts);
    const goFiles = (sub: string) =>
      emitGo(ir)
        .map((f) => f.path)
        .filter((path) => path.endsWith(".go") && path.slice(0, path.lastIndexOf("/")) === join("generated/go", sub).replace(/\/$/, ""));
    const exportedIn = async (sub: string) => {
      const listed = await go(`decls ${sub || "public"}`, ["run", ".", ...goFiles(sub).map((path) => join(REPO_ROOT, path))], dir, { GOFLAGS: "" });
      expect(listed.code, listed.output).toBe(0);
      return new Set(listed.output.split("\n").filter((name) => /^[A-Z]/.test(name) || /\.[A-Z]/.test(name)));
    };

    const publicNames = await exportedIn("");
    const publicRuntime = runtime.get("")!;
    const generated = new Set([
      ...names.struct.values(),
      ...names.enumType.values(),
      ...[...names.enumValues.values()].flat(),
      ...names.codes.flatMap((c) => [c.constant, c.sentinel]),
      ...names.clients.flatMap((c) => c.methods.flatMap((m) => [`${c.name}.${m.name}`, ...(m.iterator ? [`${c.name}.${m.iterator}`] : []), ...(m.pages ? [`${c.name}.${m.pages}`] : [])])),
      // Every answer struct's RawJSON (types.go.hbs).
      ...facts.messages.filter((m) => m.usedAsOutput).map((m) => `${names.struct.get(m.name)!}.RawJSON`),
      // The clients' structs and the admin client's constructor, named by the manifest (api.surfaces).
      ...names.clients.flatMap((c) => [c.name, ...(c.constructor === "NewClient" ? [] : [c.constructor])]),
      // The option functions, from the table of client options.
      ...names.options,
    ]);
    // The runtime's methods of a client are declared on its placeholder (*{{adminClient}}), rendered as the manifest names it.
    const receiverName = new Map(names.clients.map((c) => [goClientPlaceholder(c.role), c.name]));
    const runtimeNames = new Set([
      ...publicRuntime.names.keys(),
      ...[...publicRuntime.methods].flatMap(([receiver, methods]) => [...methods.keys()].map((m) => `${receiverName.get(receiver) ?? receiver}.${m}`)),
    ]);
    expect(
      [...publicNames].filter((name) => !runtimeNames.has(name) && !generated.has(name)),
      "exported by the public package, and neither read from the templates nor generated",
    ).toEqual([]);
    expect(
      [...generated].filter((name) => !publicNames.has(name)),
      "generated names missing from the package",
    ).toEqual([]);
    expect(publicRuntime.names.has("DefaultTimeout") && publicRuntime.methods.get(goClientPlaceholder("user"))?.has("SetAccessToken")).toBe(true);

    const transportNames = await exportedIn(GO_TRANSPORT_DIR);
    const transportRuntime = runtime.get(GO_TRANSPORT_DIR)!;
    const operationVars = new Set(names.clients.flatMap((c) => c.methods.map((m) => m.opVar)));
    const transportDeclared = new Set([...transportRuntime.names.keys(), ...[...transportRuntime.methods].flatMap(([receiver, methods]) => [...methods.keys()].map((m) => `${receiver}.${m}`))]);
    expect(
      [...transportNames].filter((name) => !transportDeclared.has(name) && !operationVars.has(name)),
      "exported by the transport package, and neither read from the templates nor generated",
    ).toEqual([]);
  }, 120_000);

  it("are the exported names a template writes out, under every condition, and none it renders from the view", () => {
    const template = [
      "package {{package}}",
      "",
      "// Doc of func Commented() mentions type Hidden.",
      "type {{name}} struct{}",
      "{{#if features.apiKey}}",
      "func WithKey(key string) Option { return nil }",
      "{{/if}}",
      "func (c *Client) Close() error { return nil }",
      "func (c *{{../name}}) {{name}}() {}",
      "func Ptr[T any](v T) *T { return &v }",
      "type Alias = other.Type",
      "const (",
      "\tFirst, Second = 1, 2",
      "\t{{name}} Code = {{value}}",
      "\tunexported = 3",
      ")",
      "var raw = `",
      "func NotCode() {}",
      "`",
      'var Single = "`"',
    ].join("\n");
    expect(goExportedDeclarations(template)).toEqual({
      names: ["WithKey", "Ptr", "Alias", "First", "Second", "Single"],
      methods: [{ receiver: "Client", name: "Close" }],
    });
  });

  it("stop a manifest type that takes one, naming the template that declares it", () => {
    const manifest = readFixture("minimal.yaml").replace(/^types:\n/m, "types:\n  DefaultTimeout:\n    fields:\n      id: string!\n");
    expect(namesOf(manifest)).toThrow("the Go name DefaultTimeout of type DefaultTimeout is taken by the runtime; rename one in the manifest (the runtime declares it in templates/go/client.go.hbs)");
  });

  it("stop an operation whose method the client's runtime has, and only on that client", () => {
    expect(namesOf(withOperations(operation("close", "admin")))).toThrow(
      "the Go method of operation 'close' would be AdminClient.Close, which the client has already; rename the operation in the manifest (the runtime declares it in templates/go/client.go.hbs)",
    );
    expect(namesOf(withOperations(operation("set_access_token", "user")))).toThrow("would be UserClient.SetAccessToken, which the client has already");
    // The admin client has no SetAccessToken of its own: the operation takes the name.
    expect(namesOf(withOperations(operation("set_access_token", "admin")))().clients[0]!.methods.map((m) => m.name)).toContain("SetAccessToken");
  });
});

describe("modules generated from other manifests", () => {
  it("are gofmt-clean and pass go vet (a minimal manifest, fields named like keywords, an API with admin operations only, surfaces named by the manifest)", async () => {
    // admin-only: minimal.yaml with its one user operation moved to the admin surface, so the module has no UserClient.
    const manifests: Record<string, string> = {
      "minimal.yaml": readFixture("minimal.yaml"),
      "python-keywords.yaml": readFixture("python-keywords.yaml"),
      "admin-only": readFixture("minimal.yaml").replace(/(\n {2}meta:\n {4}surface: )user/, "$1admin"),
      "named-surfaces": namedSurfacesManifest(),
    };
    expect(manifests["admin-only"]).not.toBe(manifests["minimal.yaml"]);
    for (const [fixture, manifest] of Object.entries(manifests)) {
      const root = projectWithManifest(manifest);
      temporary.push(root);
      expect(apigen(root, "generate").code, fixture).toBe(0);
      const module = join(root, "generated", "go");
      const formatted = await tool(`gofmt ${fixture}`, gofmt, ["-l", module], root);
      expect(formatted.output.trim(), `${fixture}: files gofmt would change`).toBe("");
      const vetted = await go(`vet ${fixture}`, ["vet", "./..."], module);
      expect(goFindings(vetted.output), fixture).toBe("");
      expect(vetted.code).toBe(0);
      await checkReadmeExamples(module, fixture);
      if (fixture === "admin-only") expect(readFileSync(join(module, "client.go"), "utf8")).not.toMatch(/UserClient|\bOption func/);
      if (fixture === "named-surfaces") {
        const client = readFileSync(join(module, "client.go"), "utf8");
        expect(client).toMatch(/^type OwnerClient struct \{$/m);
        expect(client).toMatch(/^func NewClient\(serviceURL string, opts \.\.\.Option\) \(\*ShopClient, error\) \{$/m);
      }
    }
  }, 240_000);
});

describe("the templates", () => {
  it("compiled from source render exactly the committed files the bundled CLI wrote with them precompiled", () => {
    const files = [...emitGo(ir), ...emitGoDescriptors(buildDescriptors(planProto(ir)), "any hash").produce()];
    const rendered = render(REPO_ROOT, files).files;
    expect(files.length).toBeGreaterThan(15);
    for (const file of files) expect(rendered.get(file.path), file.path).toBe(readFileSync(join(REPO_ROOT, file.path), "utf8"));
  });
});
