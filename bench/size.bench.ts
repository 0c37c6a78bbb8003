// `npm run bench:size`: the cost of the SDK in an application. Bundles, with esbuild (minified, code
// splitting), an app that imports only AdminClient and calls one operation, over REST and over gRPC,
// for browsers (the package's fetch platform, RPC as Connect) and for Node (undici, gRPC over HTTP/2),
// and sums the gzipped size of every chunk each app loads: static imports, and the dynamic ones its
// call loads (the module of the operation it calls, never another's; the REST app never loads the
// GraphQL or RPC chunks; the gRPC app loads them on its first call). @opentelemetry/api, an optional
// peer the app brings when it traces, is left out. The baseline is the same call written by hand
// with fetch, in the same run.
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
import { operationModuleName } from "../generators/emit/typescript.js";
import { loadIr } from "../generators/generate.js";

const ROOT = join(fileURLToPath(import.meta.url), "..", "..");
const { values: options } = parseArgs({ options: { project: { type: "string" } } });
const ir = loadIr(ROOT);
const PROJECT_MODULES = options.project === undefined ? undefined : join(resolve(options.project), "node_modules");
const CLIENT_MODULE = PROJECT_MODULES ? ir.api.sdkPackage : join(ROOT, "generated", "client", "index.ts");
/** The browser's REST app at most (#56). */
const TARGET_BYTES = 12 * 1024;

interface AppSize {
  chunks: number;
  minifiedBytes: number;
  gzippedBytes: number;
  /** Of those, undici's (Node's pool of connections, a dependency the REST and GraphQL calls load on Node). */
  undiciGzippedBytes: number;
}

type Platform = "browser" | "node";
type AppKind = "rest" | "grpc" | "fetch";

/**
 * Output files the app loads: the entry's static imports, and the dynamic ones its call reaches
 * (with what they import): the called operation's module, and for gRPC the RPC platform and the
 * service descriptors; never another operation's module, nor the GraphQL transport, nor what a call
 * loads only on a need (the backoff of a retry, the hooks' telling, the server-version refusal).
 */
function loadedOutputs(metafile: Metafile, entry: string, calledModule: string, kind: AppKind): string[] {
  const entryOutput = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint === entry)!;
  const followed = (path: string) => {
    const source = `/${metafile.outputs[path]!.entryPoint ?? ""}`;
    const operation = /\/client\/operations\/([^/]+)\.[cm]?[jt]s$/.exec(source)?.[1];
    if (operation !== undefined) return operation === calledModule;
    // Node's REST and GraphQL go through the client's pool of undici connections, loaded on the first call.
    if (/\/node_modules\/undici\//.test(source)) return kind === "rest";
    // The RPC transport of the platform and the service descriptors; not what a call loads only on a need (retries, hooks, a newer operation).
    return kind === "grpc" && /\/client\/(grpc|grpc-web|grpc-services)\.[jt]s$/.test(source);
  };
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path]!.imports) {
      if (imported.external) continue;
      if (imported.kind === "import-statement" || (imported.kind === "dynamic-import" && followed(imported.path))) visit(imported.path);
    }
  };
  visit(entryOutput);
  return [...loaded];
}

/** An app of one client calling one operation: the client class, its configuration, the operation. */
interface App {
  client: string;
  config: string;
  /** The operation called: its method, its module's file name (generated/client/operations/), its REST path. */
  operation: { camelName: string; module: string; path: string };
}

async function measure(workDir: string, kind: AppKind, platform: Platform, app: App): Promise<AppSize> {
  const { path, camelName: method } = app.operation;
  const entry = join(workDir, `${app.client}-${kind}-${platform}-app.ts`);
  writeFileSync(
    entry,
    kind === "fetch"
      ? `const response = await fetch("http://localhost:8080${path}", { method: "POST", headers: { "content-type": "application/json", "${ir.api.adminSecretHeader}": "secret" }, body: "{}" });
if (!response.ok) throw new Error(\`\${response.status}\`);
console.log(await response.json());
`
      : `import { ${app.client} } from ${JSON.stringify(CLIENT_MODULE)};
const client = new ${app.client}({ serviceUrl: "http://localhost:8080", ${app.config}protocol: "${kind}" });
console.log(await client.${method}());
await client.close();
`,
  );
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    outdir: join(workDir, `${kind}-${platform}-out`),
    bundle: true,
    splitting: true,
    format: "esm",
    platform,
    target: platform === "node" ? "node22" : "es2022",
    minify: true,
    metafile: true,
    write: false,
    logLevel: "warning",
    external: ["@opentelemetry/api"],
    ...(PROJECT_MODULES ? { nodePaths: [PROJECT_MODULES] } : {}),
  });
  const files = new Map(result.outputFiles.map((file) => [relative(ROOT, file.path), file.contents]));
  const loaded = loadedOutputs(result.metafile, relative(ROOT, entry), app.operation.module, kind);
  let minifiedBytes = 0;
  let gzippedBytes = 0;
  let undiciGzippedBytes = 0;
  for (const path of loaded) {
    const contents = files.get(path)!;
    const gzipped = gzipSync(contents, { level: 9 }).length;
    minifiedBytes += contents.length;
    gzippedBytes += gzipped;
    if (/(^|\/)node_modules\/undici\//.test(result.metafile.outputs[path]!.entryPoint ?? "")) undiciGzippedBytes += gzipped;
  }
  return { chunks: loaded.length, minifiedBytes, gzippedBytes, undiciGzippedBytes };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const appOf = (role: "admin" | "user", config: string): App | undefined => {
  const client = ir.clients.find((c) => c.role === role);
  const operation = ir.operations.find((op) => op.name === ir.versionOperations[role]);
  return client && operation ? { client: client.name, config, operation: { camelName: operation.camelName, module: operationModuleName(operation), path: operation.rest?.path ?? "/" } } : undefined;
};
const adminApp = appOf("admin", 'adminSecret: "secret", ')!;
const operation = adminApp.operation;
// The user surface's app, what a web page loads: its client and its version read.
const userApp = appOf("user", ir.api.features.clientId ? 'clientId: "web-app", ' : "");
const workDir = mkdtempSync(join(tmpdir(), "apigen-size-"));
try {
  const sizes = {
    browser: {
      fetch: await measure(workDir, "fetch", "browser", adminApp),
      rest: await measure(workDir, "rest", "browser", adminApp),
      grpc: await measure(workDir, "grpc", "browser", adminApp),
      userRest: userApp ? await measure(workDir, "rest", "browser", userApp) : undefined,
    },
    node: {
      rest: await measure(workDir, "rest", "node", adminApp),
      grpc: await measure(workDir, "grpc", "node", adminApp),
    },
  };
  const line = (label: string, size: AppSize) =>
    `${label.padEnd(22)} ${kb(size.gzippedBytes).padStart(8)} min+gzip  (${kb(size.minifiedBytes)} minified, ${size.chunks} chunk${size.chunks === 1 ? "" : "s"} loaded${size.undiciGzippedBytes > 0 ? `; ${kb(size.undiciGzippedBytes)} of it undici, the pool's HTTP client` : ""})`;
  process.stdout.write(
    `App: import { AdminClient } from ${PROJECT_MODULES ? `${CLIENT_MODULE} (${options.project})` : relative(process.cwd(), CLIENT_MODULE)}; one call of ${operation.camelName}() (esbuild, minified, code splitting)\n`,
  );
  process.stdout.write(
    [
      line("browser: fetch by hand", sizes.browser.fetch),
      line("browser: REST", sizes.browser.rest),
      line("browser: gRPC (Connect)", sizes.browser.grpc),
      line("node: REST", sizes.node.rest),
      line("node: gRPC", sizes.node.grpc),
      ...(userApp && sizes.browser.userRest ? [line(`browser: REST, ${userApp.client}.${userApp.operation.camelName}()`, sizes.browser.userRest)] : []),
    ].join("\n") + "\n",
  );
  process.stdout.write(
    `browser REST / fetch by hand: ${(sizes.browser.rest.gzippedBytes / sizes.browser.fetch.gzippedBytes).toFixed(1)}x; gRPC / REST: browser ${(sizes.browser.grpc.gzippedBytes / sizes.browser.rest.gzippedBytes).toFixed(1)}x, node ${(sizes.node.grpc.gzippedBytes / sizes.node.rest.gzippedBytes).toFixed(1)}x\n`,
  );
  const met = sizes.browser.rest.gzippedBytes <= TARGET_BYTES;
  process.stdout.write(`target: the browser's REST app at most ${kb(TARGET_BYTES)} min+gzip: ${met ? "met" : "MISSED"}\n`);
  if (!met) process.exitCode = 1;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
