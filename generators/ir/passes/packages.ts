// The packages pass: names and metadata of the published artifacts (npm, PyPI, the Go module),
// from the manifest or derived from api.name, and the rules each registry and language sets.
import parseSpdx from "spdx-expression-parse";
import type { PathSegment, RawManifest } from "../../load/load.js";
import { didYouMean } from "../naming.js";
import type { Ir, PackageMetadata } from "../ir.js";
import { allMessages, type IrContext } from "./context.js";

export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

/** Go's keywords: no package, and no name an example declares, may be one. */
export const GO_KEYWORDS: ReadonlySet<string> = new Set([
  "break",
  "case",
  "chan",
  "const",
  "continue",
  "default",
  "defer",
  "else",
  "fallthrough",
  "for",
  "func",
  "go",
  "goto",
  "if",
  "import",
  "interface",
  "map",
  "package",
  "range",
  "return",
  "select",
  "struct",
  "switch",
  "type",
  "var",
]);

export const majorVersion = (version: string) => Number(/^(\d+)/.exec(version)?.[1] ?? 0);

/** The Go module path of `module` at `version`: from major version 2 on it ends in /v<major> (Go's semantic import versioning). */
function goModulePath(module: string, version: string): string {
  const major = majorVersion(version);
  if (major < 2 || module.endsWith(`/v${major}`)) return module;
  return `${module}/v${major}`;
}

/** The published artifacts' names and metadata, as they enter `Ir["api"]`. */
export type PackageNames = Pick<Ir["api"], "sdkPackage" | "serverPackage" | "mcpPackage" | "envPrefix" | "mcpTarball" | "sdkTarball" | "serverTarball" | "metadata" | "python" | "go">;

/** Names and metadata of the published artifacts: the manifest's, or defaults derived from api.name. */
export function resolvePackages(api: RawManifest["api"], fail: (path: PathSegment[], message: string) => void): PackageNames {
  const { name } = api;
  const packages = api.packages ?? {};
  if (api.license !== undefined) {
    try {
      parseSpdx(api.license);
    } catch {
      fail(["license"], `'${api.license}' is not an SPDX license expression, such as Apache-2.0, MIT or (MIT OR Apache-2.0)`);
    }
  }
  const python = { distribution: packages.python?.distribution ?? `${name}-sdk`, module: packages.python?.module ?? `${name.replace(/-/g, "_")}_sdk` };
  if (PYTHON_KEYWORDS.has(python.module)) fail(["packages", "python", "module"], `'${python.module}' is a Python keyword and cannot be imported; choose another module name`);
  const goModule = packages.go?.module ?? `example.com/${name}-go`;
  const go = { module: goModule, package: packages.go?.package ?? name.replace(/-/g, ""), modulePath: goModulePath(goModule, api.version), fieldNames: packages.go?.field_names ?? {} };
  if (GO_KEYWORDS.has(go.package)) fail(["packages", "go", "package"], `'${go.package}' is a Go keyword; choose another package name`);
  const suffix = /\/v(\d+)$/.exec(goModule);
  if (suffix && Number(suffix[1]) >= 2 && Number(suffix[1]) !== majorVersion(api.version)) {
    fail(
      ["packages", "go", "module"],
      `'${goModule}' ends in /v${suffix[1]}, but version ${api.version} is major version ${majorVersion(api.version)}; Go needs the suffix to match the major version`,
    );
  }
  const metadata: PackageMetadata = { description: api.description ?? api.title, keywords: api.keywords ?? [] };
  if (api.license !== undefined) metadata.license = api.license;
  if (api.repository !== undefined) metadata.repository = api.repository;
  if (api.homepage !== undefined) metadata.homepage = api.homepage;
  const sdkPackage = packages.npm?.sdk ?? `${name}-sdk`;
  const serverPackage = packages.npm?.server ?? `${name}-server`;
  const scope = /^(@[^/]+)\//.exec(sdkPackage)?.[1];
  const mcpPackage = packages.npm?.mcp ?? (scope ? `${scope}/mcp` : `${name}-mcp`);
  // npm pack names a tarball after the package, its scope folded in: @scope/sdk -> scope-sdk-<version>.tgz.
  const tarball = (npmName: string) => `${npmName.replace(/^@/, "").replace("/", "-")}-${api.version}.tgz`;
  return {
    sdkPackage,
    serverPackage,
    mcpPackage,
    envPrefix: name.toUpperCase().replace(/[^A-Z0-9]+/g, "_"),
    sdkTarball: tarball(sdkPackage),
    mcpTarball: tarball(mcpPackage),
    serverTarball: tarball(serverPackage),
    metadata,
    python,
    go,
  };
}

/** Sets context.packages; the Go names of fields (api.packages.go.field_names) must name fields some message holds, so it runs after the messages. */
export function resolvePackageNames(context: IrContext): void {
  const { report } = context;
  const packages = resolvePackages(context.raw.api, (path, message) => report("invalid-package", ["api", ...path], "api", message));
  const fieldNamesInUse = new Set(allMessages(context).flatMap((message) => message.fields.map((field) => field.name)));
  for (const field of Object.keys(packages.go.fieldNames)) {
    if (!fieldNamesInUse.has(field)) {
      report("unknown-field", ["api", "packages", "go", "field_names", field], "api", `Go name given for field '${field}', which no message has${didYouMean(field, fieldNamesInUse)}`, "key");
    }
  }
  context.packages = packages;
}
