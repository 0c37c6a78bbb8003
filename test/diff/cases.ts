// The diff corpus: each case is one change (or a few, combined) to test/fixtures/minimal.yaml and
// every change the diff must report for it: id, severity and the protocols whose clients see it.
// Nothing else may be reported, so a contract finding that fails to fold into its manifest change
// shows up as an unexpected change.
import type { Severity, Source } from "../../generators/diff/change.js";
import type { Protocol } from "../../generators/ir.js";
import type { FieldNumberLock } from "../../generators/lock.js";

export interface ExpectedChange {
  id: string;
  severity: Severity;
  protocols: Protocol[];
  /** When given, the checks that must have found it (others may too). */
  sources?: Source[];
}

export interface DiffCase {
  name: string;
  /** Text replacements on minimal.yaml; each `from` must occur exactly once. */
  edits: [string, string][];
  /** Edits the lock before the new side is generated from it (for proto number cases). */
  editLock?: (lock: FieldNumberLock) => void;
  /** The old side has no lock file: its numbers come from the new side's lock. */
  oldSideHasNoLock?: boolean;
  expected: ExpectedChange[];
}

const ALL: Protocol[] = ["graphql", "rest", "grpc"];

// Snippets of minimal.yaml that the edits anchor on.
const USERS_INPUT = "    input:\n      pagination: PaginationInput\n      query: string\n";
const DELETE_USER = "  delete_user:\n    surface: admin\n    group: users\n    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n    output: Response\n";
const ROTATE_KEY = "  rotate_key:\n    surface: admin\n    group: orgs\n    description: Rotate a key.\n    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n    output: Key\n";
const META_HEAD = "  meta:\n    surface: user\n    group: users\n    description: Public metadata.\n    kind: read\n";
const USER_FIELDS = "      id: string!\n      email: string\n      roles: string[]!\n      app_data: json\n      created_at: int64!\n";

export const CASES: DiffCase[] = [
  // ---- operations ----
  {
    name: "operation removed",
    edits: [[ROTATE_KEY, ""]],
    expected: [{ id: "operation-removed:rotate_key", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "operation renamed (same shape under a new name)",
    edits: [["  delete_user:\n", "  remove_user:\n"]],
    expected: [{ id: "operation-renamed:delete_user", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "new operation",
    edits: [["operations:\n", "operations:\n  get_user:\n    surface: admin\n    group: users\n    description: Get a user.\n    kind: read\n    auth: admin_secret\n    protocols: { graphql: 2.4.0, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      id: string!\n    output: User\n"]],
    expected: [{ id: "operation-added:get_user", severity: "safe", protocols: ALL }],
  },
  {
    name: "description edit",
    edits: [["    description: List users.\n", "    description: List the users of the instance.\n"]],
    expected: [{ id: "description-changed:users", severity: "safe", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "operation deprecated",
    edits: [["    description: List users.\n", "    description: List users.\n    deprecated: use search_users\n"]],
    expected: [{ id: "deprecation-changed:users", severity: "safe", protocols: ALL }],
  },
  {
    name: "operation moved to another group (proto file moves)",
    edits: [["  delete_user:\n    surface: admin\n    group: users\n", "  delete_user:\n    surface: admin\n    group: orgs\n"]],
    expected: [{ id: "group-changed:delete_user", severity: "dangerous", protocols: ["grpc"] }],
  },

  // ---- protocols and versions ----
  {
    name: "protocol removed (grpc)",
    edits: [["    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    pagination: page\n", "    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9 }\n    pagination: page\n"]],
    expected: [{ id: "protocol-removed:users.grpc", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] }],
  },
  {
    name: "protocol removed (rest)",
    edits: [["    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    route: { method: GET }\n", "    protocols: { graphql: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n"]],
    expected: [{ id: "protocol-removed:meta.rest", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "protocol removed (graphql)",
    edits: [["    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n", "    protocols: { rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n"]],
    expected: [{ id: "protocol-removed:rotate_key.graphql", severity: "breaking", protocols: ["graphql"], sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "protocol added",
    edits: [["    protocols: { graphql: 2.3.0-rc.9 }\n", "    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0 }\n"]],
    expected: [{ id: "protocol-added:admin_signup.rest", severity: "safe", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "minimum server version raised",
    edits: [["  delete_org_oidc_connection:\n    surface: admin\n    group: orgs\n    description: Delete an upstream OIDC connection.\n    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9,", "  delete_org_oidc_connection:\n    surface: admin\n    group: orgs\n    description: Delete an upstream OIDC connection.\n    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.4.0,"]],
    expected: [{ id: "min-version-raised:delete_org_oidc_connection.graphql", severity: "breaking", protocols: ["graphql"], sources: ["manifest"] }],
  },
  {
    name: "minimum server version lowered",
    edits: [["    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      id: string!\n", "    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0, grpc: 2.4.0 }\n    input:\n      id: string!\n"]],
    expected: [{ id: "min-version-lowered:delete_org_oidc_connection.rest", severity: "safe", protocols: ["rest"] }],
  },

  // ---- destructiveness and auth ----
  {
    name: "operation turned destructive",
    edits: [["    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n", "    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n"]],
    expected: [{ id: "operation-destructive:rotate_key", severity: "dangerous", protocols: ALL }],
  },
  {
    name: "operation no longer destructive",
    edits: [["    description: Delete a user.\n    kind: write\n    destructive: true\n", "    description: Delete a user.\n    kind: write\n"]],
    expected: [{ id: "operation-not-destructive:delete_user", severity: "safe", protocols: ALL }],
  },
  {
    name: "auth tightened (public to admin_secret)",
    edits: [["    auth: public\n    protocols: { graphql: 2.3.0-rc.9 }\n", "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9 }\n"]],
    expected: [{ id: "auth-tightened:admin_signup", severity: "breaking", protocols: ["graphql"] }],
  },
  {
    name: "auth tightened (org_admin to super_admin)",
    edits: [["    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n", "    kind: write\n    auth: super_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n"]],
    expected: [{ id: "auth-tightened:rotate_key", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "auth loosened (admin_secret to org_admin)",
    edits: [["    destructive: true\n    auth: admin_secret\n", "    destructive: true\n    auth: org_admin\n"]],
    expected: [{ id: "auth-loosened:delete_user", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },

  // ---- kind, REST route, surface ----
  {
    name: "read turned write (GraphQL Query to Mutation; the GET route stays)",
    edits: [[META_HEAD, META_HEAD.replace("kind: read", "kind: write")]],
    expected: [{ id: "read-became-write:meta", severity: "breaking", protocols: ["graphql", "grpc"], sources: ["manifest", "graphql-inspector", "buf"] }],
  },
  {
    name: "read turned write with the route moved from GET to POST",
    edits: [
      [META_HEAD, META_HEAD.replace("kind: read", "kind: write")],
      ["    route: { method: GET }\n", ""],
    ],
    expected: [
      { id: "read-became-write:meta", severity: "breaking", protocols: ALL },
      { id: "rest-method-changed:meta", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] },
    ],
  },
  {
    name: "write turned read",
    edits: [["    description: Rotate a key.\n    kind: write\n", "    description: Rotate a key.\n    kind: read\n"]],
    expected: [{ id: "write-became-read:rotate_key", severity: "breaking", protocols: ["graphql", "grpc"], sources: ["manifest", "graphql-inspector", "buf"] }],
  },
  {
    name: "REST path changed",
    edits: [["    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:", "    route: { path: /v1/admin/users/delete }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:"]],
    expected: [{ id: "rest-path-changed:delete_user", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST method changed",
    edits: [["    route: { method: GET }\n", "    route: { method: POST }\n"]],
    expected: [{ id: "rest-method-changed:meta", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST route takes form bodies too",
    edits: [["    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:", "    route: { body: form_or_json }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:"]],
    expected: [{ id: "rest-form-body-added:delete_user", severity: "safe", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "operation moved to the admin surface (gRPC service and default REST path move)",
    edits: [[META_HEAD, META_HEAD.replace("surface: user", "surface: admin")]],
    expected: [
      { id: "surface-changed:meta", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] },
      { id: "rest-path-changed:meta", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] },
    ],
  },
  {
    name: "pagination style changed",
    edits: [["    pagination: page\n", ""]],
    expected: [{ id: "pagination-changed:users", severity: "dangerous", protocols: ALL }],
  },

  // ---- input fields ----
  {
    name: "input field added as required",
    edits: [[USERS_INPUT, `${USERS_INPUT}      org_id: string!\n`]],
    expected: [{ id: "input-field-required-added:users.org_id", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "input field added as optional",
    edits: [[USERS_INPUT, `${USERS_INPUT}      org_id: string\n`]],
    expected: [{ id: "input-field-optional-added:users.org_id", severity: "safe", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "input field removed",
    edits: [[USERS_INPUT, "    input:\n      pagination: PaginationInput\n"]],
    expected: [{ id: "input-field-removed:users.query", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "input field type changed",
    edits: [[USERS_INPUT, "    input:\n      pagination: PaginationInput\n      query: int32\n"]],
    expected: [{ id: "input-field-type-changed:users.query", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "input field became required",
    edits: [[USERS_INPUT, "    input:\n      pagination: PaginationInput\n      query: string!\n"]],
    expected: [{ id: "input-field-became-required:users.query", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "input field became optional",
    edits: [["    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n", "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string\n"]],
    expected: [{ id: "input-field-became-optional:delete_user.id", severity: "safe", protocols: ALL }],
  },
  {
    name: "input field format added",
    edits: [["    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n", "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: { type: string!, format: slug }\n"]],
    // The slug format publishes a maximum length too; the OpenAPI check calls a new input bound breaking.
    expected: [{ id: "input-field-format-changed:delete_user.id", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "input must give exactly one of two fields",
    edits: [["    pagination: page\n", "    pagination: page\n    exactly_one_of: [pagination, query]\n"]],
    expected: [{ id: "input-exactly-one-of-changed:users", severity: "dangerous", protocols: ALL }],
  },
  {
    name: "field of a shared input type added as optional",
    edits: [["  PaginationInput:\n    fields:\n      limit: int64\n", "  PaginationInput:\n    fields:\n      limit: int64\n      cursor: string\n"]],
    expected: [{ id: "input-field-optional-added:PaginationInput.cursor", severity: "safe", protocols: ALL }],
  },

  // ---- output fields (shared type User reaches users' answer) ----
  {
    name: "output field removed",
    edits: [[USER_FIELDS, USER_FIELDS.replace("      email: string\n", "")]],
    expected: [{ id: "output-field-removed:User.email", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "output field added",
    edits: [[USER_FIELDS, `${USER_FIELDS}      nickname: string\n`]],
    expected: [{ id: "output-field-added:User.nickname", severity: "safe", protocols: ALL }],
  },
  {
    name: "output field type changed",
    edits: [[USER_FIELDS, USER_FIELDS.replace("created_at: int64!", "created_at: string!")]],
    expected: [{ id: "output-field-type-changed:User.created_at", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "output field became optional",
    edits: [[USER_FIELDS, USER_FIELDS.replace("id: string!", "id: string")]],
    expected: [{ id: "output-field-became-optional:User.id", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "output field became required",
    edits: [[USER_FIELDS, USER_FIELDS.replace("email: string\n", "email: string!\n")]],
    expected: [{ id: "output-field-became-required:User.email", severity: "safe", protocols: ALL }],
  },
  {
    name: "field of an inline answer added",
    edits: [["      pagination: Pagination!\n      users: User[]!\n", "      pagination: Pagination!\n      users: User[]!\n      took_ms: int32\n"]],
    expected: [{ id: "output-field-added:users.took_ms", severity: "safe", protocols: ALL }],
  },
  {
    name: "field description edit",
    edits: [[USER_FIELDS, USER_FIELDS.replace("email: string\n", "email: { type: string, description: Primary email address. }\n")]],
    expected: [{ id: "field-description-changed:User.email", severity: "safe", protocols: ALL }],
  },
  {
    name: "type description edit",
    edits: [["    description: A user.\n", "    description: A user account.\n"]],
    expected: [{ id: "type-description-changed:User", severity: "safe", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "answer type swapped for another shared type",
    edits: [["    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:", "    input:\n      id: string!\n    output: Key\n  delete_org_oidc_connection:"]],
    expected: [
      { id: "output-type-renamed:delete_user", severity: "breaking", protocols: ["graphql", "rest"], sources: ["manifest", "graphql-inspector", "openapi"] },
      { id: "output-field-removed:delete_user.message", severity: "breaking", protocols: ALL },
      // DeleteUserResponse keeps its name in proto; field 1 was `message` and is now `id`.
      { id: "proto-field-number-reused:delete_user.id", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] },
      { id: "output-field-added:delete_user.id", severity: "safe", protocols: ALL },
      { id: "output-field-added:delete_user.status", severity: "safe", protocols: ALL },
    ],
  },

  // ---- enums ----
  {
    name: "enum value removed",
    edits: [["values: [current, published, retired]", "values: [current, retired]"]],
    expected: [{ id: "enum-value-removed:KeyStatus.published", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "enum value added (dangerous: old clients may meet it in answers)",
    edits: [["values: [current, published, retired]", "values: [current, published, retired, revoked]"]],
    expected: [{ id: "enum-value-added:KeyStatus.revoked", severity: "dangerous", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "enum added (no field uses it yet)",
    edits: [["enums:\n", "enums:\n  Color:\n    values: [red, green]\n"]],
    expected: [{ id: "enum-added:Color", severity: "safe", protocols: ["grpc"] }],
  },
  {
    name: "type added (no operation uses it yet)",
    edits: [["types:\n", "types:\n  Extra:\n    fields:\n      note: string\n"]],
    expected: [{ id: "type-added:Extra", severity: "safe", protocols: ["grpc"] }],
  },

  // ---- proto numbers (the lock) ----
  {
    name: "proto field number changed (the lock was edited)",
    edits: [],
    editLock: (lock) => {
      lock.messages["UsersRequest"]!["query"] = 9;
    },
    expected: [{ id: "proto-field-renumbered:users.query", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] }],
  },
  {
    name: "proto field name changed (renamed, keeping its number)",
    edits: [[USERS_INPUT, "    input:\n      pagination: PaginationInput\n      search: string\n"]],
    editLock: (lock) => {
      const entry = lock.messages["UsersRequest"]!;
      entry["search"] = entry["query"]!;
      delete entry["query"];
    },
    expected: [{ id: "proto-field-renamed:users.query", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "proto enum value number changed",
    edits: [],
    editLock: (lock) => {
      lock.enums["KeyStatus"]!["retired"] = 7;
    },
    expected: [{ id: "proto-enum-value-renumbered:KeyStatus.retired", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] }],
  },
  {
    name: "old side without a lock: numbers come from the new lock, so nothing looks renumbered",
    edits: [[USERS_INPUT, `${USERS_INPUT}      org_id: string\n`]],
    oldSideHasNoLock: true,
    expected: [{ id: "input-field-optional-added:users.org_id", severity: "safe", protocols: ALL }],
  },
  {
    name: "proto package changed",
    edits: [["  proto_package: mini.v1\n", "  proto_package: mini.v2\n"]],
    expected: [{ id: "proto-package-changed:api", severity: "breaking", protocols: ["grpc"] }],
  },

  // ---- found only by a contract check ----
  {
    name: "admin secret header renamed (only the OpenAPI check sees it)",
    edits: [["  proto_package: mini.v1\n", "  proto_package: mini.v1\n  admin_secret_header: x-admin-secret\n"]],
    expected: [{ id: "openapi-security-scheme-changed:adminSecret", severity: "breaking", protocols: ["rest"], sources: ["openapi"] }],
  },
  {
    name: "acronym added: the RPC is renamed (manifest) and GraphQL input types are renamed (graphql-inspector only)",
    edits: [["  acronyms: [OIDC, SAML]\n", "  acronyms: [OIDC, SAML, ORG]\n"]],
    expected: [
      { id: "rpc-renamed:delete_org_oidc_connection", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] },
      { id: "graphql-type-removed:DeleteOrgOIDCConnectionInput", severity: "breaking", protocols: ["graphql"], sources: ["graphql-inspector"] },
      { id: "graphql-type-added:DeleteORGOIDCConnectionInput", severity: "safe", protocols: ["graphql"], sources: ["graphql-inspector"] },
      { id: "graphql-field-argument-type-changed:Mutation.delete_org_oidc_connection.params", severity: "breaking", protocols: ["graphql"], sources: ["graphql-inspector"] },
    ],
  },

  // ---- combined ----
  {
    name: "combined: required input, description edit, protocol added",
    edits: [
      [USERS_INPUT, `${USERS_INPUT}      org_id: string!\n`],
      ["    description: List users.\n", "    description: List the users.\n"],
      ["    protocols: { graphql: 2.3.0-rc.9 }\n", "    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0 }\n"],
    ],
    expected: [
      { id: "input-field-required-added:users.org_id", severity: "breaking", protocols: ALL },
      { id: "description-changed:users", severity: "safe", protocols: ALL },
      { id: "protocol-added:admin_signup.rest", severity: "safe", protocols: ["rest"] },
    ],
  },
  {
    name: "combined: operation removed, enum value removed, output field added",
    edits: [
      [ROTATE_KEY, ""],
      ["values: [current, published, retired]", "values: [current, published]"],
      [USER_FIELDS, `${USER_FIELDS}      nickname: string\n`],
    ],
    expected: [
      { id: "operation-removed:rotate_key", severity: "breaking", protocols: ALL },
      { id: "output-field-added:User.nickname", severity: "safe", protocols: ALL },
      // No operation reaches KeyStatus any more; types.proto still declares it.
      { id: "enum-value-removed:KeyStatus.retired", severity: "breaking", protocols: ["grpc"] },
    ],
  },
  {
    name: "combined: no longer destructive, auth loosened and REST minimum version raised on one operation",
    edits: [[DELETE_USER, DELETE_USER.replace("    destructive: true\n", "").replace("auth: admin_secret", "auth: org_admin").replace("rest: 2.3.0-rc.9", "rest: 2.4.0")]],
    expected: [
      { id: "operation-not-destructive:delete_user", severity: "safe", protocols: ALL },
      { id: "auth-loosened:delete_user", severity: "safe", protocols: ALL },
      { id: "min-version-raised:delete_user.rest", severity: "breaking", protocols: ["rest"] },
    ],
  },
  {
    name: "auth between levels that let in the same callers (admin_secret to super_admin)",
    edits: [["    destructive: true\n    auth: admin_secret\n", "    destructive: true\n    auth: super_admin\n"]],
    expected: [{ id: "auth-changed:delete_user", severity: "safe", protocols: ALL }],
  },
];
