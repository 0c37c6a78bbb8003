// REST routes as the OpenAPI document says: GET, POST, PUT, PATCH or DELETE on fixed paths and on
// paths with {field} segments, and the token routes, which take form bodies too and answer errors
// the RFC 6749 way.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_WIRE, oauthErrorOf, oauthStatus, ServiceError } from "../errors.js";
import { IDEMPOTENT_REPLAYED_HEADER } from "../idempotency.js";
import type { ApiSchema, FieldSpec, OperationSpec } from "../schema.js";
import { variantOf } from "../shape.js";
import { forEachTaggedUnion } from "../union-tags.js";
import type { RequestTarget } from "./request-target.js";
import type { CallPipeline } from "./invoke.js";
import type { Eventual } from "./pending.js";
import { flatHeaders, hasBody, mediaTypeOf, parseJsonObject, readBodyAs, sendJson, sendJsonText } from "./http-body.js";

type Plain = Record<string, unknown>;

const NUMBER_KINDS: ReadonlySet<FieldSpec["kind"]> = new Set(["int32", "int64", "uint32", "float32", "float64"]);

/** Query-string and form values arrive as text; scalar fields take them as their own type (a uint64 or int64_string stays the decimal string it is on the wire). */
function fromText(field: FieldSpec | undefined, value: string): unknown {
  if (!field) return value;
  if (field.kind === "bool") return value === "true" ? true : value === "false" ? false : value;
  if (NUMBER_KINDS.has(field.kind) && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
  return value;
}

/** A REST body whose every tagged union carries its tag (the input check then sees that it names the variant given). */
function withTagsChecked(schema: ApiSchema, operation: OperationSpec, body: Plain): Plain {
  forEachTaggedUnion(schema, operation.input, body, "", (message, union, path) => {
    const tag = message.discriminator!;
    // A union with no variant given has nothing to name: the input check says what is missing.
    if ((union[tag] === undefined || union[tag] === null) && variantOf(message, union) !== null)
      throw new ServiceError("INVALID_ARGUMENT", `${path ? `${path}.${tag}` : tag}: is required`, path ? `${path}.${tag}` : tag);
  });
  return body;
}

/** A route with {field} segments: its fixed segments (null where a field goes) and those fields. */
interface TemplateRoute {
  method: string;
  segments: (string | null)[];
  params: readonly string[];
  operation: OperationSpec;
}

export class RestRoutes {
  /** Routes without {field} segments, by path, then method: no key is built per request. */
  private readonly routes = new Map<string, Map<string, OperationSpec>>();
  private readonly templates: TemplateRoute[] = [];
  private readonly prefix: string;

  constructor(
    private readonly pipeline: CallPipeline,
    private readonly bodyLimit: number,
  ) {
    this.prefix = `${pipeline.schema.restPrefix}/`;
    for (const operation of Object.values(pipeline.schema.operations)) {
      if (!operation.rest) continue;
      const { method, path, pathParams } = operation.rest;
      if (pathParams.length > 0) {
        this.templates.push({ method, segments: path.split("/").map((segment) => (segment.startsWith("{") ? null : segment)), params: pathParams, operation });
        continue;
      }
      const methods = this.routes.get(path) ?? new Map<string, OperationSpec>();
      this.routes.set(path, methods.set(method, operation));
    }
    // A fixed segment wins over a {field} one (OpenAPI's rule: /books/search before /books/{id}).
    // The manifest refuses two routes that one path matches unless one is the more fixed at every
    // segment they differ in, which then has more fixed segments: trying those first is the rule.
    const fixedCount = (route: TemplateRoute) => route.segments.filter((segment) => segment !== null).length;
    this.templates.sort((a, b) => fixedCount(b) - fixedCount(a));
  }

  /** Whether a path belongs to the REST surface at all. */
  owns(path: string): boolean {
    return path.startsWith(this.prefix) || this.routes.has(path) || this.templates.some((route) => matchSegments(route, path) !== undefined);
  }

  /** The operation of a method and path, with the values of its {field} segments; or the methods the path takes. */
  private route(method: string, pathname: string): { operation: OperationSpec; params: Record<string, string> | undefined } | { allowed: string[] } {
    const methods = this.routes.get(pathname);
    const operation = methods?.get(method);
    if (operation) return { operation, params: undefined };
    // The path's own methods: a fixed path's alone (it wins over any template), else those of the
    // most fixed template shape that matches it.
    if (methods) return { allowed: [...methods.keys()] };
    const allowed: string[] = [];
    let shape: string | undefined;
    for (const route of this.templates) {
      const params = matchSegments(route, pathname);
      if (!params) continue;
      const routeShape = route.segments.join("/");
      if (shape !== undefined && routeShape !== shape) break;
      shape = routeShape;
      if (route.method === method) return { operation: route.operation, params };
      allowed.push(route.method);
    }
    return { allowed };
  }

  private readonly fieldMaps = new Map<string, Map<string, FieldSpec>>();
  /** Input fields by name, for typing query-string and form values; built once per operation. */
  private fields(operation: OperationSpec): Map<string, FieldSpec> {
    let fields = this.fieldMaps.get(operation.name);
    if (!fields) {
      fields = new Map(this.pipeline.schema.messages[operation.input]!.fields.map((f) => [f.name, f]));
      this.fieldMaps.set(operation.name, fields);
    }
    return fields;
  }

  private input(request: IncomingMessage, operation: OperationSpec, url: RequestTarget, params: Record<string, string> | undefined): Eventual<Plain> {
    // A route without {field} segments or header fields (most): the request's input as it comes,
    // with no async frame and promise of this function's own around it.
    return params || operation.rest!.headers ? this.inputWithParams(request, operation, url, params ?? {}) : this.inputOfRequest(request, operation, url);
  }

  private async inputWithParams(request: IncomingMessage, operation: OperationSpec, url: RequestTarget, params: Record<string, string>): Promise<Plain> {
    const given = await this.inputOfRequest(request, operation, url);
    // The path names these fields: a body or query that says otherwise is refused, not overridden.
    const fields = this.fields(operation);
    for (const [name, text] of Object.entries(params)) {
      const value = fromText(fields.get(name), text);
      if (name in given && given[name] !== value) throw new ServiceError("INVALID_ARGUMENT", `${name}: the path says ${JSON.stringify(value)}, the request ${JSON.stringify(given[name])}`);
      given[name] = value;
    }
    // Fields the route binds to headers travel there alone, as the contract says; an absent
    // header leaves the field unset (the input check refuses a required one).
    for (const [name, header] of Object.entries(operation.rest!.headers ?? {})) {
      if (Object.hasOwn(given, name)) throw new ServiceError("INVALID_ARGUMENT", `${name}: send it in the ${header} header, not the ${operation.rest!.inQuery ? "query" : "body"}`);
      const text = request.headers[header];
      if (typeof text === "string") given[name] = fromText(fields.get(name), text);
    }
    return given;
  }

  /** The input of a query string or a form body, its values typed by the operation's fields. */
  private textInput(operation: OperationSpec, text: string): Plain {
    const fields = this.fields(operation);
    const entries: [string, unknown][] = [];
    const lists = new Map<string, unknown[]>();
    for (const [key, value] of new URLSearchParams(text)) {
      const field = fields.get(key);
      // A list travels as the parameter repeated (tag=a&tag=b), as OpenAPI's form style says.
      if (!field?.list) entries.push([key, fromText(field, value)]);
      else if (lists.has(key)) lists.get(key)!.push(fromText(field, value));
      else {
        const items = [fromText(field, value)];
        lists.set(key, items);
        entries.push([key, items]);
      }
    }
    // fromEntries: a key such as __proto__ stays a key, for the input check to refuse.
    return Object.fromEntries(entries);
  }

  /**
   * The input a request carries: at once from the query string or an empty body; from a body, once
   * it is read and decoded, in the one promise of its reading (a refusal of its type throws here).
   */
  private inputOfRequest(request: IncomingMessage, operation: OperationSpec, url: RequestTarget): Eventual<Plain> {
    if (operation.rest!.inQuery) return this.textInput(operation, url.query);
    if (!hasBody(request)) {
      // A cross-site page can POST an empty body without a preflight, but not one typed JSON: a
      // write a browser could send with the session cookie needs the content type even when it
      // sends nothing. (API clients without cookies may post nothing at all for an empty input.)
      if (operation.kind === "write" && request.headers.cookie !== undefined) mediaTypeOf(request, operation.rest!.body === "form_or_json" ? FORM_OR_JSON : JSON_ONLY);
      return {};
    }
    const type = mediaTypeOf(request, operation.rest!.body === "form_or_json" ? FORM_OR_JSON : JSON_ONLY);
    if (type === FORM) return readBodyAs(request, this.bodyLimit, (text) => this.textInput(operation, text));
    // A tagged union's tag is required in a REST body, as the contract's discriminator says.
    if (operation.taggedInput) return readBodyAs(request, this.bodyLimit, (text) => withTagsChecked(this.pipeline.schema, operation, parseJsonObject(text)));
    return readBodyAs(request, this.bodyLimit, parseJsonObject);
  }

  /**
   * Answers a request of the REST surface. Never throws, and makes no promise of its own beyond the
   * call's: every failure, a fault of the answer's writing too, is answered as the contract says.
   */
  handle(request: IncomingMessage, response: ServerResponse, url: RequestTarget): void {
    try {
      this.call(request, response, url);
    } catch {
      answerFault(response);
    }
  }

  private call(request: IncomingMessage, response: ServerResponse, url: RequestTarget): void {
    const found = this.route(request.method ?? "GET", url.pathname);
    if ("allowed" in found) {
      const { allowed } = found;
      if (allowed.length > 0) {
        sendError(response, new ServiceError("METHOD_NOT_ALLOWED", `this route takes ${allowed.join(" or ")}`), [], { allow: allowed.join(", ") });
      } else {
        sendError(response, new ServiceError("NOT_FOUND", "no such route"));
      }
      return;
    }
    const { operation, params } = found;
    const cookies: string[] = [];
    this.pipeline.run(
      {
        protocol: "rest",
        listener: "http",
        operation,
        input: undefined,
        readInput: () => this.input(request, operation, url, params),
        headers: flatHeaders(request.headers),
        remoteAddress: request.socket.remoteAddress ?? "",
        setCookie: (name, value, options) => cookies.push(this.pipeline.cookie(name, value, options)),
        markReplayed: () => response.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true"),
      },
      (error, output) => {
        if (error) return this.refuse(request, response, operation, error, cookies);
        try {
          const rest = operation.rest!;
          if (rest.answer === "redirect") sendRedirect(response, String(output!.location), cookies);
          else if (rest.status === 204) sendNoContent(response, cookies);
          else sendJsonText(response, rest.status, this.pipeline.codecs.of(operation).json(output!), cookies, rest.responseHeaders && answerHeaders(rest.responseHeaders, output!));
        } catch (error) {
          this.refuse(request, response, operation, error, cookies);
        }
      },
    );
  }

  /** The answer of a failed call: the code table's, or RFC 6749's on the token routes. Never throws. */
  private refuse(request: IncomingMessage, response: ServerResponse, operation: OperationSpec, error: unknown, cookies: readonly string[]): void {
    try {
      const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", "internal error");
      this.pipeline.settle("rest", operation, serviceError, flatHeaders(request.headers));
      if (serviceError.retryAfterSeconds !== undefined) response.setHeader("retry-after", String(serviceError.retryAfterSeconds));
      if (operation.surface === "oauth") {
        const oauthError = oauthErrorOf(serviceError);
        const status = oauthStatus(serviceError.code, oauthError);
        // RFC 6749 §5.2: a 401 for a client that authenticated with HTTP Basic names the scheme.
        if (status === 401 && /^basic /i.test(request.headers.authorization ?? "")) response.setHeader("www-authenticate", 'Basic realm="service"');
        sendJson(response, status, { error: oauthError, error_description: serviceError.message }, cookies);
      } else {
        sendError(response, serviceError, cookies);
      }
    } catch {
      answerFault(response);
    }
  }
}

/**
 * The answer headers of the output fields a route binds to them: each field that has a value, when
 * the value is printable ASCII (a header cannot carry other text; the body keeps the field anyway).
 */
function answerHeaders(bindings: Readonly<Record<string, string>>, output: Plain): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(bindings)) {
    const value = output[name];
    if (value === null || value === undefined) continue;
    const text = String(value);
    if (/^[\x20-\x7e]*$/.test(text)) headers[header] = text;
  }
  return headers;
}

/** The answer of a route declared 204: no body, and nothing for a cache to keep. */
function sendNoContent(response: ServerResponse, cookies: readonly string[]): void {
  response.writeHead(204, { "cache-control": "no-store", ...(cookies.length > 0 ? { "set-cookie": [...cookies] } : {}) });
  response.end();
}

/** The answer of a redirect route: a 302 to `location`, which no cache keeps and no page reads the origin of. */
function sendRedirect(response: ServerResponse, location: string, cookies: readonly string[]): void {
  response.writeHead(302, { location, "cache-control": "no-store", "referrer-policy": "no-referrer", "content-length": "0", ...(cookies.length > 0 ? { "set-cookie": [...cookies] } : {}) });
  response.end();
}

/** The last answer of a request whose handling failed: 500, or the connection ended when its head already went out. */
function answerFault(response: ServerResponse): void {
  if (response.headersSent) response.destroy();
  else sendJson(response, 500, { code: "INTERNAL", message: "internal error" });
}

/** The values of a template route's {field} segments in `path` (percent-decoded), or undefined when it does not match. */
function matchSegments(route: TemplateRoute, path: string): Record<string, string> | undefined {
  const segments = path.split("/");
  if (segments.length !== route.segments.length) return undefined;
  const values: Record<string, string> = {};
  let param = 0;
  for (let i = 0; i < segments.length; i++) {
    const fixed = route.segments[i];
    const segment = segments[i]!;
    if (fixed === null) {
      if (segment === "") return undefined;
      try {
        values[route.params[param++]!] = decodeURIComponent(segment);
      } catch {
        return undefined; // not percent-encoding: no route of ours
      }
    } else if (fixed !== segment) {
      return undefined;
    }
  }
  return values;
}

const FORM = "application/x-www-form-urlencoded";
const JSON_ONLY = ["application/json"];
const FORM_OR_JSON = ["application/json", FORM];

/** The error body of the code table: `{code, message}` with the code's HTTP status. */
export function sendError(response: ServerResponse, error: ServiceError, cookies: readonly string[] = [], headers?: Record<string, string>): void {
  sendJson(response, ERROR_WIRE[error.code].http, { code: error.code, message: error.message }, cookies, headers);
}
