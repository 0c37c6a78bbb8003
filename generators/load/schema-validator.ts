// The JSON Schema check of the manifest. The bundled CLI swaps this module for Ajv's standalone
// output of the same schema (see scripts/build-cli.mjs), which saves compiling it on every run.
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";
import manifestSchema from "./manifest.schema.json" with { type: "json" };

export function compileManifestValidator(): ValidateFunction {
  // Ajv is CommonJS; its 2020-12 build is the one that understands the schema's dialect.
  const require = createRequire(import.meta.url);
  const Ajv2020 = require("ajv/dist/2020.js") as typeof import("ajv").default;
  return new Ajv2020({ allErrors: true, strict: false, verbose: true }).compile(manifestSchema);
}
