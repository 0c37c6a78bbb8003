// The diff corpus: each case is one change (or a few, combined) to test/fixtures/minimal.yaml and
// every change the diff must report for it: id, severity and the protocols whose clients see it.
// Nothing else may be reported, so a contract finding that fails to fold into its manifest change
// shows up as an unexpected change.
import type { SdkLanguage, Severity, Source } from "../../generators/diff/change.js";
import type { Bump } from "../../generators/diff/version.js";
import type { Protocol } from "../../generators/ir/ir.js";
import type { FieldNumberLock } from "../../generators/load/lock.js";

export interface ExpectedChange {
  id: string;
  severity: Severity;
  protocols: Protocol[];
  /** SDKs whose surface the change touches, when it matters to the case. */
  sdks?: SdkLanguage[];
  /** When given, the checks that must have found it (others may too). */
  sources?: Source[];
}

export interface DiffCase {
  name: string;
  /** Text replacements on minimal.yaml that make both sides (the starting point of the case). */
  base?: [string, string][];
  /** Text replacements on the base that make the new side; each `from` must occur exactly once. */
  edits: [string, string][];
  /** Edits the lock before the new side is generated from it (for proto number cases). */
  editLock?: (lock: FieldNumberLock) => void;
  /** The old side has no lock file: its numbers come from the new side's lock. */
  oldSideHasNoLock?: boolean;
  /** The version bump the changes call for, when not major (breaking) or patch (anything else). */
  bump?: Bump;
  expected: ExpectedChange[];
}

const ALL: Protocol[] = ["graphql", "rest", "grpc"];

// Snippets of minimal.yaml that the edits anchor on.
const USERS_INPUT = "    input:\n      pagination: PaginationInput\n      query: string\n";
const DELETE_USER =
  "  delete_user:\n    surface: admin\n    group: users\n    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n    output: Response\n";
const ROTATE_KEY =
  "  rotate_key:\n    surface: admin\n    group: orgs\n    description: Rotate a key.\n    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n    output: Key\n";
const META_HEAD = "  meta:\n    surface: user\n    group: users\n    description: Public metadata.\n    kind: read\n";
const USER_FIELDS = "      id: string!\n      email: string\n      roles: string[]!\n      app_data: json\n      created_at: int64!\n";
const OIDC_INPUT = "    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      id: string!\n";
const DELETE_USER_INPUT = "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n";
const API_HEAD = "  proto_package: mini.v1\n";
/** meta's auth (public), which the cases of several schemes and of scopes replace. */
const META_AUTH = "    description: Public metadata.\n    kind: read\n    auth: public\n";
/**
 * An operation that takes every scheme a user-surface operation may, beside meta: a case that adds
 * one of them to meta's list or takes one away changes no OpenAPI security scheme and no SDK option.
 */
const WHOAMI: [string, string] = [
  "  meta:\n",
  "  whoami:\n    surface: user\n    group: users\n    description: Who calls.\n    kind: read\n    auth: [user, scim_token, api_key]\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    output:\n      caller: string!\n  meta:\n",
];
const PAGINATION_INPUT = "  PaginationInput:\n    fields:\n      limit: int64\n      page: int64\n";
/** A declared format of values, used by delete_user's input (and so reaching every protocol). */
const REGION_FORMAT: [string, string][] = [
  ["enums:\n", "formats:\n  region:\n    description: a region code\n    values: [eu, us, ap]\n\nenums:\n"],
  [DELETE_USER_INPUT, `${DELETE_USER_INPUT}      region: { type: string, format: region }\n`],
];

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
    bump: "minor",
    edits: [
      [
        "operations:\n",
        "operations:\n  get_user:\n    surface: admin\n    group: users\n    description: Get a user.\n    kind: read\n    auth: admin_secret\n    protocols: { graphql: 2.5.0, rest: 2.5.0, grpc: 2.5.0 }\n    input:\n      id: string!\n    output: User\n",
      ],
      ["  version: 2.4.0\n", "  version: 2.5.0\n"],
    ],
    expected: [{ id: "operation-added:get_user", severity: "safe", protocols: ALL }],
  },
  {
    name: "new operation at a version the base already released",
    edits: [
      [
        "operations:\n",
        "operations:\n  get_user:\n    surface: admin\n    group: users\n    description: Get a user.\n    kind: read\n    auth: admin_secret\n    protocols: { graphql: 2.5.0, rest: 2.4.0, grpc: 2.5.0 }\n    input:\n      id: string!\n    output: User\n",
      ],
      ["  version: 2.4.0\n", "  version: 2.5.0\n"],
    ],
    expected: [
      { id: "operation-added:get_user", severity: "safe", protocols: ALL },
      { id: "min-version-not-new:get_user.rest", severity: "breaking", protocols: ["rest"] },
    ],
  },
  {
    name: "description edit",
    edits: [["    description: List users.\n", "    description: List the users of the instance.\n"]],
    expected: [{ id: "description-changed:users", severity: "safe", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
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
    edits: [
      ["    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n", "    protocols: { rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n"],
    ],
    expected: [{ id: "protocol-removed:rotate_key.graphql", severity: "breaking", protocols: ["graphql"], sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "protocol added",
    bump: "minor",
    edits: [
      ["    protocols: { graphql: 2.3.0-rc.9 }\n", "    protocols: { graphql: 2.3.0-rc.9, rest: 2.5.0 }\n"],
      ["  version: 2.4.0\n", "  version: 2.5.0\n"],
    ],
    expected: [{ id: "protocol-added:admin_signup.rest", severity: "safe", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "minimum server version raised",
    edits: [
      [
        "  delete_org_oidc_connection:\n    surface: admin\n    group: orgs\n    description: Delete an upstream OIDC connection.\n    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9,",
        "  delete_org_oidc_connection:\n    surface: admin\n    group: orgs\n    description: Delete an upstream OIDC connection.\n    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.4.0,",
      ],
    ],
    expected: [{ id: "min-version-raised:delete_org_oidc_connection.graphql", severity: "breaking", protocols: ["graphql"], sources: ["manifest"] }],
  },
  {
    name: "minimum server version lowered",
    bump: "minor",
    edits: [
      [
        "    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      id: string!\n",
        "    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0, grpc: 2.4.0 }\n    input:\n      id: string!\n",
      ],
    ],
    expected: [{ id: "min-version-lowered:delete_org_oidc_connection.rest", severity: "safe", protocols: ["rest"] }],
  },

  // ---- destructiveness and auth ----
  {
    name: "operation turned destructive",
    edits: [
      [
        "    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n",
        "    kind: write\n    destructive: true\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n",
      ],
    ],
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
    edits: [
      [
        "    kind: write\n    auth: org_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n",
        "    kind: write\n    auth: super_admin\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    input:\n      org_id: string!\n",
      ],
    ],
    expected: [{ id: "auth-tightened:rotate_key", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "auth loosened (admin_secret to org_admin)",
    bump: "minor",
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
    edits: [
      [
        "    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
        "    route: { path: /v1/admin/users/delete }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
      ],
    ],
    expected: [{ id: "rest-path-changed:delete_user", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST method changed",
    edits: [["    route: { method: GET }\n", "    route: { method: POST }\n"]],
    expected: [{ id: "rest-method-changed:meta", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST route takes form bodies too",
    bump: "minor",
    edits: [
      [
        "    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
        "    route: { body: form_or_json }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
      ],
    ],
    expected: [{ id: "rest-form-body-added:delete_user", severity: "safe", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST input field moved into a header",
    base: [[DELETE_USER_INPUT, `${DELETE_USER_INPUT}      reason: string\n`]],
    edits: [
      [
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n      reason",
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    route: { headers: { reason: X-Reason } }\n    input:\n      id: string!\n      reason",
      ],
    ],
    expected: [{ id: "rest-input-header-changed:delete_user.reason", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] }],
  },
  {
    name: "REST answers an output field as a header too",
    bump: "minor",
    edits: [
      [
        "    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
        "    route: { response_headers: { message: X-Message } }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
      ],
    ],
    expected: [{ id: "rest-response-header-added:delete_user.message", severity: "safe", protocols: ["rest"], sources: ["manifest"] }],
  },
  {
    name: "REST no longer answers a response header",
    base: [
      [
        "    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
        "    route: { response_headers: { message: X-Message } }\n    input:\n      id: string!\n    output: Response\n  delete_org_oidc_connection:",
      ],
    ],
    edits: [["    route: { response_headers: { message: X-Message } }\n", ""]],
    expected: [{ id: "rest-response-header-removed:delete_user.message", severity: "breaking", protocols: ["rest"], sources: ["manifest"] }],
  },
  {
    name: "operation moved to the admin surface (gRPC service and default REST path move)",
    edits: [[META_HEAD, META_HEAD.replace("surface: user", "surface: admin")]],
    expected: [
      { id: "surface-changed:meta", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] },
      { id: "rest-path-changed:meta", severity: "breaking", protocols: ["rest"], sources: ["manifest", "openapi"] },
      // meta was the only user operation: the SDKs have no UserClient any more.
      { id: "sdk-client-removed:typescript.UserClient", severity: "breaking", protocols: [], sdks: ["typescript"] },
      { id: "sdk-client-removed:go.UserClient", severity: "breaking", protocols: [], sdks: ["go"] },
      { id: "sdk-client-removed:python.AsyncUserClient", severity: "breaking", protocols: [], sdks: ["python"] },
      { id: "sdk-client-removed:python.UserClient", severity: "breaking", protocols: [], sdks: ["python"] },
    ],
  },
  {
    // The wire keeps its shape, but the SDKs lose AdminClient.iterateUsers and AdminClient.iter_users: code using them breaks.
    name: "pagination removed: the SDK loses its iterator",
    edits: [["    pagination: page\n", ""]],
    expected: [{ id: "pagination-changed:users", severity: "breaking", protocols: ALL, sdks: ["typescript", "python", "go"], sources: ["manifest", "sdk"] }],
  },

  // ---- input fields ----
  {
    name: "input field added as required",
    edits: [[USERS_INPUT, `${USERS_INPUT}      org_id: string!\n`]],
    expected: [{ id: "input-field-required-added:users.org_id", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "input field added as optional",
    bump: "minor",
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
    bump: "minor",
    edits: [
      [
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n",
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string\n",
      ],
    ],
    expected: [{ id: "input-field-became-optional:delete_user.id", severity: "safe", protocols: ALL }],
  },
  {
    name: "input field format added",
    edits: [
      [
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: string!\n",
        "    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }\n    input:\n      id: { type: string!, format: slug }\n",
      ],
    ],
    expected: [{ id: "input-rules-narrowed:delete_user.id", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    // A request giving neither or both was valid and is now refused; GraphQL states it as @oneOf.
    name: "input must give exactly one of two fields",
    edits: [["    pagination: page\n", "    pagination: page\n    exactly_one_of: [pagination, query]\n"]],
    expected: [{ id: "input-rules-narrowed:users", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "field of a shared input type added as optional",
    bump: "minor",
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
    bump: "minor",
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
    bump: "minor",
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

  // ---- the types of timestamps, dates, durations, bytes and unsigned and 32-bit numbers ----
  {
    name: "output field type changed: int64 seconds to a timestamp",
    edits: [[USER_FIELDS, USER_FIELDS.replace("created_at: int64!", "created_at: timestamp!")]],
    expected: [{ id: "output-field-type-changed:User.created_at", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi", "buf"] }],
  },
  {
    name: "input field type changed: int64 to uint64 (a JSON string now)",
    edits: [[PAGINATION_INPUT, PAGINATION_INPUT.replace("limit: int64", "limit: uint64")]],
    // Wire-compatible in protobuf (both varints), so buf's wire rules see nothing; JSON's number became a string.
    expected: [{ id: "input-field-type-changed:PaginationInput.limit", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "int64 written as decimal strings (api.int64_json: string)",
    edits: [[API_HEAD, `${API_HEAD}  int64_json: string\n`]],
    // Every int64 field's JSON form changed from a number to a string: protobuf's varint is the same.
    expected: [
      ...["limit", "page"].map((name) => ({
        id: `input-field-type-changed:PaginationInput.${name}`,
        severity: "breaking" as const,
        protocols: ALL,
        sources: ["manifest" as const, "openapi" as const],
      })),
      ...["limit", "page", "offset", "total"].map((name) => ({
        id: `output-field-type-changed:Pagination.${name}`,
        severity: "breaking" as const,
        protocols: ALL,
        sources: ["manifest" as const, "openapi" as const],
      })),
      { id: "output-field-type-changed:User.created_at", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] },
    ],
  },
  {
    name: "output field type changed: the values of a map (map<int32> to map<float64>)",
    base: [[USER_FIELDS, `${USER_FIELDS}      scores: map<int32>\n`]],
    edits: [["      scores: map<int32>\n", "      scores: map<float64>\n"]],
    expected: [{ id: "output-field-type-changed:User.scores", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "union variant added (dangerous: old clients meet an answer with none of the variants they know)",
    bump: "minor",
    base: [
      ["types:\n", "types:\n  Contact:\n    one_of: true\n    fields:\n      email: string\n      phone: string\n"],
      [USER_FIELDS, `${USER_FIELDS}      contact: Contact\n`],
    ],
    edits: [["      phone: string\n", "      phone: string\n      postal: string\n"]],
    expected: [{ id: "union-variant-added:Contact.postal", severity: "dangerous", protocols: ALL, sources: ["manifest"] }],
  },
  {
    name: "union tag added (breaking for REST requests, which must carry it; safe in answers)",
    base: [
      ["types:\n", "types:\n  Contact:\n    one_of: true\n    fields:\n      email: string\n      phone: string\n"],
      [USER_FIELDS, `${USER_FIELDS}      contact: Contact\n`],
      [DELETE_USER_INPUT, `${DELETE_USER_INPUT}      contact: Contact\n`],
    ],
    edits: [["    one_of: true\n", "    one_of: true\n    discriminator: via\n"]],
    // One change: its answers (GraphQL and REST) gain a field, and REST requests must send it.
    expected: [{ id: "union-tag-added:Contact.via", severity: "breaking", protocols: ["graphql", "rest"], sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "union tag removed (breaking: answers lose it, and REST callers that still send it are refused)",
    base: [
      ["types:\n", "types:\n  Contact:\n    one_of: true\n    discriminator: via\n    fields:\n      email: string\n      phone: string\n"],
      [USER_FIELDS, `${USER_FIELDS}      contact: Contact\n`],
      [DELETE_USER_INPUT, `${DELETE_USER_INPUT}      contact: Contact\n`],
    ],
    edits: [["    discriminator: via\n", ""]],
    expected: [{ id: "union-tag-removed:Contact.via", severity: "breaking", protocols: ["graphql", "rest"], sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "union tag renamed (breaking: answers and REST requests name it otherwise)",
    base: [
      ["types:\n", "types:\n  Contact:\n    one_of: true\n    discriminator: via\n    fields:\n      email: string\n      phone: string\n"],
      [USER_FIELDS, `${USER_FIELDS}      contact: Contact\n`],
    ],
    edits: [["    discriminator: via\n", "    discriminator: channel\n"]],
    expected: [{ id: "union-tag-renamed:Contact.channel", severity: "breaking", protocols: ["graphql", "rest"], sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "variant added to a tagged union (its GraphQL tag enum gains the value too)",
    bump: "minor",
    base: [
      ["types:\n", "types:\n  Contact:\n    one_of: true\n    discriminator: via\n    fields:\n      email: string\n      phone: string\n"],
      [USER_FIELDS, `${USER_FIELDS}      contact: Contact\n`],
    ],
    edits: [["      phone: string\n", "      phone: string\n      postal: string\n"]],
    expected: [{ id: "union-variant-added:Contact.postal", severity: "dangerous", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "output field added: a date, a duration, bytes, a float32 and a uint32",
    bump: "minor",
    edits: [[USER_FIELDS, `${USER_FIELDS}      birthday: date\n      session_length: duration\n      avatar: bytes\n      score: float32\n      logins: uint32\n`]],
    expected: ["birthday", "session_length", "avatar", "score", "logins"].map((name) => ({ id: `output-field-added:User.${name}`, severity: "safe" as const, protocols: ALL })),
  },
  {
    name: "bytes limit lowered (counted in bytes, stated in base64 characters)",
    base: [[DELETE_USER_INPUT, `${DELETE_USER_INPUT}      proof: { type: bytes, max_length: 300 }\n`]],
    edits: [["max_length: 300", "max_length: 30"]],
    expected: [{ id: "input-rules-narrowed:delete_user.proof", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "enum value deprecated",
    base: [["values: [current, published, retired]", "values:\n      current: Signs now\n      published: Verifies only\n      retired: Gone"]],
    edits: [["      retired: Gone", "      retired: { description: Gone, deprecated: Retired keys are deleted now. }"]],
    expected: [{ id: "enum-value-deprecation-changed:KeyStatus.retired", severity: "safe", protocols: ALL }],
  },

  // ---- enums ----
  {
    name: "enum value removed",
    edits: [["values: [current, published, retired]", "values: [current, retired]"]],
    expected: [{ id: "enum-value-removed:KeyStatus.published", severity: "breaking", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "enum value added (dangerous: old clients may meet it in answers)",
    bump: "minor",
    edits: [["values: [current, published, retired]", "values: [current, published, retired, revoked]"]],
    expected: [{ id: "enum-value-added:KeyStatus.revoked", severity: "dangerous", protocols: ALL, sources: ["manifest", "graphql-inspector", "openapi"] }],
  },
  {
    name: "enum added (no field uses it yet)",
    bump: "minor",
    edits: [["enums:\n", "enums:\n  Color:\n    values: [red, green]\n"]],
    expected: [{ id: "enum-added:Color", severity: "safe", protocols: ["grpc"] }],
  },
  {
    name: "type added (no operation uses it yet)",
    bump: "minor",
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
    bump: "minor",
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
    // Every operation that takes the admin secret, on every protocol: callers send the old header.
    name: "admin secret header renamed",
    edits: [["  proto_package: mini.v1\n", "  proto_package: mini.v1\n  admin_secret_header: x-admin-secret\n"]],
    expected: [{ id: "admin-secret-header-changed:api", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    // The GraphQL input type, the TypeScript method and the RPC are renamed; graphql-inspector's findings fold into the acronyms rule.
    name: "acronym added: the RPC, the GraphQL input type and the SDK method are renamed",
    edits: [["  acronyms: [OIDC, SAML]\n", "  acronyms: [OIDC, SAML, ORG]\n"]],
    expected: [
      { id: "rpc-renamed:delete_org_oidc_connection", severity: "breaking", protocols: ["grpc"], sources: ["manifest", "buf"] },
      { id: "title-changed:delete_org_oidc_connection", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] },
      { id: "acronyms-changed:api", severity: "breaking", protocols: ["graphql"], sdks: ["typescript", "go"], sources: ["manifest", "graphql-inspector", "sdk"] },
    ],
  },

  // ---- rules on values (formats, lengths, ranges, list sizes, defaults, cross-field rules) ----
  {
    // Every caller allowed before still is: one that keeps sending the admin secret is served.
    name: "auth loosened to public (admin_secret to public)",
    bump: "minor",
    edits: [["    description: List users.\n    kind: read\n    auth: admin_secret\n", "    description: List users.\n    kind: read\n    auth: public\n"]],
    expected: [{ id: "auth-loosened:users", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "input format changed (domain to url)",
    base: [[OIDC_INPUT, OIDC_INPUT.replace("id: string!", "id: { type: string!, format: domain }")]],
    edits: [["id: { type: string!, format: domain }", "id: { type: string!, format: url }"]],
    expected: [{ id: "input-rules-narrowed:delete_org_oidc_connection.id", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "input format removed",
    bump: "minor",
    base: [[OIDC_INPUT, OIDC_INPUT.replace("id: string!", "id: { type: string!, format: domain }")]],
    edits: [["id: { type: string!, format: domain }", "id: string!"]],
    expected: [{ id: "input-rules-widened:delete_org_oidc_connection.id", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "input max_length lowered",
    base: [[DELETE_USER_INPUT, DELETE_USER_INPUT.replace("id: string!", "id: { type: string!, max_length: 64 }")]],
    edits: [["max_length: 64", "max_length: 32"]],
    expected: [{ id: "input-rules-narrowed:delete_user.id", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "input max_length raised",
    bump: "minor",
    base: [[DELETE_USER_INPUT, DELETE_USER_INPUT.replace("id: string!", "id: { type: string!, max_length: 64 }")]],
    edits: [["max_length: 64", "max_length: 128"]],
    expected: [{ id: "input-rules-widened:delete_user.id", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "maximum lowered on a field of a shared input type",
    base: [[PAGINATION_INPUT, PAGINATION_INPUT.replace("limit: int64", "limit: { type: int64, minimum: 1, maximum: 100 }")]],
    edits: [["maximum: 100", "maximum: 50"]],
    expected: [{ id: "input-rules-narrowed:PaginationInput.limit", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "list size: max_items lowered",
    base: [[DELETE_USER_INPUT, `${DELETE_USER_INPUT}      tags:\n        type: string[]\n        max_items: 10\n`]],
    edits: [["max_items: 10", "max_items: 5"]],
    expected: [{ id: "input-rules-narrowed:delete_user.tags", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    // The same requests are accepted, but one that leaves the field out now means another page.
    name: "default changed",
    base: [[PAGINATION_INPUT, PAGINATION_INPUT.replace("page: int64", "page: { type: int64, default: 1 }")]],
    edits: [["default: 1 }", "default: 0 }"]],
    expected: [{ id: "input-rules-changed:PaginationInput.page", severity: "dangerous", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "required_if added",
    edits: [[USERS_INPUT, USERS_INPUT.replace("query: string", "query: { type: string, required_if: { field: pagination } }")]],
    expected: [{ id: "input-rules-narrowed:users.query", severity: "breaking", protocols: ALL }],
  },
  {
    name: "required_if removed",
    bump: "minor",
    base: [[USERS_INPUT, USERS_INPUT.replace("query: string", "query: { type: string, required_if: { field: pagination } }")]],
    edits: [["query: { type: string, required_if: { field: pagination } }", "query: string"]],
    expected: [{ id: "input-rules-widened:users.query", severity: "safe", protocols: ALL }],
  },
  {
    name: "same_as added",
    base: [[DELETE_USER_INPUT, `${DELETE_USER_INPUT}      confirm_id: string\n`]],
    edits: [["      confirm_id: string\n", "      confirm_id: { type: string, same_as: id }\n"]],
    expected: [{ id: "input-rules-narrowed:delete_user.confirm_id", severity: "breaking", protocols: ALL }],
  },
  {
    name: "at_least_one_of added",
    edits: [["    pagination: page\n", "    pagination: page\n    at_least_one_of: [pagination, query]\n"]],
    expected: [{ id: "input-rules-narrowed:users", severity: "breaking", protocols: ALL }],
  },
  {
    name: "exactly_one_of removed",
    bump: "minor",
    base: [["    pagination: page\n", "    pagination: page\n    exactly_one_of: [pagination, query]\n"]],
    edits: [["    exactly_one_of: [pagination, query]\n", ""]],
    expected: [{ id: "input-rules-widened:users", severity: "safe", protocols: ALL, sources: ["manifest", "graphql-inspector"] }],
  },
  {
    name: "empty_means_unset added",
    edits: [[USERS_INPUT, USERS_INPUT.replace("query: string", "query: { type: string, empty_means_unset: true }")]],
    expected: [{ id: "input-rules-changed:users.query", severity: "dangerous", protocols: ALL }],
  },
  {
    // Every field using the format refuses the value it lost.
    name: "declared format lost a value",
    base: REGION_FORMAT,
    edits: [["values: [eu, us, ap]", "values: [eu, us]"]],
    expected: [{ id: "format-narrowed:region", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "declared format gained a value (used by inputs only)",
    bump: "minor",
    base: REGION_FORMAT,
    edits: [["values: [eu, us, ap]", "values: [eu, us, ap, sa]"]],
    expected: [{ id: "format-widened:region", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    // Clients of the answer may meet values the format never allowed.
    name: "answer field format removed (wider on answers)",
    base: [[USER_FIELDS, USER_FIELDS.replace("email: string\n", "email: { type: string, format: email }\n")]],
    edits: [["email: { type: string, format: email }\n", "email: string\n"]],
    expected: [{ id: "output-rules-widened:User.email", severity: "dangerous", protocols: ALL }],
  },
  {
    // Whether one pattern accepts every value another did cannot be told: counted as narrower.
    name: "declared pattern format changed",
    base: [
      ["enums:\n", "formats:\n  code:\n    description: a lower-case code\n    pattern: '^[a-z]+$'\n    example: abc\n\nenums:\n"],
      [DELETE_USER_INPUT, `${DELETE_USER_INPUT}      code: { type: string, format: code }\n`],
    ],
    edits: [["pattern: '^[a-z]+$'", "pattern: '^[a-z0-9]+$'"]],
    expected: [{ id: "format-narrowed:code", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    // Answers that keep to a narrower rule break no client.
    name: "answer field format added (narrower on answers)",
    edits: [[USER_FIELDS, USER_FIELDS.replace("email: string\n", "email: { type: string, format: email }\n")]],
    expected: [{ id: "output-rules-narrowed:User.email", severity: "safe", protocols: ALL }],
  },
  {
    // KeyStatus-like enums that only inputs use widen what is accepted; graphql-inspector calls every added value dangerous (overruled).
    name: "enum value added to an enum only inputs use",
    bump: "minor",
    base: [
      ["enums:\n", "enums:\n  Color:\n    values: [red, green]\n"],
      [DELETE_USER_INPUT, `${DELETE_USER_INPUT}      color: Color\n`],
    ],
    edits: [["values: [red, green]", "values: [red, green, blue]"]],
    expected: [{ id: "enum-value-added:Color.blue", severity: "safe", protocols: ALL, sdks: ["typescript", "python", "go"], sources: ["manifest", "graphql-inspector", "openapi", "sdk"] }],
  },

  // ---- declared errors and cookies ----
  {
    // A client that handles each code the call answers may meet one it never met (the version asks a minor bump: an addition).
    name: "error code declared",
    bump: "minor",
    edits: [
      [
        "    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n",
        "    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n    errors: [NOT_FOUND]\n",
      ],
    ],
    expected: [{ id: "error-code-added:delete_user.NOT_FOUND", severity: "dangerous", protocols: ALL }],
  },
  {
    name: "cookie no longer set",
    base: [
      [
        "    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n",
        "    description: Delete a user.\n    kind: write\n    destructive: true\n    auth: admin_secret\n    sets_cookies: [session]\n",
      ],
    ],
    edits: [["    sets_cookies: [session]\n", ""]],
    expected: [{ id: "cookie-removed:delete_user.session", severity: "breaking", protocols: ALL }],
  },

  // ---- settings under api: ----
  {
    name: "api.limits.request_bytes lowered",
    edits: [[API_HEAD, `${API_HEAD}  limits: { request_bytes: 65536 }\n`]],
    expected: [{ id: "api-limit-lowered:request_bytes", severity: "breaking", protocols: ALL }],
  },
  {
    // No input carries a json value, so no request is affected.
    name: "api.limits.json_depth raised",
    bump: "minor",
    edits: [[API_HEAD, `${API_HEAD}  limits: { json_depth: 64 }\n`]],
    expected: [{ id: "api-limit-raised:json_depth", severity: "safe", protocols: [] }],
  },
  {
    name: "org admin role renamed",
    edits: [[API_HEAD, `${API_HEAD}  org_admin_role: mini:org_admin\n`]],
    expected: [{ id: "org-admin-role-changed:api", severity: "breaking", protocols: ALL }],
  },
  {
    name: "gRPC port changed",
    edits: [[API_HEAD, `${API_HEAD}  grpc_port: 50051\n`]],
    expected: [{ id: "grpc-port-changed:api", severity: "breaking", protocols: ["grpc"] }],
  },
  {
    name: "npm package of the SDK renamed",
    edits: [[API_HEAD, `${API_HEAD}  packages: { npm: { sdk: "@mini/sdk" } }\n`]],
    expected: [{ id: "package-renamed:npm.sdk", severity: "breaking", protocols: [], sdks: ["typescript"], sources: ["manifest", "sdk"] }],
  },
  {
    name: "Python module renamed",
    edits: [[API_HEAD, `${API_HEAD}  packages: { python: { module: mini_client } }\n`]],
    expected: [{ id: "package-renamed:python.module", severity: "breaking", protocols: [], sdks: ["python"], sources: ["manifest", "sdk"] }],
  },
  {
    name: "Go module path changed",
    edits: [[API_HEAD, `${API_HEAD}  packages: { go: { module: github.com/mini/mini-go } }\n`]],
    expected: [{ id: "package-renamed:go.module", severity: "breaking", protocols: [], sdks: ["go"] }],
  },
  {
    name: "api.name changed: every package named after it is renamed",
    edits: [["  name: mini\n", "  name: tiny\n"]],
    expected: [
      { id: "api-name-changed:api", severity: "safe", protocols: [] },
      { id: "package-renamed:npm.sdk", severity: "breaking", protocols: [], sdks: ["typescript"] },
      { id: "package-renamed:npm.server", severity: "breaking", protocols: [], sdks: ["typescript"] },
      { id: "package-renamed:python.distribution", severity: "breaking", protocols: [], sdks: ["python"] },
      { id: "package-renamed:python.module", severity: "breaking", protocols: [], sdks: ["python"] },
      { id: "package-renamed:go.module", severity: "breaking", protocols: [], sdks: ["go"] },
      { id: "package-renamed:go.package", severity: "breaking", protocols: [], sdks: ["go"] },
    ],
  },
  {
    name: "license and keywords added",
    edits: [[API_HEAD, `${API_HEAD}  license: MIT\n  keywords: [identity]\n`]],
    expected: [
      { id: "package-metadata-changed:license", severity: "safe", protocols: [], sdks: ["typescript", "python", "go"] },
      { id: "package-metadata-changed:keywords", severity: "safe", protocols: [], sdks: ["typescript", "python", "go"] },
    ],
  },
  {
    name: "api title and description edited",
    edits: [["  title: Mini Service\n", "  title: Mini Identity Service\n  description: A small service.\n"]],
    expected: [
      { id: "api-title-changed:api", severity: "safe", protocols: [] },
      { id: "api-description-changed:api", severity: "safe", protocols: [] },
    ],
  },
  {
    name: "group title edited",
    edits: [["    users: Users\n", "    users: Users and their access\n"]],
    expected: [{ id: "group-title-changed:users", severity: "safe", protocols: ALL }],
  },
  {
    // Not a contract change: nothing to report, and no version bump needed.
    name: "a breaking change accepted in the manifest (no contract change)",
    bump: "none",
    edits: [["  groups:\n", "  breaking_changes_accepted:\n    - { change: 'operation-removed:gone', reason: shipped long ago, version: 2.4.0 }\n  groups:\n"]],
    expected: [],
  },

  // ---- combined ----
  {
    name: "combined: required input, description edit, protocol added",
    edits: [
      [USERS_INPUT, `${USERS_INPUT}      org_id: string!\n`],
      ["    description: List users.\n", "    description: List the users.\n"],
      ["    protocols: { graphql: 2.3.0-rc.9 }\n", "    protocols: { graphql: 2.3.0-rc.9, rest: 2.5.0 }\n"],
      ["  version: 2.4.0\n", "  version: 2.5.0\n"],
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
  // ---- several schemes per operation, and scopes of bearer schemes ----
  {
    name: "auth scope added (a token must grant one more scope)",
    base: [[META_AUTH, META_AUTH.replace("    auth: public\n", "    auth: { scheme: user, scopes: [meta:read] }\n")]],
    edits: [["    auth: { scheme: user, scopes: [meta:read] }\n", "    auth: { scheme: user, scopes: [meta:read, meta:audit] }\n"]],
    expected: [{ id: "auth-scope-added:meta", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi", "graphql-inspector"] }],
  },
  {
    name: "auth scope removed (a token needs one scope fewer)",
    bump: "minor",
    base: [[META_AUTH, META_AUTH.replace("    auth: public\n", "    auth: { scheme: user, scopes: [meta:read, meta:audit] }\n")]],
    edits: [["    auth: { scheme: user, scopes: [meta:read, meta:audit] }\n", "    auth: { scheme: user, scopes: [meta:read] }\n"]],
    expected: [{ id: "auth-scope-removed:meta", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "auth scheme added to an operation's list (any one of them lets a caller in)",
    bump: "minor",
    base: [WHOAMI, [META_AUTH, META_AUTH.replace("    auth: public\n", "    auth: [user, scim_token]\n")]],
    edits: [["    auth: [user, scim_token]\n", "    auth: [user, scim_token, api_key]\n"]],
    expected: [{ id: "auth-loosened:meta", severity: "safe", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "auth scheme removed from an operation's list",
    base: [WHOAMI, [META_AUTH, META_AUTH.replace("    auth: public\n", "    auth: [user, scim_token]\n")]],
    edits: [["    auth: [user, scim_token]\n", "    auth: user\n"]],
    expected: [{ id: "auth-tightened:meta", severity: "breaking", protocols: ALL, sources: ["manifest", "openapi"] }],
  },
  {
    name: "auth between levels that let in the same callers (admin_secret to super_admin)",
    edits: [["    destructive: true\n    auth: admin_secret\n", "    destructive: true\n    auth: super_admin\n"]],
    expected: [{ id: "auth-changed:delete_user", severity: "safe", protocols: ALL }],
  },
];
