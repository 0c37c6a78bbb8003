// Every identifier the specification prints for the Python and Go SDKs (spec/identity-interface.txt,
// §2, §4.2 and §4.3) is found in the generated SDKs, so that no rule of naming can rename one
// silently: the Go names it prints (options, protocol constants, methods, fields, types), the
// Python client parameters, and every admin operation as a Python method (sync and async) and a
// Go method.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schema } from "../generated/schema.js";
import { REPO_ROOT } from "./helpers/project.js";

const SPEC = readFileSync(join(REPO_ROOT, "spec", "identity-interface.txt"), "utf8");
const section = (from: string, to: string) => SPEC.slice(SPEC.indexOf(from), SPEC.indexOf(to, SPEC.indexOf(from)));

/** Code without its comments: a name found only in a comment is not a name of the SDK. */
const withoutComments = (code: string, marker: string) =>
  code
    .split("\n")
    .filter((line) => !line.trimStart().startsWith(marker))
    .join("\n");
const GO = withoutComments(["client.go", "methods.go", "types.go", "errors.go", "codes.go"].map((file) => readFileSync(join(REPO_ROOT, "generated", "go", file), "utf8")).join("\n"), "//");
const PYTHON_PACKAGE = join(REPO_ROOT, "generated", "python", "src", "identity_sdk");
const PYTHON = readFileSync(join(PYTHON_PACKAGE, "_clients.py"), "utf8");
/** The classes of the groups' methods, which the clients inherit. */
const PYTHON_RESOURCES = readdirSync(join(PYTHON_PACKAGE, "resources"))
  .filter((file) => file.endsWith(".py"))
  .map((file) => readFileSync(join(PYTHON_PACKAGE, "resources", file), "utf8"))
  .join("\n");

/** The body of a Python class: from its line to the next top-level class. */
function pythonClass(name: string, code = PYTHON): string {
  const start = code.indexOf(`\nclass ${name}(`);
  expect(start, `class ${name}`).toBeGreaterThanOrEqual(0);
  const end = code.indexOf("\nclass ", start + 1);
  return code.slice(start, end < 0 ? undefined : end);
}

/** A client's class with the bodies of the resource classes it inherits, where its operations' methods are. */
function pythonClientWithMethods(name: string): string {
  const body = pythonClass(name);
  const bases = [...body.slice(0, body.indexOf("):")).matchAll(/^ {4}(\w+Resource),$/gm)].map((m) => m[1]!);
  expect(bases.length, `${name} inherits resource classes`).toBeGreaterThan(0);
  return [body, ...bases.map((base) => pythonClass(base, PYTHON_RESOURCES))].join("\n");
}
const initParameters = (body: string) => [...body.slice(body.indexOf("def __init__("), body.indexOf(") -> None:", body.indexOf("def __init__("))).matchAll(/^\s+(\w+):/gm)].map((m) => m[1]);

/** CamelCase words of the spec that are prose, not identifiers. */
const PROSE = new Set(["IdP", "GraphQL", "SPs", "RPCs", "PascalCase"]);

describe("identifiers the spec prints", () => {
  it("finds every Go name it prints in the Go SDK, each as a declaration", () => {
    const printed = [...new Set(SPEC.match(/\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b|\b[A-Z]{2,}[a-z]+[A-Za-z0-9]*\b/g) ?? [])].filter((word) => !PROSE.has(word));
    expect(printed.sort()).toEqual(
      [
        "AdminMeta",
        "ClientSecret",
        "DeleteOrgOIDCConnection",
        "IdpCertificate",
        "OrgID",
        "ProtocolGRPC",
        "ProtocolGraphQL",
        "ProtocolREST",
        "SAMLIDPKey",
        "WithAdminExtraHeaders",
        "WithAdminGRPCEndpoint",
        "WithAdminProtocol",
        "WithGRPCEndpoint",
        "WithProtocol",
      ].sort(),
    );
    for (const name of printed) {
      const declared = new RegExp(`^func ${name}\\(|^func \\([a-z]+ \\*\\w+\\) ${name}\\(|^type ${name} |^\\t${name}\\s+\\S|^\\t${name}\\s+Protocol = `, "m");
      expect(GO, name).toMatch(declared);
    }
    // The fields §2 names are struct fields of the resources they belong to.
    expect(GO).toMatch(/\tIdpCertificate \*?string `json:"idp_certificate/);
    expect(GO).toMatch(/\tClientSecret \*?string `json:"client_secret/);
    expect(GO).toMatch(/\tOrgID string `json:"org_id"`/);
  });

  it("finds the client parameters of §4.2 in the Python clients, sync and async", () => {
    const user = ["client_id", "service_url", "protocol", "grpc_endpoint"];
    const admin = ["service_url", "admin_secret", "extra_headers", "protocol", "grpc_endpoint"];
    for (const row of section("### 4.2", "### 4.3").matchAll(/^\| ([a-z_]+) \|/gm)) expect([...user, ...admin], row[1]).toContain(row[1]);
    for (const [client, parameters] of [
      ["UserClient", user],
      ["AsyncUserClient", user],
      ["AdminClient", admin],
      ["AsyncAdminClient", admin],
    ] as const) {
      expect(initParameters(pythonClass(client)), client).toEqual(expect.arrayContaining([...parameters]));
    }
  });

  it("finds every admin operation of §4.3 as a method of the Python clients (sync and async) and of the Go admin client", () => {
    const admin = section("### 4.3", "## 5.");
    const names = new Set([...admin.matchAll(/^\| ([a-z][a-z0-9_]+) \|/gm)].map((m) => m[1]!));
    // Operations listed in prose: "Email templates: add_email_template (create), ...", "Audit: audit_logs (list)."
    for (const line of admin.split("\n").filter((l) => /^(Email templates|Audit):/.test(l))) for (const m of line.matchAll(/\b([a-z]+(?:_[a-z]+)+|[a-z]+_logs)\b/g)) names.add(m[1]!);
    expect(names.size).toBeGreaterThan(60);
    const sync = pythonClientWithMethods("AdminClient");
    const async = pythonClientWithMethods("AsyncAdminClient");
    for (const name of names) {
      const operation = (schema.operations as Record<string, (typeof schema.operations)[keyof typeof schema.operations] | undefined>)[name];
      expect(operation, `${name} is an operation of the manifest`).toBeDefined();
      expect(sync, name).toMatch(new RegExp(`\\n    def ${name}\\(`));
      expect(async, name).toMatch(new RegExp(`\\n    async def ${name}\\(`));
      expect(GO, name).toMatch(new RegExp(`^func \\(c \\*AdminClient\\) ${operation!.pascalName}\\(ctx context\\.Context`, "m"));
    }
  });
});
