// The Python SDK's own checks, run by `npm test`: mypy --strict and ruff on the generated package,
// and a package generated from a manifest whose fields are named like Python keywords.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIr } from "../../generators/generate.js";
import { buildDescriptors } from "../../generators/emit/proto-descriptors.js";
import { planProto } from "../../generators/emit/proto-plan.js";
import { emitPython, emitPythonDescriptors } from "../../generators/sdk/python.js";
import { allOrder, importOrder } from "../../generators/sdk/python-printer.js";
import { pythonName } from "../../generators/sdk/python-names.js";
import { render } from "../../generators/write/writer.js";
import { buildSdkFacts, clientGraphqlDocument, REFUSAL_TEXTS, WIRE_CHECK_TEXTS } from "../../generators/sdk/sdk-facts.js";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { graphqlDocument } from "../../runtime/client/graphql.js";
import { codeOfGrpcStatus, codeOfHttpStatus } from "../../runtime/errors.js";
import type { ApiSchema, OperationSpec } from "../../runtime/schema.js";
import { checkWireTypes } from "../../runtime/validate.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { apigen, namedSurfacesManifest, projectWithManifest, readFixture, REPO_ROOT } from "../helpers/project.js";

const run = promisify(execFile);
const ir = loadIr(REPO_ROOT);
const facts = buildSdkFacts(ir);
let python: string;
const timings: Record<string, number> = {};
const temporary: string[] = [];

/** Runs the venv's Python; resolves with its output whatever the exit code. */
async function py(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; output: string }> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(python, args, { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env }, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  } finally {
    timings[args.slice(0, 3).join(" ")] = Math.round(performance.now() - started);
  }
}

beforeAll(async () => {
  const env = await ensurePythonEnv({ log: (line) => console.log(line) });
  python = env.python;
  timings["venv"] = Math.round(env.seconds * 1000);
}, 600_000);

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  console.log(`python test steps (ms): ${JSON.stringify(timings)}`);
});

describe("the generated Python package", () => {
  it("passes mypy --strict", async () => {
    // No cache: a few seconds more, and never a verdict on files as they were before the last generate.
    const result = await py(["-m", "mypy", "--strict", "--no-incremental", "generated/python/src"]);
    expect(result.output).toMatch(/^Success: no issues found/m);
    expect(result.code).toBe(0);
  });

  it("passes ruff, and so do the Python tests", async () => {
    const generated = await py(["-m", "ruff", "check", "--no-cache", "generated/python"]);
    const tests = await py(["-m", "ruff", "check", "--no-cache", "--config", "test/python/ruff.toml", "test/python", "test/faults/load.py", "test/saml/peer.py"], {});
    expect(generated.output.trim()).toBe("All checks passed!");
    expect(tests.output.trim()).toBe("All checks passed!");
  });

  it("passes the pytest suite of its runtime", async () => {
    // gRPC's C core logs a peer's GOAWAY at info level ("... err=UNAVAILABLE ... Error code: 2") when a
    // test server stops: only errors of its own may reach the output, and pytest's verdict is its summary.
    const result = await py(["-m", "pytest", "-c", "test/python/pytest.ini", "--rootdir", "test/python", "test/python/unit"], { env: { GRPC_VERBOSITY: "ERROR" } });
    const summary =
      result.output
        .trim()
        .split("\n")
        .filter((line) => /\d+ (passed|failed)/.test(line))
        .pop() ?? "";
    expect(summary, result.output).toMatch(/\d+ passed/);
    expect(summary, result.output).not.toMatch(/failed|error/i);
    expect(result.code, result.output).toBe(0);
  });
});

describe("the facts the Python SDK shares with the TypeScript client", () => {
  it("embed each GraphQL document exactly as the TypeScript client sends it", () => {
    const carried = ir.operations.filter((op) => op.graphql);
    expect(carried.length).toBeGreaterThan(0);
    for (const op of carried) {
      expect(clientGraphqlDocument(ir, op), op.name).toBe(graphqlDocument(schema, (schema.operations as Record<string, OperationSpec>)[op.name]!));
    }
  });

  it("have the refusal texts of the TypeScript client", async () => {
    const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_, key: string) => values[key]!);
    const refusal = async (client: AdminClient, call: (c: AdminClient) => Promise<unknown>) => {
      const error = await call(client).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(REFUSAL_TEXTS.refusalCode);
      return (error as ApiError).message;
    };
    const config = { serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest" as const, serverVersion: "2.3.0", readOnly: true };
    const admin = new AdminClient(config);
    expect(await refusal(admin, (c) => c.adminSignup({ admin_secret: "x" }))).toBe(fill(REFUSAL_TEXTS.notCarried, { operation: "AdminSignup", protocol: "rest", protocols: "graphql" }));
    expect(await refusal(admin, (c) => c.deleteUser({ id: "u" }))).toBe(fill(REFUSAL_TEXTS.readOnly, { operation: "DeleteUser" }));
    const hint = fill(REFUSAL_TEXTS.tooOldUse, { protocols: "graphql" });
    expect(await refusal(admin, (c) => c.getOrganization({ id: "o" }))).toBe(fill(REFUSAL_TEXTS.tooOld, { operation: "GetOrganization", since: "2.4.0", protocol: "rest", server: "2.3.0", hint }));
    const older = new AdminClient({ ...config, protocol: "grpc", serverVersion: "2.3.0-rc.1" });
    expect(await refusal(older, (c) => c.getOrganization({ id: "o" }))).toContain(`; ${REFUSAL_TEXTS.tooOldNone}`);
  });

  it("have the texts of the TypeScript wire check, kind by kind", () => {
    const field = (name: string, kind: string, extra: object = {}) => ({ name, kind, list: false, required: false, protoName: name, ...extra });
    const api = {
      enums: { Color: { name: "Color", values: { red: 1, blue: 2 } } },
      messages: {
        Input: {
          name: "Input",
          fields: [
            field("s", "string"),
            field("b", "bool"),
            field("i", "int64"),
            field("n", "int32"),
            field("f", "float64"),
            field("m", "map"),
            field("j", "json"),
            field("e", "enum", { ref: "Color" }),
            field("l", "string", { list: true }),
            field("o", "message", { ref: "Nested" }),
          ],
        },
        Nested: { name: "Nested", fields: [field("x", "string")] },
      },
    } as unknown as ApiSchema;
    const operation = { input: "Input" } as OperationSpec;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ s: 1 }, "s", WIRE_CHECK_TEXTS.string],
      [{ b: "yes" }, "b", WIRE_CHECK_TEXTS.bool],
      [{ i: 1.5 }, "i", WIRE_CHECK_TEXTS.integer],
      [{ n: 2 ** 31 }, "n", WIRE_CHECK_TEXTS.int32Range],
      [{ i: 2 ** 53 }, "i", WIRE_CHECK_TEXTS.int64Range],
      [{ f: "x" }, "f", WIRE_CHECK_TEXTS.float64],
      [{ m: { a: 1 } }, "m", WIRE_CHECK_TEXTS.map],
      [{ j: [] }, "j", WIRE_CHECK_TEXTS.json],
      [{ e: "green" }, "e", WIRE_CHECK_TEXTS.enum.replace("{values}", ["red", "blue"].join(WIRE_CHECK_TEXTS.enumSeparator))],
      [{ l: "x" }, "l", WIRE_CHECK_TEXTS.list],
      [{ l: ["a", 2] }, "l[1]", WIRE_CHECK_TEXTS.string],
      [{ o: 1 }, "o", WIRE_CHECK_TEXTS.object],
      [{ o: { y: 1 } }, "o.y", WIRE_CHECK_TEXTS.unknownField],
      [{ z: 1 }, "z", WIRE_CHECK_TEXTS.unknownField],
    ];
    for (const [input, path, text] of cases) {
      expect(() => checkWireTypes(api, operation, input), JSON.stringify(input)).toThrow(`${path}: ${text}`);
    }
    expect(() => checkWireTypes(api, { input: "Nested" } as OperationSpec, "x" as never)).toThrow(`${WIRE_CHECK_TEXTS.root}: ${WIRE_CHECK_TEXTS.object}`);
  });

  it("map HTTP and gRPC statuses to codes as the TypeScript runtime does", () => {
    const { errors } = facts;
    for (let status = 100; status < 600; status++) {
      const known = errors.server.find((e) => e.http === status)?.code;
      expect(known ?? (status >= 500 ? errors.httpFallback.serverError : errors.httpFallback.otherwise), String(status)).toBe(codeOfHttpStatus(status));
    }
    for (let status = 0; status < 17; status++) {
      expect(errors.grpcBareStatuses[status] ?? errors.server.find((e) => e.grpc === status)?.code ?? errors.grpcFallback, String(status)).toBe(codeOfGrpcStatus(status));
    }
    for (const name of Object.values(ir.versionOperations)) {
      expect(ir.operations.find((op) => op.name === name)!.output.fields.map((f) => f.name)).toContain(facts.versionField);
    }
  });
});

describe("the README of the generated package", () => {
  /** Every ```python block of a README that imports the package: a whole example (the others are fragments of the one before). */
  const examples = (readme: string, module: string) =>
    [...readFileSync(join(REPO_ROOT, readme), "utf8").matchAll(/```python\n([\s\S]*?)\n```/g)].map((m) => m[1]!).filter((code) => code.includes(`from ${module} import`));

  it.each([
    ["generated/python", "identity_sdk"],
    ["examples/bookstore/generated/python", "bookstore_sdk"],
  ])("%s/README.md: each section's example type-checks against the package (mypy --strict)", async (project, module) => {
    const found = examples(`${project}/README.md`, module);
    // Use, Errors, Timeouts, Pagination, Logging and hooks, Raw responses, Forward compatibility, Configuration from the environment.
    expect(found.length).toBeGreaterThanOrEqual(8);
    const dir = mkdtempSync(join(tmpdir(), "apigen-readme-"));
    temporary.push(dir);
    for (const [index, code] of found.entries()) writeFileSync(join(dir, `example_${index}.py`), `${code}\n`);
    const typed = await py(["-m", "mypy", "--strict", "--no-incremental", dir], { env: { MYPYPATH: join(REPO_ROOT, project, "src") } });
    expect(typed.output).toMatch(/^Success: no issues found in \d+ source files/m);
  });
});

describe("the templates", () => {
  it("compiled from source render exactly the committed files the bundled CLI wrote with them precompiled", () => {
    const files = [...emitPython(ir), ...emitPythonDescriptors(ir, buildDescriptors(planProto(ir)), "any hash").produce()];
    const rendered = render(REPO_ROOT, files).files;
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(rendered.get(file.path), file.path).toBe(readFileSync(join(REPO_ROOT, file.path), "utf8"));
  });
});

/** The Python project generated from `manifest` in a project of its own (removed after the tests). */
function generatedPythonProject(manifest: string): string {
  const root = projectWithManifest(manifest);
  temporary.push(root);
  expect(apigen(root, "generate").code).toBe(0);
  return join(root, "generated", "python");
}

/** A Python script with `source`, in a folder of its own (removed after the tests). */
function checkScript(source: string): string {
  const script = join(mkdtempSync(join(tmpdir(), "apigen-check-")), "check.py");
  temporary.push(join(script, ".."));
  writeFileSync(script, source);
  return script;
}

describe("the package's layout by group", () => {
  it("puts each group's methods in resources/ and each type in the module of the one group reaching it, or shared.py; the public imports stay", async () => {
    // minimal.yaml: group users has operations on both clients; Response is reached by every group, Key and KeyStatus only by orgs.
    const project = generatedPythonProject(readFixture("minimal.yaml"));
    const packageDir = join(project, "src", "mini_sdk");
    const read = (path: string) => readFileSync(join(packageDir, path), "utf8");
    expect(read("resources/users.py")).toMatch(/^class UsersAdminResource\(SyncResource\):$/m);
    expect(read("resources/users.py")).toMatch(/^class AsyncUsersUserResource\(AsyncResource\):$/m);
    expect(read("resources/orgs.py")).toMatch(/^class OrgsResource\(SyncResource\):$/m);
    expect(read("types/orgs.py")).toMatch(/^KeyStatus = Literal\[/m);
    expect(read("types/orgs.py")).toMatch(/^class Key\(Model\):$/m);
    expect(read("types/shared.py")).toMatch(/^class Response\(Model\):$/m);
    expect(read("types/users.py")).toMatch(/^class User\(Model\):$/m);
    expect(read("types/users.py")).not.toMatch(/^class Response\(/m);
    const script = checkScript(
      `from mini_sdk import AdminClient, AsyncUserClient, Key, UserClient
from mini_sdk.types import MODELS, KeyStatus, Response, User

status: KeyStatus = "current"
print(sorted(name for name in ("users", "delete_user", "rotate_key", "delete_org_oidc_connection", "admin_signup", "iter_users") if hasattr(AdminClient, name)),
      hasattr(UserClient, "meta"), hasattr(AsyncUserClient, "meta"), hasattr(UserClient, "users"), MODELS["Key"] is Key, Response.__module__, User.__module__, status)
`,
    );
    const [checked, typed, linted] = await Promise.all([
      py([script], { env: { PYTHONPATH: join(project, "src") } }),
      py(["-m", "mypy", "--strict", "--no-incremental", "src", script], { cwd: project, env: { MYPYPATH: join(project, "src") } }),
      py(["-m", "ruff", "check", "--no-cache", "."], { cwd: project }),
    ]);
    expect(checked.output.trim()).toBe(
      "['admin_signup', 'delete_org_oidc_connection', 'delete_user', 'iter_users', 'rotate_key', 'users'] True True False True mini_sdk.types.shared mini_sdk.types.users current",
    );
    expect(typed.output).toMatch(/^Success: no issues found/m);
    expect(linted.output.trim()).toBe("All checks passed!");
  });

  it("names its clients as api.surfaces declares them, and type-checks", async () => {
    const project = generatedPythonProject(namedSurfacesManifest());
    const script = checkScript(
      `import mini_sdk
from mini_sdk import AsyncOwnerClient, AsyncShopClient, OwnerClient, ShopClient

print(hasattr(OwnerClient, "users"), hasattr(AsyncOwnerClient, "users"), hasattr(ShopClient, "meta"), hasattr(AsyncShopClient, "meta"), hasattr(mini_sdk, "AdminClient"), hasattr(mini_sdk, "UserClient"))
`,
    );
    const [checked, typed] = await Promise.all([
      py([script], { env: { PYTHONPATH: join(project, "src") } }),
      py(["-m", "mypy", "--strict", "--no-incremental", "src", script], { cwd: project, env: { MYPYPATH: join(project, "src") } }),
    ]);
    expect(checked.output.trim()).toBe("True True True True False False");
    expect(typed.output).toMatch(/^Success: no issues found/m);
  });

  it("puts a type no operation reaches in shared.py with every type it reaches, so that shared.py imports no group module", async () => {
    // Key (and its enum KeyStatus) is reached by group orgs only, and by Orphan, which no operation reaches.
    const project = generatedPythonProject(readFixture("minimal.yaml").replace(/^types:\n/m, "types:\n  Orphan:\n    fields:\n      key: Key!\n"));
    const shared = readFileSync(join(project, "src", "mini_sdk", "types", "shared.py"), "utf8");
    expect(shared).toMatch(/^class Orphan\(Model\):$/m);
    expect(shared).toMatch(/^class Key\(Model\):$/m);
    expect(shared).toMatch(/^KeyStatus = Literal\[/m);
    expect(shared).not.toMatch(/^from \.(?!shared)\w+ import/m);
    const [typed, linted] = await Promise.all([
      py(["-m", "mypy", "--strict", "--no-incremental", "src"], { cwd: project, env: { MYPYPATH: join(project, "src") } }),
      py(["-m", "ruff", "check", "--no-cache", "."], { cwd: project }),
    ]);
    expect(typed.output).toMatch(/^Success: no issues found/m);
    expect(linted.output.trim()).toBe("All checks passed!");
  });

  it.each([
    [
      "a type named like a group's class",
      "types:\n  OrgsResource:\n    fields:\n      id: string!\n",
      "the Python class OrgsResource of group orgs is taken by a type of the same name; rename one in the manifest",
    ],
    ["a group whose class is the SDK's own base (group sync)", "  groups:\n    sync: Synchronisation\n", "the Python class SyncResource of group sync is taken by the SDK; rename one in the manifest"],
    ["a type named like a name the SDK exports", "types:\n  RetryPolicy:\n    fields:\n      id: string!\n", "the Python name RetryPolicy of a type is taken by the SDK; rename one in the manifest"],
  ])("refuses %s, and writes nothing", (_, insertion, message) => {
    let manifest = readFixture("minimal.yaml");
    manifest = insertion.startsWith("types:") ? manifest.replace(/^types:\n/m, insertion) : manifest.replace(/^ {2}groups:\n/m, insertion).replace("group: extras", "group: sync");
    expect(manifest).not.toBe(readFixture("minimal.yaml"));
    const root = projectWithManifest(manifest);
    temporary.push(root);
    const result = apigen(root, "generate");
    expect(result.stderr).toContain(message);
    expect(result.code).not.toBe(0);
    expect(existsSync(join(root, "generated")), "files written by a failed generate").toBe(false);
  });
});

describe("Python names", () => {
  it("escape keywords and the names the SDK takes with a trailing underscore", () => {
    expect(["from", "class", "lambda", "timeout", "extra_headers", "self", "id", "type", "match"].map((n) => pythonName(n))).toEqual([
      "from_",
      "class_",
      "lambda_",
      "timeout_",
      "extra_headers_",
      "self_",
      "id",
      "type",
      "match",
    ]);
  });

  it("are sorted as ruff wants them in imports and in __all__", () => {
    expect(importOrder(["OrgDomain", "Organization", "MODELS", "JWTKey", "JsonValue", "helper"])).toEqual(["MODELS", "JsonValue", "JWTKey", "Organization", "OrgDomain", "helper"]);
    expect(allOrder(["OrgDomain", "Organization", "MODELS", "JWTKey", "JsonValue", "helper"])).toEqual(["MODELS", "JWTKey", "JsonValue", "OrgDomain", "Organization", "helper"]);
  });

  it("reach every field under its wire name, in a package generated from a manifest full of them", async () => {
    const project = generatedPythonProject(readFixture("python-keywords.yaml"));
    const script = checkScript(
      `import json
import httpx
from keyword_sdk import AdminClient, OPERATIONS, WindowInput

sent: list[object] = []
headers: list[str] = []


def answer(request: httpx.Request) -> httpx.Response:
    sent.append(json.loads(request.content))
    headers.extend(request.headers.keys())
    return httpx.Response(200, json={"from": "a", "class": None, "span": {"from": 3, "lambda": "x"}})


window: WindowInput = {"from": 1, "global": True}
http = httpx.Client(transport=httpx.MockTransport(answer))
with AdminClient(service_url="http://kw.localhost", protocol="rest", http_client=http) as admin:
    found = admin.find_things(from_="2030", class_="c", timeout_=5, extra_headers_={"a": "b"}, window=window, timeout=3)
print(json.dumps({"sent": sent[0], "from": found.from_, "span": found.span.lambda_ if found.span else None, "plain": found.to_dict(),
                  "arguments": dict(OPERATIONS["find_things"].arguments), "secret_header": "x-service-admin-secret" in headers}))
`,
    );
    const env = { PYTHONPATH: join(project, "src") };
    const [checked, typed, linted] = await Promise.all([
      py([script], { env }),
      py(["-m", "mypy", "--strict", "--no-incremental", "src", script], { cwd: project, env: { MYPYPATH: join(project, "src") } }),
      py(["-m", "ruff", "check", "--no-cache", "."], { cwd: project }),
    ]);
    expect(checked.code, checked.output).toBe(0);
    expect(JSON.parse(checked.output)).toEqual({
      sent: { from: "2030", class: "c", timeout: 5, extra_headers: { a: "b" }, window: { from: 1, global: true } },
      from: "a",
      span: "x",
      plain: { from: "a", class: null, span: { from: 3, lambda: "x" } },
      arguments: { from: "from_", class: "class_", timeout: "timeout_", extra_headers: "extra_headers_", window: "window" },
      secret_header: false,
    });
    expect(typed.output).toMatch(/^Success: no issues found/m);
    expect(linted.output.trim()).toBe("All checks passed!");
  });
});
