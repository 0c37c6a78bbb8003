// `npm run pack [-- --root <dir>] [--out <dir>] [--only npm|python|go] [--first-release] [--release]`:
// turns the generated packages of a project (this one, or the one under --root; the runtime and
// the build tools are this repository's) into npm tarballs, the Python SDK into a wheel and an
// sdist (scripts/pack-python.mjs), and the Go SDK into a module zip (scripts/pack-go.mjs). For each
// npm package it takes the modules its package.json exports and every module they import, stages
// them in a temporary build folder with their relative layout kept, compiles them once with the
// project's TypeScript into ES modules with .d.ts, runs `npm pack`, and checks each tarball with
// `npm publish --dry-run`. The release gate (scripts/release-gate.mjs) runs first:
// `--first-release` lets it pass when there is no earlier release to compare with, and `--release`
// records this release (HEAD and its api.version) in release.json once everything is packed.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";
import { packGo } from "./pack-go.mjs";
import { packPython } from "./pack-python.mjs";
import { RELEASE_RECORD, releaseGate, releaseToRecord, writeReleaseRecord } from "./release-gate.mjs";
import { runProcess } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES_DIR = "generated/packages";
export const DEFAULT_OUT_DIR = "dist/packages";

/** Compiler options of the packages: ES modules for Node's resolution, with declarations. */
export const COMPILER_OPTIONS = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  declaration: true,
  strict: true,
  noUncheckedIndexedAccess: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmitOnError: true,
  types: ["node"],
  rootDir: "src",
  outDir: "out",
};

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
export const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
export const isBuiltin = (specifier) => specifier.startsWith("node:") || builtinModules.includes(specifier);
/** Generated code imports the runtime by package name (generators/emit/runtime-package.ts); the packages carry it inside. */
const RUNTIME_PACKAGE = "@apigen/runtime";
/** Where a module of a package comes from: the runtime's from this repository's runtime/, whatever project is packed. */
const sourcePath = (root, path) => join(path.startsWith("runtime/") ? PROJECT_ROOT : root, path);
/** The project path of a module of the runtime package, or undefined for any other specifier. */
const runtimeModule = (specifier) => (specifier.startsWith(`${RUNTIME_PACKAGE}/`) ? `runtime/${specifier.slice(RUNTIME_PACKAGE.length + 1)}` : undefined);
/** A module's text with each import of the runtime package made relative to the module, as the package lays the runtime out. */
const withRelativeRuntime = (path, text) =>
  text.replace(/(["'])@apigen\/runtime\/([^"']+)\1/g, (_, quote, rest) => {
    const target = posix.relative(posix.dirname(path), `runtime/${rest}`);
    return `${quote}${target.startsWith(".") ? target : `./${target}`}${quote}`;
  });

/**
 * Every source module a package needs: its exported entry points and, transitively, every module
 * they import (static and dynamic), as paths relative to the project root.
 */
function moduleClosure(root, manifest) {
  const entries = [...Object.values(manifest.exports).filter((target) => typeof target === "object").map((target) => target.default), ...Object.values(manifest.bin ?? {})]
    .map((target) => target.replace(/^\.\//, "").replace(/\.js$/, ".ts"));
  const modules = new Set();
  const packages = new Set();
  const queue = [...entries];
  while (queue.length > 0) {
    const path = queue.pop();
    if (modules.has(path)) continue;
    const absolute = sourcePath(root, path);
    if (!existsSync(absolute)) throw new Error(`${manifest.name}: ${path} is missing; run \`npm run generate\``);
    modules.add(path);
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(absolute, "utf8"), true, true).importedFiles) {
      if (specifier.startsWith(".")) queue.push(posix.join(posix.dirname(path), specifier).replace(/\.js$/, ".ts"));
      else if (runtimeModule(specifier)) queue.push(runtimeModule(specifier).replace(/\.js$/, ".ts"));
      else if (!isBuiltin(specifier)) packages.add(packageOf(specifier));
    }
  }
  // An optional peer counts as declared: its modules import it only when an option asks for it.
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  const undeclared = [...packages].filter((name) => !(name in declared));
  if (undeclared.length > 0) throw new Error(`${manifest.name} imports ${undeclared.join(", ")} but does not declare it in dependencies or peerDependencies`);
  return [...modules].sort();
}

export function compile(buildDir) {
  // Under NodeNext the nearest package.json decides the module format of every .ts file.
  writeFileSync(join(buildDir, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  writeFileSync(join(buildDir, "tsconfig.json"), `${JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ["src"] }, null, 2)}\n`);
  const parsed = ts.getParsedCommandLineOfConfigFile(join(buildDir, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => buildDir, getNewLine: () => "\n" };
    throw new Error(`TypeScript failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

export async function run(command, args, cwd, { withStderr = false } = {}) {
  const { code, stdout, stderr } = await runProcess(command, args, { cwd, shell: process.platform === "win32" });
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${code}):\n${stderr}`);
  return withStderr ? { stdout, stderr } : stdout;
}

/**
 * What npm would publish from a package folder, short of publishing: `npm publish --dry-run`
 * (name, version, access, files). npm corrects some package.json mistakes as it publishes and only
 * warns; those fail here, so that what is published is what was generated.
 */
export async function publishDryRun(packageDir) {
  const { stderr } = await run("npm", ["publish", "--dry-run", "--json"], packageDir, { withStderr: true });
  const corrections = stderr
    .split("\n")
    .map((line) => line.replace(/^npm warn publish /, "").trim())
    .filter((line, index, lines) => lines.slice(0, index).some((l) => /^errors corrected:/.test(l)) && line !== "" && !/requires you to be logged in/.test(line) && !/^npm /.test(line));
  if (/auto-corrected/.test(stderr)) {
    throw new Error(`npm publish --dry-run: npm would change the package.json of ${packageDir} as it publishes:\n${corrections.map((c) => `  ${c}`).join("\n")}`);
  }
}

/** Packs every package under generated/packages into `outDir`; answers each package's tarball. */
export async function packPackages({ root = PROJECT_ROOT, outDir = join(root, DEFAULT_OUT_DIR) } = {}) {
  const packages = readdirSync(join(root, PACKAGES_DIR), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, PACKAGES_DIR, entry.name, "package.json")))
    .map((entry) => {
      const dir = join(root, PACKAGES_DIR, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      return { dir, manifest, modules: moduleClosure(root, manifest) };
    });
  if (packages.length === 0) throw new Error(`no packages under ${PACKAGES_DIR}; run \`npm run generate\``);

  const buildDir = mkdtempSync(join(tmpdir(), "apigen-pack-"));
  try {
    // One compilation for all packages: they share the schema, the types and the proto messages.
    for (const path of new Set(packages.flatMap((p) => p.modules))) {
      mkdirSync(dirname(join(buildDir, "src", path)), { recursive: true });
      writeFileSync(join(buildDir, "src", path), withRelativeRuntime(path, readFileSync(sourcePath(root, path), "utf8")));
    }
    // The packages compile against this repository's dependencies, whatever project is packed.
    symlinkSync(join(PROJECT_ROOT, "node_modules"), join(buildDir, "node_modules"), "junction");
    compile(buildDir);

    mkdirSync(outDir, { recursive: true });
    return await Promise.all(
      packages.map(async ({ dir, manifest, modules }) => {
        const packageDir = join(buildDir, "packages", manifest.name);
        for (const path of modules) {
          for (const extension of [".js", ".d.ts"]) {
            const file = path.replace(/\.ts$/, extension);
            mkdirSync(dirname(join(packageDir, file)), { recursive: true });
            copyFileSync(join(buildDir, "out", file), join(packageDir, file));
          }
        }
        for (const file of ["package.json", "README.md"]) copyFileSync(join(dir, file), join(packageDir, file));
        const [packed] = JSON.parse(await run("npm", ["pack", "--json", "--pack-destination", outDir], packageDir));
        const tarball = join(outDir, packed.filename);
        await publishDryRun(packageDir);
        return { name: manifest.name, version: manifest.version, tarball, files: packed.files.length, bytes: packed.size };
      }),
    );
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { root: { type: "string", default: "." }, out: { type: "string" }, only: { type: "string" }, "first-release": { type: "boolean", default: false }, release: { type: "boolean", default: false } },
  });
  const started = performance.now();
  // Any project: its manifest, generated files and release record are under --root (default: here).
  const root = resolve(values.root);
  const outDir = resolve(values.out ?? join(root, DEFAULT_OUT_DIR));
  try {
    if (!existsSync(join(root, "generated", "packages"))) throw new Error(`${root} has no generated/packages: run apigen generate --root ${values.root} first`);
    // Nothing is built from stale files or under a version the contract diff says is too low.
    const gate = releaseGate({ root, firstRelease: values["first-release"] });
    for (const note of gate.notes) process.stdout.write(`pack: ${note}\n`);
    if (gate.problems.length > 0) throw new Error(`refusing to pack:\n${gate.problems.map((p) => `  - ${p}`).join("\n")}`);
    if (values.only !== undefined && !["npm", "python", "go"].includes(values.only)) throw new Error(`--only takes npm, python or go, not '${values.only}'`);
    const release = values.release ? releaseToRecord(root) : undefined;
    if (values.only === undefined || values.only === "npm") {
      for (const p of await packPackages({ root, outDir })) {
        process.stdout.write(`${p.name}@${p.version}: ${relative(process.cwd(), p.tarball)} (${p.files} files, ${(p.bytes / 1024).toFixed(1)} KB, npm publish --dry-run passed)\n`);
      }
    }
    if (values.only === undefined || values.only === "python") {
      for (const p of await packPython({ root, outDir })) {
        process.stdout.write(`${p.kind}: ${relative(process.cwd(), p.path)} (${(p.bytes / 1024).toFixed(1)} KB, twine check passed)\n`);
      }
    }
    if (values.only === undefined || values.only === "go") {
      const p = await packGo({ root, outDir });
      process.stdout.write(`go module ${p.path}@${p.version}: ${relative(process.cwd(), p.zip)} (${p.files} files, ${(p.bytes / 1024).toFixed(1)} KB, built from the zip)\n`);
    }
    if (release !== undefined) {
      writeReleaseRecord(root, release);
      process.stdout.write(`pack: recorded release ${release.version} (commit ${release.commit.slice(0, 12)}) in ${RELEASE_RECORD}: commit it once the release is published\n`);
    }
    process.stdout.write(`time: ${((performance.now() - started) / 1000).toFixed(2)} s\n`);
  } catch (error) {
    process.stderr.write(`pack: ${error.message}\n`);
    process.exitCode = 1;
  }
}
