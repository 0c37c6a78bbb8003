// The loader: the only module that reads YAML. It parses the manifest keeping source positions,
// checks it against the JSON Schema and hands back the raw document plus a way to locate any path.
import { readFileSync } from "node:fs";
import { LineCounter, isMap, isNode, parseDocument, type Document } from "yaml";
import type { ErrorObject, ValidateFunction } from "ajv";
import { ManifestError, UsageError, type Diagnostic, type DiagnosticCode, type SourcePosition } from "./diagnostics.js";
import { didYouMean } from "../ir/naming.js";
import { compileManifestValidator } from "./schema-validator.js";
import manifestSchema from "./manifest.schema.json" with { type: "json" };
import { SCALAR_KINDS } from "../../runtime/schema.js";

export type RawScalarValue = string | number | boolean;
export type RawField =
  | string
  | {
      type: string;
      description?: string;
      secret?: boolean;
      format?: string;
      deprecated?: string;
      min_length?: number;
      max_length?: number;
      minimum?: number;
      maximum?: number;
      min_items?: number;
      max_items?: number;
      default?: RawScalarValue;
      required_if?: { field: string; equals?: RawScalarValue };
      same_as?: string;
      empty_means_unset?: boolean;
    };
export type RawFields = Record<string, RawField>;

export type RestMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RawOperation {
  surface: "admin" | "user" | "oauth";
  group: string;
  description: string;
  kind: "read" | "write";
  destructive?: boolean;
  idempotent?: boolean;
  /** A scheme's name, a scheme with the scopes its bearer token must grant, or a list of them (any one lets a caller in). */
  auth: RawAuthRequirement | RawAuthRequirement[];
  errors?: string[];
  sets_cookies?: string[];
  protocols: Partial<Record<"graphql" | "rest" | "grpc", string>>;
  route?: {
    method?: RestMethod;
    path?: string;
    body?: "json" | "form_or_json";
    status?: 200 | 201 | 202 | 204;
    answer?: "json" | "redirect";
    /** Input field -> the request header REST carries it in. */
    headers?: Record<string, string>;
    /** Output field -> the answer header REST sends it in too. */
    response_headers?: Record<string, string>;
  };
  pagination?: "none" | "page" | "token" | { style: "token"; cursor?: string; next_cursor?: string };
  exactly_one_of?: string[];
  at_least_one_of?: string[];
  deprecated?: string;
  input?: RawFields;
  output: string | RawFields;
}

export interface RawManifest {
  manifest_version: 1;
  api: {
    name: string;
    title: string;
    description?: string;
    license?: string;
    repository?: string;
    homepage?: string;
    keywords?: string[];
    packages?: {
      npm?: { sdk?: string; server?: string; mcp?: string };
      python?: { distribution?: string; module?: string };
      go?: { module?: string; package?: string; field_names?: Record<string, string> };
    };
    version: string;
    proto_package: string;
    admin_secret_header?: string;
    api_key_header?: string;
    org_admin_role?: string;
    auth_schemes?: Record<string, RawAuthScheme>;
    surfaces?: Partial<Record<"admin" | "user", { client?: string; service?: string }>>;
    /** The read each client asks for the server's version: one name, or one per client. */
    version_operation?: string | string[];
    int64_json?: "number" | "string";
    http_port?: number;
    grpc_port?: number;
    rest_prefix?: string;
    limits?: { request_bytes?: number; json_depth?: number; json_bytes?: number };
    acronyms?: string[];
    groups?: Record<string, string>;
    breaking_changes_accepted?: { change: string; reason: string; version?: string; bump?: "major" | "minor" | "patch" }[];
  };
  enums?: Record<string, { description?: string; values: string[] | Record<string, string | { description?: string; deprecated?: string }> }>;
  formats?: Record<string, { description: string; pattern?: string; values?: string[]; example?: string }>;
  types?: Record<string, { description?: string; one_of?: boolean; discriminator?: string; fields: RawFields }>;
  operations: Record<string, RawOperation>;
}

/** One scheme an operation takes: its name, or its name with the scopes a bearer token of it must grant. */
export type RawAuthRequirement = string | { scheme: string; scopes?: string[] };

/** An auth scheme as api.auth_schemes declares it (passes/auth.ts checks which keys fit its kind). */
export interface RawAuthScheme {
  kind: "none" | "bearer" | "api_key" | "secret" | "rule";
  description?: string;
  token?: "access" | "scim";
  header?: string;
  session?: { cookie: string; opened_by: string };
  of?: string;
  org_role?: string;
  callers?: string;
}

export type PathSegment = string | number;

export interface LoadedManifest {
  file: string;
  raw: RawManifest;
  /** Source position of the value at `path`, or of its closest existing parent. */
  locate(path: readonly PathSegment[], which?: "key" | "value"): SourcePosition;
}

/** Reads and schema-checks a manifest file. Throws ManifestError (with positions) or UsageError. */
export function loadManifestFile(file: string, displayName = file): LoadedManifest {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === "ENOENT" ? `${displayName}: no such file` : `${displayName}: cannot read (${code})`);
  }
  return loadManifestText(text, displayName);
}

export function loadManifestText(text: string, file = "operations.yaml"): LoadedManifest {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };

  if (doc.errors.length > 0) {
    // Later syntax errors mostly follow from the first one; report that one alone.
    const error = doc.errors[0]!;
    const explained = yamlErrorMessage(error.code, error.message, text, position(error.pos[0]).line);
    throw new ManifestError([{ code: explained.code, file, position: explained.at ?? position(error.pos[0]), subject: "", message: explained.message }]);
  }

  const locate = (path: readonly PathSegment[], which: "key" | "value" = "value"): SourcePosition => position(offsetOf(doc, path, which));
  const sourceText = (path: readonly PathSegment[]): string | undefined => {
    const node = doc.getIn(path as PathSegment[], true);
    return isNode(node) && node.range ? text.slice(node.range[0], node.range[1]).trim() : undefined;
  };
  const raw = doc.toJS({ maxAliasCount: 1000 }) as unknown;

  const misplaced = dedentedKeys(raw, file, locate);
  if (misplaced.length > 0) throw new ManifestError(misplaced);
  const validate = schemaValidator();
  if (!validate(raw)) {
    throw new ManifestError(schemaDiagnostics(validate.errors ?? [], raw, file, locate, sourceText));
  }
  return { file, raw: raw as RawManifest, locate };
}

/**
 * Keys of an operation (or a type) written at the level of the operations (types) themselves: a
 * dedented block. One error each, instead of one per key the "operation" named like it lacks.
 */
function dedentedKeys(raw: unknown, file: string, locate: LoadedManifest["locate"]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const sections = [
    { section: "operations", what: "operation", keys: Object.keys(manifestSchema.$defs.operation.properties) },
    { section: "types", what: "type", keys: ["description", "fields"] },
  ] as const;
  for (const { section, what, keys } of sections) {
    const entries = Object.keys(((raw ?? {}) as Record<string, Record<string, unknown> | undefined>)[section] ?? {});
    entries.forEach((name, index) => {
      if (!(keys as readonly string[]).includes(name)) return;
      const owner = entries
        .slice(0, index)
        .reverse()
        .find((n) => !(keys as readonly string[]).includes(n));
      diagnostics.push({
        code: "dedented-key",
        file,
        position: locate([section, name], "key"),
        subject: "",
        message: `'${name}' is indented as ${what === "operation" ? "an" : "a"} ${what}, not as a key${owner ? ` of ${what} '${owner}' above` : ""}: indent it (and the lines under it) two more spaces`,
      });
    });
  }
  return diagnostics;
}

/** What a YAML syntax error means for a manifest author, and how to fix it; `at` when the mistake is on another line than the parser's. */
function yamlErrorMessage(code: string, message: string, text: string, line: number): { code: DiagnosticCode; message: string; at?: SourcePosition } {
  const lines = text.split("\n");
  const current = lines[line - 1] ?? "";
  const indent = (l: string) => /^ */.exec(l)![0].length;
  const previous = lines
    .slice(0, line - 1)
    .reverse()
    .find((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  switch (code) {
    case "DUPLICATE_KEY": {
      const key = /^\s*["']?([^"':\n]+?)["']?\s*:/.exec(current)?.[1]?.trim() ?? "";
      const first = lines.findIndex((l, i) => i < line - 1 && indent(l) === indent(current) && new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*:`).test(l));
      return { code: "duplicate-key", message: `'${key}' is declared twice (first on line ${first + 1}): each name may be declared once; rename or remove one` };
    }
    case "TAB_AS_INDENT":
      return { code: "yaml-tab", message: "this line is indented with a tab: YAML indents with spaces (this manifest uses 2 per level)" };
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY": {
      if (/^\s*[\w-]+:\s+[^\s"'{[#][^#]*?:(\s|$)/.test(current)) {
        return {
          code: "yaml-colon-in-value",
          message: "a second ': ' on this line starts a mapping inside a value: quote the value (description: \"Text: more text\"), or put the mapping on the next lines, indented two more spaces",
        };
      }
      // The value on this line runs on into a deeper-indented next line: that line is the mistake.
      const next = lines[line] ?? "";
      if (/^\s*[\w-]+:\s+\S/.test(current) && next.trim() !== "" && indent(next) > indent(current)) {
        return {
          code: "yaml-indentation",
          message: `this line is indented ${indent(next)} spaces, deeper than the line above (${indent(current)}), which already has a value: keys of one mapping line up at the same column`,
          at: { line: line + 1, col: indent(next) + 1 },
        };
      }
      if (previous !== undefined && indent(current) > indent(previous)) {
        return {
          code: "yaml-indentation",
          message: `this line is indented ${indent(current)} spaces, deeper than the line above (${indent(previous)}), which already has a value: keys of one mapping line up at the same column`,
        };
      }
      return {
        code: "yaml-indentation",
        message: "a mapping cannot start here: keys of one mapping line up at the same column, and a nested mapping goes on the next lines, indented two more spaces",
      };
    }
    case "BAD_INDENT":
      if (message.startsWith("All mapping items"))
        return { code: "yaml-indentation", message: `this key is indented ${indent(current)} spaces, unlike the keys before it: keys of one mapping line up at the same column` };
      break;
    case "UNEXPECTED_TOKEN":
      if (message.includes("flow-seq-start") && current.includes("{")) {
        return { code: "yaml-bracket-in-flow", message: "'[' starts a list inside { ... }: quote a type that ends in [] there, such as { type: \"string[]!\", format: email }" };
      }
      break;
  }
  return { code: "yaml-syntax", message: message.split("\n")[0]!.replace(/ at line \d+, column \d+.*$/, "") };
}

function offsetOf(doc: Document, path: readonly PathSegment[], which: "key" | "value"): number {
  // Walk down as far as the path exists; a missing leaf reports its parent.
  let node: unknown = doc.contents;
  let offset = isNode(node) && node.range ? node.range[0] : 0;
  for (let i = 0; i < path.length; i++) {
    if (!isNode(node)) break;
    const segment = path[i]!;
    if (isMap(node)) {
      const pair = node.items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === segment);
      if (!pair) break;
      const keyNode = pair.key;
      const last = i === path.length - 1;
      if (last && which === "key" && isNode(keyNode) && keyNode.range) return keyNode.range[0];
      node = pair.value;
      if (isNode(node) && node.range) offset = node.range[0];
      else if (isNode(keyNode) && keyNode.range) offset = keyNode.range[0];
    } else if ("items" in node && Array.isArray((node as { items: unknown[] }).items)) {
      node = (node as { items: unknown[] }).items[Number(segment)];
      if (isNode(node) && node.range) offset = node.range[0];
    } else break;
  }
  return offset;
}

let compiledValidator: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  compiledValidator ??= compileManifestValidator();
  return compiledValidator;
}

/** Turns Ajv's errors into one actionable message per place, most specific first. */
type SourceText = (path: readonly PathSegment[]) => string | undefined;

function schemaDiagnostics(errors: ErrorObject[], root: unknown, file: string, locate: LoadedManifest["locate"], sourceText: SourceText): Diagnostic[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    if (["oneOf", "anyOf", "if", "propertyNames"].includes(error.keyword)) continue;
    const list = byPath.get(error.instancePath) ?? [];
    list.push(error);
    byPath.set(error.instancePath, list);
  }
  const paths = [...byPath.keys()];
  const diagnostics: Diagnostic[] = [];
  for (const [instancePath, list] of byPath) {
    // A oneOf branch that wanted another JSON type is noise when a deeper or sibling error explains more.
    const deeper = paths.some((p) => p !== instancePath && p.startsWith(instancePath + "/"));
    const specific = list.filter((e) => e.keyword !== "type");
    const chosen = specific.length > 0 ? specific : deeper ? [] : list.slice(0, 1);
    const seen = new Set<string>();
    for (const error of chosen) {
      const segments = instancePath.split("/").slice(1).map(decodePointer);
      const d = describe(error, segments, root, file, locate, sourceText);
      const key = `${d.position.line}:${d.position.col}:${d.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        diagnostics.push(d);
      }
    }
  }
  return diagnostics;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function subjectOf(segments: readonly string[]): string {
  const [section, name] = segments;
  if (section === "operations" && name !== undefined) return `operation '${name}'`;
  if (section === "types" && name !== undefined) return `type '${name}'`;
  if (section === "enums" && name !== undefined) return `enum '${name}'`;
  if (section === "api") return "api";
  return "";
}

const hints: Record<string, string> = {
  version: "write MAJOR.MINOR.PATCH with an optional pre-release, such as 2.4.0 or 2.3.0-rc.9",
  typeExpr: `write a scalar (${SCALAR_KINDS.filter((kind) => kind !== "int64_string").join(", ")}), an enum or a type, with [] for a list and ! for required, such as User[]!; map<V> for a map of V values`,
  typeName: "type names are PascalCase, such as OrgMember",
  scope: "a scope is printable ASCII without spaces, quotes or backslashes, such as books:write",
  npmName: "npm names are lower-case letters, digits, '-', '.' and '_', optionally scoped, such as @acme/identity-sdk",
};

/** The $defs entry an error's schema path ends in (the innermost), such as "version". */
function definitionOf(error: ErrorObject): string {
  const matches = [...error.schemaPath.matchAll(/\$defs\/(\w+)/g)];
  return matches[matches.length - 1]?.[1] ?? "";
}

function describe(error: ErrorObject, segments: string[], root: unknown, file: string, locate: LoadedManifest["locate"], sourceText: SourceText): Diagnostic {
  const subject = subjectOf(segments);
  const last = segments[segments.length - 1];
  // An index means nothing to the reader; "value 4 of values" does.
  const leaf = last === undefined ? "manifest" : /^\d+$/.test(last) ? `item ${Number(last) + 1} of ${segments[segments.length - 2]}` : last;
  const value = segments.reduce<unknown>((node, s) => (node as Record<string, unknown> | undefined)?.[s], root);
  // Show values as written: YAML reads 2.4 as a number and null as null.
  const written = sourceText(segments);
  const shown = written !== undefined ? `'${written.replace(/^["']|["']$/g, "")}'` : typeof value === "string" ? `'${value}'` : JSON.stringify(value);
  const definition = definitionOf(error);
  if (definition === "version" || definition === "protocolEntry") {
    return { code: "invalid-version", file, position: locate(segments), subject, message: `${shown} is not a version: ${hints.version}` };
  }
  if (definition === "enumValue" && error.keyword === "type") {
    const reserved = ["null", "true", "false"].includes(String(written));
    return {
      code: reserved ? "graphql-reserved-name" : "invalid-name",
      file,
      position: locate(segments),
      subject,
      message: reserved ? `${shown} cannot be an enum value in GraphQL; rename it` : `${shown} is not a name: enum values are letters, digits and _`,
    };
  }
  const at = (path: readonly PathSegment[], which: "key" | "value" = "value") => locate(path, which);
  const propertyName = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    const section = segments[0] ?? "";
    const style = section === "types" || section === "enums" ? "PascalCase, such as OrgMember" : "snake_case, such as delete_org_domain";
    return {
      code: "invalid-name",
      file,
      position: at([...segments, propertyName], "key"),
      subject: segments.length >= 2 ? subjectOf(segments) : "",
      message: `name '${propertyName}' is not valid: names here are ${style}`,
    };
  }
  switch (error.keyword) {
    case "additionalProperties": {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      return {
        code: "unknown-key",
        file,
        position: at([...segments, extra], "key"),
        subject,
        message: `unknown key '${extra}'${didYouMean(extra, known) || (known.length ? `; expected one of ${known.join(", ")}` : "")}`,
      };
    }
    case "required": {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      const where = segments.length === 0 ? "the manifest is" : segments.length === 2 && subject ? "" : `'${leaf}' is`;
      return { code: "missing-key", file, position: at(segments, "key"), subject, message: `${where ? `${where} ` : ""}missing required key '${missing}'` };
    }
    case "enum": {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map(String);
      return {
        code: "invalid-value",
        file,
        position: at(segments),
        subject,
        message: `${shown} is not a valid ${leaf}${didYouMean(String(value), allowed)} (expected one of ${allowed.join(", ")})`,
      };
    }
    case "const":
      return { code: "invalid-value", file, position: at(segments), subject, message: `${leaf} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}` };
    case "pattern": {
      const ref = definition;
      const kind = ref === "typeExpr" ? "type expression" : ref === "typeName" ? "type name" : ref === "npmName" ? "valid npm package name" : `valid ${leaf}`;
      const hint = hints[ref] ?? `it must match ${(error.params as { pattern: string }).pattern}`;
      return { code: "invalid-value", file, position: at(segments), subject, message: `${shown} is not a ${kind}: ${hint}` };
    }
    case "type":
      if (leaf === "protocols") {
        return {
          code: "invalid-protocols",
          file,
          position: at(segments),
          subject,
          message: `protocols maps each protocol to the lowest server version that carries it, such as protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }, not ${shown}`,
        };
      }
      return { code: "wrong-type", file, position: at(segments), subject, message: `${leaf} must be ${error.params && (error.params as { type: string }).type}, not ${shown}` };
    case "minProperties":
      return { code: "empty-value", file, position: at(segments), subject, message: `${leaf} must not be empty` };
    case "minItems":
      if ((error.params as { limit: number }).limit === 1) return { code: "empty-value", file, position: at(segments), subject, message: `${leaf} must not be empty` };
      return { code: "invalid-value", file, position: at(segments), subject, message: `${leaf} ${error.message ?? "is invalid"}` };
    default:
      return { code: "invalid-value", file, position: at(segments), subject, message: `${leaf} ${error.message ?? "is invalid"}` };
  }
}
