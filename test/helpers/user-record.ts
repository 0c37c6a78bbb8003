// A user row as the stores hold it, for tests and benchmarks that write users without the service.
import type { UserRecord } from "../../reference/storage.js";

/** User `id` with every column set (the JSON column nested, to be round-tripped), `fields` over it. */
export function userRecord(id: string, fields: Partial<UserRecord> = {}): UserRecord {
  return {
    id,
    email: `${id}@example.com`,
    email_verified: false,
    signup_methods: "basic_auth",
    given_name: null,
    family_name: null,
    middle_name: null,
    nickname: null,
    preferred_username: null,
    gender: null,
    birthdate: null,
    phone_number: null,
    phone_number_verified: false,
    picture: null,
    roles: ["user"],
    created_at: 1,
    updated_at: 1,
    revoked_timestamp: null,
    is_multi_factor_auth_enabled: null,
    app_data: { nested: { list: [1, "two"] } },
    password_hash: "scrypt$hash",
    ...fields,
  };
}
