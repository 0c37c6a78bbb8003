// Versioned schema changes, applied at start in one transaction by Kysely's Migrator (on
// PostgreSQL under an advisory lock, so that replicas starting at once apply them once). A
// migration is never edited once released: a change of TABLES in ../storage.ts comes with a new
// migration here, and test/reference/storage.test.ts fails until the migrated schema matches TABLES.
import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { ColumnType } from "../storage.js";

export type Dialect = "sqlite" | "postgres";

interface TableDdl {
  table: string;
  columns: Record<string, ColumnType>;
  unique?: { name: string; columns: string[]; where?: { column: string; equals: string } }[];
  indexes?: string[][];
}

const SQL_TYPES: Record<ColumnType, "text" | "bigint" | "integer"> = { text: "text", integer: "bigint", boolean: "integer" };

/**
 * Each table: `seq` (insertion order, what lists are ordered by), `pk` (the record's key), the
 * columns of its lookups, and `data` (the whole record as JSON).
 */
async function createTables(db: Kysely<unknown>, dialect: Dialect, tables: readonly TableDdl[]): Promise<void> {
  for (const spec of tables) {
    let create = db.schema
      .createTable(spec.table)
      .addColumn("seq", dialect === "sqlite" ? "integer" : "bigint", (column) => (dialect === "sqlite" ? column.primaryKey().autoIncrement() : column.primaryKey().generatedByDefaultAsIdentity()))
      .addColumn("pk", "text", (column) => column.notNull())
      .addUniqueConstraint(`ux_${spec.table}_pk`, ["pk"]);
    for (const [name, type] of Object.entries(spec.columns)) create = create.addColumn(name, SQL_TYPES[type]);
    await create.addColumn("data", "text", (column) => column.notNull()).execute();
    // SQLite keeps rows in `seq` order with the records in them: a page far down a list walks an
    // index of `seq` alone instead (PostgreSQL's primary key index is one already).
    if (dialect === "sqlite") await db.schema.createIndex(`ix_${spec.table}_seq`).on(spec.table).column("seq").execute();
    for (const rule of spec.unique ?? []) {
      const columns = sql.join(rule.columns.map((column) => sql.ref(column)));
      const where = rule.where ? sql` where ${sql.ref(rule.where.column)} = ${sql.lit(rule.where.equals)}` : sql``;
      await sql`create unique index ${sql.ref(rule.name)} on ${sql.table(spec.table)} (${columns})${where}`.execute(db);
    }
    for (const columns of spec.indexes ?? []) {
      await db.schema
        .createIndex(`ix_${spec.table}_${columns.join("_")}`)
        .on(spec.table)
        .columns(columns)
        .execute();
    }
  }
}

/** The tables of the first release, as they were: never edit (see above). */
const V1_TABLES: readonly TableDdl[] = [
  {
    table: "users",
    columns: { id: "text", email: "text", phone_number: "text", given_name: "text", family_name: "text", nickname: "text", preferred_username: "text", created_at: "integer" },
    unique: [
      { name: "ux_users_email", columns: ["email"] },
      { name: "ux_users_phone_number", columns: ["phone_number"] },
    ],
  },
  {
    table: "verification_requests",
    columns: { id: "text", token_hash: "text", user_id: "text", purpose: "text", email: "text", expires: "integer" },
    unique: [{ name: "ux_verification_requests_token_hash", columns: ["token_hash"] }],
    indexes: [["user_id"], ["email"], ["expires"]],
  },
  { table: "otps", columns: { id: "text", user_id: "text", purpose: "text" }, indexes: [["user_id"]] },
  { table: "webhooks", columns: { id: "text", event_name: "text", enabled: "boolean" }, indexes: [["event_name"]] },
  { table: "webhook_logs", columns: { id: "text", webhook_id: "text" }, indexes: [["webhook_id"]] },
  { table: "email_templates", columns: { id: "text", event_name: "text" }, unique: [{ name: "ux_email_templates_event_name", columns: ["event_name"] }] },
  {
    table: "audit_logs",
    columns: { id: "text", action: "text", actor_id: "text", resource_type: "text", resource_id: "text", created_at: "integer" },
    indexes: [["actor_id"], ["resource_id"], ["created_at"]],
  },
  { table: "fga_models", columns: { id: "text" } },
  {
    table: "fga_tuples",
    columns: { key: "text", user: "text", relation: "text", object: "text" },
    unique: [{ name: "ux_fga_tuples_tuple", columns: ["object", "relation", "user"] }],
    indexes: [["user"]],
  },
  { table: "clients", columns: { id: "text", client_id: "text" }, unique: [{ name: "ux_clients_client_id", columns: ["client_id"] }] },
  {
    table: "trusted_issuers",
    columns: { id: "text", issuer_url: "text", expected_aud: "text", service_account_id: "text", is_active: "boolean" },
    unique: [{ name: "ux_trusted_issuers_mapping", columns: ["issuer_url", "expected_aud", "service_account_id"] }],
    indexes: [["service_account_id"]],
  },
  {
    table: "saml_service_providers",
    columns: { id: "text", org_id: "text", entity_id: "text", is_active: "boolean" },
    unique: [{ name: "ux_saml_service_providers_entity", columns: ["org_id", "entity_id"] }],
  },
  {
    table: "saml_idp_keys",
    columns: { id: "text", org_id: "text", status: "text" },
    unique: [{ name: "ux_saml_idp_keys_current", columns: ["org_id"], where: { column: "status", equals: "current" } }],
    indexes: [["org_id"]],
  },
  { table: "organizations", columns: { id: "text", name: "text" }, unique: [{ name: "ux_organizations_name", columns: ["name"] }] },
  { table: "org_members", columns: { id: "text", org_id: "text", user_id: "text" }, unique: [{ name: "ux_org_members_member", columns: ["org_id", "user_id"] }], indexes: [["user_id"]] },
  { table: "org_domains", columns: { domain: "text", org_id: "text", status: "text" }, indexes: [["org_id"]] },
  { table: "org_oidc_connections", columns: { id: "text", org_id: "text" }, unique: [{ name: "ux_org_oidc_connections_org", columns: ["org_id"] }] },
  { table: "org_saml_connections", columns: { id: "text", org_id: "text" }, unique: [{ name: "ux_org_saml_connections_org", columns: ["org_id"] }] },
  {
    table: "scim_endpoints",
    columns: { id: "text", org_id: "text", token_hash: "text" },
    unique: [
      { name: "ux_scim_endpoints_org", columns: ["org_id"] },
      { name: "ux_scim_endpoints_token_hash", columns: ["token_hash"] },
    ],
  },
  { table: "sessions", columns: { id: "text", user_id: "text", cookie_hash: "text" }, unique: [{ name: "ux_sessions_cookie_hash", columns: ["cookie_hash"] }], indexes: [["user_id"]] },
  { table: "refresh_tokens", columns: { token_hash: "text", session_id: "text", user_id: "text", client_id: "text" }, indexes: [["session_id"], ["user_id"], ["client_id"]] },
  { table: "authorization_codes", columns: { code_hash: "text", user_id: "text", client_id: "text" }, indexes: [["user_id"], ["client_id"]] },
  { table: "revoked_tokens", columns: { jti: "text", expires_at: "integer" }, indexes: [["expires_at"]] },
];

/** Every migration, by name; names sort in the order they apply. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    "0001_initial": { up: (db) => createTables(db, dialect, V1_TABLES) },
    "0002_admin_secret": { up: (db) => createTables(db, dialect, [{ table: "admin_secrets", columns: { id: "text" } }]) },
    "0003_used_assertions": { up: (db) => createTables(db, dialect, [{ table: "used_assertions", columns: { key: "text", expires_at: "integer" }, indexes: [["expires_at"]] }]) },
    "0004_guess_counters": { up: (db) => createTables(db, dialect, [{ table: "guess_counters", columns: { key: "text" } }]) },
    "0005_scim_provisioning": {
      up: (db) =>
        createTables(db, dialect, [
          {
            table: "scim_users",
            columns: { key: "text", org_id: "text", user_id: "text", user_name_key: "text", external_id: "text" },
            unique: [{ name: "ux_scim_users_user_name", columns: ["org_id", "user_name_key"] }],
            indexes: [["user_id"], ["org_id", "external_id"]],
          },
          {
            table: "scim_groups",
            columns: { id: "text", org_id: "text", display_name_key: "text", external_id: "text" },
            unique: [{ name: "ux_scim_groups_display_name", columns: ["org_id", "display_name_key"] }],
            indexes: [["org_id", "external_id"]],
          },
        ]),
    },
    "0006_sso_transactions": { up: (db) => createTables(db, dialect, [{ table: "sso_transactions", columns: { state_hash: "text", expires_at: "integer" }, indexes: [["expires_at"]] }]) },
    "0007_signing_keys": {
      up: (db) =>
        createTables(db, dialect, [
          { table: "signing_keys", columns: { kid: "text", status: "text" }, unique: [{ name: "ux_signing_keys_current", columns: ["status"], where: { column: "status", equals: "current" } }] },
        ]),
    },
    "0008_idempotency_keys": { up: (db) => createTables(db, dialect, [{ table: "idempotency_keys", columns: { key: "text", expires_at: "integer" }, indexes: [["expires_at"]] }]) },
  };
}
