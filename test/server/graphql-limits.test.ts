// A GraphQL document may not ask for more than the service will do: selections at most
// MAX_DOCUMENT_DEPTH deep, at most MAX_DOCUMENT_FIELDS fields with every fragment expanded (a
// fragment spread twice in each of 30 nested fragments would ask for a billion), and at most
// MAX_DOCUMENT_TOKENS tokens to parse. The clients' own documents are far within all three.
import { getIntrospectionQuery, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { graphqlDocument } from "../../runtime/graphql-document.js";
import { documentLimitErrors, MAX_DOCUMENT_DEPTH, MAX_DOCUMENT_FIELDS, MAX_DOCUMENT_TOKENS } from "../../runtime/server/graphql-limits.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";
let service: RecordingService;
beforeAll(async () => {
  service = await startRecordingService(SECRET);
});
afterAll(() => service.close());

async function post(query: string): Promise<{ status: number; body: { data?: unknown; errors?: { message: string; extensions: { code: string } }[] }; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${service.httpUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": SECRET }, body: JSON.stringify({ query }) });
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
}

describe("GraphQL document limits", () => {
  it("let every document the generated clients send through", () => {
    for (const operation of Object.values(schema.operations)) {
      if (!operation.graphql) continue;
      expect(documentLimitErrors(parse(graphqlDocument(schema, operation))), operation.name).toEqual([]);
    }
  });

  it("let the introspection query of tools through (GraphiQL, schemathesis), with every option", () => {
    const everything = { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true };
    for (const options of [{}, everything]) expect(documentLimitErrors(parse(getIntrospectionQuery(options)))).toEqual([]);
  });

  it(`refuse selections nested deeper than ${MAX_DOCUMENT_DEPTH} levels`, () => {
    const nested = (levels: number): string => (levels === 1 ? "leaf" : `field { ${nested(levels - 1)} }`);
    expect(documentLimitErrors(parse(`{ ${nested(MAX_DOCUMENT_DEPTH)} }`))).toEqual([]);
    expect(documentLimitErrors(parse(`{ ${nested(MAX_DOCUMENT_DEPTH + 1)} }`)).map((e) => e.message)).toEqual([
      `the document nests its selections ${MAX_DOCUMENT_DEPTH + 1} levels deep; at most ${MAX_DOCUMENT_DEPTH} are allowed`,
    ]);
    // Through fragments and inline fragments too.
    const viaFragment = `{ a { ...F } } fragment F on T { ... on T { ${nested(MAX_DOCUMENT_DEPTH)} } }`;
    expect(documentLimitErrors(parse(viaFragment))).toHaveLength(1);
  });

  it("refuse a fragment bomb over HTTP at once, with INVALID_ARGUMENT, and execute nothing", async () => {
    // F0 selects admin_meta; each Fi spreads F(i-1) twice: 2^30 fields once expanded.
    const fragments = ["fragment F0 on Query { admin_meta { version } }"];
    for (let i = 1; i <= 30; i++) fragments.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
    const answer = await post(`query { ...F30 } ${fragments.join(" ")}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors).toEqual([
      expect.objectContaining({ message: `the document selects more than ${MAX_DOCUMENT_FIELDS} fields once its fragments are expanded`, extensions: { code: "INVALID_ARGUMENT" } }),
    ]);
    expect(answer.ms).toBeLessThan(2_000);
    expect(service.calls.filter((call) => call.method === "adminMeta")).toEqual([]);
  });

  it(`refuse ${MAX_DOCUMENT_FIELDS + 1} aliased fields, and take ${MAX_DOCUMENT_FIELDS}`, async () => {
    const aliased = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(" ")} }`;
    expect(documentLimitErrors(parse(aliased(MAX_DOCUMENT_FIELDS)))).toEqual([]);
    expect(documentLimitErrors(parse(aliased(MAX_DOCUMENT_FIELDS + 1)))).toHaveLength(1);
  });

  it(`refuse a document of more than ${MAX_DOCUMENT_TOKENS} tokens before parsing it all`, async () => {
    const answer = await post(`{ ${"__typename ".repeat(MAX_DOCUMENT_TOKENS)} }`);
    // graphql-js's own words ("more that" in its 16.x).
    expect(answer.body.errors?.[0]?.message).toMatch(new RegExp(`^Syntax Error: Document contains more th\\w+ ${MAX_DOCUMENT_TOKENS} tokens`));
    expect(answer.body.errors?.[0]?.extensions.code).toBe("INVALID_ARGUMENT");
  });
});
