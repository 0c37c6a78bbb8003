// `apigen init`, as a team with another API meets it: `apigen init <dir>` run from this checkout,
// without flags, packs the toolchain it runs from (npm run pack:toolchain: the `apigen` command line
// and `@apigen/runtime`) into the starter's toolchain/ folder and writes the starter into a folder
// outside the repository; then `npm ci`, `npm run generate`, `npm test`, every other command its
// README documents (npm start with the explorer and /mcp, the standalone MCP server over stdio and
// over gRPC, apigen scaffold, npm run diff with buf) with nothing installed by hand, and `npx apigen
// pack` there, with nothing of this repository beside it: the three npm packages (the installed
// runtime inside, compiled by the starter's TypeScript), the Python wheel and sdist (built in a
// virtualenv of pinned build tools the CLI makes under the starter's node_modules; needs Python
// 3.10+) and the Go module zip (the CLI builds its module-zip helper; needs Go 1.23+).
// `--toolchain <folder>` points a starter at tarballs packed before. Bad input (a folder that is not
// empty, a toolchain folder without the packages; a pack --root without operations.yaml, an unknown
// --only, a project not generated yet, a first release not said to be one) is refused with a clear
// message and no stack trace, and nothing is written.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { STARTER_PACKAGES } from "../generators/cli/init.js";
import { runProcess, startProcess } from "../scripts/run-process.mjs";
import { REPO_ROOT, tempDir } from "./helpers/project.js";

const APIGEN = join(REPO_ROOT, "bin", "apigen.js");
const workDir = tempDir("apigen-init-");
// Removed without blocking the worker: the starters' node_modules are large.
afterAll(() => rm(workDir, { recursive: true, force: true }), 120_000);
const project = join(workDir, "Book Shelf");
const toolchain = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const TARBALLS = [`apigen-${toolchain.version}.tgz`, `apigen-runtime-${toolchain.version}.tgz`];

const npm = async (cwd: string, ...args: string[]) => {
  // npm ci resolves a lock without registry URLs (omit-lockfile-registry-resolved) from the packuments: a cached one may predate a version the lock names.
  const cache = args[0] === "ci" ? [] : ["--prefer-offline"];
  const result = await runProcess("npm", [...args, "--no-audit", "--no-fund", ...cache, "--loglevel=error"], { cwd });
  expect(result.code, `npm ${args.join(" ")}:\n${result.output}`).toBe(0);
  return result.output;
};

/** Every file below `dir`, relative to it, node_modules aside. */
const filesBelow = (dir: string, prefix = ""): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" ? [] : entry.isDirectory() ? filesBelow(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );

/** A JSON-RPC request of MCP, answered in JSON (the stateless /mcp). */
const mcpPost = (url: string, method: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
  });

describe("apigen init", () => {
  it("run from this checkout without flags, writes a starter with this toolchain that installs, generates and passes its own tests outside the repository", async () => {
    const written = await runProcess(process.execPath, [APIGEN, "init", "Book Shelf"], { cwd: workDir });
    expect(written.code, written.output).toBe(0);
    expect(written.stdout).toContain("next: cd 'Book Shelf' && npm install && npm run generate && npm test");
    expect(filesBelow(project).sort()).toEqual([
      ".gitignore",
      "README.md",
      "operations.yaml",
      "package.json",
      "src/main.ts",
      "src/service.ts",
      "test/service.test.ts",
      ...TARBALLS.map((tarball) => `toolchain/${tarball}`),
      "tsconfig.json",
    ]);
    // The toolchain from the starter's own folder, and every package its documented commands use, at the toolchain's own versions.
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.devDependencies.apigen).toBe(`file:toolchain/${TARBALLS[0]}`);
    expect(pkg.dependencies["@apigen/runtime"]).toBe(`file:toolchain/${TARBALLS[1]}`);
    for (const [kind, names] of Object.entries(STARTER_PACKAGES) as ["dependencies" | "devDependencies", Record<string, string>][]) {
      for (const name of Object.keys(names)) expect(pkg[kind][name], name).toBe(toolchain.dependencies[name] ?? toolchain.devDependencies[name]);
    }
    expect(Object.keys(STARTER_PACKAGES.dependencies).sort()).toEqual(["@modelcontextprotocol/sdk", "graphiql", "react", "react-dom", "swagger-ui-dist"]);
    expect(Object.keys(STARTER_PACKAGES.devDependencies).sort()).toEqual(["@bufbuild/buf", "prettier", "ts-morph"]);
    // The folder's words make the API's name, as api.name takes it (and a proto package proto takes).
    expect(readFileSync(join(project, "operations.yaml"), "utf8")).toMatch(/name: book-shelf\n[\s\S]*proto_package: book_shelf\.v1/);

    await npm(project, "install", "--package-lock-only");
    await npm(project, "ci");
    const generated = await npm(project, "run", "generate");
    expect(generated).toMatch(/files: \d+ written/);
    // Generated code reaches the runtime by package name, and nothing points back into this repository.
    expect(readFileSync(join(project, "generated", "server", "index.ts"), "utf8")).toContain('from "@apigen/runtime/server/index.js"');
    const outputs = filesBelow(join(project, "generated")).map((path) => readFileSync(join(project, "generated", path), "utf8"));
    expect(outputs.length).toBeGreaterThan(40);
    expect(outputs.filter((text) => text.includes(REPO_ROOT) || text.includes("../../runtime/"))).toEqual([]);

    // generate --check, tsc and the starter's tests: the service answers its client over all three protocols.
    // Without vitest's colours.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts each colour
    const tested = (await npm(project, "test")).replace(/\x1b\[[0-9;]*m/g, "");
    expect(tested).toContain("up to date");
    expect(tested).toMatch(/Tests\s+6 passed/);
  }, 300_000);

  it("runs every other command its README documents with what it installed: npm start with the explorer and /mcp, the MCP server, scaffold, diff", async () => {
    const readme = readFileSync(join(project, "README.md"), "utf8");
    for (const command of ["npm start", "npx apigen scaffold src/service.ts", "npm run diff", "npx tsx generated/mcp/main.ts --service-url http://127.0.0.1:8080"]) expect(readme).toContain(command);

    // npm start: the service, with GraphiQL on /graphql and Swagger UI on /docs in a browser, and MCP on /mcp (PORT and GRPC_PORT 0: free ports).
    const started = startProcess(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: project, env: { ...process.env, PORT: "0", GRPC_PORT: "0" } });
    try {
      let line: string | undefined;
      for (let waited = 0; !line && waited < 30_000; waited += 100) {
        line = /serving on (http:\/\/\S+) and gRPC on (\S+)/.exec(started.written().stdout)?.[0];
        if (!line) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const [, httpUrl, grpcEndpoint] = /serving on (http:\/\/\S+) and gRPC on (\S+)/.exec(started.written().stdout) ?? [];
      expect(httpUrl, started.written().output).toBeDefined();
      // GraphiQL on /graphql and Swagger UI on /docs, their prebuilt files served from the packages the starter installed.
      for (const [path, packages] of [
        ["/graphql", ["graphiql@", "react@", "react-dom@"]],
        ["/docs", ["swagger-ui-dist@"]],
      ] as const) {
        const page = await fetch(`${httpUrl}${path}`, { headers: { accept: "text/html" } });
        expect(page.status, path).toBe(200);
        expect(page.headers.get("content-type"), path).toMatch(/^text\/html/);
        const assets = [...(await page.text()).matchAll(/(?:src|href)="(_explorer\/[^"]+)"/g)].map((m) => m[1]!);
        for (const name of packages)
          expect(
            assets.some((asset) => asset.includes(name)),
            `${path}: ${name}`,
          ).toBe(true);
        for (const asset of assets) expect((await fetch(`${httpUrl}/${asset}`)).status, asset).toBe(200);
      }
      const listed = (await (await mcpPost(`${httpUrl}/mcp`, "tools/list")).json()) as { result: { tools: { name: string }[] } };
      expect(listed.result.tools.map((tool) => tool.name).sort()).toEqual(["add_task", "complete_task", "get_task", "list_tasks"]);

      // The standalone MCP server, started as the README prints it (the service at its address), over REST and over gRPC.
      const printed = /`(npx tsx generated\/mcp\/main\.ts --service-url http:\/\/127\.0\.0\.1:8080)`/.exec(readme)![1]!;
      const [command, ...args] = printed.replace("http://127.0.0.1:8080", httpUrl!).split(" ");
      for (const extra of [[], ["--protocol", "grpc", "--grpc-endpoint", grpcEndpoint!]]) {
        const mcp = new Client({ name: "init-test", version: "1.0.0" });
        await mcp.connect(
          new StdioClientTransport({ command: command!, args: [...args, ...extra], cwd: project, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? workDir }, stderr: "pipe" }),
        );
        expect((await mcp.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["add_task", "complete_task", "get_task", "list_tasks"]);
        const added = (await mcp.callTool({ name: "add_task", arguments: { title: `over ${extra[1] ?? "rest"}` } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
        expect(added.isError, JSON.stringify(added)).toBeFalsy();
        expect(added.structuredContent).toMatchObject({ title: `over ${extra[1] ?? "rest"}`, done: false });
        await mcp.close();
      }
      // And the service's own /mcp, with the SDK's client.
      const viaServer = new Client({ name: "init-test", version: "1.0.0" });
      await viaServer.connect(new StreamableHTTPClientTransport(new URL(`${httpUrl}/mcp`)));
      expect(
        ((await viaServer.callTool({ name: "list_tasks", arguments: {} })) as unknown as { structuredContent: { tasks: { title: string }[] } }).structuredContent.tasks.map((t) => t.title),
      ).toEqual(["over rest", "over grpc"]);
      await viaServer.close();
    } finally {
      started.child.kill();
      await started.exited;
    }

    // scaffold (ts-morph, prettier): every operation is implemented.
    const scaffolded = await runProcess("npx", ["--no-install", "apigen", "scaffold", "src/service.ts", "--check"], { cwd: project });
    expect(scaffolded.code, scaffolded.output).toBe(0);
    expect(scaffolded.stdout).toContain("in src/service.ts: every operation is implemented");

    // diff against the last commit (buf breaking among its checks): an operation removed is breaking, found by buf too.
    const git = (...args: string[]) => runProcess("git", ["-c", "user.name=init-test", "-c", "user.email=init-test@example.com", ...args], { cwd: project });
    for (const args of [
      ["init", "-q"],
      ["add", "-A"],
      ["commit", "-qm", "the starter"],
    ])
      expect((await git(...args)).code).toBe(0);
    const manifest = readFileSync(join(project, "operations.yaml"), "utf8");
    try {
      writeFileSync(join(project, "operations.yaml"), manifest.replace(/ {2}complete_task:\n(?: {4}.*\n)*/, ""));
      const diffed = await runProcess("npm", ["run", "diff", "--silent"], { cwd: project });
      expect(diffed.code, diffed.output).toBe(1);
      expect(diffed.stdout).toMatch(/breaking {2}operation-removed:complete_task .*\n.*\n {6}found by: manifest, graphql-inspector, openapi, buf, sdk/);
      expect(diffed.output).not.toContain("    at ");
    } finally {
      writeFileSync(join(project, "operations.yaml"), manifest);
    }
  }, 300_000);

  it("packs the starter with npx apigen pack: npm packages, wheel, sdist and Go module, from the installed toolchain", async () => {
    const npx = (...args: string[]) => runProcess("npx", ["--no-install", "apigen", ...args], { cwd: project });
    // Without Python or Go, their artefacts stop pack before anything is written, naming what they need and how to pack the others.
    for (const [kind, variable, needs] of [
      ["python", "PYTHON", "Python 3.10 or later"],
      ["go", "GO", "Go 1.23 or later"],
    ] as const) {
      const missing = await runProcess("npx", ["--no-install", "apigen", "pack", "--first-release", "--only", `npm,${kind}`], {
        cwd: project,
        env: { ...process.env, [variable]: join(workDir, `no-${kind}`) },
      });
      expect(missing.code, missing.output).toBe(1);
      expect(missing.stderr).toContain(`apigen pack: ${kind}: ${needs} is needed`);
      expect(missing.stderr).toContain(`${kind} artefacts need ${needs}`);
      expect(missing.stderr).toContain("(--only npm packs the rest without it)");
      expect(missing.stderr).not.toContain("    at ");
      expect(existsSync(join(project, "dist"))).toBe(false);
    }
    // No release before, and not said to be the first: the gate refuses, naming the flag; nothing is built.
    const gated = await npx("pack");
    expect(gated.code, gated.output).toBe(1);
    expect(gated.stderr).toContain("pack the first release with `apigen pack --first-release`");
    expect(gated.stderr).not.toContain("    at ");
    expect(existsSync(join(project, "dist"))).toBe(false);

    const packed = await npx("pack", "--first-release");
    expect(packed.code, packed.output).toBe(0);
    expect(readdirSync(join(project, "dist", "packages")).sort()).toEqual([
      "book-shelf-go-0.1.0.zip",
      "book-shelf-mcp-0.1.0.tgz",
      "book-shelf-sdk-0.1.0.tgz",
      "book-shelf-server-0.1.0.tgz",
      "book_shelf_sdk-0.1.0-py3-none-any.whl",
      "book_shelf_sdk-0.1.0.tar.gz",
    ]);
    expect(packed.stdout).toMatch(/book-shelf-sdk@0\.1\.0: dist\/packages\/book-shelf-sdk-0\.1\.0\.tgz \(\d+ files, [\d.]+ KB, npm publish --dry-run passed\)/);
    expect(packed.stdout).toContain("twine check passed");
    expect(packed.stdout).toContain("built from the zip");
    // Its own build tools, under its own node_modules: nothing of this repository.
    expect(existsSync(join(project, "node_modules", ".cache", "apigen", "python-build", "venv"))).toBe(true);
    expect(packed.output).not.toContain(REPO_ROOT);

    // The SDK tarball carries the installed runtime, compiled, with the generated client importing it relatively.
    const unpacked = join(workDir, "unpacked-sdk");
    mkdirSync(unpacked);
    await runProcess("tar", ["-xzf", join(project, "dist", "packages", "book-shelf-sdk-0.1.0.tgz"), "-C", unpacked]);
    expect(readFileSync(join(unpacked, "package", "runtime", "client", "core.js"), "utf8")).toBe(readFileSync(join(project, "node_modules", "@apigen", "runtime", "client", "core.js"), "utf8"));
    expect(readFileSync(join(unpacked, "package", "generated", "client", "index.js"), "utf8")).not.toContain("@apigen/runtime");
  }, 300_000);

  it("with --toolchain <folder>, depends on the tarballs there and packs nothing", async () => {
    const folder = join(project, "toolchain");
    const written = await runProcess(process.execPath, [APIGEN, "init", "elsewhere", "--toolchain", folder], { cwd: workDir });
    expect(written.code, written.output).toBe(0);
    expect(written.stderr).not.toContain("packing the toolchain");
    expect(existsSync(join(workDir, "elsewhere", "toolchain"))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(workDir, "elsewhere", "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.devDependencies.apigen).toBe(`file:${join(folder, TARBALLS[0]!)}`);
    expect(pkg.dependencies["@apigen/runtime"]).toBe(`file:${join(folder, TARBALLS[1]!)}`);
    expect(readFileSync(join(workDir, "elsewhere", "README.md"), "utf8")).not.toContain("toolchain/");
  });

  it("refuses a folder that is not empty and a toolchain folder without the packages, writing nothing", async () => {
    const occupied = join(workDir, "occupied");
    mkdirSync(occupied);
    writeFileSync(join(occupied, "notes.txt"), "mine\n");
    const refused = await runProcess(process.execPath, [APIGEN, "init", occupied], { cwd: workDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is not empty; apigen init writes a new project into a new or empty folder");
    expect(readdirSync(occupied)).toEqual(["notes.txt"]);

    const noPackages = await runProcess(process.execPath, [APIGEN, "init", "fresh", "--toolchain", workDir], { cwd: workDir });
    expect(noPackages.code).toBe(2);
    expect(noPackages.stderr).toMatch(/--toolchain .* lacks apigen-\S+\.tgz and apigen-runtime-\S+\.tgz; make them with npm run pack:toolchain/);
    expect(noPackages.stderr).not.toContain("    at ");
    expect(existsSync(join(workDir, "fresh"))).toBe(false);
  });

  it("refuses to pack a --root without operations.yaml, an unknown --only and a project not generated yet, writing nothing", async () => {
    const pack = (...args: string[]) => runProcess(process.execPath, [APIGEN, "pack", ...args], { cwd: workDir });
    const noManifest = join(workDir, "not-a-project");
    mkdirSync(noManifest);
    const refused = await pack("--root", noManifest);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`apigen pack: --root ${noManifest} has no operations.yaml: run apigen pack in the project's folder, or name it with --root <dir>\n`);

    const only = await pack("--root", noManifest, "--only", "npm,rust");
    expect(only.code).toBe(2);
    expect(only.stderr).toBe("apigen pack: --only takes npm, python, go or a comma-separated list of them, not 'npm,rust'\n");

    // A manifest, but nothing generated from it yet.
    writeFileSync(join(noManifest, "operations.yaml"), readFileSync(join(REPO_ROOT, "examples", "bookstore", "operations.yaml"), "utf8"));
    const ungenerated = await pack("--root", noManifest, "--first-release");
    expect(ungenerated.code).toBe(1);
    expect(ungenerated.stderr).toMatch(/^apigen pack: \S+not-a-project has no generated\/packages: generate it first \(apigen generate --root \S+\)\n$/);
    for (const result of [refused, only, ungenerated]) expect(result.stderr).not.toContain("    at ");
    expect(readdirSync(noManifest)).toEqual(["operations.yaml"]);
  });
});
