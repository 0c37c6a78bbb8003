// Bundles the apigen CLI into one ES module (dist/apigen.mjs) so that a run starts in milliseconds:
// no TypeScript transform at start-up, one file to load instead of hundreds.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { packToolSources } from "./pack-tools.mjs";

const require = createRequire(import.meta.url);

/** Every file below `dir`, relative to it, sorted (as generators/sdk/templates.ts lists them). */
function filesBelow(dir, prefix = "") {
  return readdirSync(join(dir, prefix))
    .sort()
    .flatMap((name) => {
      const path = prefix ? `${prefix}/${name}` : name;
      return statSync(join(dir, path)).isDirectory() ? filesBelow(dir, path) : [path];
    });
}

/** generators/sdk/templates.ts with every template of templates/<language>/ precompiled (its text kept beside), and the other files inlined. */
function precompiledTemplates(projectRoot) {
  const Handlebars = require("handlebars");
  const root = join(projectRoot, "templates");
  const languages = readdirSync(root)
    .filter((name) => statSync(join(root, name)).isDirectory())
    .sort();
  const entries = languages.map((language) => {
    const files = filesBelow(join(root, language)).map((path) => {
      const source = readFileSync(join(root, language, path), "utf8");
      return path.endsWith(".hbs")
        ? `{ path: ${JSON.stringify(path.slice(0, -".hbs".length))}, text: ${JSON.stringify(source)}, spec: ${Handlebars.precompile(source, { noEscape: true, strict: true })} }`
        : `{ path: ${JSON.stringify(path)}, text: ${JSON.stringify(source)} }`;
    });
    return `${JSON.stringify(language)}: [${files.join(",\n")}]`;
  });
  return `import Handlebars from "handlebars/runtime";
const TEMPLATES = {${entries.join(",\n")}};
export function loadTemplates(language, helpers) {
  const files = TEMPLATES[language];
  if (!files) throw new Error("this build of apigen has no templates/" + language);
  const handlebars = Handlebars.create();
  for (const [name, helper] of Object.entries(helpers)) handlebars.registerHelper(name, helper);
  return files.map((file) => (file.spec ? { path: file.path, verbatim: false, source: file.text, render: handlebars.template(file.spec) } : { path: file.path, verbatim: true, source: file.text, render: () => file.text }));
}`;
}

/** protoplugin's names.js with allNames(file) computed once per file descriptor. */
export function memoizedAllNames(source, path) {
  const declaration = "function allNames(file) {";
  if (source.split(declaration).length !== 2) {
    throw new Error(`${path}: expected one "${declaration}" to memoize; protoplugin changed, update scripts/build-cli.mjs`);
  }
  return source.replace(
    declaration,
    "const allNamesByFile = new WeakMap();\n" +
      "function allNames(file) {\n  let names = allNamesByFile.get(file);\n  if (names === undefined) allNamesByFile.set(file, (names = computeAllNames(file)));\n  return names;\n}\n" +
      "function computeAllNames(file) {",
  );
}

export async function buildCli(projectRoot) {
  const Ajv2020 = require("ajv/dist/2020.js");
  const standaloneCode = require("ajv/dist/standalone").default;
  const schema = JSON.parse(readFileSync(join(projectRoot, "generators/load/manifest.schema.json"), "utf8"));
  const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, code: { source: true, esm: true } });
  const validatorSource = standaloneCode(ajv, ajv.compile(schema));

  /** Modules replaced in the bundle. */
  const replacements = {
    name: "replacements",
    setup(pluginBuild) {
      // The manifest schema, compiled ahead of time by Ajv instead of on every run.
      pluginBuild.onResolve({ filter: /\/schema-validator\.js$/ }, () => ({ path: "schema-validator", namespace: "replaced" }));
      pluginBuild.onLoad({ filter: /^schema-validator$/, namespace: "replaced" }, () => ({
        contents: `${validatorSource}\nexport function compileManifestValidator() { return validate; }`,
        resolveDir: projectRoot,
        loader: "js",
      }));
      // The SDK templates, precompiled: a run neither reads nor parses them (bin/apigen.js rebuilds when one changes).
      pluginBuild.onResolve({ filter: /^\.\/templates\.js$/ }, (args) => (/[\\/]generators[\\/]sdk[\\/]/.test(args.importer) ? { path: "sdk-templates", namespace: "replaced" } : undefined));
      pluginBuild.onLoad({ filter: /^sdk-templates$/, namespace: "replaced" }, () => ({ contents: precompiledTemplates(projectRoot), resolveDir: projectRoot, loader: "js" }));
      // `apigen pack` bundles scripts/pack.mjs and what it imports: none of them runs as a command
      // in the bundle, and the sources of the tools it builds in a project of its own are held here.
      pluginBuild.onResolve({ filter: /^\.\/(is-main|pack-tools)\.mjs$/ }, (args) =>
        /[\\/]scripts$/.test(args.resolveDir) ? { path: args.path.slice(2, -".mjs".length), namespace: "replaced" } : undefined,
      );
      pluginBuild.onLoad({ filter: /^is-main$/, namespace: "replaced" }, () => ({ contents: "export const isMain = () => false;", loader: "js" }));
      pluginBuild.onLoad({ filter: /^pack-tools$/, namespace: "replaced" }, () => ({
        contents: `const SOURCES = ${JSON.stringify(packToolSources(projectRoot))};\nexport function packToolSources() { return SOURCES; }`,
        loader: "js",
      }));
      // protoplugin loads TypeScript only to transpile to JS or .d.ts; apigen asks protoc-gen-es for TS.
      pluginBuild.onResolve({ filter: /^(typescript|@typescript\/vfs)$/ }, () => ({ path: "unused", namespace: "replaced" }));
      pluginBuild.onLoad({ filter: /^unused$/, namespace: "replaced" }, () => ({ contents: "module.exports = {};", loader: "js" }));
      // protoplugin derives every name of a file again for each name asked (allNames per call, so a
      // file of n types costs n^2): half of a 1,600-operation run. The names are a pure function of
      // the file descriptor, so one computation per file gives the same output, byte for byte.
      pluginBuild.onLoad({ filter: /[\\/]@bufbuild[\\/]protoplugin[\\/]dist[\\/]cjs[\\/]names\.js$/ }, (args) => ({
        contents: memoizedAllNames(readFileSync(args.path, "utf8"), args.path),
        loader: "js",
      }));
    },
  };

  await build({
    absWorkingDir: projectRoot,
    entryPoints: ["generators/cli/cli-main.ts"],
    outfile: "dist/apigen.mjs",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    minify: true,
    legalComments: "eof",
    // Loaded from node_modules by the scaffold command alone: bundling them would slow every other command's start.
    external: ["ts-morph", "prettier"],
    plugins: [replacements],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli(join(fileURLToPath(import.meta.url), "..", ".."));
}
