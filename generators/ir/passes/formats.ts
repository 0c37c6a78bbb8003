// The formats pass: the string formats fields may name, the built-in ones (runtime/formats.ts) and
// those the manifest declares under `formats:`, each with an example that must pass its own rule.
import { BUILTIN_FORMAT_RULES } from "../../../runtime/formats.js";
import type { IrContext } from "./context.js";

/** Sets context.formats: the built-in formats first, then the declared ones. */
export function resolveFormats(context: IrContext): void {
  const { report } = context;
  const formats = context.formats;
  for (const [name, rule] of Object.entries(BUILTIN_FORMAT_RULES)) {
    formats[name] = { name, description: rule.expected, builtin: true, pattern: rule.pattern, example: rule.example, ...("maxLength" in rule ? { maxLength: rule.maxLength } : {}) };
  }
  for (const [name, rawFormat] of Object.entries(context.raw.formats ?? {})) {
    const formatPath = ["formats", name];
    if (formats[name]?.builtin) {
      report("builtin-format-redeclared", formatPath, `format '${name}'`, `'${name}' is a built-in format (${Object.keys(BUILTIN_FORMAT_RULES).join(", ")}); choose another name`, "key");
      continue;
    }
    const example = rawFormat.example ?? rawFormat.values?.[0] ?? "";
    if (rawFormat.pattern !== undefined) {
      try {
        if (!new RegExp(rawFormat.pattern, "u").test(example)) report("format-example-mismatch", [...formatPath, "example"], `format '${name}'`, `example '${example}' does not match the pattern`);
      } catch (error) {
        report(
          "invalid-pattern",
          [...formatPath, "pattern"],
          `format '${name}'`,
          `pattern is not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, "")})`,
        );
      }
    } else if (!rawFormat.values!.includes(example)) {
      report("format-example-mismatch", [...formatPath, "example"], `format '${name}'`, `example '${example}' is not one of the values`);
    }
    formats[name] = {
      name,
      description: rawFormat.description,
      builtin: false,
      example,
      ...(rawFormat.pattern !== undefined ? { pattern: rawFormat.pattern } : {}),
      ...(rawFormat.values !== undefined ? { values: rawFormat.values } : {}),
    };
  }
}
