// JSON value types, as free-form fields (app_data, metadata, claims) carry them.
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
