// `npm run bench:size`: the cost of the SDK in an application. Bundles, with esbuild (minified, code
// splitting), an app that imports only AdminClient and calls one operation, once over REST and once
// over gRPC, and sums the gzipped size of every chunk each app loads: the REST app never loads the
// gRPC chunks, the gRPC app loads them on its first call.
// `-- --project <dir>` measures the SDK package installed in that project (npm install <tarball>)
// instead of the sources in generated/client.
import "./banner.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { loadIr } from "../generators/generate.js";

const ROOT = join(fileURLToPath(import.meta.url), "..", "..");
const { values: options } = parseArgs({ options: { project: { type: "string" } } });
const ir = loadIr(ROOT);
const PROJECT_MODULES = options.project === undefined ? undefined : join(resolve(options.project), "node_modules");
const CLIENT_MODULE = PROJECT_MODULES ? ir.api.sdkPackage : join(ROOT, "generated", "client", "index.ts");
const TARGET_BYTES = 15 * 1024;

interface AppSize {
  chunks: number;
  minifiedBytes: number;
  gzippedBytes: number;
}

/** Output files the entry loads: its static imports, and for `withDynamic` its dynamic ones too. */
function loadedOutputs(metafile: Metafile, withDynamic: boolean): string[] {
  const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint !== undefined)!;
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path]!.imports) {
      if (imported.external) continue;
      if (imported.kind === "import-statement" || (withDynamic && imported.kind === "dynamic-import")) visit(imported.path);
    }
  };
  visit(entry);
  return [...loaded];
}

async function measure(workDir: string, protocol: "rest" | "grpc", method: string): Promise<AppSize> {
  const entry = join(workDir, `${protocol}-app.ts`);
  writeFileSync(
    entry,
    `import { AdminClient } from ${JSON.stringify(CLIENT_MODULE)};
const admin = new AdminClient({ serviceUrl: "http://localhost:8080", adminSecret: "secret", protocol: "${protocol}" });
console.log(await admin.${method}());
await admin.close();
`,
  );
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    outdir: join(workDir, `${protocol}-out`),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    minify: true,
    metafile: true,
    write: false,
    logLevel: "warning",
    ...(PROJECT_MODULES ? { nodePaths: [PROJECT_MODULES] } : {}),
  });
  const files = new Map(result.outputFiles.map((file) => [relative(ROOT, file.path), file.contents]));
  const loaded = loadedOutputs(result.metafile, protocol === "grpc");
  let minifiedBytes = 0;
  let gzippedBytes = 0;
  for (const path of loaded) {
    const contents = files.get(path)!;
    minifiedBytes += contents.length;
    gzippedBytes += gzipSync(contents, { level: 9 }).length;
  }
  return { chunks: loaded.length, minifiedBytes, gzippedBytes };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const operation = ir.operations.find((op) => op.name === ir.versionOperations.admin)!;
const workDir = mkdtempSync(join(tmpdir(), "apigen-size-"));
try {
  const rest = await measure(workDir, "rest", operation.camelName);
  const grpc = await measure(workDir, "grpc", operation.camelName);
  const line = (label: string, size: AppSize) =>
    `${label.padEnd(5)} ${kb(size.gzippedBytes).padStart(8)} min+gzip  (${kb(size.minifiedBytes)} minified, ${size.chunks} chunk${size.chunks === 1 ? "" : "s"} loaded)`;
  process.stdout.write(
    `App: import { AdminClient } from ${PROJECT_MODULES ? `${CLIENT_MODULE} (${options.project})` : relative(process.cwd(), CLIENT_MODULE)}; one call of ${operation.camelName}() (esbuild, minified, code splitting)\n`,
  );
  process.stdout.write(`${line("REST", rest)}\n${line("gRPC", grpc)}\n`);
  process.stdout.write(`gRPC / REST: ${(grpc.gzippedBytes / rest.gzippedBytes).toFixed(1)}x\n`);
  const met = rest.gzippedBytes < TARGET_BYTES;
  process.stdout.write(`target: REST app under ${kb(TARGET_BYTES)} min+gzip: ${met ? "met" : "MISSED"}\n`);
  if (!met) process.exitCode = 1;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
