// `apigen init`, as a team with another API meets it: the toolchain packed from this repository
// (npm run pack:toolchain: the `apigen` command line and `@apigen/runtime`), a starter written into a
// folder outside it, then `npm ci`, `npm run generate` and `npm test` there, with nothing of this
// repository beside it. Bad input (a folder that is not empty, a toolchain folder without the
// packages) is refused with a clear message, and nothing is written.
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
});
