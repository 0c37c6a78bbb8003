// `npm run pack [-- --root <dir>] [--out <dir>] [--only npm|python|go[,...]] [--first-release] [--release]`,
// and `apigen pack` with the same flags: turns the generated packages of a project (this one, or the
// one under --root) into npm tarballs, the Python SDK into a wheel and an sdist
// (scripts/pack-python.mjs), and the Go SDK into a module zip (scripts/pack-go.mjs). For each npm
// package it takes the modules its package.json exports and every module they import, stages them
// in a temporary build folder with their relative layout kept, compiles them once with TypeScript
// into ES modules with .d.ts, runs `npm pack`, and checks each tarball with `npm publish --dry-run`.
// The release gate (scripts/release-gate.mjs) runs first: `--first-release` lets it pass when there
// is no earlier release to compare with, and `--release` records this release (HEAD and its
// api.version) in release.json once everything is packed.
//
// What is not the project's own comes from a toolchain: `npm run pack` takes this repository's
// (repoToolchain: runtime/, its node_modules and TypeScript, its test virtualenv and Go helper);
// `apigen pack`, in a project that installed the toolchain, that project's (installedToolchain: the
// compiled @apigen/runtime and the TypeScript it installed, and build tools of its own under its
// node_modules/.cache/apigen).
import { reportProgress } from "./progress.mjs";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { goBinary, goToolFromSource } from "./go-env.mjs";
import { isMain } from "./is-main.mjs";
import { packGo } from "./pack-go.mjs";
import { packPython } from "./pack-python.mjs";
import { packToolSources } from "./pack-tools.mjs";
import { ensurePythonBuildEnv, ensurePythonEnv } from "./python-env.mjs";
import { RELEASE_RECORD, releaseGate, releaseToRecord, writeReleaseRecord } from "./release-gate.mjs";
import { runProcess } from "./run-process.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES_DIR = "generated/packages";
export const DEFAULT_OUT_DIR = "dist/packages";
/** What --only takes. */
export const ARTIFACT_KINDS = ["npm", "python", "go"];
/** Generated code imports the runtime by package name (generators/emit/runtime-package.ts); the packages carry it inside. */
const RUNTIME_PACKAGE = "@apigen/runtime";

/** A packing error the command reports as it is (no stack): bad input, a missing tool, a refused gate. */
export class PackError extends Error {}

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
export const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
export const isBuiltin = (specifier) => specifier.startsWith("node:") || builtinModules.includes(specifier);
/** The project path of a module of the runtime package, or undefined for any other specifier. */
const runtimeModule = (specifier) => (specifier.startsWith(`${RUNTIME_PACKAGE}/`) ? `runtime/${specifier.slice(RUNTIME_PACKAGE.length + 1)}` : undefined);
/** The runtime's package imports ("#client-platform": its modules by condition), from its package.json. */
export const runtimeImports = (runtimeDir) => JSON.parse(readFileSync(join(runtimeDir, "package.json"), "utf8")).imports ?? {};
/** Package imports whose targets are under `prefix` (./runtime/ in a package, ./src/runtime/ in a build) instead of the runtime's own folder. */
export const importsUnder = (imports, prefix) =>
  Object.fromEntries(
    Object.entries(imports).map(([name, conditions]) => [
      name,
      typeof conditions === "string" ? conditions.replace(/^\.\//, prefix) : Object.fromEntries(Object.entries(conditions).map(([condition, target]) => [condition, target.replace(/^\.\//, prefix)])),
    ]),
  );
/** Every module a package import of the runtime may resolve to, as project paths (runtime/client/platform-web.ts). */
const runtimeImportTargets = (imports, specifier) => {
  const conditions = imports[specifier];
  if (conditions === undefined) return undefined;
  return [...new Set(typeof conditions === "string" ? [conditions] : Object.values(conditions))].map((target) => `runtime/${target.replace(/^\.\//, "").replace(/\.js$/, ".ts")}`);
};
/** A module's text with each import of the runtime package made relative to the module, as the package lays the runtime out. */
const withRelativeRuntime = (path, text) =>
  text.replace(/(["'])@apigen\/runtime\/([^"']+)\1/g, (_, quote, rest) => {
    const target = posix.relative(posix.dirname(path), `runtime/${rest}`);
    return `${quote}${target.startsWith(".") ? target : `./${target}`}${quote}`;
  });

/**
 * This repository's toolchain (`npm run pack`), whatever project is packed: the runtime's sources
 * (runtime/), TypeScript and the packages' dependencies from its node_modules, bin/apigen.js for
 * the release gate, the tests' Python virtualenv and the Go helper of test/go.
 */
export function repoToolchain() {
  return {
    runtime: { dir: join(PROJECT_ROOT, "runtime"), compiled: false },
    nodeModules: join(PROJECT_ROOT, "node_modules"),
    typescript: () => createRequire(join(PROJECT_ROOT, "package.json"))("typescript"),
    apigen: [process.execPath, join(PROJECT_ROOT, "bin", "apigen.js")],
    packCommand: "npm run pack --",
    python: async () => (await ensurePythonEnv()).python,
    modzip: async () => (await goBinary("modzip")).binary,
  };
}

/**
 * The toolchain a project installed (`apigen pack`): `@apigen/runtime` and TypeScript as the
 * project resolves them (the runtime compiled, as npm installs it; this repository's workspace
 * holds its sources, which work too), `apigen` (the command that checks and diffs: the running
 * CLI), and build tools made under <node_modules>/.cache/apigen from the texts the CLI holds:
 * a virtualenv with hatchling, build and twine, and the module-zip helper (golang.org/x/mod).
 */
export function installedToolchain(root, { apigen, packCommand = "apigen pack", sources = packToolSources } = {}) {
  // The node_modules that holds the runtime, found as Node finds it (the nearest, from the root up);
  // the packages compile against it. Not its real path: in this repository it links to runtime/.
  // Looked up when the npm packages ask for it: the wheel and the Go module do without.
  let found;
  const nodeModules = () => {
    for (let dir = root; found === undefined; dir = dirname(dir)) {
      if (existsSync(join(dir, "node_modules", RUNTIME_PACKAGE, "package.json"))) found = join(dir, "node_modules");
      else if (dirname(dir) === dir)
        throw new PackError(`${root} has no ${RUNTIME_PACKAGE} installed, which the generated packages carry: run npm install there (the project of apigen init depends on it)`);
    }
    return found;
  };
  const cache = () => {
    try {
      return join(nodeModules(), ".cache", "apigen");
    } catch {
      return join(root, "node_modules", ".cache", "apigen");
    }
  };
  // TypeScript as the project's own modules resolve it (not a name the CLI bundle could hold).
  const projectRequire = createRequire(join(root, "package.json"));
  return {
    get runtime() {
      const dir = join(nodeModules(), RUNTIME_PACKAGE);
      return { dir, compiled: !existsSync(join(dir, "schema.ts")) };
    },
    get nodeModules() {
      return nodeModules();
    },
    typescript: () => {
      try {
        return projectRequire("typescript");
      } catch {
        throw new PackError(`${packCommand} compiles the npm packages with the project's TypeScript, and ${root} has none: npm install --save-dev typescript @types/node`);
      }
    },
    apigen,
    packCommand,
    python: async () => (await ensurePythonBuildEnv({ cache: join(cache(), "python-build"), requirements: sources().pythonBuild })).python,
    modzip: async () => (await goToolFromSource("modzip", sources().modzip, { cache: join(cache(), "go"), root })).binary,
  };
}

/**
 * Where the text of a module comes from, by project path: the generated ones from the project, the
 * runtime's from the toolchain's runtime (its sources, or its compiled .js and .d.ts: the imports
 * of both count, since a .d.ts keeps the type-only ones).
 */
function moduleFiles(root, runtime, path) {
  if (!path.startsWith("runtime/")) return [join(root, path)];
  const inRuntime = join(runtime.dir, path.slice("runtime/".length));
  return runtime.compiled ? [inRuntime.replace(/\.ts$/, ".js"), inRuntime.replace(/\.ts$/, ".d.ts")] : [inRuntime];
}

/**
 * Every source module a package needs: its exported entry points and, transitively, every module
 * they import (static and dynamic), as .ts paths relative to the project root.
 */
function moduleClosure(root, manifest, { runtime, ts }) {
  const entries = [
    ...Object.values(manifest.exports)
      .filter((target) => typeof target === "object")
      .map((target) => target.default),
    ...Object.values(manifest.bin ?? {}),
  ].map((target) => target.replace(/^\.\//, "").replace(/\.js$/, ".ts"));
  const modules = new Set();
  const packages = new Set();
  const imports = runtimeImports(runtime.dir);
  const queue = [...entries];
  while (queue.length > 0) {
    const path = queue.pop();
    if (modules.has(path)) continue;
    const files = moduleFiles(root, runtime, path);
    const missing = files.find((file) => !existsSync(file));
    if (missing) {
      throw new PackError(
        path.startsWith("runtime/")
          ? `${manifest.name}: ${missing} is missing from ${RUNTIME_PACKAGE}; install the version of the toolchain that generated the files`
          : `${manifest.name}: ${path} is missing; run apigen generate`,
      );
    }
    modules.add(path);
    for (const file of files) {
      for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (specifier.startsWith(".")) queue.push(posix.join(posix.dirname(path), specifier).replace(/\.js$/, ".ts"));
        else if (specifier.startsWith("#")) {
          const targets = runtimeImportTargets(imports, specifier);
          if (!targets) throw new PackError(`${manifest.name}: ${path} imports ${specifier}, which ${RUNTIME_PACKAGE}'s package.json does not map`);
          // The package maps it to the runtime's own modules, which it carries under runtime/.
          const expected = importsUnder({ [specifier]: imports[specifier] }, "./runtime/")[specifier];
          if (JSON.stringify(manifest.imports?.[specifier]) !== JSON.stringify(expected)) {
            throw new PackError(
              `${manifest.name}: ${path} imports ${specifier}, which its package.json does not map as ${RUNTIME_PACKAGE} does (${JSON.stringify(expected)}); run apigen generate with this toolchain`,
            );
          }
          queue.push(...targets);
        } else if (runtimeModule(specifier)) queue.push(runtimeModule(specifier).replace(/\.js$/, ".ts"));
        else if (!isBuiltin(specifier)) packages.add(packageOf(specifier));
      }
    }
  }
  // An optional peer counts as declared: its modules import it only when an option asks for it.
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  const undeclared = [...packages].filter((name) => !(name in declared));
  if (undeclared.length > 0) throw new PackError(`${manifest.name} imports ${undeclared.join(", ")} but does not declare it in dependencies or peerDependencies`);
  return [...modules].sort();
}

/** Compiles buildDir/src into buildDir/out with `ts` (the typescript module) and COMPILER_OPTIONS; throws the diagnostics. */
export function compile(buildDir, ts, { imports = {} } = {}) {
  // Under NodeNext the nearest package.json decides the module format of every .ts file; its
  // imports are the runtime's, which TypeScript resolves as Node does (the "node" condition).
  writeFileSync(join(buildDir, "package.json"), `${JSON.stringify({ type: "module", private: true, imports: importsUnder(imports, "./src/runtime/") })}\n`);
  writeFileSync(join(buildDir, "tsconfig.json"), `${JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ["src"] }, null, 2)}\n`);
  const parsed = ts.getParsedCommandLineOfConfigFile(join(buildDir, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => buildDir, getNewLine: () => "\n" };
    throw new PackError(`TypeScript failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

export async function run(command, args, cwd, { withStderr = false } = {}) {
  const { code, stdout, stderr } = await runProcess(command, args, { cwd, shell: process.platform === "win32" });
  if (code !== 0) throw new PackError(`${command} ${args.join(" ")} failed (${code}):\n${stderr}`);
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
    throw new PackError(`npm publish --dry-run: npm would change the package.json of ${packageDir} as it publishes:\n${corrections.map((c) => `  ${c}`).join("\n")}`);
  }
}

/**
 * Packs every package under generated/packages into `outDir`; answers each package's tarball.
 * `toolchain`: where the runtime, TypeScript and the packages' dependencies come from (repoToolchain by default).
 */
export async function packPackages({ root = PROJECT_ROOT, outDir = join(root, DEFAULT_OUT_DIR), toolchain = repoToolchain() } = {}) {
  const ts = toolchain.typescript();
  const { runtime } = toolchain;
  const packages = readdirSync(join(root, PACKAGES_DIR), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, PACKAGES_DIR, entry.name, "package.json")))
    .map((entry) => {
      const dir = join(root, PACKAGES_DIR, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      return { dir, manifest, modules: moduleClosure(root, manifest, { runtime, ts }) };
    });
  if (packages.length === 0) throw new PackError(`no packages under ${PACKAGES_DIR}; run apigen generate`);

  const buildDir = mkdtempSync(join(tmpdir(), "apigen-pack-"));
  try {
    // One compilation for all packages: they share the schema, the types and the proto messages.
    // A compiled runtime is staged as its declarations, to compile against; its .js is shipped as it is.
    for (const path of new Set(packages.flatMap((p) => p.modules))) {
      const compiledRuntime = runtime.compiled && path.startsWith("runtime/");
      const staged = join(buildDir, "src", compiledRuntime ? path.replace(/\.ts$/, ".d.ts") : path);
      mkdirSync(dirname(staged), { recursive: true });
      const [source] = moduleFiles(root, runtime, path).slice(compiledRuntime ? 1 : 0);
      writeFileSync(staged, withRelativeRuntime(path, readFileSync(source, "utf8")));
    }
    // The packages compile against the toolchain's dependencies (this repository's, or the project's).
    symlinkSync(toolchain.nodeModules, join(buildDir, "node_modules"), "junction");
    compile(buildDir, ts, { imports: runtimeImports(runtime.dir) });

    mkdirSync(outDir, { recursive: true });
    return await Promise.all(
      packages.map(async ({ dir, manifest, modules }) => {
        const packageDir = join(buildDir, "packages", manifest.name);
        for (const path of modules) {
          const compiledRuntime = runtime.compiled && path.startsWith("runtime/");
          const [js, dts] = compiledRuntime ? moduleFiles(root, runtime, path) : [".js", ".d.ts"].map((extension) => join(buildDir, "out", path.replace(/\.ts$/, extension)));
          for (const [from, extension] of [
            [js, ".js"],
            [dts, ".d.ts"],
          ]) {
            const file = join(packageDir, path.replace(/\.ts$/, extension));
            mkdirSync(dirname(file), { recursive: true });
            copyFileSync(from, file);
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

/** The kinds of --only (a comma-separated list of ARTIFACT_KINDS), every kind when it is not given. */
export function artifactKinds(only) {
  if (only === undefined) return [...ARTIFACT_KINDS];
  const kinds = only
    .split(",")
    .map((kind) => kind.trim())
    .filter((kind) => kind !== "");
  const unknown = kinds.filter((kind) => !ARTIFACT_KINDS.includes(kind));
  if (kinds.length === 0 || unknown.length > 0) throw new PackError(`--only takes ${ARTIFACT_KINDS.join(", ")} or a comma-separated list of them, not '${only}'`);
  return ARTIFACT_KINDS.filter((kind) => kinds.includes(kind));
}

/** What each kind needs besides Node and npm, as a refusal names it. */
const NEEDS = { npm: "", python: "Python 3.10 or later (a virtualenv with hatchling, build and twine)", go: "Go 1.23 or later" };

/**
 * The whole of pack: the release gate, then the artefacts `only` asks for (all by default) into
 * `outDir`, then the release record when `release`. Throws a PackError naming what is wrong; each
 * artefact's line goes to `out`. Answers the files written.
 */
export async function packProject({
  root,
  outDir = join(root, DEFAULT_OUT_DIR),
  only,
  firstRelease = false,
  release = false,
  toolchain = repoToolchain(),
  out = (line) => process.stdout.write(`${line}\n`),
}) {
  const kinds = artifactKinds(only);
  if (!existsSync(join(root, "operations.yaml"))) throw new PackError(`${root} has no operations.yaml: --root names the folder of the project to pack (the one holding its operations.yaml)`);
  if (!existsSync(join(root, PACKAGES_DIR)))
    throw new PackError(`${root} has no ${PACKAGES_DIR}: generate it first (apigen generate${root === resolve(".") ? "" : ` --root ${relative(process.cwd(), root) || "."}`})`);
  // Nothing is built from stale files or under a version the contract diff says is too low.
  // The gate's own refusals (an unreadable release record, an uncommitted manifest to record) are the project's to fix.
  const said = (work) => {
    try {
      return work();
    } catch (error) {
      throw new PackError(error.message, { cause: error });
    }
  };
  const gate = said(() => releaseGate({ root, firstRelease, apigen: toolchain.apigen, packCommand: toolchain.packCommand }));
  for (const note of gate.notes) out(`pack: ${note}`);
  if (gate.problems.length > 0) throw new PackError(`refusing to pack:\n${gate.problems.map((p) => `  - ${p}`).join("\n")}`);
  const record = release ? said(() => releaseToRecord(root)) : undefined;
  const shown = (path) => relative(process.cwd(), path) || path;
  const written = [];
  /**
   * One kind's step: a failure names the kind; where the step gets the kind's tool, also what it
   * needs and how to pack the others without it.
   */
  const step = async (kind, work, getsTool = false) => {
    if (!kinds.includes(kind)) return;
    // The tools report their own waits (python-env, go-env); packing a kind can take a minute.
    const done = getsTool ? () => {} : reportProgress((line) => process.stderr.write(`${line}\n`), `pack: packing the ${kind} artefacts`);
    try {
      await work();
    } catch (error) {
      const others = kinds.filter((other) => other !== kind);
      const hint = kind !== "npm" && others.length > 0 ? ` (--only ${others.join(",")} packs the rest without it)` : "";
      throw new PackError(`${kind}: ${error.message}${getsTool && NEEDS[kind] ? `\n${kind} artefacts need ${NEEDS[kind]}${hint}` : ""}`, { cause: error });
    } finally {
      done();
    }
  };
  // The tools first, so that a missing one stops pack before anything is written.
  let python;
  let modzipBinary;
  await step("python", async () => void (python = await toolchain.python()), true);
  await step("go", async () => void (modzipBinary = await toolchain.modzip()), true);
  await step("npm", async () => {
    for (const p of await packPackages({ root, outDir, toolchain })) {
      written.push(p.tarball);
      out(`${p.name}@${p.version}: ${shown(p.tarball)} (${p.files} files, ${(p.bytes / 1024).toFixed(1)} KB, npm publish --dry-run passed)`);
    }
  });
  await step("python", async () => {
    for (const p of await packPython({ root, outDir, python })) {
      written.push(p.path);
      out(`${p.kind}: ${shown(p.path)} (${(p.bytes / 1024).toFixed(1)} KB, twine check passed)`);
    }
  });
  await step("go", async () => {
    const p = await packGo({ root, outDir, modzipBinary });
    written.push(p.zip);
    out(`go module ${p.path}@${p.version}: ${shown(p.zip)} (${p.files} files, ${(p.bytes / 1024).toFixed(1)} KB, built from the zip)`);
  });
  if (record !== undefined) {
    writeReleaseRecord(root, record);
    out(`pack: recorded release ${record.version} (commit ${record.commit.slice(0, 12)}) in ${RELEASE_RECORD}: commit it once the release is published`);
  }
  return written;
}

/** The flags of pack, for parseArgs (npm run pack here; generators/cli/cli.ts declares the same for apigen pack). */
export const PACK_OPTIONS = {
  root: { type: "string", default: "." },
  out: { type: "string" },
  only: { type: "string" },
  "first-release": { type: "boolean", default: false },
  release: { type: "boolean", default: false },
};

if (isMain(import.meta.url)) {
  const started = performance.now();
  try {
    const { values } = parseArgs({ options: PACK_OPTIONS });
    // Any project: its manifest, generated files and release record are under --root (default: here).
    const root = resolve(values.root);
    await packProject({ root, outDir: resolve(values.out ?? join(root, DEFAULT_OUT_DIR)), only: values.only, firstRelease: values["first-release"], release: values.release });
    process.stdout.write(`time: ${((performance.now() - started) / 1000).toFixed(2)} s\n`);
  } catch (error) {
    process.stderr.write(`pack: ${error.message}\n`);
    process.exitCode = 1;
  }
}
