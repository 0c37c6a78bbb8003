// The bookstore's SDKs and packages with the tools of their ecosystems, a longer proof (run by
// npm run proofs, after the suite): the Python SDK under mypy --strict, ruff and a pytest run, the
// Go SDK under go vet and a go test, each against the bookstore's service, and `npm run pack --
// --root examples/bookstore` making its npm packages, wheel, sdist and Go module. The rest of the
// bookstore's proof is test/examples/bookstore.test.ts.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBookstore } from "../../examples/bookstore/src/service.js";
import { goToolchain } from "../../scripts/go-env.mjs";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";

const EXAMPLE = join(REPO_ROOT, "examples", "bookstore");
const KEY = "bookstore-owner-key";
const EDITOR = "reader-token-editor";
const BROWSER = "reader-token-browser";
const server = startBookstore(KEY, {}, { [EDITOR]: ["books:write"], [BROWSER]: [] });
let endpoints: { httpUrl: string; grpcEndpoint: string };
const workDir = mkdtempSync(join(tmpdir(), "apigen-bookstore-sdks-"));

beforeAll(async () => {
  endpoints = await server.listen();
});
afterAll(async () => {
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The first fenced block of `language` in a generated README: its example, as printed. */
const readmeExample = (path: string, language: string) => new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(readFileSync(path, "utf8"))![1]!;

describe("the bookstore's SDKs and packages", () => {
  it("has a Python SDK that passes mypy --strict (its README's example too), ruff and a pytest run against the service", async () => {
    const { python } = await ensurePythonEnv();
    const project = join(EXAMPLE, "generated", "python");
    const example = join(workDir, "readme_example.py");
    writeFileSync(example, readmeExample(join(project, "README.md"), "python"));
    const env = {
      ...process.env,
      PYTHONPATH: join(project, "src"),
      BOOKSTORE_URL: endpoints.httpUrl,
      BOOKSTORE_GRPC: endpoints.grpcEndpoint,
      BOOKSTORE_KEY: KEY,
      BOOKSTORE_EDITOR: EDITOR,
      BOOKSTORE_BROWSER: BROWSER,
    };
    const [typed, linted, smoke] = await Promise.all([
      runProcess(python, ["-m", "mypy", "--strict", "--no-incremental", "src", example], { cwd: project, env: { ...process.env, MYPYPATH: join(project, "src") } }),
      runProcess(python, ["-m", "ruff", "check", "--no-cache", "."], { cwd: project }),
      runProcess(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto", join(EXAMPLE, "python")], { cwd: project, env }),
    ]);
    expect(typed.output).toMatch(/^Success: no issues found/m);
    expect(linted.output.trim()).toBe("All checks passed!");
    expect(smoke.code, smoke.output).toBe(0);
    // Every test passed, none skipped: pytest -q ends with "<n> passed in <time>" alone.
    expect(smoke.output).toMatch(/^\d+ passed in /m);
  }, 600_000);

  it("is packed by npm run pack --root, with the runtime and the build tools of this repository", async () => {
    const out = join(workDir, "packed");
    const packed = await runProcess(process.execPath, [join(REPO_ROOT, "scripts", "pack.mjs"), "--root", EXAMPLE, "--first-release", "--out", out], { cwd: REPO_ROOT });
    expect(packed.code, packed.output).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      "bookstore-go-1.0.0.zip",
      "bookstore-mcp-1.0.0.tgz",
      "bookstore-sdk-1.0.0.tgz",
      "bookstore-server-1.0.0.tgz",
      "bookstore_sdk-1.0.0-py3-none-any.whl",
      "bookstore_sdk-1.0.0.tar.gz",
    ]);
    expect(packed.stdout).toContain("@bookstore/server@1.0.0");
    expect(packed.stdout).toContain("npm publish --dry-run passed");
  }, 600_000);

  it("has a Go SDK that passes go vet (its README's example too) and a go test against the service", async () => {
    const { go, env } = goToolchain();
    const module = join(EXAMPLE, "generated", "go");
    const path = /^module (\S+)$/m.exec(readFileSync(join(module, "go.mod"), "utf8"))![1]!;
    writeFileSync(join(workDir, "go.mod"), `module example.com/bookstore-smoke\n\ngo 1.23.0\n\nrequire ${path} v0.0.0\n\nreplace ${path} => ${module}\n`);
    copyFileSync(join(module, "go.sum"), join(workDir, "go.sum"));
    copyFileSync(join(EXAMPLE, "go", "smoke_test.go"), join(workDir, "smoke_test.go"));
    mkdirSync(join(workDir, "readme"));
    writeFileSync(join(workDir, "readme", "main.go"), readmeExample(join(module, "README.md"), "go"));
    const smokeEnv = {
      ...env,
      BOOKSTORE_URL: endpoints.httpUrl,
      BOOKSTORE_GRPC: endpoints.grpcEndpoint,
      BOOKSTORE_KEY: KEY,
      BOOKSTORE_EDITOR: EDITOR,
      BOOKSTORE_BROWSER: BROWSER,
      GOFLAGS: "-mod=mod",
    };
    const vet = await runProcess(go, ["vet", "./...", path], { cwd: workDir, env: smokeEnv });
    expect(vet.code, vet.output).toBe(0);
    const tested = await runProcess(go, ["test", "-count=1", "./..."], { cwd: workDir, env: smokeEnv });
    expect(tested.code, tested.output).toBe(0);
    expect(readFileSync(join(workDir, "go.mod"), "utf8")).toContain(`replace ${path} => ${module}`);
  }, 600_000);
});
