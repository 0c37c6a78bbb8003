// `apigen init`, as a team with another API meets it: the toolchain packed from this repository
// (npm run pack:toolchain: the `apigen` command line and `@apigen/runtime`), a starter written into a
// folder outside it, then `npm ci`, `npm run generate`, `npm test` and `npx apigen pack` there, with
// nothing of this repository beside it: the three npm packages (the installed runtime inside, compiled
// by the starter's TypeScript), the Python wheel and sdist (built in a virtualenv of pinned build
// tools the CLI makes under the starter's node_modules; needs Python 3.10+) and the Go module zip
// (the CLI builds its module-zip helper; needs Go 1.23+). Bad input (a folder that is not empty, a
// toolchain folder without the packages; a pack --root without operations.yaml, an unknown --only,
// a project not generated yet, a first release not said to be one) is refused with a clear message
// and no stack trace, and nothing is written.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packToolchain } from "../scripts/pack-toolchain.mjs";
import { runProcess } from "../scripts/run-process.mjs";
import { REPO_ROOT, tempDir } from "./helpers/project.js";

const APIGEN = join(REPO_ROOT, "bin", "apigen.js");
const workDir = tempDir("apigen-init-");
const toolchainDir = join(workDir, "toolchain");
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const npm = async (cwd: string, ...args: string[]) => {
  const result = await runProcess("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd });
  expect(result.code, `npm ${args.join(" ")}:\n${result.output}`).toBe(0);
  return result.output;
};

/** Every file below `dir`, relative to it, node_modules aside. */
const filesBelow = (dir: string, prefix = ""): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" ? [] : entry.isDirectory() ? filesBelow(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );

beforeAll(async () => {
  const packed = await packToolchain({ outDir: toolchainDir });
  expect(packed.map((p) => p.name).sort()).toEqual(["@apigen/runtime", "apigen"]);
}, 120_000);

describe("apigen init", () => {
  it("writes a starter that installs, generates and passes its own tests outside the repository", async () => {
    const written = await runProcess(process.execPath, [APIGEN, "init", "Book Shelf", "--toolchain", toolchainDir], { cwd: workDir });
    expect(written.code, written.output).toBe(0);
    expect(written.stdout).toContain("next: cd 'Book Shelf' && npm install && npm run generate && npm test");
    const project = join(workDir, "Book Shelf");
    expect(filesBelow(project).sort()).toEqual([".gitignore", "README.md", "operations.yaml", "package.json", "src/main.ts", "src/service.ts", "test/service.test.ts", "tsconfig.json"]);
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

  it("packs the starter with npx apigen pack: npm packages, wheel, sdist and Go module, from the installed toolchain", async () => {
    const project = join(workDir, "Book Shelf");
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
