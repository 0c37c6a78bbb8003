// Rules on values: formats, lengths, ranges, list sizes, defaults, required-if, same-as, the one-of
// rules of an operation, declared formats and the API's limits. A rule that refuses a value it
// accepted before narrows what a request may carry (breaking); one that accepts every value it did
// and more widens it (safe). On answers it is the other way round: a wider rule lets clients meet
// values they never met, a narrower one only promises more.
import type { Ir, IrField, IrFormat, IrOperation, Protocol } from "../ir/ir.js";
import { ruleChange, type Change, type Severity } from "./change.js";

/** How the values a rule accepts changed: fewer may pass, more may pass, or the same pass with another meaning. */
export type Relation = "narrowed" | "widened" | "changed";

export interface RuleDelta {
  relation: Relation;
  /** What changed, in the manifest's words: `max_length 256 -> 128`, `format domain -> url`. */
  text: string;
}

const BOUNDS = [
  ["minLength", "min_length", "lower"],
  ["maxLength", "max_length", "upper"],
  ["minimum", "minimum", "lower"],
  ["maximum", "maximum", "upper"],
  ["minItems", "min_items", "lower"],
  ["maxItems", "max_items", "upper"],
] as const;

/**
 * Overall relation of several deltas. For inputs any narrowing narrows, else any change of meaning
 * changes, else wider; for answers (which have no defaults or cross-field rules) any widening widens.
 */
export function combined(deltas: readonly RuleDelta[], direction: "input" | "output" = "input"): Relation {
  if (direction === "output") return deltas.some((d) => d.relation === "widened") ? "widened" : "narrowed";
  if (deltas.some((d) => d.relation === "narrowed")) return "narrowed";
  if (deltas.some((d) => d.relation === "changed")) return "changed";
  return "widened";
}

/** The severity of a rule change, by the direction values travel. */
export function ruleSeverity(relation: Relation, direction: "input" | "output"): Severity {
  if (direction === "input") return relation === "narrowed" ? "breaking" : relation === "changed" ? "dangerous" : "safe";
  return relation === "widened" ? "dangerous" : "safe";
}

/** How a declared format's accepted values changed under the same name; undefined when they did not. */
export function formatRelation(before: IrFormat, after: IrFormat): RuleDelta | undefined {
  if (before.values && after.values) {
    const removed = before.values.filter((v) => !after.values!.includes(v));
    const added = after.values.filter((v) => !before.values!.includes(v));
    if (removed.length > 0) {
      return { relation: "narrowed", text: `lost values ${removed.join(", ")}${added.length > 0 ? ` (gained ${added.join(", ")})` : ""}` };
    }
    return added.length > 0 ? { relation: "widened", text: `gained values ${added.join(", ")}` } : undefined;
  }
  if (before.pattern === after.pattern && before.maxLength === after.maxLength && before.values === undefined && after.values === undefined) return undefined;
  if (before.values && after.pattern !== undefined) {
    const pattern = new RegExp(after.pattern, "u");
    return before.values.every((v) => pattern.test(v))
      ? { relation: "widened", text: `values ${before.values.join(", ")} became pattern /${after.pattern}/, which each of them matches` }
      : { relation: "narrowed", text: `values became pattern /${after.pattern}/, which ${before.values.filter((v) => !pattern.test(v)).join(", ")} do not match` };
  }
  if (after.values) return { relation: "narrowed", text: `pattern /${before.pattern}/ became values ${after.values.join(", ")}` };
  if (before.pattern === after.pattern) {
    const [a, b] = [before.maxLength, after.maxLength];
    return { relation: a === undefined || (b !== undefined && b < a) ? "narrowed" : "widened", text: `maximum length ${a ?? "none"} -> ${b ?? "none"}` };
  }
  // Whether one regular expression accepts everything another does cannot be told in general.
  return { relation: "narrowed", text: `pattern /${before.pattern}/ -> /${after.pattern}/ (values it accepted may no longer match)` };
}

const text = (value: unknown) => (typeof value === "string" ? `'${value}'` : String(value));

/**
 * Every change of the rules on one field's values. Rules implied by a change of type or of `!`
 * (an integer's range, a required string's first character, a required list's first item) are left
 * to the rule that reports that change. A format kept under the same name is compared once, as a
 * format (formatChanges).
 */
export function fieldRuleDeltas(oldIr: Ir, newIr: Ir, before: IrField, after: IrField, direction: "input" | "output"): RuleDelta[] {
  const deltas: RuleDelta[] = [];
  const [a, b] = [before.constraints, after.constraints];
  const requiredChanged = before.required !== after.required;
  for (const [key, name, side] of BOUNDS) {
    const [x, y] = [a[key], b[key]];
    if (x === y) continue;
    const impliedByRequired = requiredChanged && (key === "minLength" || key === "minItems") && (x ?? 1) === 1 && (y ?? 1) === 1;
    if (impliedByRequired) continue;
    if (x === undefined) deltas.push({ relation: "narrowed", text: `${name} ${y} added` });
    else if (y === undefined) deltas.push({ relation: "widened", text: `${name} ${x} removed` });
    else deltas.push({ relation: y > x === (side === "lower") ? "narrowed" : "widened", text: `${name} ${x} -> ${y}` });
  }
  if (before.format !== after.format) {
    if (before.format === undefined) deltas.push({ relation: "narrowed", text: `format ${after.format} added` });
    else if (after.format === undefined) deltas.push({ relation: "widened", text: `format ${before.format} removed` });
    else {
      const relation = formatRelation(oldIr.formats[before.format]!, newIr.formats[after.format]!)?.relation ?? "changed";
      deltas.push({ relation, text: `format ${before.format} -> ${after.format}` });
    }
  }
  if (direction === "output") return deltas;

  if (a.default !== b.default) {
    deltas.push({
      relation: "changed",
      text: a.default === undefined ? `default ${text(b.default)} added` : b.default === undefined ? `default ${text(a.default)} removed` : `default ${text(a.default)} -> ${text(b.default)}`,
    });
  }
  const condition = (c: typeof a.requiredIf) => (c === undefined ? "" : c.equals === undefined ? c.field : `${c.field} = ${text(c.equals)}`);
  if (condition(a.requiredIf) !== condition(b.requiredIf)) {
    const [x, y] = [a.requiredIf, b.requiredIf];
    // Required whenever the other field is given asks more than required when it has one value.
    const relation: Relation = !x ? "narrowed" : !y ? "widened" : x.field === y.field && x.equals === undefined && y.equals !== undefined ? "widened" : "narrowed";
    deltas.push({ relation, text: !x ? `required_if ${condition(y)} added` : !y ? `required_if ${condition(x)} removed` : `required_if ${condition(x)} -> ${condition(y)}` });
  }
  if (a.sameAs !== b.sameAs) {
    deltas.push({
      relation: a.sameAs === undefined || b.sameAs !== undefined ? "narrowed" : "widened",
      text: a.sameAs === undefined ? `same_as ${b.sameAs} added` : b.sameAs === undefined ? `same_as ${a.sameAs} removed` : `same_as ${a.sameAs} -> ${b.sameAs}`,
    });
  }
  if (Boolean(a.emptyMeansUnset) !== Boolean(b.emptyMeansUnset)) {
    // Without the rule "" is a value again, which a format or a minimum length refuses.
    const refusesEmpty = after.format !== undefined || (b.minLength ?? 0) >= 1;
    deltas.push(
      b.emptyMeansUnset
        ? { relation: "changed", text: "empty_means_unset added ('' now means not given)" }
        : { relation: refusesEmpty ? "narrowed" : "changed", text: `empty_means_unset removed ('' is a value again${refusesEmpty ? ", which the field refuses" : ""})` },
    );
  }
  return deltas;
}

/** The message of a field's or operation's rule change. */
export function ruleMessage(what: string, direction: "input" | "output", deltas: readonly RuleDelta[]): string {
  const relation = combined(deltas, direction);
  const consequence =
    direction === "input"
      ? relation === "narrowed"
        ? "requests valid before may now be refused"
        : relation === "changed"
          ? "the same requests are accepted but may mean something else"
          : "every request valid before still is"
      : relation === "widened"
        ? "clients may meet values they never met before"
        : "answers keep to a narrower rule";
  return `${what}: ${deltas.map((d) => d.text).join("; ")}: ${consequence}`;
}

/** How the one-of rules of an operation changed. */
export function operationRuleDeltas(before: IrOperation, after: IrOperation): RuleDelta[] {
  const deltas: RuleDelta[] = [];
  const list = (names: readonly string[]) => `[${names.join(", ")}]`;
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((n) => y.includes(n));
  const [e1, e2] = [before.exactlyOneOf, after.exactlyOneOf];
  if (!same(e1, e2)) {
    // Any other set of "exactly one of" refuses some request the old one accepted (one field of each set given).
    deltas.push(
      e1.length === 0
        ? { relation: "narrowed", text: `exactly_one_of ${list(e2)} added` }
        : e2.length === 0
          ? { relation: "widened", text: `exactly_one_of ${list(e1)} removed` }
          : { relation: "narrowed", text: `exactly_one_of ${list(e1)} -> ${list(e2)}` },
    );
  }
  const [a1, a2] = [before.atLeastOneOf, after.atLeastOneOf];
  if (!same(a1, a2)) {
    const superset = a1.length > 0 && a1.every((n) => a2.includes(n));
    deltas.push(
      a1.length === 0
        ? { relation: "narrowed", text: `at_least_one_of ${list(a2)} added` }
        : a2.length === 0
          ? { relation: "widened", text: `at_least_one_of ${list(a1)} removed` }
          : { relation: superset ? "widened" : "narrowed", text: `at_least_one_of ${list(a1)} -> ${list(a2)}` },
    );
  }
  return deltas;
}

/** Where a field that uses a format sits: its message and field, the operations reaching it each way. */
export interface FormatUse {
  message: string;
  field: string;
  /** Subject of the field in change ids: `users.query` or `User.email`. */
  subject: string;
  input: Protocol[];
  output: Protocol[];
}

/**
 * Changes of declared formats kept under the same name: every field using one changes with it. A
 * format declared or dropped changes nothing by itself; the fields that take it up or leave it say so.
 */
export function formatChanges(oldIr: Ir, newIr: Ir, usesOf: (format: string) => FormatUse[]): Change[] {
  const changes: Change[] = [];
  for (const [name, before] of Object.entries(oldIr.formats)) {
    const after = newIr.formats[name];
    if (before.builtin || !after) continue;
    const uses = usesOf(name);
    const protocols = uses.flatMap((u) => [...u.input, ...u.output]);
    const anchors = [`format:${name}`, ...uses.flatMap((u) => [...(u.input.length > 0 ? [`in:${u.message}.${u.field}`] : []), ...(u.output.length > 0 ? [`out:${u.message}.${u.field}`] : [])])];
    const fields = uses.length === 0 ? "no field uses it" : `used by ${uses.map((u) => u.subject).join(", ")}`;
    const delta = formatRelation(before, after);
    if (delta) {
      const inInputs = uses.some((u) => u.input.length > 0);
      const inAnswers = uses.some((u) => u.output.length > 0);
      const severities = [...(inInputs ? [ruleSeverity(delta.relation, "input")] : []), ...(inAnswers ? [ruleSeverity(delta.relation, "output")] : [])];
      const severity: Severity = severities.includes("breaking") ? "breaking" : severities.includes("dangerous") ? "dangerous" : "safe";
      const consequence =
        delta.relation === "narrowed"
          ? inInputs
            ? "requests valid before may now be refused"
            : "answers keep to a narrower rule"
          : inAnswers
            ? "clients may meet values they never met before"
            : "every request valid before still is";
      changes.push(ruleChange(`format-${delta.relation}`, name, severity, protocols, `format ${name} ${delta.text} (${fields}): ${consequence}`, anchors));
    } else if (before.description !== after.description || before.example !== after.example) {
      changes.push(ruleChange("format-description-changed", name, "safe", protocols, `description of format ${name} changed (${fields})`, anchors));
    }
  }
  return changes;
}

const LIMITS = [
  ["requestBytes", "request_bytes", "largest request"],
  ["jsonDepth", "json_depth", "deepest free-form json value"],
  ["jsonBytes", "json_bytes", "largest free-form json value"],
] as const;

/**
 * Lowered limits refuse requests the server took before. `request_bytes` reaches every operation;
 * the json limits reach operations whose input carries a json value (`jsonInputs`).
 */
export function limitChanges(oldIr: Ir, newIr: Ir, every: Protocol[], jsonInputs: { protocols: Protocol[]; anchors: string[] }): Change[] {
  const changes: Change[] = [];
  for (const [key, name, what] of LIMITS) {
    const [before, after] = [oldIr.api.limits[key], newIr.api.limits[key]];
    if (before === after) continue;
    const lowered = after < before;
    const reach = key === "requestBytes" ? { protocols: every, anchors: [] } : jsonInputs;
    changes.push(
      ruleChange(
        lowered ? "api-limit-lowered" : "api-limit-raised",
        name,
        lowered && reach.protocols.length > 0 ? "breaking" : "safe",
        reach.protocols,
        `api.limits.${name} (${what}) ${lowered ? "lowered" : "raised"} from ${before} to ${after}${lowered ? ": requests within the old limit may now be refused" : ""}`,
        [`api:limits.${name}`, ...reach.anchors],
      ),
    );
  }
  return changes;
}
