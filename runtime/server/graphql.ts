// GraphQL over HTTP with graphql-js. Parsed and validated documents are cached by their text:
// clients send the same query text every time, so most requests skip parse and validate.
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildSchema, execute, getOperationAST, type GraphQLError, type GraphQLObjectType, Kind, parse, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import { ERROR_WIRE, ServiceError } from "../errors.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../idempotency.js";
import type { Principal } from "./context.js";
import type { CallPipeline } from "./invoke.js";
import { documentErrorMessage } from "./graphql-messages.js";
import { documentLimitErrors, MAX_DOCUMENT_TOKENS } from "./graphql-limits.js";
import { flatHeaders, mediaTypeOf, parseJsonObject, readBody, sendJson } from "./http-body.js";
import { graphqlDocument } from "../graphql-document.js";
import type { OperationSpec } from "../schema.js";

const DOCUMENT_CACHE_SIZE = 500;
const JSON_ONLY = ["application/json"];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const MAX_CACHED_DOCUMENT_LENGTH = 16 * 1024;

interface RequestState {
  headers: Record<string, string>;
  remoteAddress: string;
  cookies: string[];
  /** Marks the answer as an idempotent replay (a mutation answered from its key's first answer). */
  markReplayed: () => void;
  /** Per root field (by response key): the caller and the validated params, checked before executing. */
  checked: Map<string, { principal: Principal; input?: Record<string, unknown> }>;
}

/** `extensions` of a GraphQL error: the code, and when a retry may succeed (seconds), like Retry-After. */
const errorExtensions = (error: ServiceError) => (error.retryAfterSeconds === undefined ? { code: error.code } : { code: error.code, retryAfter: error.retryAfterSeconds });

/**
 * The Retry-After header of a GraphQL answer whose errors say when to try again (the longest
 * wait), so that HTTP clients and proxies read it where they read it for REST.
 */
const retryAfterHeader = (errors: readonly (ServiceError | undefined)[]): Record<string, string> | undefined => {
  const waits = errors.map((e) => e?.retryAfterSeconds).filter((s): s is number => s !== undefined);
  return waits.length === 0 ? undefined : { "retry-after": String(Math.max(...waits)) };
};

export class GraphqlEndpoint {
  private readonly schema: GraphQLSchema;
  private readonly documents = new Map<string, DocumentNode | readonly GraphQLError[]>();
  /** The documents the generated clients send, by text. */
  private readonly known = new Map<string, OperationSpec>();

  constructor(
    sdl: string,
    private readonly pipeline: CallPipeline,
    private readonly bodyLimit: number,
  ) {
    this.schema = buildSchema(sdl);
    for (const operation of Object.values(pipeline.schema.operations)) {
      if (operation.graphql) this.known.set(graphqlDocument(pipeline.schema, operation), operation);
    }
    for (const root of [this.schema.getQueryType(), this.schema.getMutationType()]) {
      if (!root) continue;
      for (const field of Object.values((root as GraphQLObjectType).getFields())) {
        const operation = pipeline.schema.operations[field.name];
        if (!operation) throw new Error(`GraphQL field ${field.name} has no operation in the schema`);
        field.resolve = (_root, args: { params?: unknown }, state: RequestState, info) =>
          pipeline.invoke({
            protocol: "graphql",
            listener: "http",
            operation,
            checked: state.checked.get(info.path.key as string),
            input: args.params ?? {},
            headers: state.headers,
            remoteAddress: state.remoteAddress,
            setCookie: (name, value, options) => state.cookies.push(pipeline.cookie(name, value, options)),
            markReplayed: state.markReplayed,
          });
      }
    }
  }

  /**
   * A document the generated clients send (one root field, every answer field selected, params in
   * $params): it needs no parsing, validation or resolver walk. The one pipeline runs the call, and
   * the answer is the flat output under the field's name, exactly as graphql-js would write it:
   * the flat shape lists every field in selection order.
   */
  private async runKnown(request: IncomingMessage, response: ServerResponse, operation: OperationSpec, params: unknown): Promise<void> {
    const cookies: string[] = [];
    try {
      const output = await this.pipeline.invoke({
        protocol: "graphql",
        listener: "http",
        operation,
        input: params ?? {},
        headers: flatHeaders(request.headers),
        remoteAddress: request.socket.remoteAddress ?? "",
        setCookie: (name, value, options) => cookies.push(this.pipeline.cookie(name, value, options)),
        markReplayed: () => response.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true"),
      });
      sendJson(response, 200, { data: { [operation.name]: output } }, cookies);
    } catch (error) {
      const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
      sendJson(
        response,
        200,
        { errors: [{ message: serviceError.message, path: [operation.name], extensions: errorExtensions(serviceError) }], data: null },
        cookies,
        retryAfterHeader([serviceError]),
      );
    }
  }

  private document(query: string): DocumentNode | readonly GraphQLError[] {
    let cached = this.documents.get(query);
    if (!cached) {
      try {
        const document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
        const validated = validate(this.schema, document);
        const errors = validated.length > 0 ? validated : documentLimitErrors(document);
        cached = errors.length > 0 ? errors : document;
      } catch (error) {
        cached = [error as GraphQLError];
      }
      // Clients send a few small documents again and again; one-off large ones are not kept.
      if (query.length <= MAX_CACHED_DOCUMENT_LENGTH) {
        if (this.documents.size >= DOCUMENT_CACHE_SIZE) this.documents.delete(this.documents.keys().next().value!);
        this.documents.set(query, cached);
      }
    }
    return cached;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      mediaTypeOf(request, JSON_ONLY);
      body = parseJsonObject(await readBody(request, this.bodyLimit));
    } catch (error) {
      const serviceError = error instanceof ServiceError ? error : new ServiceError("INVALID_ARGUMENT", "unreadable request");
      sendJson(response, ERROR_WIRE[serviceError.code].http, { errors: [{ message: serviceError.message, extensions: { code: serviceError.code } }], data: null });
      return;
    }
    const query = body.query;
    if (typeof query !== "string") {
      sendJson(response, 400, { errors: [{ message: "a GraphQL request needs a query string", extensions: { code: "INVALID_ARGUMENT" } }], data: null });
      return;
    }
    const known = this.known.get(query);
    const variables = body.variables;
    if (known && (body.operationName === undefined || body.operationName === null || body.operationName === known.name) && (variables === undefined || variables === null || isObject(variables))) {
      await this.runKnown(request, response, known, variables?.params);
      return;
    }
    const document = this.document(query);
    if (Array.isArray(document)) {
      sendJson(response, 200, { errors: document.map((e) => ({ message: documentErrorMessage(e), locations: e.locations, extensions: { code: "INVALID_ARGUMENT" } })), data: null });
      return;
    }
    const state: RequestState = {
      headers: flatHeaders(request.headers),
      remoteAddress: request.socket.remoteAddress ?? "",
      cookies: [],
      markReplayed: () => response.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true"),
      checked: new Map(),
    };
    const operationName = typeof body.operationName === "string" ? body.operationName : undefined;
    const selected = getOperationAST(document as DocumentNode, operationName);
    for (const selection of selected?.selectionSet.selections ?? []) {
      if (selection.kind !== Kind.FIELD) continue;
      const operation = this.pipeline.schema.operations[selection.name.value];
      if (!operation) continue;
      try {
        const principal = await this.pipeline.preauthorize(operation, state.headers, state.remoteAddress);
        // GraphQL would reject bad variables in its own words before any resolver runs; check
        // `params` the way every protocol does, so the same input gets the same message.
        const params = selection.arguments?.find((argument) => argument.name.value === "params");
        let input: Record<string, unknown> | undefined;
        if (params?.value.kind === Kind.VARIABLE) {
          const variables = (body.variables ?? {}) as Record<string, unknown>;
          input = this.pipeline.codecs.of(operation).validate(variables[params.value.name.value] ?? {});
        } else if (!params) {
          input = this.pipeline.codecs.of(operation).validate({});
        }
        state.checked.set(selection.alias?.value ?? selection.name.value, { principal, ...(input ? { input } : {}) });
      } catch (error) {
        const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
        this.pipeline.settle("graphql", operation, serviceError, state.headers);
        const path = [selection.alias?.value ?? selection.name.value];
        sendJson(response, 200, { errors: [{ message: serviceError.message, path, extensions: errorExtensions(serviceError) }], data: null }, [], retryAfterHeader([serviceError]));
        return;
      }
    }
    const result = await execute({
      schema: this.schema,
      document: document as DocumentNode,
      variableValues: (body.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName,
      contextValue: state,
    });
    const errors = result.errors?.map((e) => {
      const original = e.originalError;
      if (original instanceof ServiceError) return { message: e.message, path: e.path, extensions: errorExtensions(original) };
      return { message: e.path ? "internal error" : e.message, path: e.path, extensions: { code: e.path ? "INTERNAL" : "INVALID_ARGUMENT" } };
    });
    const refusals = result.errors?.map((e) => (e.originalError instanceof ServiceError ? e.originalError : undefined)) ?? [];
    sendJson(response, 200, errors ? { errors, data: result.data ?? null } : { data: result.data }, state.cookies, retryAfterHeader(refusals));
  }
}
