// The fields of a message: each field's type (`Book[]!`) resolved against the scalars, enums and
// types, its format and rules, and the rules that name a sibling field (required_if, same_as) or a
// value of the field's enum (default). The messages pass calls these for every message it builds.
import { SCALAR_SPECS, scalarOfAlias } from "../../sdk/scalars.js";
import { protoCamelCase, safeObjectProperty } from "@bufbuild/protobuf/reflect";
import { MAP_VALUE_KINDS } from "../../../runtime/schema.js";
import type { PathSegment, RawField } from "../../load/load.js";
import { didYouMean } from "../naming.js";
import { MANIFEST_SCALARS, type IrField, type Scalar, type TypeRef } from "../ir.js";
import { resolveConstraints } from "./constraints.js";
import type { IrContext } from "./context.js";
import { enumValuesOf } from "./enums.js";

interface ParsedTypeExpr {
  base: string;
  /** V of map<V>. */
  mapValue?: string;
  list: boolean;
  required: boolean;
}

function parseTypeExpr(expr: string): ParsedTypeExpr {
  const required = expr.endsWith("!");
  const bare = required ? expr.slice(0, -1) : expr;
  const list = bare.endsWith("[]");
  const base = list ? bare.slice(0, -2) : bare;
  const generic = /^([A-Za-z0-9]+)<([A-Za-z0-9]+)>$/.exec(base);
  return generic ? { base: generic[1]!, mapValue: generic[2]!, list, required } : { base, list, required };
}

/** The field `name` of a message, numbered `number` by the lock; needs context.enums and context.formats. */
export function resolveField(context: IrContext, path: PathSegment[], subject: string, name: string, rawField: RawField, number: number): IrField {
  const { report, enumNames, typeNames, formats } = context;
  const spec = typeof rawField === "string" ? { type: rawField } : rawField;
  const expr = parseTypeExpr(spec.type);
  const typePath = typeof rawField === "string" ? path : [...path, "type"];
  let type: TypeRef = { kind: "scalar", scalar: "string" };
  if ((MANIFEST_SCALARS as readonly string[]).includes(expr.base)) {
    type = { kind: "scalar", scalar: expr.base === "int64" && context.raw.api.int64_json === "string" ? "int64_string" : (expr.base as Scalar) };
    if (expr.list && (expr.base === "map" || expr.base === "json")) {
      report("unsupported-type", typePath, subject, `field '${name}': a list of ${expr.base} is not supported; declare a type that holds the ${expr.base} and list that`);
    }
  } else if (enumNames.has(expr.base)) {
    type = { kind: "enum", name: expr.base };
  } else if (typeNames.has(expr.base)) {
    type = { kind: "message", name: expr.base };
  } else {
    const alias = scalarOfAlias(expr.base.toLowerCase());
    const hint = alias ? `; did you mean '${alias}'?` : didYouMean(expr.base, [...MANIFEST_SCALARS, ...enumNames, ...typeNames]);
    report("unknown-type", typePath, subject, `field '${name}' refers to unknown type '${expr.base}'${hint}`);
  }
  const isString = type.kind === "scalar" && type.scalar === "string";
  if (spec.format !== undefined) {
    if (!isString) report("format-not-applicable", [...path, "format"], subject, `field '${name}': format '${spec.format}' applies to string fields only`);
    else if (!formats[spec.format])
      report(
        "unknown-format",
        [...path, "format"],
        subject,
        `field '${name}': unknown format '${spec.format}'${didYouMean(spec.format, Object.keys(formats))}; declare it under formats: or use one of ${Object.keys(formats).join(", ")}`,
      );
  }
  const field: IrField = {
    name,
    protoLocalName: safeObjectProperty(protoCamelCase(name)),
    description: spec.description ?? "",
    type,
    list: expr.list,
    required: expr.required,
    alwaysInAnswer: expr.required || expr.list || (type.kind === "scalar" && type.scalar === "map"),
    secret: spec.secret ?? false,
    constraints: {},
    protoNumber: number,
    position: context.loaded.locate(path, "key"),
  };
  if (expr.mapValue !== undefined) {
    const value = expr.mapValue;
    if (type.kind !== "scalar" || type.scalar !== "map") report("unsupported-type", typePath, subject, `field '${name}': only map takes <V>, not ${expr.base}`);
    else if ((MAP_VALUE_KINDS as readonly string[]).includes(value) && value !== "int64_string")
      field.mapValue = { kind: "scalar", scalar: value === "int64" && context.raw.api.int64_json === "string" ? "int64_string" : (value as Scalar) };
    else if (enumNames.has(value)) field.mapValue = { kind: "enum", name: value };
    else if (typeNames.has(value)) field.mapValue = { kind: "message", name: value };
    else if (value === "map" || value === "json")
      report("unsupported-type", typePath, subject, `field '${name}': map<${value}>: a map's values cannot be a ${value}; declare a type that holds the ${value} and map to that`);
    else if (value !== "string")
      report("unknown-type", typePath, subject, `field '${name}': map<${value}> names unknown type '${value}'${didYouMean(value, [...MANIFEST_SCALARS, ...enumNames, ...typeNames])}`);
  }
  if (spec.format !== undefined) field.format = spec.format;
  field.constraints = resolveConstraints(field, typeof rawField === "string" ? {} : rawField, (key, message) => report("invalid-rule", [...path, key], subject, `field '${name}': ${message}`));
  if (spec.deprecated !== undefined) field.deprecated = spec.deprecated;
  return field;
}

/** required_if and same_as name a sibling field of a fitting type; a default names a value of its enum. */
export function checkFieldReferences(context: IrContext, fields: IrField[], path: PathSegment[], subject: string): void {
  const { report } = context;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const typeText = (f: IrField) => (f.type.kind === "scalar" ? f.type.scalar : f.type.name) + (f.list ? "[]" : "");
  for (const field of fields) {
    const at = (key: string) => [...path, field.name, key];
    const { requiredIf, sameAs } = field.constraints;
    const sibling = (key: string, name: string) => {
      const other = byName.get(name);
      if (!other || other === field) {
        report(
          "unknown-field",
          at(key),
          subject,
          `field '${field.name}': ${key} names '${name}', which is not another field here${didYouMean(
            name,
            [...byName.keys()].filter((n) => n !== field.name),
          )}`,
        );
      }
      return other === field ? undefined : other;
    };
    if (requiredIf) {
      const other = sibling("required_if", requiredIf.field);
      if (other && requiredIf.equals !== undefined) {
        const values = other.type.kind === "enum" ? enumValuesOf(context, other.type.name) : undefined;
        const kind = other.type.kind === "scalar" ? other.type.scalar : other.type.kind;
        const fits = values
          ? values.includes(String(requiredIf.equals))
          : kind === "string"
            ? typeof requiredIf.equals === "string"
            : kind === "bool"
              ? typeof requiredIf.equals === "boolean"
              : other.type.kind === "scalar" && SCALAR_SPECS[other.type.scalar].numeric && typeof requiredIf.equals === "number";
        if (!fits || other.list)
          report(
            "invalid-rule",
            at("required_if"),
            subject,
            `field '${field.name}': required_if compares '${other.name}' (${typeText(other)}) with ${JSON.stringify(requiredIf.equals)}, which it can never equal`,
          );
      }
    }
    if (sameAs) {
      const other = sibling("same_as", sameAs);
      if (other && typeText(other) !== typeText(field))
        report("invalid-rule", at("same_as"), subject, `field '${field.name}': same_as names '${other.name}' of type ${typeText(other)}, not ${typeText(field)}`);
    }
    if (field.type.kind === "enum" && typeof field.constraints.default === "string") {
      const values = enumValuesOf(context, field.type.name);
      if (values && !values.includes(field.constraints.default)) {
        report(
          "invalid-rule",
          at("default"),
          subject,
          `field '${field.name}': default '${field.constraints.default}' is not a value of ${field.type.name}${didYouMean(field.constraints.default, values)}`,
        );
      }
    }
  }
}
