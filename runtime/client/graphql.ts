// GraphQL transport: POST {serviceUrl}/graphql with the operation's generated document.
import { isErrorCode } from "../error-codes.js";
import { graphqlDocument } from "../graphql-document.js";
import { ApiError, waitAsked } from "./errors.js";
import { bareStatus, fetchFailure, jsonObject, malformedAnswer, readAnswer, readText, redirected, type Plain, type Transport, type TransportCall, type TransportSettings } from "./transport.js";

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
      if (query === undefined) documents.set(operation.name, (query = graphqlDocument(call.schema, operation)));
      const body = JSON.stringify(graphql.params === null ? { query } : { query, variables: { params: call.input } });
      let response: Response;
      let text: string;
      try {
        // Never followed: fetch would send the secret's header to whatever address a redirect names.
        response = await settings.fetch(url, { method: "POST", headers: { ...call.headers, "content-type": "application/json" }, body, signal: call.signal, redirect: "manual" });
        call.onResponse?.(response.status, response.headers);
        if (response.status >= 300 && response.status < 400) throw redirected(response, operation.name, "graphql");
        text = await readText(response, settings.maxResponseBytes, operation, "graphql");
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw fetchFailure(error, call, "graphql");
      }
      const status = response.status;
      const answer = jsonObject(text) as GraphqlAnswer | undefined;
      const first = Array.isArray(answer?.errors) ? answer.errors[0] : undefined;
      if (first) {
        const code = isErrorCode(first.extensions?.code) ? first.extensions!.code : "INTERNAL";
        const retryAfter = first.extensions?.retryAfter;
        const wait = waitAsked((name) => response.headers.get(name));
        throw new ApiError(code, String(first.message), operation.name, "graphql", { status, retryAfterSeconds: typeof retryAfter === "number" && retryAfter >= 0 ? retryAfter : wait });
      }
      // A proxy's HTML page, or any failure that is not a GraphQL answer: the code of the status.
      if (!response.ok) throw bareStatus(operation, "graphql", response);
      const data = answer?.data?.[operation.name];
      if (typeof data !== "object" || data === null || Array.isArray(data)) throw malformedAnswer(operation, "graphql", status);
      return readAnswer(call, status, data as Plain, settings.warn);
    },
    async close() {},
  };
}
