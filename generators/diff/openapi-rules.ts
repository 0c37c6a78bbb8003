// The OpenAPI comparison: rules over the two OpenAPI 3.1 documents that buildOpenapi makes in-process.
// (api-smart-diff was tried: it reads OpenAPI 3.0 only, took 0.86 s on this document and classed
// a changed response field type as non-breaking, so these rules cover what this generator emits.)
import type { Ir } from "../ir/ir.js";
import { buildOpenapi } from "../emit/openapi.js";
import type { Severity } from "./change.js";
import type { Finding } from "./contracts.js";
import type { ContractNames } from "./names.js";

type Schema = Record<string, unknown>;

interface RouteEntry {
  path: string;
  method: string;
  operation: Schema;
}

interface Document {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
}

const ANNOTATION_KEYS = new Set(["description", "deprecated", "x-secret", "summary"]);
/** Keywords that narrow which values of a type fit: compared as rules, not as the type itself. */
const FORMAT_KEYS = new Set(["format", "pattern", "enum", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "default", "oneOf", "anyOf", "allOf", "if", "then"]);

function routesOf(doc: Document): Map<string, RouteEntry> {
  const routes = new Map<string, RouteEntry>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      routes.set(operation.operationId as string, { path, method: method.toUpperCase(), operation });
    }
  }
  return routes;
}

/** A schema without annotations, formats or nullability: what decides which values fit. */
function shape(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shape);
  if (typeof schema !== "object" || schema === null) return schema;
  const record = schema as Schema;
  if (Array.isArray(record.anyOf)) {
    const options = record.anyOf.filter((s) => !(typeof s === "object" && s !== null && (s as Schema).type === "null"));
    if (options.length === 1) return shape(options[0]);
  }
  const result: Schema = {};
  for (const [key, value] of Object.entries(record).sort(([a], [b]) => a.localeCompare(b))) {
    if (ANNOTATION_KEYS.has(key) || FORMAT_KEYS.has(key)) continue;
    if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t) => t !== "null");
      result.type = types.length === 1 ? types[0] : types;
    } else result[key] = shape(value);
  }
  return result;
}

/** The rule keywords of a schema and its items, by where they sit: "items.maxLength", "minLength", ... */
function constraints(schema: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (typeof schema !== "object" || schema === null) return out;
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (FORMAT_KEYS.has(key)) out.set(`${prefix}${key}`, value);
    else if (key === "items") for (const [k, v] of constraints(value, `${prefix}items.`)) out.set(k, v);
  }
  return out;
}

const LOWER_BOUNDS = new Set(["minLength", "minimum", "minItems"]);
const UPPER_BOUNDS = new Set(["maxLength", "maximum", "maxItems"]);

/**
 * How the values a schema accepts changed: "narrower" when some value accepted before is refused
 * now (a bound raised or added, a format or pattern added or changed), "wider" when every value
 * accepted before still is and more are, "changed" when neither can be told (a default), "same".
 */
function ruleChange(old: unknown, next: unknown): "narrower" | "wider" | "changed" | "same" {
  const before = constraints(old);
  const after = constraints(next);
  let narrower = false;
  let wider = false;
  let changed = false;
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    if (same(a, b)) continue;
    const keyword = key.slice(key.lastIndexOf(".") + 1);
    if (LOWER_BOUNDS.has(keyword) || UPPER_BOUNDS.has(keyword)) {
      const lower = LOWER_BOUNDS.has(keyword);
      if (a === undefined) narrower = true;
      else if (b === undefined) wider = true;
      else if ((b as number) > (a as number) === lower) narrower = true;
      else wider = true;
    } else if (keyword === "enum" && Array.isArray(a) && Array.isArray(b)) {
      // A value format's list: a value dropped refuses it, values added only widen.
      if (a.some((v) => !b.includes(v))) narrower = true;
      else wider = true;
    } else if (keyword === "default") changed = true;
    else if (b === undefined) wider = true;
    else narrower = true;
  }
  return narrower ? "narrower" : changed ? "changed" : wider ? "wider" : "same";
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether a schema lets null through: `type: [..., "null"]` or `anyOf: [..., {type: null}]`. */
function nullable(schema: unknown): boolean {
  const record = schema as Schema;
  if (Array.isArray(record.type)) return record.type.includes("null");
  return Array.isArray(record.anyOf) && record.anyOf.some((s) => (s as Schema | null)?.type === "null");
}

function refName(schema: unknown): string | undefined {
  const ref = (schema as Schema | undefined)?.$ref;
  return typeof ref === "string" ? ref.replace("#/components/schemas/", "") : undefined;
}

/** Name of the component schema an operation answers with. */
function answerSchema(operation: Schema): string | undefined {
  const ok = (operation.responses as Record<string, Schema> | undefined)?.["200"];
  const content = ok?.content as Record<string, Schema> | undefined;
  return refName(content?.["application/json"]?.schema);
}

/** Names of the component schemas reached from request bodies and parameters, and from answers. */
function reachedSchemas(doc: Document): { requests: Set<string>; responses: Set<string> } {
  const requests = new Set<string>();
  const responses = new Set<string>();
  const visit = (node: unknown, into: Set<string>) => {
    if (typeof node !== "object" || node === null) return;
    const name = refName(node);
    if (name !== undefined) {
      if (into.has(name)) return;
      into.add(name);
      visit(doc.components.schemas[name], into);
      return;
    }
    for (const value of Object.values(node as Schema)) visit(value, into);
  };
  for (const methods of Object.values(doc.paths)) {
    for (const operation of Object.values(methods)) {
      visit(operation.requestBody, requests);
      visit(operation.parameters, requests);
      visit((operation.responses as Schema)["200"], responses);
    }
  }
  return { requests, responses };
}

/** Security alternatives as comparable keys; no requirement at all is the anonymous caller. */
function securityAlternatives(operation: Schema): Set<string> {
  const security = (operation.security as Schema[] | undefined) ?? [];
  if (security.length === 0) return new Set(["anonymous"]);
  return new Set(security.map((alternative) => Object.keys(alternative).sort().join("+")));
}

/** The scopes each security requirement of an operation lists, by its scheme's name (those of one scheme alone). */
function requirementScopes(operation: Schema): Map<string, string[]> {
  const scopes = new Map<string, string[]>();
  for (const alternative of (operation.security as Record<string, string[]>[] | undefined) ?? []) {
    const names = Object.keys(alternative);
    if (names.length === 1) scopes.set(names[0]!, alternative[names[0]!] ?? []);
  }
  return scopes;
}

export function openapiFindings(oldIr: Ir, newIr: Ir, names: ContractNames): Finding[] {
  return compareOpenapi(buildOpenapi(oldIr) as unknown as Document, buildOpenapi(newIr) as unknown as Document, names);
}

export function compareOpenapi(before: Document, after: Document, names: ContractNames): Finding[] {
  const findings: Finding[] = [];
  const add = (kind: string, severity: Severity, subject: string, message: string, anchors: string[]) =>
    findings.push({ source: "openapi", protocol: "rest", kind, severity, subject, message, anchors });

  const oldRoutes = routesOf(before);
  const newRoutes = routesOf(after);
  for (const [id, old] of oldRoutes) {
    const current = newRoutes.get(id);
    if (!current) {
      add("operation-removed", "breaking", id, `${old.method} ${old.path} (${id}) was removed`, [`op:${id}`, `route:${id}`]);
      continue;
    }
    // Most operations do not change: skip those without looking inside.
    if (old.path === current.path && old.method === current.method && same(old.operation, current.operation)) continue;
    operationFindings(id, old, current, add, names);
  }
  for (const [id, current] of newRoutes) {
    if (!oldRoutes.has(id)) add("operation-added", "safe", id, `${current.method} ${current.path} (${id}) was added`, [`op:${id}`]);
  }

  // Which schemas requests and answers reach is only worked out once a schema has changed.
  let reach: [ReturnType<typeof reachedSchemas>, ReturnType<typeof reachedSchemas>] | undefined;
  for (const [name, old] of Object.entries(before.components.schemas)) {
    const current = after.components.schemas[name];
    if (!current || same(old, current)) continue;
    reach ??= [reachedSchemas(before), reachedSchemas(after)];
    const [oldReach, newReach] = reach;
    const inRequests = oldReach.requests.has(name) && newReach.requests.has(name);
    const inResponses = oldReach.responses.has(name) && newReach.responses.has(name);
    if (!inRequests && !inResponses) continue;
    schemaFindings(name, old, current, { inRequests, inResponses }, add);
  }

  for (const [name, old] of Object.entries(before.components.securitySchemes)) {
    const current = after.components.securitySchemes[name];
    if (!current || !same(shape(old), shape(current))) {
      add(
        "security-scheme-changed",
        "breaking",
        name,
        current ? `security scheme ${name} changed from ${JSON.stringify(shape(old))} to ${JSON.stringify(shape(current))}` : `security scheme ${name} was removed`,
        [`scheme:${name}`],
      );
    }
  }
  return findings;
}

type Add = (kind: string, severity: Severity, subject: string, message: string, anchors: string[]) => void;

function operationFindings(id: string, old: RouteEntry, current: RouteEntry, add: Add, names: ContractNames): void {
  if (old.path !== current.path || old.method !== current.method) {
    add("route-changed", "breaking", id, `${id} moved from ${old.method} ${old.path} to ${current.method} ${current.path}`, [`route:${id}`, `op:${id}`]);
  }
  const oldSecurity = securityAlternatives(old.operation);
  const newSecurity = securityAlternatives(current.operation);
  // An operation open to anonymous callers turns no one away, whatever credentials a caller sends.
  const lost = newSecurity.has("anonymous") ? [] : [...oldSecurity].filter((s) => !newSecurity.has(s));
  const gained = [...newSecurity].filter((s) => !oldSecurity.has(s));
  if (lost.length > 0) {
    add("security-tightened", "breaking", id, `${id} no longer accepts ${lost.join(" or ")}`, [`auth:${id}`, `op:${id}`]);
  } else if (gained.length > 0) {
    add("security-loosened", "safe", id, `${id} now also accepts ${gained.join(" or ")}`, [`auth:${id}`, `op:${id}`]);
  }
  // Scopes a requirement lists (OpenAPI 3.1 lets any scheme's): one more refuses the tokens without it.
  const oldScopes = requirementScopes(old.operation);
  for (const [requirement, scopes] of requirementScopes(current.operation)) {
    const was = oldScopes.get(requirement);
    if (!was) continue;
    const added = scopes.filter((scope) => !was.includes(scope));
    const removed = was.filter((scope) => !scopes.includes(scope));
    if (added.length > 0) add("security-scopes-added", "breaking", id, `${id} now asks ${requirement} for ${added.join(", ")}`, [`auth:${id}`, `op:${id}`]);
    if (removed.length > 0) add("security-scopes-removed", "safe", id, `${id} no longer asks ${requirement} for ${removed.join(", ")}`, [`auth:${id}`, `op:${id}`]);
  }
  if (old.operation.summary !== current.operation.summary) add("summary-changed", "safe", id, `summary of ${id} changed`, [`summary:${id}`, `op:${id}`]);
  if (Boolean(old.operation.deprecated) !== Boolean(current.operation.deprecated)) {
    add("deprecation-changed", "safe", id, `${id} is ${current.operation.deprecated ? "now" : "no longer"} deprecated`, [`op:${id}`]);
  }

  const oldBody = old.operation.requestBody as Schema | undefined;
  const newBody = current.operation.requestBody as Schema | undefined;
  if (!oldBody?.required && newBody?.required) {
    add("request-body-required", "breaking", id, `${id} now requires a request body`, [`arg:${id}`]);
  }
  if (oldBody && !newBody && old.method === current.method) {
    add("request-body-removed", "breaking", id, `${id} no longer takes a request body`, [`arg:${id}`]);
  }
  if (oldBody && newBody) {
    const oldTypes = Object.keys((oldBody.content as Schema | undefined) ?? {});
    const newTypes = Object.keys((newBody.content as Schema | undefined) ?? {});
    for (const type of oldTypes.filter((t) => !newTypes.includes(t))) {
      add("request-content-type-removed", "breaking", id, `${id} no longer takes ${type} bodies`, [`body:${id}`]);
    }
    for (const type of newTypes.filter((t) => !oldTypes.includes(t))) {
      add("request-content-type-added", "safe", id, `${id} now takes ${type} bodies`, [`body:${id}`]);
    }
  }

  const oldResponse = answerSchema(old.operation);
  const newResponse = answerSchema(current.operation);
  if (oldResponse !== newResponse) {
    add("response-schema-changed", "dangerous", id, `${id} answers ${newResponse} instead of ${oldResponse}`, [`outtype:${id}`]);
  }

  // Query parameters (GET, DELETE) and path parameters carry input that no component schema describes.
  if (old.method === current.method) {
    const input = names.inputMessages.get(id) ?? id;
    // A shared header parameter ($ref: the Idempotency-Key of writes) follows the operation's kind, which is reported already.
    const parameters = (entry: RouteEntry) => new Map(((entry.operation.parameters as Schema[] | undefined) ?? []).filter((p) => p.$ref === undefined).map((p) => [p.name as string, p]));
    const oldParameters = parameters(old);
    const newParameters = parameters(current);
    for (const [name, parameter] of oldParameters) {
      const anchors = [`in:${input}.${name}`];
      const next = newParameters.get(name);
      if (!next) {
        add("parameter-removed", "breaking", `${id}.${name}`, `query parameter ${name} of ${id} was removed`, anchors);
        continue;
      }
      const typeChanged = !same(shape(parameter.schema), shape(next.schema));
      if (typeChanged) {
        add("parameter-type-changed", "breaking", `${id}.${name}`, `query parameter ${name} of ${id} changed type`, anchors);
      }
      if (!parameter.required && next.required) {
        add("parameter-became-required", "breaking", `${id}.${name}`, `query parameter ${name} of ${id} became required`, anchors);
      }
      const rules = typeChanged ? "same" : ruleChange(parameter.schema, next.schema);
      if (rules !== "same") {
        const severity = rules === "narrower" ? "breaking" : rules === "changed" ? "dangerous" : "safe";
        add("parameter-format-changed", severity, `${id}.${name}`, `query parameter ${name} of ${id} accepts ${rules === "narrower" ? "fewer" : rules === "wider" ? "more" : "other"} values`, anchors);
      }
    }
    for (const [name, parameter] of newParameters) {
      if (oldParameters.has(name)) continue;
      add(
        parameter.required ? "required-parameter-added" : "parameter-added",
        parameter.required ? "breaking" : "safe",
        `${id}.${name}`,
        `${parameter.required ? "required " : ""}query parameter ${name} of ${id} was added`,
        [`in:${input}.${name}`],
      );
    }
  }
}

function schemaFindings(name: string, old: Schema, current: Schema, usage: { inRequests: boolean; inResponses: boolean }, add: Add): void {
  const directions = [...(usage.inRequests ? ["in"] : []), ...(usage.inResponses ? ["out"] : [])];
  if (Array.isArray(old.enum) && Array.isArray(current.enum)) {
    for (const value of old.enum.filter((v) => !(current.enum as unknown[]).includes(v))) {
      add("enum-value-removed", "breaking", `${name}.${value}`, `enum ${name} lost value ${value}`, [`enum:${name}.${value}`]);
    }
    for (const value of current.enum.filter((v) => !(old.enum as unknown[]).includes(v))) {
      add("enum-value-added", usage.inResponses ? "dangerous" : "safe", `${name}.${value}`, `enum ${name} gained value ${value}`, [`enum:${name}.${value}`]);
    }
    return;
  }
  const oldProperties = (old.properties as Record<string, Schema> | undefined) ?? {};
  const newProperties = (current.properties as Record<string, Schema> | undefined) ?? {};
  const oldRequired = new Set((old.required as string[] | undefined) ?? []);
  const newRequired = new Set((current.required as string[] | undefined) ?? []);
  const anchorsOf = (property: string) => directions.map((d) => `${d}:${name}.${property}`);
  for (const [property, schema] of Object.entries(oldProperties)) {
    const subject = `${name}.${property}`;
    const next = newProperties[property];
    if (!next) {
      add("property-removed", "breaking", subject, `property ${property} of ${name} was removed`, anchorsOf(property));
      continue;
    }
    const typeChanged = !same(shape(schema), shape(next));
    if (typeChanged) {
      add("property-type-changed", "breaking", subject, `property ${property} of ${name} changed from ${JSON.stringify(shape(schema))} to ${JSON.stringify(shape(next))}`, anchorsOf(property));
    }
    // Answers list every property as required and say "may be null" in the type; requests may send null for an optional one.
    if (!typeChanged && nullable(schema) !== nullable(next)) {
      const nowNullable = nullable(next);
      const breaks = nowNullable ? usage.inResponses : usage.inRequests;
      add(
        nowNullable ? "property-became-nullable" : "property-became-non-nullable",
        breaks ? "breaking" : "safe",
        subject,
        `property ${property} of ${name} ${nowNullable ? "may now be null" : "may no longer be null"}`,
        anchorsOf(property),
      );
    }
    if (!oldRequired.has(property) && newRequired.has(property)) {
      add("property-became-required", usage.inRequests ? "breaking" : "safe", subject, `property ${property} of ${name} became required`, anchorsOf(property));
    } else if (oldRequired.has(property) && !newRequired.has(property)) {
      add("property-became-optional", usage.inResponses ? "breaking" : "safe", subject, `property ${property} of ${name} became optional`, anchorsOf(property));
    }
    const rules = typeChanged ? "same" : ruleChange(schema, next);
    if (rules !== "same") {
      const severity = !usage.inRequests ? "safe" : rules === "narrower" ? "breaking" : rules === "changed" ? "dangerous" : "safe";
      add(
        "property-format-changed",
        severity,
        subject,
        `property ${property} of ${name} accepts ${rules === "narrower" ? "fewer" : rules === "wider" ? "more" : "other"} values (format, pattern, length, range or size)`,
        anchorsOf(property),
      );
    }
  }
  for (const property of Object.keys(newProperties)) {
    if (property in oldProperties) continue;
    const required = newRequired.has(property);
    add(
      required && usage.inRequests ? "required-property-added" : "property-added",
      required && usage.inRequests ? "breaking" : "safe",
      `${name}.${property}`,
      `${required ? "required " : ""}property ${property} was added to ${name}`,
      anchorsOf(property),
    );
  }
}
