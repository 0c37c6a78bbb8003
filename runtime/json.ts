// Free-form JSON objects, as fields of type `json` (app_data, metadata, claims) carry them. Their
// values are JSON values, typed `unknown` as every contract states them (OpenAPI
// `additionalProperties: true`, the GraphQL JSON scalar mapped to Record<string, unknown>), so that
// the SDK's types and the types other tools generate from the contracts agree both ways.
export type JsonObject = { [key: string]: unknown };
