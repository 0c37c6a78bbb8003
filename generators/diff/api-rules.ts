// Rules for the settings under `api:` that clients, callers and deployments depend on: header and
// role names, the gRPC port, acronyms (through the names they change), groups, package names and
// metadata. (`version` is checked against the report, `limits` with the other value rules,
// `proto_package` with the gRPC names, `breaking_changes_accepted` is not part of the contract.)
import { schemesOf, type Ir, type IrAuthScheme, type IrOperation, type Protocol } from "../ir/ir.js";
import { goFieldName } from "../sdk/go-names.js";
import { ruleChange, SDK_LANGUAGES, type Change, type SdkLanguage } from "./change.js";

/** The callers an auth scheme lets in: tightening is any change that turns one of them away. */
export function callersOf(scheme: IrAuthScheme): readonly string[] {
  switch (scheme.kind) {
    case "none":
      return ["anonymous", "user", "org_admin_user", "admin_secret", "scim", "api_key"];
    case "bearer":
      return scheme.token === "scim" ? ["scim"] : ["user", "org_admin_user"];
    case "api_key":
      return ["api_key"];
    case "secret":
      return scheme.orgRole ? ["admin_secret", "org_admin_user"] : ["admin_secret"];
  }
}

/** Protocols of the operations (on both sides) that `keep` selects on the new side. */
function protocolsOf(oldIr: Ir, newIr: Ir, keep: (op: IrOperation) => boolean): Protocol[] {
  const old = new Map(oldIr.operations.map((op) => [op.name, op]));
  const protocols = new Set<Protocol>();
  for (const op of newIr.operations) {
    const before = old.get(op.name);
    if (!before || !keep(op)) continue;
    for (const p of op.protocols) if (before.protocols.includes(p)) protocols.add(p);
  }
  return [...protocols];
}

const PACKAGE_NAMES: { key: string; what: string; language: SdkLanguage; of: (ir: Ir) => string }[] = [
  { key: "npm.sdk", what: "npm package of the client SDK", language: "typescript", of: (ir) => ir.api.sdkPackage },
  { key: "npm.server", what: "npm package of the server stubs", language: "typescript", of: (ir) => ir.api.serverPackage },
  { key: "python.distribution", what: "PyPI distribution of the Python SDK", language: "python", of: (ir) => ir.api.python.distribution },
  { key: "python.module", what: "import name of the Python SDK", language: "python", of: (ir) => ir.api.python.module },
  { key: "go.module", what: "Go module path", language: "go", of: (ir) => ir.api.go.module },
  { key: "go.package", what: "Go package name", language: "go", of: (ir) => ir.api.go.package },
];

/** Names an acronym list gives an operation: a different list renames them. */
function generatedNames(op: IrOperation): [string, string][] {
  const names: [string, string][] = [["TypeScript method", op.camelName]];
  if (op.iteratorName !== undefined) names.push(["TypeScript iterator", op.iteratorName]);
  if (op.grpc) names.push(["gRPC method", op.grpc.rpc]);
  if (op.graphql?.argument) names.push(["GraphQL input type", op.input.graphqlInputName]);
  if (op.graphql && !op.output.shared) names.push(["GraphQL type", op.output.graphqlName]);
  return names;
}

/** Acronyms are seen through what they rename: GraphQL types, gRPC methods and SDK names. */
function acronymChanges(oldIr: Ir, newIr: Ir): Change[] {
  const old = new Map(oldIr.operations.map((op) => [op.name, op]));
  const renamed: string[] = [];
  const anchors: string[] = ["api:acronyms"];
  let graphql = false;
  for (const after of newIr.operations) {
    const before = old.get(after.name);
    if (!before) continue;
    const previous = new Map(generatedNames(before));
    for (const [what, name] of generatedNames(after)) {
      const was = previous.get(what);
      if (was === undefined || was === name) continue;
      renamed.push(`${what} ${was} -> ${name}`);
      if (what.startsWith("TypeScript")) anchors.push(`${what.endsWith("iterator") ? "iterator" : "method"}:${after.name}`);
      if (what === "GraphQL input type") {
        graphql = true;
        anchors.push(`in:${before.input.name}`, `in:${after.input.name}`, `arg:${after.name}`);
      }
      if (what === "GraphQL type") {
        graphql = true;
        anchors.push(`out:${before.output.name}`, `out:${after.output.name}`, `outtype:${after.name}`);
      }
    }
  }
  // Titles change with the acronyms too; each operation's title-changed says so.
  if (renamed.length === 0) return [];
  const shown = renamed.slice(0, 6).join(", ") + (renamed.length > 6 ? `, and ${renamed.length - 6} more` : "");
  return [
    ruleChange(
      "acronyms-changed",
      "api",
      "breaking",
      graphql ? ["graphql"] : [],
      `api.acronyms changed, which renames ${shown}: GraphQL documents and SDK code naming the old names break (renamed gRPC methods are listed per operation)`,
      anchors,
    ),
  ];
}

function groupChanges(oldIr: Ir, newIr: Ir, oldGroups: Map<string, string>, newGroups: Map<string, string>): Change[] {
  const changes: Change[] = [];
  for (const [name, title] of oldGroups) {
    const now = newGroups.get(name);
    if (now === undefined) changes.push(ruleChange("group-removed", name, "safe", [], `group ${name} was removed (its operations moved or were removed, and say so)`, [`group:${name}`]));
    else if (now !== title) {
      changes.push(
        ruleChange(
          "group-title-changed",
          name,
          "safe",
          protocolsOf(oldIr, newIr, (op) => op.group === name),
          `title of group ${name} changed from '${title}' to '${now}' (docs, OpenAPI tags, proto comments)`,
          [`group:${name}`],
        ),
      );
    }
  }
  for (const name of newGroups.keys()) {
    if (!oldGroups.has(name)) changes.push(ruleChange("group-added", name, "safe", [], `group ${name} was added`, [`group:${name}`]));
  }
  return changes;
}

/** Every change of an `api:` setting between two IRs, except limits (input-rules.ts) and the proto package (rules.ts). */
export function apiChanges(oldIr: Ir, newIr: Ir): Change[] {
  const changes: Change[] = [];
  const [a, b] = [oldIr.api, newIr.api];
  const add = (rule: string, subject: string, severity: Change["severity"], protocols: Protocol[], message: string, anchors: string[], sdks: SdkLanguage[] = []) =>
    changes.push(ruleChange(rule, subject, severity, protocols, message, anchors, undefined, sdks));

  if (a.name !== b.name) add("api-name-changed", "api", "safe", [], `api.name changed from ${a.name} to ${b.name} (package names derived from it are reported on their own)`, ["api:name"]);
  if (a.title !== b.title) add("api-title-changed", "api", "safe", [], `api.title changed from '${a.title}' to '${b.title}'`, ["api:title"]);
  if (a.description !== b.description) add("api-description-changed", "api", "safe", [], "api.description changed", ["api:description"]);

  if (a.adminSecretHeader !== b.adminSecretHeader) {
    const protocols = protocolsOf(oldIr, newIr, (op) => schemesOf(newIr, op).some(({ scheme }) => scheme.kind === "secret"));
    add(
      "admin-secret-header-changed",
      "api",
      protocols.length > 0 ? "breaking" : "safe",
      protocols,
      `admin secret header renamed from ${a.adminSecretHeader} to ${b.adminSecretHeader}: callers that send the old header are refused`,
      ["api:admin_secret_header", "scheme:adminSecret"],
    );
  }
  if (a.orgAdminRole !== b.orgAdminRole) {
    const protocols = protocolsOf(oldIr, newIr, (op) => schemesOf(newIr, op).some(({ scheme }) => scheme.orgRole !== undefined));
    add(
      "org-admin-role-changed",
      "api",
      protocols.length > 0 ? "breaking" : "safe",
      protocols,
      `org admin role changed from ${a.orgAdminRole} to ${b.orgAdminRole}: users holding only the old role are refused the org_admin operations`,
      ["api:org_admin_role"],
    );
  }
  if (a.grpcPort !== b.grpcPort) {
    const protocols = protocolsOf(oldIr, newIr, (op) => op.grpc !== undefined).filter((p) => p === "grpc");
    add(
      "grpc-port-changed",
      "api",
      protocols.length > 0 ? "breaking" : "safe",
      protocols,
      `gRPC port changed from ${a.grpcPort} to ${b.grpcPort}: clients and deployments using the default endpoint no longer reach the service`,
      ["api:grpc_port"],
    );
  }
  changes.push(...acronymChanges(oldIr, newIr));
  changes.push(...groupChanges(oldIr, newIr, new Map(oldIr.groups.map((g) => [g.name, g.title])), new Map(newIr.groups.map((g) => [g.name, g.title]))));

  // packages.go.field_names: a field's Go name that changes breaks the Go code naming the old one.
  for (const field of new Set([...Object.keys(a.go.fieldNames), ...Object.keys(b.go.fieldNames)])) {
    const [before, after] = [goFieldName(oldIr, field), goFieldName(newIr, field)];
    if (before === after) continue;
    add(
      "go-field-name-changed",
      field,
      "breaking",
      [],
      `Go name of field '${field}' changed from ${before} to ${after} (packages.go.field_names): Go code naming ${before} breaks`,
      [`api:go.field_names.${field}`],
      ["go"],
    );
  }

  for (const { key, what, language, of } of PACKAGE_NAMES) {
    const [before, after] = [of(oldIr), of(newIr)];
    if (before === after) continue;
    add("package-renamed", key, "breaking", [], `${what} renamed from ${before} to ${after}: users must change their dependency and imports`, [`package:${key}`], [language]);
  }
  const metadata = [
    ["license", a.metadata.license, b.metadata.license],
    ["repository", a.metadata.repository, b.metadata.repository],
    ["homepage", a.metadata.homepage, b.metadata.homepage],
    ["keywords", a.metadata.keywords.join(", "), b.metadata.keywords.join(", ")],
  ] as const;
  for (const [key, before, after] of metadata) {
    if (before === after) continue;
    add("package-metadata-changed", key, "safe", [], `${key} of every published package changed from ${before || "none"} to ${after || "none"}`, [`package:${key}`], [...SDK_LANGUAGES]);
  }
  return changes;
}
