// The field-rules pass: a field's declared rules (lengths, ranges, items, default, required_if,
// same_as) with the implied ones made explicit, and the rules that do not fit the field reported.
import { SCALAR_SPECS } from "../../sdk/scalars.js";
import { INTEGER_RANGES } from "../../../runtime/validate.js";
import type { RawField } from "../../load/load.js";
import type { FieldConstraints, IrField } from "../ir.js";

type RawFieldSpec = Exclude<RawField, string>;

/**
 * The field's rules, the implied ones made explicit: a required string has at least one
 * character, a required list at least one item, an integer stays in the range its type carries.
 * Rules that do not fit the field's type are reported.
 */
export function resolveConstraints(field: IrField, spec: Partial<RawFieldSpec>, fail: (key: string, message: string) => void): FieldConstraints {
  const constraints: FieldConstraints = {};
  const scalar = field.type.kind === "scalar" ? field.type.scalar : undefined;
  const isString = scalar === "string";
  // Lengths of bytes count bytes.
  const hasLength = isString || scalar === "bytes";
  const isNumber = scalar !== undefined && SCALAR_SPECS[scalar].numeric;
  const only = (key: keyof RawFieldSpec, applies: boolean, what: string, hint = "") => {
    if (spec[key] === undefined) return false;
    if (!applies) fail(key, `${key} applies to ${what} only${hint}`);
    return applies;
  };
  const pair = (minKey: keyof RawFieldSpec, maxKey: keyof RawFieldSpec, min: number | undefined, max: number | undefined) => {
    if (min !== undefined && max !== undefined && min > max) fail(maxKey, `${maxKey} ${max} is less than ${minKey} ${min}`);
  };

  if (only("min_length", hasLength, "string and bytes fields")) constraints.minLength = spec.min_length!;
  if (only("max_length", hasLength, "string and bytes fields")) constraints.maxLength = spec.max_length!;
  if (isString && field.required && !field.list && !(constraints.minLength! >= 1)) constraints.minLength = 1;
  pair("min_length", "max_length", constraints.minLength, constraints.maxLength);

  // An int64 written as a decimal string (api.int64_json: string) has no bound a JSON Schema can state.
  const unbounded = scalar === "int64_string" ? "; this API's int64 travel as decimal strings (api.int64_json: string), which no contract can bound: use int32 for a bounded count" : "";
  if (only("minimum", isNumber, "number fields", unbounded)) constraints.minimum = spec.minimum!;
  if (only("maximum", isNumber, "number fields", unbounded)) constraints.maximum = spec.maximum!;
  if (scalar === "int32" || scalar === "int64" || scalar === "uint32" || scalar === "float32") {
    const range = INTEGER_RANGES[scalar];
    const integer = scalar !== "float32";
    for (const [key, bound] of [
      ["minimum", range.minimum],
      ["maximum", range.maximum],
    ] as const) {
      const declared = constraints[key];
      if (declared !== undefined && ((integer && !Number.isInteger(declared)) || declared < range.minimum || declared > range.maximum)) {
        fail(key, `${key} ${declared} is not a${scalar === "int32" || scalar === "int64" ? "n" : ""} ${scalar} value (${range.minimum} to ${range.maximum})`);
      }
      constraints[key] ??= bound;
    }
  }
  pair("minimum", "maximum", constraints.minimum, constraints.maximum);

  if (only("min_items", field.list, "list fields")) constraints.minItems = spec.min_items!;
  if (only("max_items", field.list, "list fields")) constraints.maxItems = spec.max_items!;
  if (field.list && field.required && !(constraints.minItems! >= 1)) constraints.minItems = 1;
  pair("min_items", "max_items", constraints.minItems, constraints.maxItems);

  if (spec.default !== undefined) {
    const expected = isString || field.type.kind === "enum" ? "string" : scalar === "bool" ? "boolean" : isNumber ? "number" : undefined;
    if (field.list || expected === undefined) fail("default", "a default applies to a single string, bool, number or enum field");
    else if (field.required) fail("default", "a required field cannot have a default; make it optional");
    else if (typeof spec.default !== expected) fail("default", `the default must be a ${expected}`);
    else constraints.default = spec.default;
  }
  if (spec.required_if !== undefined) {
    if (field.required) fail("required_if", "the field is always required; make it optional or drop required_if");
    else constraints.requiredIf = spec.required_if.equals === undefined ? { field: spec.required_if.field } : { field: spec.required_if.field, equals: spec.required_if.equals };
  }
  if (spec.same_as !== undefined) constraints.sameAs = spec.same_as;
  if (only("empty_means_unset", isString && !field.list, "single string fields") && spec.empty_means_unset) constraints.emptyMeansUnset = true;
  return constraints;
}
