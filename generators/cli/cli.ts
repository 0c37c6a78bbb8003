// apigen: the command line of the toolchain.
import { reportProgress } from "../../scripts/progress.mjs";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ManifestError, UsageError } from "../load/diagnostics.js";
import { DEFAULT_MANIFEST, emitAll, loadIr } from "../generate.js";
import { compare, render, write } from "../write/writer.js";

/** The output a generated path belongs to: the folder below generated/ (go, python, openapi, ...), or its own top folder (proto). */
function outputOf(path: string): string {
  const parts = path.split("/");
  const generated = parts.indexOf("generated");
  if (generated < 0) return parts[0]!;
  if (parts.length > generated + 2) return parts[generated + 1]!;
  // A file of generated/ itself: the TypeScript schema and types, or the list of files the writer owns.
  return path.endsWith(".ts") ? "typescript" : parts.at(-1)!;
}

/** "go 3, python 12": how many of `paths` each output holds, in the order first met. */
function countsByOutput(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const path of paths) counts.set(outputOf(path), (counts.get(outputOf(path)) ?? 0) + 1);
  return [...counts].map(([output, count]) => `${output} ${count}`).join(", ");
}

const USAGE = `Usage: apigen <command> [options]

Commands:
  generate            Regenerate every contract, stub and client from the manifest.
  generate --check    Write nothing; exit 1 naming every stale, missing or orphaned file.
  generate --watch    Regenerate on every change of the manifest, printing the time each took.
  generate --verbose  Also list every file written (by default, a count per output).
  validate            Check the manifest only.
  diff --against <ref|dir|file|auto> [--format text|markdown|json] [--accept <id>]... [--report <file>]
                      Report every contract change since an older manifest; exit 1 on unaccepted
                      breaking ones or an api.version not raised as far as the changes call for.
                      auto: $APIGEN_DIFF_BASE, else the merge base with origin/main, else HEAD~1.
                      --report also writes the report to <file> under --root (.md markdown,
                      .json JSON, else text), whatever the outcome.
  init <dir> [--toolchain <folder>]
                      Write a starter project into a new folder: a manifest of a few operations,
                      a service on the generated stubs, its tests, package.json and a README.
                      Run from a checkout of the toolchain, it packs that checkout's toolchain
                      into the starter (toolchain/); elsewhere the starter installs it from the
                      registry. --toolchain: a folder with the packed toolchain (npm run
                      pack:toolchain), used instead of either.
  scaffold <file> [--check] [--name <class or variable>]
                      Add a stub for every operation the implementation in <file> lacks;
                      --check writes nothing and exits 1 listing them.
  pack [--out <dir>] [--only npm|python|go[,...]] [--first-release] [--release]
                      Pack the project for release into --out (default: dist/packages under
                      --root): its npm packages (with the installed @apigen/runtime, compiled by
                      the project's TypeScript), the Python wheel and sdist (needs Python 3.10+)
                      and the Go module zip (needs Go 1.23+), after the release gate (generated
                      files up to date, the contract diff against the last release passing).
                      --first-release: there is no release to compare with; --release: record this
                      one in release.json.

Options:
  --manifest <file>   Manifest path relative to --root (default: ${DEFAULT_MANIFEST}).
  --root <dir>        Project root (default: the current directory).
  -h, --help          Show this help.`;

export async function main(argv: string[]): Promise<number> {
  const started = performance.now();
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        check: { type: "boolean", default: false },
        verbose: { type: "boolean", default: false },
        watch: { type: "boolean", default: false },
        manifest: { type: "string", default: DEFAULT_MANIFEST },
        root: { type: "string", default: "." },
        help: { type: "boolean", short: "h", default: false },
        against: { type: "string" },
        format: { type: "string" },
        accept: { type: "string", multiple: true, default: [] },
        report: { type: "string" },
        name: { type: "string" },
        toolchain: { type: "string" },
        out: { type: "string" },
        only: { type: "string" },
        "first-release": { type: "boolean", default: false },
        release: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`apigen: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  const root = resolve(values.root!);
  try {
    switch (command) {
      case "validate": {
        const ir = loadIr(root, values.manifest);
        process.stdout.write(`${values.manifest}: valid, ${ir.operations.length} operations\n`);
        return 0;
      }
      case "generate": {
        if (values.watch) {
          const { watchGenerate } = await import("./watch.js");
          const stop = new AbortController();
          process.once("SIGINT", () => stop.abort());
          process.once("SIGTERM", () => stop.abort());
          await watchGenerate(root, values.manifest!, { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) }, stop.signal);
          return 0;
        }
        const ir = loadIr(root, values.manifest);
        const emitted = emitAll(ir);
        const rendered = render(root, emitted.files, emitted.groups);
        const counts = ["graphql", "rest", "grpc"].map((p) => `${p} ${ir.operations.filter((op) => op.protocols.includes(p as never)).length}`).join(", ");
        const seconds = () => ((performance.now() - started) / 1000).toFixed(2);
        if (values.check) {
          const drift = compare(root, rendered);
          const problems = [...drift.stale.map((p) => `stale: ${p}`), ...drift.missing.map((p) => `missing: ${p}`), ...drift.orphaned.map((p) => `orphaned: ${p} (no longer generated)`)];
          if (problems.length > 0) {
            process.stderr.write(`${problems.join("\n")}\n${problems.length} generated file(s) out of date; run \`npm run generate\` and commit the result.\n`);
            return 1;
          }
          process.stdout.write(`${rendered.files.size} generated files are up to date (${seconds()} s)\n`);
          return 0;
        }
        const result = write(root, rendered);
        process.stdout.write(
          `operations: ${ir.operations.length} (${counts})\n` +
            `files: ${result.written.length} written${result.written.length > 0 ? ` (${countsByOutput(result.written)})` : ""}, ${result.unchanged} unchanged${result.removed.length ? `, ${result.removed.length} removed` : ""}\n` +
            (values.verbose ? result.written.map((p) => `  wrote ${p}\n`).join("") : "") +
            result.removed.map((p) => `  removed ${p}\n`).join("") +
            result.leftInPlace.map((p) => `  left ${p} in place: no longer generated, but edited since; it is yours now\n`).join("") +
            `time: ${seconds()} s on Node ${process.version}\n`,
        );
        return 0;
      }
      case "diff": {
        // Loaded on demand so that the other commands do not pay for graphql-inspector at start-up.
        const { runDiffCommand } = await import("../diff/command.js");
        return await runDiffCommand({ root, manifest: values.manifest!, against: values.against, format: values.format, accept: values.accept ?? [], report: values.report });
      }
      case "init": {
        const target = positionals[1];
        if (!target) throw new UsageError("init needs the folder to create: apigen init my-api");
        const { checkoutOf, init, packCheckoutToolchain, refuseOccupied } = await import("./init.js");
        refuseOccupied(target);
        const { TOOLCHAIN_VERSION } = await import("./version.js");
        // Run from a checkout of the toolchain, without --toolchain: that checkout's toolchain, packed into the starter.
        const checkout = values.toolchain ? undefined : checkoutOf(fileURLToPath(import.meta.url));
        let packed: string | undefined;
        if (checkout) {
          const done = reportProgress((line) => process.stderr.write(`${line}\n`), `init: packing the toolchain of ${checkout} (npm run pack:toolchain)`);
          packed = await packCheckoutToolchain(checkout).finally(done);
        }
        const toolchain = values.toolchain ?? packed;
        let result;
        try {
          result = init({ dir: target, version: TOOLCHAIN_VERSION, ...(toolchain ? { toolchain, bundleToolchain: packed !== undefined } : {}) });
        } finally {
          if (packed) rmSync(packed, { recursive: true, force: true });
        }
        process.stdout.write(
          `wrote ${result.files.length} files into ${target}:\n${result.files.map((f) => `  ${f}\n`).join("")}` +
            `next: cd ${/^[\w./-]+$/.test(target) ? target : `'${target.replace(/'/g, `'\\''`)}'`} && npm install && npm run generate && npm test\n`,
        );
        return 0;
      }
      case "scaffold": {
        const target = positionals[1];
        if (!target) throw new UsageError("scaffold needs the file that holds your implementation: apigen scaffold src/service.ts");
        // Loaded on demand: ts-morph and prettier are for this command alone.
        const { scaffold } = await import("./scaffold.js");
        const done = reportProgress((line) => process.stderr.write(`${line}\n`), `scaffold: reading ${target} with the TypeScript type checker`);
        const result = await scaffold(resolve(target), { check: values.check!, ...(values.name ? { name: values.name } : {}) }).finally(done);
        const where = `${result.target} (${result.interfaceName}) in ${target}`;
        const lines: string[] = [];
        if (result.missing.length === 0) lines.push(`${where}: every operation is implemented`);
        else if (result.written) lines.push(`${where}: added ${result.missing.length} stub${result.missing.length === 1 ? "" : "s"}: ${result.missing.join(", ")}`);
        else lines.push(`${where}: ${result.missing.length} operation${result.missing.length === 1 ? "" : "s"} not implemented: ${result.missing.join(", ")}`);
        if (result.unknown.length > 0) lines.push(`not operations of ${result.interfaceName} (left in place; remove them if the operations were removed): ${result.unknown.join(", ")}`);
        process.stdout.write(`${lines.join("\n")}\n`);
        return values.check && result.missing.length > 0 ? 1 : 0;
      }
      case "pack": {
        // Loaded on demand: packing is scripts/pack.mjs (npm run pack in this repository), bundled.
        const { artifactKinds, installedToolchain, packProject, DEFAULT_OUT_DIR, PackError } = await import("../../scripts/pack.mjs");
        // Bad input exits 2 before anything runs, naming what is wrong.
        const refuse = (message: string) => (process.stderr.write(`apigen pack: ${message}\n`), 2);
        if (values.manifest !== DEFAULT_MANIFEST) return refuse(`pack takes the project's ${DEFAULT_MANIFEST}; --manifest is not for pack`);
        try {
          artifactKinds(values.only);
        } catch (error) {
          return refuse((error as Error).message);
        }
        if (!existsSync(join(root, DEFAULT_MANIFEST))) {
          return refuse(`${values.root === "." ? "this folder" : `--root ${values.root}`} has no ${DEFAULT_MANIFEST}: run apigen pack in the project's folder, or name it with --root <dir>`);
        }
        try {
          // The release gate checks and diffs with this very CLI (the bundle runs as a command too).
          const toolchain = installedToolchain(root, { apigen: [process.execPath, fileURLToPath(import.meta.url)], packCommand: "apigen pack" });
          await packProject({
            root,
            outDir: resolve(values.out ?? join(root, DEFAULT_OUT_DIR)),
            only: values.only,
            firstRelease: values["first-release"]!,
            release: values.release!,
            toolchain,
            out: (line) => process.stdout.write(`${line}\n`),
          });
        } catch (error) {
          // What stops a pack (a refused gate, a missing tool, a failed build) is said in its message, the stack only with
          // APIGEN_DEBUG=1; anything else is a fault of apigen's own, reported as one below.
          if (!(error instanceof PackError)) throw error;
          const detail = process.env.APIGEN_DEBUG ? [error, error.cause].map((e) => (e instanceof Error ? e.stack : "")).join("\n") : error.message;
          process.stderr.write(`apigen pack: ${detail}\n`);
          return 1;
        }
        process.stdout.write(`time: ${((performance.now() - started) / 1000).toFixed(2)} s\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command '${command}'\n\n${USAGE}`);
    }
  } catch (error) {
    if (error instanceof ManifestError) {
      const n = error.diagnostics.length;
      process.stderr.write(`${error.message}\n${n} error${n === 1 ? "" : "s"} in ${values.manifest}; nothing was written.\n`);
      return 1;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`apigen: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
