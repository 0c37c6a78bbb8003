// Every contract states the server's rules, the SDKs' doc comments included: each rule of an input
// field, and each rule spanning an operation's fields, appears in the generated TypeScript types,
// the Python SDK and the Go SDK, in the same words (emitters/rules.ts says them once).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fieldRuleSentences, operationRuleSentences } from "../generators/emit/rules.js";
import { loadIr } from "../generators/generate.js";
import { REPO_ROOT } from "./helpers/project.js";

/** A generated file's text with comment markers and line breaks folded away, so wrapped sentences read whole. */
function prose(path: string): string {
  return readFileSync(join(REPO_ROOT, path), "utf8")
    .replace(/\n[ \t]*(\/\/|\*|#)?[ \t]*/g, " ")
    .replace(/\s+/g, " ");
}

const ir = loadIr(REPO_ROOT);
const sdks = {
  typescript: prose("generated/types.ts"),
  python: prose("generated/python/src/identity_sdk/types.py") + prose("generated/python/src/identity_sdk/_clients.py"),
  go: prose("generated/go/types.go") + prose("generated/go/methods.go"),
};

describe("the SDKs' doc comments", () => {
  const fieldRules = [...new Set(ir.messages.filter((m) => m.usedAsInput).flatMap((m) => m.fields.flatMap((f) => fieldRuleSentences(ir, f))))];
  const operationRules = [...new Set(ir.operations.flatMap(operationRuleSentences))];

  it.each(Object.keys(sdks) as (keyof typeof sdks)[])("%s states every rule of every input field", (language) => {
    expect(fieldRules.length).toBeGreaterThan(20);
    const missing = fieldRules.filter((sentence) => !sdks[language].includes(sentence));
    expect(missing).toEqual([]);
  });

  it.each(["python", "go"] as const)("%s states every rule spanning an operation's fields", (language) => {
    expect(operationRules.length).toBeGreaterThan(3);
    const missing = operationRules.filter((sentence) => !sdks[language].includes(sentence));
    expect(missing).toEqual([]);
  });
});
