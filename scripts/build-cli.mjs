// Bundles the apigen CLI into one ES module (dist/apigen.mjs) so that a run starts in milliseconds:
// no TypeScript transform at start-up, one file to load instead of hundreds.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const require = createRequire(import.meta.url);

export async function buildCli(projectRoot) {
  const Ajv2020 = require("ajv/dist/2020.js");
  const standaloneCode = require("ajv/dist/standalone").default;
  const schema = JSON.parse(readFileSync(join(projectRoot, "generators/manifest.schema.json"), "utf8"));
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
      // protoplugin loads TypeScript only to transpile to JS or .d.ts; apigen asks protoc-gen-es for TS.
      pluginBuild.onResolve({ filter: /^(typescript|@typescript\/vfs)$/ }, () => ({ path: "unused", namespace: "replaced" }));
      pluginBuild.onLoad({ filter: /^unused$/, namespace: "replaced" }, () => ({ contents: "module.exports = {};", loader: "js" }));
    },
  };

  await build({
    absWorkingDir: projectRoot,
    entryPoints: ["generators/cli-main.ts"],
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
