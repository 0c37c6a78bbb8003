// The routes pass: the REST route of an operation (the manifest's route, else POST /v1/admin/<op>
// or /v1/<op>), and the rules routes keep: one operation per route, a GET route's input fits a
// query string, a route only on an operation carried over rest, token routes on REST alone.
import type { RawOperation } from "../load.js";
import type { IrMessage, IrOperation, Protocol } from "../ir.js";
import type { Report } from "./report.js";

type Path = readonly (string | number)[];

/** Reports a route declared where it cannot apply, and a token route off REST or without its path. */
export function checkRouteDeclaration(rawOp: RawOperation, protocols: readonly Protocol[], opPath: Path, subject: string, report: Report): void {
  if (rawOp.route !== undefined && rawOp.protocols.rest === undefined) {
    report("route-without-rest", [...opPath, "route"], subject,
      `declares a REST route but is not carried over rest (protocols: ${protocols.join(", ")}); add rest to protocols or remove route`, "key");
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

/** The REST binding of an operation carried over rest; `routes` (method and path -> operation) finds a route used twice. */
export function restBinding(
  name: string,
  rawOp: RawOperation,
  input: IrMessage,
  routes: Map<string, string>,
  opPath: Path,
  subject: string,
  report: Report,
): NonNullable<IrOperation["rest"]> {
  const method = rawOp.route?.method ?? "POST";
  const path = rawOp.route?.path ?? (rawOp.surface === "admin" ? `/v1/admin/${name}` : `/v1/${name}`);
  const routeKey = `${method} ${path}`;
  const taken = routes.get(routeKey);
  if (taken !== undefined) {
    report("duplicate-route", [...opPath, "route"], subject, `REST route ${routeKey} is already used by operation '${taken}'`, "key");
  }
  routes.set(routeKey, name);
  if (method === "GET") {
    for (const field of input.fields) {
      if (field.type.kind === "message" || field.list || (field.type.kind === "scalar" && ["map", "json"].includes(field.type.scalar))) {
        report("get-field-not-in-query", [...opPath, "input", field.name], subject,
          `a GET route carries its input in the query string, which cannot hold field '${field.name}'; use POST`, "key");
      }
    }
  }
  return { since: rawOp.protocols.rest!, method, path, body: rawOp.route?.body ?? "json" };
}
