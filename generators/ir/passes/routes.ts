// The routes pass: the REST route of an operation (the manifest's route, else POST
// <prefix>/admin/<op> or <prefix>/<op>), and the rules routes keep: one operation per route shape,
// path segments bound to required input fields, a GET or DELETE route's input fits a query string,
// a route only on an operation carried over rest, token routes on REST alone.
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "../../../runtime/idempotency.js";
import type { RawOperation } from "../../load/load.js";
import type { HeaderBinding, IrMessage, IrOperation, Protocol } from "../ir.js";
import { didYouMean } from "../naming.js";
import type { Report } from "./report.js";

type Path = readonly (string | number)[];

/** Reports a route declared where it cannot apply, and a token route off REST or without its path. */
export function checkRouteDeclaration(rawOp: RawOperation, protocols: readonly Protocol[], opPath: Path, subject: string, report: Report): void {
  if (rawOp.route !== undefined && rawOp.protocols.rest === undefined) {
    report(
      "route-without-rest",
      [...opPath, "route"],
      subject,
      `declares a REST route but is not carried over rest (protocols: ${protocols.join(", ")}); add rest to protocols or remove route`,
      "key",
    );
  }
  if (rawOp.surface === "oauth") {
    const others = protocols.filter((p) => p !== "rest");
    if (others.length > 0) {
      report("token-route-protocol", [...opPath, "protocols"], subject, `a token route is always REST; remove ${others.join(", ")} from protocols`);
    }
    if (rawOp.route?.path === undefined) {
      report("token-route-path", opPath, subject, "a token route needs route.path (such as /oauth/token)", "key");
    }
  }
}

/** The first segments of the derived routes when the manifest names none (api.rest_prefix). */
export const DEFAULT_REST_PREFIX = "/v1";

/** Methods whose request carries the input in the query string rather than a body. */
const QUERY_METHODS: ReadonlySet<string> = new Set(["GET", "DELETE"]);

/** A value that text can carry: a scalar (not a map or json object) or an enum. */
function textValue(field: IrMessage["fields"][number]): boolean {
  return field.type.kind === "enum" || (field.type.kind === "scalar" && !["map", "json"].includes(field.type.scalar));
}

/** A field that a path segment can carry: one text value. */
const fitsText = (field: IrMessage["fields"][number]) => !field.list && textValue(field);

/**
 * Whether one request path could match both route shapes (`{}` matching any one segment) with
 * neither winning: a fixed segment wins over a {field} one (OpenAPI's rule), so /books/search and
 * /books/{id} are two routes, but /a/{x}/c and /a/b/{y} (each the more fixed at one segment) are one.
 */
function segmentsOverlap(a: string, b: string): boolean {
  const left = a.split("/");
  const right = b.split("/");
  if (left.length !== right.length || !left.every((segment, i) => segment === right[i] || segment === "{}" || right[i] === "{}")) return false;
  const leftFixedWhereDifferent = left.some((segment, i) => segment !== right[i] && right[i] === "{}");
  const rightFixedWhereDifferent = right.some((segment, i) => segment !== left[i] && left[i] === "{}");
  return leftFixedWhereDifferent === rightFixedWhereDifferent;
}

/**
 * The REST binding of an operation carried over rest; `routes` (method and path shape -> the
 * operation and its path) finds a route used twice (/books/{id} and /books/{book_id} being one
 * shape) and two that one request could match (/books/{id} and /books/count).
 */
export function restBinding(
  name: string,
  rawOp: RawOperation,
  input: IrMessage,
  output: IrMessage,
  prefix: string,
  routes: Map<string, { name: string; path: string }>,
  opPath: Path,
  subject: string,
  report: Report,
  schemeHeaders: readonly string[] = [],
): NonNullable<IrOperation["rest"]> {
  const method = rawOp.route?.method ?? "POST";
  const path = rawOp.route?.path ?? (rawOp.surface === "admin" ? `${prefix}/admin/${name}` : `${prefix}/${name}`);
  const pathParams = [...path.matchAll(/\{([a-z0-9_]+)\}/g)].map((match) => match[1]!);
  const shape = path.replace(/\{[a-z0-9_]+\}/g, "{}");
  const routeKey = `${method} ${shape}`;
  const taken = routes.get(routeKey);
  if (taken !== undefined) {
    report("duplicate-route", [...opPath, "route"], subject, `REST route ${method} ${path} is already used by operation '${taken.name}'`, "key");
  } else {
    // /a/{x}/c and /a/b/{y}: a request for /a/b/c could reach either.
    const overlap = [...routes].find(([key]) => key.startsWith(`${method} `) && segmentsOverlap(key.slice(method.length + 1), shape));
    if (overlap)
      report(
        "duplicate-route",
        [...opPath, "route"],
        subject,
        `REST route ${method} ${path} overlaps ${method} ${overlap[1].path} of operation '${overlap[1].name}': one request could match both, and neither has the fixed segment wherever they differ`,
        "key",
      );
  }
  routes.set(routeKey, { name, path });
  const seen = new Set<string>();
  for (const param of pathParams) {
    const field = input.fields.find((f) => f.name === param);
    if (seen.has(param)) report("invalid-route-param", [...opPath, "route", "path"], subject, `the path names {${param}} twice`);
    else if (!field) report("invalid-route-param", [...opPath, "route", "path"], subject, `the path segment {${param}} names no input field; add '${param}' to the input or rename the segment`);
    else if (!field.required || !fitsText(field))
      report("invalid-route-param", [...opPath, "route", "path"], subject, `the path segment {${param}} needs a required string, number, bool or enum input field; '${param}' is not`);
    seen.add(param);
  }
  const inQuery = QUERY_METHODS.has(method);
  if (inQuery) {
    for (const field of input.fields) {
      // A list goes as the parameter repeated (tag=a&tag=b).
      if (!seen.has(field.name) && !textValue(field)) {
        report(
          "get-field-not-in-query",
          [...opPath, "input", field.name],
          subject,
          `a ${method} route carries its input in the query string, which cannot hold field '${field.name}'; use POST`,
          "key",
        );
      }
    }
  }
  const answer = rawOp.route?.answer ?? "json";
  if (answer === "redirect") {
    checkRedirectRoute(method, output, opPath, subject, report);
    const others = Object.keys(rawOp.protocols).filter((p) => p !== "rest");
    if (others.length > 0) report("redirect-route", [...opPath, "protocols"], subject, `a redirect route is REST alone (a browser follows it); remove ${others.join(", ")} from protocols`);
  }
  const status = rawOp.route?.status ?? 200;
  if (status !== 200 && rawOp.kind === "read") {
    report("invalid-route-status", [...opPath, "route", "status"], subject, `a read answers 200; ${status} is for writes`);
  } else if (status === 204 && output.fields.length > 0) {
    report(
      "invalid-route-status",
      [...opPath, "route", "status"],
      subject,
      `204 answers without a body, but the output has fields (${output.fields.map((f) => f.name).join(", ")}); use 200, or an output of no fields`,
    );
  } else if (status !== 200 && answer === "redirect") {
    report("invalid-route-status", [...opPath, "route", "status"], subject, "a redirect route answers 302");
  }
  const headerParams = headerBindings(rawOp.route?.headers, input, pathParams, schemeHeaders, "input", [...opPath, "route", "headers"], subject, report);
  const responseHeaders = headerBindings(rawOp.route?.response_headers, output, [], schemeHeaders, "output", [...opPath, "route", "response_headers"], subject, report);
  if (responseHeaders.length > 0 && answer === "redirect")
    report("invalid-route-header", [...opPath, "route", "response_headers"], subject, "a redirect route answers a 302 and its Location alone", "key");
  return { since: rawOp.protocols.rest!, method, path, pathParams, inQuery, body: rawOp.route?.body ?? "json", answer, status, headerParams, responseHeaders };
}

/**
 * Headers neither a request nor an answer of an operation may bind a field to: HTTP's own, CORS's,
 * and those the service itself reads or writes (credentials, exactly-once writes, tracing, errors).
 */
const SERVICE_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "authorization",
  "cache-control",
  "connection",
  "content-encoding",
  "content-length",
  "content-type",
  "cookie",
  "expect",
  "host",
  "keep-alive",
  "location",
  "origin",
  "proxy-authorization",
  "retry-after",
  "set-cookie",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "vary",
  "www-authenticate",
  "traceparent",
  "tracestate",
  "x-api-client",
  "x-error-code",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-user-agent",
  "x-grpc-web",
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
]);
const SERVICE_HEADER_PREFIXES = ["access-control-", "sec-", "grpc-", "connect-", "proxy-"];

/** The fields of `message` a route binds to headers (field -> header), each a single text value on a header of its own. */
function headerBindings(
  declared: Record<string, string> | undefined,
  message: IrMessage,
  pathParams: readonly string[],
  schemeHeaders: readonly string[],
  side: "input" | "output",
  at: Path,
  subject: string,
  report: Report,
): HeaderBinding[] {
  const bindings: HeaderBinding[] = [];
  const taken = new Map<string, string>();
  for (const [name, header] of Object.entries(declared ?? {})) {
    const lowerCase = header.toLowerCase();
    const field = message.fields.find((f) => f.name === name);
    const fail = (message: string) => report("invalid-route-header", [...at, name], subject, message);
    if (!field)
      fail(
        `'${name}' is no ${side} field${didYouMean(
          name,
          message.fields.map((f) => f.name),
        )}`,
      );
    else if (!fitsText(field)) fail(`header ${header} can carry a single string, number, bool or enum field; '${name}' is not one`);
    else if (pathParams.includes(name)) fail(`'${name}' is carried by the path already`);
    else if (SERVICE_HEADERS.has(lowerCase) || SERVICE_HEADER_PREFIXES.some((prefix) => lowerCase.startsWith(prefix)) || schemeHeaders.includes(lowerCase))
      fail(`${header} is a header ${schemeHeaders.includes(lowerCase) ? "of an auth scheme of the API" : "HTTP or the service itself uses"}; name another`);
    else if (taken.has(lowerCase)) fail(`${header} carries '${taken.get(lowerCase)}' already (header names are compared in any case)`);
    else {
      taken.set(lowerCase, name);
      bindings.push({ field: name, header, lowerCase });
    }
  }
  return bindings;
}

/**
 * A redirect route is a browser's: a GET (its URL is what an SDK hands the browser) whose output is
 * the one required string `location`, the Location header of its 302.
 */
function checkRedirectRoute(method: string, output: IrMessage, opPath: Path, subject: string, report: Report): void {
  if (method !== "GET") report("redirect-route", [...opPath, "route", "method"], subject, `a redirect route is a GET (a browser follows it); this one is ${method}`);
  const [location, ...others] = output.fields;
  if (others.length > 0 || location?.name !== "location" || !location.required || location.list || location.type.kind !== "scalar" || location.type.scalar !== "string") {
    report("redirect-route", [...opPath, "output"], subject, "a redirect route's output is the one field `location: string!` (the Location header of its 302)");
  }
}
