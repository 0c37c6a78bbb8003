// A second API in the suite: examples/bookstore (API-key auth, resource routes with path
// parameters, cursor pagination with a maximum of 10, an enum, a nested type, an operation gRPC does
// not carry). Its generated files are up to date; its TypeScript compiles on its own; its service,
// on its own stubs, answers the generated TypeScript client over all three protocols, and the
// Python SDK (mypy --strict, ruff, a pytest smoke run) and the Go SDK (go vet, a go test) likewise;
// `npm run pack -- --root examples/bookstore` packs its npm packages, wheel, sdist and Go module.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiError, UserClient } from "../../examples/bookstore/generated/client/index.js";
import { startBookstore } from "../../examples/bookstore/src/service.js";
import { goToolchain } from "../../scripts/go-env.mjs";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";

const EXAMPLE = join(REPO_ROOT, "examples", "bookstore");
const KEY = "bookstore-owner-key";
const server = startBookstore(KEY);
let endpoints: { httpUrl: string; grpcEndpoint: string };
const workDir = mkdtempSync(join(tmpdir(), "apigen-bookstore-"));

beforeAll(async () => {
  endpoints = await server.listen();
});
afterAll(async () => {
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

const client = (protocol: "graphql" | "rest" | "grpc", apiKey?: string) =>
  new UserClient({ serviceUrl: endpoints.httpUrl, grpcEndpoint: endpoints.grpcEndpoint, protocol, ...(apiKey ? { apiKey } : {}) });
/** The first fenced block of `language` in a generated README: its example, as printed. */
const readmeExample = (path: string, language: string) => new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(readFileSync(path, "utf8"))![1]!;
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable("the call succeeded"), (error: unknown) => error as ApiError);

describe("the bookstore example", () => {
  it("is generated from its manifest, and its TypeScript compiles on its own", async () => {
    const [check, tsc] = await Promise.all([
      runProcess(process.execPath, [join(REPO_ROOT, "bin", "apigen.js"), "generate", "--check", "--root", EXAMPLE]),
      runProcess(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(EXAMPLE, "tsconfig.json")]),
    ]);
    expect(check.code, check.output).toBe(0);
    expect(tsc.code, tsc.output).toBe(0);
  }, 60_000);

  it.each(["graphql", "rest", "grpc"] as const)("answers the TypeScript client over %s", async (protocol) => {
    const store = client(protocol, KEY);
    const added = await store.addBook({ title: `Moby Dick over ${protocol}`, author: { name: "Herman Melville", born: 1819 }, genre: "fiction", year: 1851 });
    expect(added).toMatchObject({ title: `Moby Dick over ${protocol}`, author: { name: "Herman Melville", born: 1819 }, genre: "fiction", in_stock: true });
    expect(await store.getBook({ id: added.id })).toEqual(added);
    expect(await store.updateBook({ id: added.id, in_stock: false })).toEqual({ ...added, in_stock: false });
    for (let i = 0; i < 4; i++) await store.addBook({ title: `${protocol} poem ${i}`, author: { name: "Anon" }, genre: "poetry" });
    // Pages of 3 by default: the iterator follows next_page_token to the end.
    const poems = [];
    for await (const book of store.iterateListBooks({ genre: "poetry" })) if (book.title.startsWith(`${protocol} poem`)) poems.push(book.title);
    expect(poems).toEqual([0, 1, 2, 3].map((i) => `${protocol} poem ${i}`));
    expect((await failure(store.listBooks({ page_size: 11 }))).code).toBe("INVALID_ARGUMENT");
    expect((await failure(client(protocol).addBook({ title: "No key", author: { name: "A" }, genre: "history" }))).code).toBe("UNAUTHENTICATED");
    expect((await failure(client(protocol, "wrong").removeBook({ id: added.id }))).code).toBe("UNAUTHENTICATED");
    expect(await store.removeBook({ id: added.id })).toEqual({ removed: true });
    expect((await failure(store.getBook({ id: added.id }))).code).toBe("NOT_FOUND");
    if (protocol === "grpc") {
      const refused = await failure(store.searchBooks({ words: "moby" }));
      expect(refused).toMatchObject({ code: "FAILED_PRECONDITION", refused: true, message: "SearchBooks not available over grpc; use graphql or rest" });
    } else {
      expect((await store.searchBooks({ words: `${protocol} poem 3` })).books.map((b) => b.title)).toEqual([`${protocol} poem 3`]);
    }
    await store.close();
  });

  it("serves its resource routes with path parameters", async () => {
    const created = await fetch(`${endpoints.httpUrl}/v1/books`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bookstore-key": KEY },
      body: JSON.stringify({ title: "Dune", author: { name: "Frank Herbert" }, genre: "fiction" }),
    });
    const book = (await created.json()) as { id: string };
    expect(created.status).toBe(200);
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`)).status).toBe(200);
    const patched = await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, { method: "PATCH", headers: { "content-type": "application/json", "x-bookstore-key": KEY }, body: JSON.stringify({ in_stock: false }) });
    expect(await patched.json()).toMatchObject({ id: book.id, in_stock: false });
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, { method: "DELETE", headers: { "x-bookstore-key": KEY } })).status).toBe(200);
  });

  it("has a Python SDK that passes mypy --strict (its README's example too), ruff and a pytest run against the service", async () => {
    const { python } = await ensurePythonEnv();
    const project = join(EXAMPLE, "generated", "python");
    const example = join(workDir, "readme_example.py");
    writeFileSync(example, readmeExample(join(project, "README.md"), "python"));
    const env = { ...process.env, PYTHONPATH: join(project, "src"), BOOKSTORE_URL: endpoints.httpUrl, BOOKSTORE_GRPC: endpoints.grpcEndpoint, BOOKSTORE_KEY: KEY };
    const [typed, linted, smoke] = await Promise.all([
      runProcess(python, ["-m", "mypy", "--strict", "--no-incremental", "src", example], { cwd: project, env: { ...process.env, MYPYPATH: join(project, "src") } }),
      runProcess(python, ["-m", "ruff", "check", "--no-cache", "."], { cwd: project }),
      runProcess(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto", join(EXAMPLE, "python")], { cwd: project, env }),
    ]);
    expect(typed.output).toMatch(/^Success: no issues found/m);
    expect(linted.output.trim()).toBe("All checks passed!");
    expect(smoke.code, smoke.output).toBe(0);
    expect(smoke.output).toMatch(/5 passed/);
  }, 120_000);

  it("is packed by npm run pack --root, with the runtime and the build tools of this repository", async () => {
    const out = join(workDir, "packed");
    const packed = await runProcess(process.execPath, [join(REPO_ROOT, "scripts", "pack.mjs"), "--root", EXAMPLE, "--first-release", "--out", out], { cwd: REPO_ROOT });
    expect(packed.code, packed.output).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["bookstore-go-1.0.0.zip", "bookstore-mcp-1.0.0.tgz", "bookstore-sdk-1.0.0.tgz", "bookstore-server-1.0.0.tgz", "bookstore_sdk-1.0.0-py3-none-any.whl", "bookstore_sdk-1.0.0.tar.gz"]);
    expect(packed.stdout).toContain("@bookstore/server@1.0.0");
    expect(packed.stdout).toContain("npm publish --dry-run passed");
  }, 180_000);

  it("has a Go SDK that passes go vet (its README's example too) and a go test against the service", async () => {
    const { go, env } = goToolchain();
    const module = join(EXAMPLE, "generated", "go");
    const path = /^module (\S+)$/m.exec(readFileSync(join(module, "go.mod"), "utf8"))![1]!;
    writeFileSync(join(workDir, "go.mod"), `module example.com/bookstore-smoke\n\ngo 1.23.0\n\nrequire ${path} v0.0.0\n\nreplace ${path} => ${module}\n`);
    copyFileSync(join(module, "go.sum"), join(workDir, "go.sum"));
    copyFileSync(join(EXAMPLE, "go", "smoke_test.go"), join(workDir, "smoke_test.go"));
    mkdirSync(join(workDir, "readme"));
    writeFileSync(join(workDir, "readme", "main.go"), readmeExample(join(module, "README.md"), "go"));
    const smokeEnv = { ...env, BOOKSTORE_URL: endpoints.httpUrl, BOOKSTORE_GRPC: endpoints.grpcEndpoint, BOOKSTORE_KEY: KEY, GOFLAGS: "-mod=mod" };
    const vet = await runProcess(go, ["vet", "./...", path], { cwd: workDir, env: smokeEnv });
    expect(vet.code, vet.output).toBe(0);
    const tested = await runProcess(go, ["test", "-count=1", "./..."], { cwd: workDir, env: smokeEnv });
    expect(tested.code, tested.output).toBe(0);
    expect(readFileSync(join(workDir, "go.mod"), "utf8")).toContain(`replace ${path} => ${module}`);
  }, 180_000);
});
