// Errors about the manifest, each naming its place in the source (graphql-js style: message +
// location) and a stable code (as TypeSpec's diagnostics have): tools and tests match the code,
// the message may be reworded.

/** Every code a manifest error may carry, with what it means. */
export const DIAGNOSTIC_CODES = {
  "yaml-syntax": "the file is not YAML",
  "yaml-tab": "a line is indented with a tab",
  "yaml-colon-in-value": "a second ': ' on a line starts a mapping inside a value",
  "yaml-indentation": "keys of one mapping do not line up",
  "yaml-bracket-in-flow": "'[' inside { ... } starts a list",
  "duplicate-key": "a name is declared twice in one mapping",
  "dedented-key": "a key of an operation or type is indented as an operation or type",
  "unknown-key": "a key the manifest does not know",
  "missing-key": "a required key is missing",
  "wrong-type": "a value of the wrong YAML type",
  "empty-value": "a value that must not be empty is empty",
  "invalid-value": "a value outside what the key takes",
  "invalid-version": "not a semantic version",
  "invalid-protocols": "protocols is not a map of protocol to minimum version",
  "invalid-name": "a name that breaks the naming rules of its kind",
  "graphql-reserved-name": "a name GraphQL reserves",
  "proto-name-clash": "two names that become one in proto",
  "proto-zero-value-name": "an enum value that becomes proto's zero value name",
  "json-name-clash": "two fields that become one in proto JSON",
  "name-clash": "two declarations whose derived names collide",
  "builtin-format-redeclared": "a declared format takes a built-in format's name",
  "format-example-mismatch": "a format's example does not fit the format",
  "invalid-pattern": "a pattern that is not a regular expression",
  "unknown-type": "a reference to a type or enum not declared",
  "unsupported-type": "a type expression the contracts cannot carry",
  "format-not-applicable": "a format on a field that is not a string",
  "unknown-format": "a format that is neither built in nor declared",
  "invalid-rule": "a field rule that does not fit the field or can never hold",
  "unknown-field": "a rule or setting naming a field that is not there",
  "unknown-group": "an operation's group is not declared",
  "destructive-read": "a destructive operation whose kind is read",
  "idempotent-read": "a read that declares idempotent: true, which only writes declare",
  "route-without-rest": "a REST route on an operation not carried over rest",
  "version-ahead": "a version newer than api.version",
  "version-operation-missing": "a client's operations have different minimum versions and api.version_operation names none of its operations",
  "invalid-version-operation": "api.version_operation names no read without required input answering a string version, or two of one client",
  "token-route-protocol": "a token route carried over another protocol than rest",
  "token-route-path": "a token route without route.path",
  "redirect-route": "a redirect route (route.answer redirect) that is not a GET carried over REST alone, or whose output is not the one field location: string!",
  "auth-not-allowed": "an auth scheme the operation's surface does not take",
  "unknown-auth-scheme": "an operation's auth names no auth scheme of the API",
  "invalid-auth-scheme": "an auth scheme whose keys do not fit its kind, or that the API cannot serve",
  "invalid-operation-auth": "an operation's auth that names a scheme twice, or gives scopes to a scheme that is not bearer",
  "deprecated-without-reason": "deprecated without a reason",
  "invalid-output": "an output that is not a type",
  "empty-graphql-type": "a type or answer carried over graphql without a field",
  "invalid-pagination": "pagination the operation's messages do not support",
  "duplicate-route": "two operations on one REST route",
  "get-field-not-in-query": "a GET or DELETE route input field the query string cannot hold",
  "invalid-route-param": "a {field} segment of a REST path that names no required scalar input field",
  "invalid-route-status": "a route status a read, or an output with fields (204), cannot have",
  "invalid-one-of": "a union (one_of) with fewer than two variants, a variant that is required or a list, or a discriminator without one_of, named as a variant or whose GraphQL enum name is taken",
  "invalid-route-header": "a route header bound to no single string, number, bool or enum field, bound twice, or one HTTP or the service itself uses",
  "invalid-package": "package names or metadata the registries or languages refuse",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface SourcePosition {
  line: number;
  col: number;
}

export interface Diagnostic {
  code: DiagnosticCode;
  file: string;
  position: SourcePosition;
  /** "operation 'delete_user'", "type 'User'", ... or "" at top level. */
  subject: string;
  message: string;
}

/** `operations.yaml:61:3: error duplicate-key: operation 'users': …` */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.position.line}:${d.position.col}: error ${d.code}`;
  return d.subject ? `${where}: ${d.subject}: ${d.message}` : `${where}: ${d.message}`;
}

/** Thrown when the manifest cannot become an IR; carries every problem found, in source order. */
export class ManifestError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: Diagnostic[]) {
    const sorted = [...diagnostics].sort((a, b) => a.position.line - b.position.line || a.position.col - b.position.col);
    super(sorted.map(formatDiagnostic).join("\n"));
    this.name = "ManifestError";
    this.diagnostics = sorted;
  }
}

/** An error the user can act on (bad flag, unreadable file); printed without a stack trace. */
export class UsageError extends Error {
  override name = "UsageError";
}
