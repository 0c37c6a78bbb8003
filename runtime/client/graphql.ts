// GraphQL transport: POST {serviceUrl}/graphql with the operation's generated document.
import { isErrorCode } from "../errors.js";
import { graphqlDocument } from "../graphql-document.js";
import { normalizeMessage } from "../shape.js";
import { ApiError, retryAfterSeconds } from "./errors.js";
import { fetchFailure, redirected, type Plain, type Transport, type TransportCall, type TransportSettings } from "./transport.js";

/** The documents this transport sends, for tests and benchmarks that send the same. */
export { graphqlDocument } from "../graphql-document.js";

interface GraphqlAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string; retryAfter?: number } }[];
}

export function createGraphqlTransport(settings: TransportSettings): Transport {
  const url = `${settings.serviceUrl}/graphql`;
  const documents = new Map<string, string>();
  return {
    protocol: "graphql",
    async call(call: TransportCall): Promise<Plain> {
      const { operation } = call;
      const graphql = operation.graphql!;
      let query = documents.get(operation.name);
      if (query === undefined) documents.set(operation.name, (query = graphqlDocument(settings.schema, operation)));
      const body = JSON.stringify(graphql.params === null ? { query } : { query, variables: { params: call.input } });
      let answer: GraphqlAnswer;
      let status = 0;
      let wait: number | undefined;
      try {
        // Never followed: fetch would send the admin secret header to whatever address a redirect names.
        const response = await settings.fetch(url, { method: "POST", headers: { ...call.headers, "content-type": "application/json" }, body, signal: call.signal, redirect: "manual" });
        status = response.status;
        if (status >= 300 && status < 400) throw redirected(response, operation.name, "graphql");
        wait = retryAfterSeconds(response.headers.get("retry-after"));
        answer = (await response.json()) as GraphqlAnswer;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (status >= 500 || status === 0) throw fetchFailure(error, call, "graphql");
        throw new ApiError("INTERNAL", `${operation.name}: the answer is not GraphQL JSON (HTTP ${status})`, operation.name, "graphql", { status, cause: error });
      }
      const first = answer.errors?.[0];
      if (first) {
        const code = isErrorCode(first.extensions?.code) ? first.extensions!.code : "INTERNAL";
        const retryAfter = first.extensions?.retryAfter;
        throw new ApiError(code, first.message, operation.name, "graphql", { status, retryAfterSeconds: typeof retryAfter === "number" && retryAfter >= 0 ? retryAfter : wait });
      }
      return normalizeMessage(settings.schema, operation.output, answer.data?.[operation.name]);
    },
    async close() {},
  };
}
