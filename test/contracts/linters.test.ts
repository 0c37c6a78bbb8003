// The generated OpenAPI documents (the identity API's and the bookstore's, with its tagged union,
// header parameters, map schemas and scoped bearer tokens) against the linters people run on
// OpenAPI documents: Redocly's recommended rules and Spectral's spectral:oas ruleset, both with no
// rule turned off.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { OPENAPI_PATH } from "../../generators/emit/openapi.js";
import { REPO_ROOT } from "../helpers/project.js";

const run = promisify(execFile);
const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);
const document = join(REPO_ROOT, OPENAPI_PATH);
const bookstore = join(REPO_ROOT, "examples", "bookstore", OPENAPI_PATH);

async function output(command: string, args: string[]): Promise<{ code: number; text: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: REPO_ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, text: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, text: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("the generated OpenAPI document", () => {
  it("passes Redocly's recommended rules without a warning", async () => {
    const { code, text } = await output(bin("redocly"), ["lint", "--format", "stylish", document]);
    expect(code, text).toBe(0);
    // Its summary counts problems ("You have N warnings."); a clean document has none.
    expect(text).toMatch(/Your API description is valid/);
    expect(text).not.toMatch(/You have \d+ warnings?/);
  });

  it("passes Spectral's spectral:oas ruleset with nothing at hint level or above", async () => {
    const { code, text } = await output(bin("spectral"), ["lint", "--ruleset", join(REPO_ROOT, ".spectral.yaml"), "--fail-severity", "hint", document]);
    expect(code, text).toBe(0);
  });
});

describe("the bookstore's OpenAPI document", () => {
  it("passes Redocly's recommended rules without a warning: its discriminator, header parameters and components all resolve and are used", async () => {
    const { code, text } = await output(bin("redocly"), ["lint", "--format", "stylish", bookstore]);
    expect(code, text).toBe(0);
    expect(text).toMatch(/Your API description is valid/);
    expect(text).not.toMatch(/You have \d+ warnings?/);
  });

  it("passes Spectral's spectral:oas ruleset but for the scopes of its bearer scheme, which OpenAPI 3.1 lets any scheme's requirement list", async () => {
    const { text } = await output(bin("spectral"), ["lint", "--ruleset", join(REPO_ROOT, ".spectral.yaml"), "--fail-severity", "hint", "--format", "json", bookstore]);
    const findings = JSON.parse(text.slice(text.indexOf("["))) as { code: string; message: string; path: string[] }[];
    // Security Requirement Object: "For other security scheme types, the array MAY contain a list
    // of role names which are required for the execution"; spectral:oas looks for them in OAuth
    // flows only. Every other rule finds nothing.
    expect(findings.map((f) => `${f.code} ${f.path.slice(0, 2).join(" ")} ${f.message}`)).toEqual([
      'oas3-operation-security-defined paths /v1/books/{id}/details "books:write" must be listed among scopes.',
      'oas3-operation-security-defined paths /v1/books/{id}/labels "books:write" must be listed among scopes.',
      'oas3-operation-security-defined paths /v1/books/{id}/labels "labels:clear" must be listed among scopes.',
    ]);
  });
});
