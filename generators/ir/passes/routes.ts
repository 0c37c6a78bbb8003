// The routes pass: the REST route of an operation (the manifest's route, else POST
// <prefix>/admin/<op> or <prefix>/<op>), and the rules routes keep: one operation per route shape,
// path segments bound to required input fields, a GET or DELETE route's input fits a query string,
// a route only on an operation carried over rest, token routes on REST alone.
import type { RawOperation } from "../../load/load.js";
import type { IrMessage, IrOperation, Protocol } from "../ir.js";
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
  return { since: rawOp.protocols.rest!, method, path, pathParams, inQuery, body: rawOp.route?.body ?? "json", answer, status };
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
