// Manifest rules: pure functions of two IRs that name every change between them, classify it and
// say which protocols' clients see it. The manifest knows what no single contract does (minimum
// versions, auth, destructiveness, which fields belong to which operation), so these rules are the
// heart of the diff; contract checks add what they miss.
import semver from "semver";
import { mapValueName, PROTOCOLS, schemesOf, type HeaderBinding, type Ir, type IrEnum, type IrField, type IrMessage, type IrOperation, type Protocol } from "../ir/ir.js";
import { orderedProtocols, ruleChange, type Change, type Severity } from "./change.js";
import { apiChanges, callersOf } from "./api-rules.js";
import { combined, fieldRuleDeltas, formatChanges, limitChanges, operationRuleDeltas, ruleMessage, ruleSeverity, type FormatUse } from "./input-rules.js";
import { usageOf, type Reach, type Usage } from "./usage.js";
import { mapScalarName, SCALAR_SPECS, scalarLabel } from "../sdk/scalars.js";

type Direction = "input" | "output";
const ANCHOR_PREFIX: Record<Direction, string> = { input: "in", output: "out" };

const ordered = orderedProtocols;
const change = ruleChange;

/** The fields whose header binding differs between two routes: [field, before, after] (case aside, as HTTP compares headers). */
function headerChanges(before: readonly HeaderBinding[], after: readonly HeaderBinding[]): [string, HeaderBinding | undefined, HeaderBinding | undefined][] {
  const was = new Map(before.map((b) => [b.field, b]));
  const now = new Map(after.map((b) => [b.field, b]));
  return [...new Set([...was.keys(), ...now.keys()])].filter((field) => was.get(field)?.lowerCase !== now.get(field)?.lowerCase).map((field) => [field, was.get(field), now.get(field)]);
}

function typeText(field: IrField): string {
  const base = field.mapValue ? `map<${mapValueName(field.mapValue)}>` : field.type.kind === "scalar" ? scalarLabel(field.type.scalar) : field.type.name;
  return `${base}${field.list ? "[]" : ""}${field.required ? "!" : ""}`;
}

function sameType(a: IrField, b: IrField): boolean {
  const name = (f: IrField) => (f.type.kind === "scalar" ? f.type.scalar + (f.mapValue ? `<${mapValueName(f.mapValue)}>` : "") : f.type.name);
  return a.type.kind === b.type.kind && name(a) === name(b) && a.list === b.list;
}

/** Anchors of the named types a field refers to, so that a type appearing or vanishing with the field folds into it. */
function typeAnchors(field: IrField | undefined, direction: Direction): string[] {
  if (!field) return [];
  if (field.type.kind === "enum") return [`enum:${field.type.name}`];
  if (field.type.kind === "message") return [`${ANCHOR_PREFIX[direction]}:${field.type.name}`];
  // A type of its own in GraphQL (DateTime, Bytes, IntMap, ...) comes and goes with the fields of it.
  if (field.mapValue) return [`scalar:${mapScalarName(field.mapValue)}`, ...(field.mapValue.kind === "enum" ? [`enum:${field.mapValue.name}`] : [])];
  return [`scalar:${SCALAR_SPECS[field.type.scalar].graphql.name}`];
}

/** Anchors of every message an operation reaches, for changes that add or remove the whole operation. */
function operationAnchors(ir: Ir, op: IrOperation): string[] {
  const anchors = [`op:${op.name}`, `arg:${op.name}`, `route:${op.name}`, `outtype:${op.name}`];
  const seen = new Set<string>();
  const visit = (message: IrMessage, direction: Direction) => {
    const key = `${ANCHOR_PREFIX[direction]}:${message.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    anchors.push(key);
    for (const field of message.fields) {
      if (field.type.kind === "enum") anchors.push(`enum:${field.type.name}`);
      if (field.type.kind === "message") {
        const target = ir.messages.find((m) => m.name === (field.type as { name: string }).name);
        if (target) visit(target, direction);
      }
    }
  };
  visit(op.input, "input");
  visit(op.output, "output");
  return anchors;
}

interface FieldContext {
  direction: Direction;
  /** `users` for an operation's own input or output, `User` for a shared type. */
  subject: string;
  protocols: Protocol[];
  operation?: string;
  /** Extra anchors every field change carries (the GraphQL `params` argument of an operation's input). */
  anchors: string[];
  oldIr: Ir;
  newIr: Ir;
}

/** Every difference between two versions of one message's fields, seen from clients in one direction. */
function fieldChanges(before: IrMessage, after: IrMessage, context: FieldContext): Change[] {
  const changes: Change[] = [];
  const { direction, subject, protocols, operation } = context;
  const grpc = protocols.filter((p) => p === "grpc");
  const oldByName = new Map(before.fields.map((f) => [f.name, f]));
  const newByName = new Map(after.fields.map((f) => [f.name, f]));
  const prefix = ANCHOR_PREFIX[direction];
  const fieldAnchors = (name: string, ...extra: string[]) => [`${prefix}:${before.name}.${name}`, `${prefix}:${after.name}.${name}`, ...context.anchors, ...extra];
  // "input field 'query'" of an operation; "output field 'email' of type User" of a shared type.
  const label = (name: string, type?: string) => `${direction} field '${type ? `${name}: ${type}` : name}'${operation !== undefined ? "" : ` of type ${subject}`}`;
  const add = (rule: string, field: string, severity: Severity, message: string, anchors: string[], only?: Protocol[]) =>
    changes.push(change(rule, `${subject}.${field}`, severity, only ?? protocols, message, anchors, operation));

  // A tagged union's tag travels on JSON alone: REST requests must carry it, REST and GraphQL answers do.
  const tagBefore = before.discriminator?.property;
  const tagAfter = after.discriminator?.property;
  const tagProtocols = protocols.filter((p) => (direction === "input" ? p === "rest" : p !== "grpc"));
  if (tagBefore !== tagAfter && tagProtocols.length > 0) {
    // The tag's property on the union and on each OpenAPI branch schema of either side.
    const branches = [before, after].flatMap((message) => Object.values(message.discriminator?.branchSchemas ?? {}));
    const tagAnchors = [tagBefore, tagAfter].flatMap((tag) => (tag === undefined ? [] : [before.name, after.name, ...branches].map((holder) => `${prefix}:${holder}.${tag}`)));
    const which = direction === "input" ? "REST requests" : "answers";
    if (tagBefore === undefined)
      add(
        "union-tag-added",
        tagAfter!,
        direction === "input" ? "breaking" : "safe",
        `tag '${tagAfter}' was added${direction === "input" ? ": a REST request must carry it, and callers that do not send it are refused" : " to its answers"}`,
        tagAnchors,
        tagProtocols,
      );
    else if (tagAfter === undefined)
      add(
        "union-tag-removed",
        tagBefore,
        "breaking",
        `tag '${tagBefore}' was removed from its ${which}: ${direction === "input" ? "callers that still send it are refused" : "clients that read it break"}`,
        tagAnchors,
        tagProtocols,
      );
    else add("union-tag-renamed", tagAfter, "breaking", `tag '${tagBefore}' of its ${which} was renamed to '${tagAfter}'`, tagAnchors, tagProtocols);
  }

  // A field that keeps its proto number under a new name (the lock was edited to say so) is a rename on the wire.
  const renamedTo = new Map<string, IrField>();
  if (before.name === after.name) {
    const newByNumber = new Map(after.fields.map((f) => [f.protoNumber, f]));
    for (const field of before.fields) {
      const successor = newByNumber.get(field.protoNumber);
      if (!newByName.has(field.name) && successor && !oldByName.has(successor.name)) renamedTo.set(field.name, successor);
    }
  }
  const renamedFrom = new Set([...renamedTo.values()].map((f) => f.name));

  for (const field of before.fields) {
    const successor = renamedTo.get(field.name);
    if (successor) {
      add(
        "proto-field-renamed",
        field.name,
        "breaking",
        `${label(field.name)} was renamed to '${successor.name}' keeping proto number ${field.protoNumber}: the name is the wire name on every protocol`,
        [...fieldAnchors(field.name), ...fieldAnchors(successor.name)],
      );
    } else if (!newByName.has(field.name)) {
      add(
        `${direction}-field-removed`,
        field.name,
        "breaking",
        direction === "input" ? `${label(field.name)} was removed: callers that still send it are refused` : `${label(field.name)} was removed: clients that read it break`,
        fieldAnchors(field.name, ...typeAnchors(field, direction)),
      );
    }
  }
  // An answer swapped for another message keeps its gRPC response message: a number may now carry another field.
  const oldByNumber = new Map(before.fields.map((f) => [f.protoNumber, f]));
  for (const field of after.fields) {
    if (oldByName.has(field.name) || renamedFrom.has(field.name)) continue;
    const anchors = fieldAnchors(field.name, ...typeAnchors(field, direction));
    const previousHolder = before.name !== after.name ? oldByNumber.get(field.protoNumber) : undefined;
    if (previousHolder && !newByName.has(previousHolder.name) && grpc.length > 0) {
      add(
        "proto-field-number-reused",
        field.name,
        "breaking",
        `proto field number ${field.protoNumber} carried '${previousHolder.name}' and now carries '${field.name}': old gRPC clients read one as the other`,
        [...anchors, ...fieldAnchors(previousHolder.name)],
        grpc,
      );
    }
    if (direction === "output" && after.oneOf) {
      // An old client meets answers whose one variant it does not know: none it knows is set.
      // A tagged union's tag (its values, the OpenAPI branches that say the others are null) grows with it.
      const tagged = after.discriminator;
      const tagAnchors = tagged ? [`${prefix}:${after.name}.${tagged.property}`, ...Object.values(tagged.branchSchemas).map((branch) => `${prefix}:${branch}.${field.name}`)] : [];
      add("union-variant-added", field.name, "dangerous", `variant ${label(field.name, typeText(field))} was added: clients that know only the others read an answer with none of them set`, [
        ...anchors,
        ...tagAnchors,
      ]);
    } else if (direction === "output") {
      add("output-field-added", field.name, "safe", `${label(field.name, typeText(field))} was added`, anchors);
    } else if (field.required) {
      add("input-field-required-added", field.name, "breaking", `${label(field.name, typeText(field))} was added as required: callers that do not send it are refused`, anchors);
    } else {
      add("input-field-optional-added", field.name, "safe", `optional ${label(field.name, typeText(field))} was added`, anchors);
    }
  }
  for (const previous of before.fields) {
    const field = newByName.get(previous.name);
    if (!field) continue;
    const anchors = fieldAnchors(field.name);
    if (!sameType(previous, field)) {
      add(`${direction}-field-type-changed`, field.name, "breaking", `${label(field.name)} changed type from ${typeText(previous)} to ${typeText(field)}`, [
        ...anchors,
        ...typeAnchors(previous, direction),
        ...typeAnchors(field, direction),
      ]);
    } else if (previous.required !== field.required && !(direction === "output" && field.list)) {
      // An output list is never null on any protocol, so `!` on it changes nothing a client sees.
      const nowRequired = field.required;
      if (direction === "input") {
        add(
          nowRequired ? "input-field-became-required" : "input-field-became-optional",
          field.name,
          nowRequired ? "breaking" : "safe",
          nowRequired ? `${label(field.name)} became required: callers that leave it out are refused` : `${label(field.name)} became optional`,
          anchors,
        );
      } else {
        add(
          nowRequired ? "output-field-became-required" : "output-field-became-optional",
          field.name,
          nowRequired ? "safe" : "breaking",
          nowRequired ? `${label(field.name)} is now always set` : `${label(field.name)} may now be null: clients that rely on a value break`,
          anchors,
        );
      }
    }
    if (previous.protoNumber !== field.protoNumber && grpc.length > 0) {
      add(
        "proto-field-renumbered",
        field.name,
        "breaking",
        `${label(field.name)} moved from proto field number ${previous.protoNumber} to ${field.protoNumber}: a wire break for gRPC clients`,
        anchors,
        grpc,
      );
    }
    const rules = sameType(previous, field) ? fieldRuleDeltas(context.oldIr, context.newIr, previous, field, direction) : [];
    if (rules.length > 0) {
      const relation = combined(rules, direction);
      add(`${direction}-rules-${relation}`, field.name, ruleSeverity(relation, direction), ruleMessage(label(field.name), direction, rules), anchors);
    }
    if (previous.description !== field.description) {
      add("field-description-changed", field.name, "safe", `description of ${label(field.name)} changed`, anchors);
    }
    if (previous.deprecated !== field.deprecated) {
      add("field-deprecation-changed", field.name, "safe", field.deprecated ? `${label(field.name)} is deprecated: ${field.deprecated}` : `${label(field.name)} is no longer deprecated`, anchors);
    }
  }
  return changes;
}

/** Inputs and outputs compare as the same message when their fields, types and shared output agree. */
function signature(op: IrOperation): string {
  const fields = (m: IrMessage) => m.fields.map((f) => `${f.name}:${typeText(f)}`).join(",");
  return [op.kind, op.surface, fields(op.input), op.output.shared ? op.output.name : fields(op.output)].join("|");
}

/** Whether version `a` comes after `b` (semver order; text order for what is not semver). */
const isLater = (a: string, b: string) => (semver.valid(a) && semver.valid(b) ? semver.gt(a, b) : a > b);

/**
 * A protocol newly carrying an operation must name a minimum version the base did not have: with
 * one the base already has (released without the operation), a client would call servers that
 * lack it, and refuse nothing. Undefined when `since` is newer.
 */
function sinceAlreadyReleased(oldIr: Ir, name: string, protocol: Protocol, since: string): Change | undefined {
  const base = oldIr.api.version;
  if (isLater(since, base)) return undefined;
  return ruleChange(
    "min-version-not-new",
    `${name}.${protocol}`,
    "breaking",
    [protocol],
    `newly carried over ${protocol} since ${since}, which the base (${base}) already is: clients would call servers up to ${base} that lack it; name a version after ${base}`,
    [`op:${name}`],
    name,
  );
}

function operationChanges(oldIr: Ir, newIr: Ir, before: IrOperation, after: IrOperation): Change[] {
  const name = after.name;
  const changes: Change[] = [];
  const common = before.protocols.filter((p) => after.protocols.includes(p));
  const add = (rule: string, subject: string, severity: Severity, protocols: Iterable<Protocol>, message: string, anchors: string[]) =>
    changes.push(change(rule, subject, severity, protocols, message, anchors, name));
  const opAnchor = `op:${name}`;

  for (const protocol of PROTOCOLS) {
    const was = before[protocol];
    const is = after[protocol];
    if (was && !is) {
      add("protocol-removed", `${name}.${protocol}`, "breaking", [protocol], `no longer carried over ${protocol}: clients calling it over ${protocol} break`, operationAnchors(oldIr, before));
    } else if (!was && is) {
      add("protocol-added", `${name}.${protocol}`, "safe", [protocol], `now carried over ${protocol} since ${is.since}`, [opAnchor]);
      const stale = sinceAlreadyReleased(oldIr, name, protocol, is.since);
      if (stale) changes.push(stale);
    } else if (was && is && was.since !== is.since) {
      const raised = isLater(is.since, was.since);
      add(
        raised ? "min-version-raised" : "min-version-lowered",
        `${name}.${protocol}`,
        raised ? "breaking" : "safe",
        [protocol],
        raised
          ? `minimum server version over ${protocol} raised from ${was.since} to ${is.since}: clients of servers older than ${is.since} now refuse the call`
          : `minimum server version over ${protocol} lowered from ${was.since} to ${is.since}`,
        [opAnchor],
      );
    }
  }

  const restMethodChanged = before.rest !== undefined && after.rest !== undefined && before.rest.method !== after.rest.method;
  if (before.kind !== after.kind) {
    // A read turned write: GraphQL moves it from Query to Mutation; gRPC drops NO_SIDE_EFFECTS, which Connect needs to serve it over GET.
    const toWrite = after.kind === "write";
    const changes = [
      common.includes("graphql") ? (toWrite ? "GraphQL moves it from Query to Mutation" : "GraphQL moves it from Mutation to Query") : "",
      common.includes("grpc") ? (toWrite ? "the gRPC method loses its no-side-effects idempotency level" : "the gRPC method becomes no-side-effects") : "",
      restMethodChanged ? `REST moves it from ${before.rest!.method} to ${after.rest!.method}` : "",
    ].filter(Boolean);
    add(
      toWrite ? "read-became-write" : "write-became-read",
      name,
      "breaking",
      common.filter((p) => p !== "rest" || restMethodChanged),
      `${toWrite ? "read turned write" : "write turned read"}: ${changes.join("; ") || "no contract carries the kind"}`,
      [opAnchor, `outtype:${name}`],
    );
  }
  if (before.destructive !== after.destructive) {
    if (after.destructive) {
      add("operation-destructive", name, "dangerous", common, "turned destructive: clients in read-only mode now refuse it, and callers should confirm before calling", [opAnchor]);
    } else {
      add("operation-not-destructive", name, "safe", common, "no longer destructive", [opAnchor]);
    }
  }
  // Schemes are compared by the callers they let in (any one scheme of several lets a caller in): a
  // scheme renamed or redeclared under its old name alike.
  const callersOfOp = (ir: Ir, op: IrOperation) => [...new Set(schemesOf(ir, op).flatMap(({ scheme }) => callersOf(scheme)))];
  const [callersBefore, callersAfter] = [callersOfOp(oldIr, before), callersOfOp(newIr, after)];
  const lost = callersBefore.filter((c) => !callersAfter.includes(c));
  const gained = callersAfter.filter((c) => !callersBefore.includes(c));
  const [authBefore, authAfter] = [before.authAnyOf.map((r) => r.scheme).join(" or "), after.authAnyOf.map((r) => r.scheme).join(" or ")];
  if (authBefore !== authAfter || lost.length > 0 || gained.length > 0) {
    const anchors = [opAnchor, `auth:${name}`];
    const change = authBefore === authAfter ? `auth scheme ${authAfter} redeclared` : `from ${authBefore} to ${authAfter}`;
    if (lost.length > 0) {
      add(
        "auth-tightened",
        name,
        "breaking",
        common,
        `${authBefore === authAfter ? `${change}, tightened` : `auth tightened ${change}`}: ${lost.join(", ").replace(/_/g, " ")} callers are now refused`,
        anchors,
      );
    } else {
      add(
        gained.length > 0 ? "auth-loosened" : "auth-changed",
        name,
        "safe",
        common,
        `${authBefore === authAfter ? change : `auth changed ${change}`}${gained.length > 0 ? "; every caller allowed before still is" : " (the same callers)"}`,
        anchors,
      );
    }
  }
  // The scopes a scheme's token must grant, of the schemes taken before and after: one more turns
  // away the tokens without it; one fewer lets more tokens in.
  for (const requirement of after.authAnyOf) {
    const was = before.authAnyOf.find((r) => r.scheme === requirement.scheme);
    if (!was) continue;
    const added = requirement.scopes.filter((scope) => !was.scopes.includes(scope));
    const removed = was.scopes.filter((scope) => !requirement.scopes.includes(scope));
    const anchors = [opAnchor, `auth:${name}`];
    if (added.length > 0) {
      add("auth-scope-added", name, "breaking", common, `auth ${requirement.scheme} now asks for ${added.join(", ")}: tokens without ${added.length === 1 ? "it" : "them"} are refused`, anchors);
    }
    if (removed.length > 0) {
      add("auth-scope-removed", name, "safe", common, `auth ${requirement.scheme} no longer asks for ${removed.join(", ")}; every token allowed before still is`, anchors);
    }
  }
  if (before.rest && after.rest) {
    const route = `route:${name}`;
    if (before.rest.path !== after.rest.path) {
      add("rest-path-changed", name, "breaking", ["rest"], `REST path changed from ${before.rest.path} to ${after.rest.path}`, [route, opAnchor]);
    }
    if (restMethodChanged) {
      add("rest-method-changed", name, "breaking", ["rest"], `REST method changed from ${before.rest.method} to ${after.rest.method}`, [route, opAnchor]);
    }
    if (before.rest.body !== after.rest.body) {
      const formDropped = before.rest.body === "form_or_json";
      add(
        formDropped ? "rest-form-body-removed" : "rest-form-body-added",
        name,
        formDropped ? "breaking" : "safe",
        ["rest"],
        formDropped ? "the REST route no longer takes form-encoded bodies" : "the REST route now takes form-encoded bodies too",
        [`body:${name}`],
      );
    }
    // A field a route binds to a header (or no longer does) moves between the header and the
    // query or body: REST clients send it where it is no longer read.
    const bothInputs = (field: string) => before.input.fields.some((f) => f.name === field) && after.input.fields.some((f) => f.name === field);
    for (const [field, was, now] of headerChanges(before.rest.headerParams, after.rest.headerParams)) {
      if (!bothInputs(field)) continue;
      const where = (binding: HeaderBinding | undefined) => (binding ? `the ${binding.header} header` : after.rest!.inQuery ? "the query" : "the body");
      add("rest-input-header-changed", `${name}.${field}`, "breaking", ["rest"], `REST carries input field ${field} in ${where(now)} now, not in ${where(was)}`, [
        route,
        `arg:${name}`,
        opAnchor,
        // The OpenAPI document's header parameters, named by their headers.
        ...[was, now].flatMap((binding) => (binding ? [`in:${after.input.name}.${binding.header}`] : [])),
      ]);
    }
    for (const [field, was, now] of headerChanges(before.rest.responseHeaders, after.rest.responseHeaders)) {
      if (now && !was) add("rest-response-header-added", `${name}.${field}`, "safe", ["rest"], `REST answers output field ${field} in the ${now.header} header too`, [route, opAnchor]);
      else if (was && !now) add("rest-response-header-removed", `${name}.${field}`, "breaking", ["rest"], `REST no longer answers the ${was.header} header (output field ${field})`, [route, opAnchor]);
      else add("rest-response-header-changed", `${name}.${field}`, "breaking", ["rest"], `REST answers output field ${field} in the ${now!.header} header now, not ${was!.header}`, [route, opAnchor]);
    }
  }
  if (before.grpc && after.grpc) {
    // A new proto package renames every service; proto-package-changed says so once.
    if (before.grpc.service !== after.grpc.service) {
      add(
        "surface-changed",
        name,
        "breaking",
        ["grpc"],
        `moved from the ${before.surface} to the ${after.surface} surface: the gRPC method moves from ${before.grpc.service} to ${after.grpc.service}`,
        [opAnchor],
      );
    } else if (before.grpc.rpc !== after.grpc.rpc) {
      add("rpc-renamed", name, "breaking", ["grpc"], `gRPC method renamed from ${before.grpc.rpc} to ${after.grpc.rpc}`, [opAnchor]);
    }
  } else if (before.surface !== after.surface) {
    add("surface-changed", name, "safe", [], `moved from the ${before.surface} to the ${after.surface} surface`, [opAnchor]);
  }
  if (before.group !== after.group) {
    add(
      "group-changed",
      name,
      "dangerous",
      common.filter((p) => p === "grpc"),
      `moved from group ${before.group} to ${after.group}: the proto messages move to another file, so generated imports change (the wire does not)`,
      [opAnchor],
    );
  }
  const oneOfRules = operationRuleDeltas(before, after);
  if (oneOfRules.length > 0) {
    const relation = combined(oneOfRules);
    // GraphQL states "exactly one of" every input field as @oneOf on the input type.
    add(`input-rules-${relation}`, name, ruleSeverity(relation, "input"), common, ruleMessage("input rules", "input", oneOfRules), [
      opAnchor,
      `arg:${name}`,
      `in:${before.input.name}.@oneOf`,
      `in:${after.input.name}.@oneOf`,
      `in:${before.input.name}`,
      `in:${after.input.name}`,
    ]);
  }
  if (before.pagination.style !== after.pagination.style) {
    add("pagination-changed", name, "dangerous", common, `pagination changed from ${before.pagination.style} to ${after.pagination.style}: paging loops in clients must change`, [
      `iterator:${name}`,
      opAnchor,
    ]);
  } else if (before.pagination.style === "token" && after.pagination.style === "token") {
    const cursors = (p: { cursorField: string; nextCursorField: string }) => `${p.cursorField} -> ${p.nextCursorField}`;
    if (cursors(before.pagination) !== cursors(after.pagination)) {
      add("pagination-changed", name, "dangerous", common, `the cursor fields changed from ${cursors(before.pagination)} to ${cursors(after.pagination)}: paging loops in clients must change`, [
        `iterator:${name}`,
        opAnchor,
      ]);
    }
  }
  if (before.description !== after.description) {
    add("description-changed", name, "safe", common, "description changed", [opAnchor]);
  }
  if (before.title !== after.title) {
    // Titles follow the name and the acronyms; the OpenAPI summary and the docs show them.
    add("title-changed", name, "safe", common, `title changed from '${before.title}' to '${after.title}'`, [`summary:${name}`]);
  }
  // Declared error codes: a client may now meet a code it never met from this call.
  for (const code of after.errors.filter((c) => !before.errors.includes(c))) {
    add("error-code-added", `${name}.${code}`, "dangerous", common, `may now answer ${code}: clients that handle each code this call answers may meet one they do not expect`, [
      opAnchor,
      `errors:${name}`,
    ]);
  }
  for (const code of before.errors.filter((c) => !after.errors.includes(c))) {
    add("error-code-removed", `${name}.${code}`, "safe", common, `no longer declares ${code}`, [opAnchor, `errors:${name}`]);
  }
  for (const cookie of before.setsCookies.filter((c) => !after.setsCookies.includes(c))) {
    add("cookie-removed", `${name}.${cookie}`, "breaking", common, `no longer sets cookie ${cookie}: callers that rely on it (a session) break`, [opAnchor, `cookies:${name}`]);
  }
  for (const cookie of after.setsCookies.filter((c) => !before.setsCookies.includes(c))) {
    add("cookie-added", `${name}.${cookie}`, "safe", common, `now sets cookie ${cookie}`, [opAnchor, `cookies:${name}`]);
  }
  if (before.deprecated !== after.deprecated) {
    add("deprecation-changed", name, "safe", common, after.deprecated ? `deprecated: ${after.deprecated}` : "no longer deprecated", [opAnchor]);
  }
  if (before.output.name !== after.output.name) {
    // GraphQL selections and fragments name the answer type; REST only names it in the schema reference.
    add(
      "output-type-renamed",
      name,
      common.includes("graphql") ? "breaking" : "dangerous",
      common.filter((p) => p !== "grpc"),
      `answer type changed from ${before.output.name} to ${after.output.name}: GraphQL fragments and typed REST clients name the old type`,
      [`outtype:${name}`, `out:${before.output.name}`, `out:${after.output.name}`],
    );
  }

  const inputContext: FieldContext = { direction: "input", subject: name, protocols: common, operation: name, anchors: [`arg:${name}`], oldIr, newIr };
  changes.push(...fieldChanges(before.input, after.input, inputContext));
  // A shared answer type is compared once, as a type; an inline or swapped answer here, field by field.
  if (!(before.output.shared && after.output.shared && before.output.name === after.output.name)) {
    changes.push(...fieldChanges(before.output, after.output, { ...inputContext, direction: "output", anchors: [] }));
  }
  return changes;
}

const operationIndex = new WeakMap<Ir, Map<string, IrOperation>>();
function operationsOf(ir: Ir): Map<string, IrOperation> {
  let index = operationIndex.get(ir);
  if (!index) operationIndex.set(ir, (index = new Map(ir.operations.map((op) => [op.name, op]))));
  return index;
}

/** Protocols whose clients reach a shared type or enum: those of every operation (kept on both sides) reaching it. */
function reachProtocols(oldIr: Ir, newIr: Ir, name: string, pick: (usage: Usage) => Map<string, Reach>, usages: [Usage, Usage], direction: keyof Reach): Protocol[] {
  const operations = new Set([...(pick(usages[0]).get(name)?.[direction] ?? []), ...(pick(usages[1]).get(name)?.[direction] ?? [])]);
  const protocols = new Set<Protocol>();
  for (const opName of operations) {
    const before = operationsOf(oldIr).get(opName);
    const after = operationsOf(newIr).get(opName);
    if (!before || !after) continue;
    for (const p of before.protocols) if (after.protocols.includes(p)) protocols.add(p);
  }
  // Shared types and enums are declared in types.proto whether or not an operation reaches them.
  protocols.add("grpc");
  return ordered(protocols);
}

function enumChanges(before: IrEnum, after: IrEnum, protocols: { input: Protocol[]; output: Protocol[]; inAnswers: boolean }): Change[] {
  const changes: Change[] = [];
  const all = ordered([...protocols.input, ...protocols.output]);
  const subject = before.name;
  const newValues = new Map(after.values.map((v) => [v.name, v]));
  const oldValues = new Map(before.values.map((v) => [v.name, v]));
  for (const value of before.values) {
    const successor = newValues.get(value.name);
    const anchors = [`enum:${subject}.${value.name}`];
    if (!successor) {
      changes.push(change("enum-value-removed", `${subject}.${value.name}`, "breaking", all, `enum ${subject} lost value '${value.name}': clients sending or expecting it break`, anchors));
    } else if (successor.protoNumber !== value.protoNumber) {
      changes.push(
        change(
          "proto-enum-value-renumbered",
          `${subject}.${value.name}`,
          "breaking",
          ["grpc"],
          `enum value ${subject}.${value.name} moved from proto number ${value.protoNumber} to ${successor.protoNumber}: a wire break for gRPC clients`,
          anchors,
        ),
      );
    } else {
      if (successor.description !== value.description) {
        changes.push(change("enum-description-changed", `${subject}.${value.name}`, "safe", all, `description of enum value ${subject}.${value.name} changed`, anchors));
      }
      if (successor.deprecated !== value.deprecated) {
        const text = successor.deprecated ? `enum value ${subject}.${value.name} is deprecated: ${successor.deprecated}` : `enum value ${subject}.${value.name} is no longer deprecated`;
        changes.push(change("enum-value-deprecation-changed", `${subject}.${value.name}`, "safe", all, text, anchors));
      }
    }
  }
  for (const value of after.values) {
    if (oldValues.has(value.name)) continue;
    // Old clients may meet the new value in answers; in inputs it only widens what is accepted.
    const inAnswers = protocols.inAnswers;
    changes.push(
      change(
        "enum-value-added",
        `${subject}.${value.name}`,
        inAnswers ? "dangerous" : "safe",
        all,
        inAnswers ? `enum ${subject} gained value '${value.name}': clients that switch over every value may meet one they do not know` : `enum ${subject} gained value '${value.name}'`,
        [`enum:${subject}.${value.name}`],
      ),
    );
  }
  if (before.description !== after.description) {
    changes.push(change("enum-description-changed", subject, "safe", all, `description of enum ${subject} changed`, [`enum:${subject}`]));
  }
  return changes;
}

/**
 * What the API-wide value rules reach, among operations kept on both sides: every protocol, the
 * json values of inputs (for the json limits) and the fields using each declared format.
 */
function operationReach(oldIr: Ir, newIr: Ir, usages: [Usage, Usage]) {
  const commonProtocols = (names: Iterable<string>) => {
    const protocols = new Set<Protocol>();
    for (const name of names) {
      const before = operationsOf(oldIr).get(name);
      const after = operationsOf(newIr).get(name);
      if (before && after) for (const p of after.protocols) if (before.protocols.includes(p)) protocols.add(p);
    }
    return ordered(protocols);
  };
  const reaching = (message: string, direction: keyof Reach) => commonProtocols(usages[1].messages.get(message)?.[direction] ?? []);
  const owner = new Map<string, string>();
  for (const op of newIr.operations) {
    owner.set(op.input.name, op.name);
    if (!op.output.shared) owner.set(op.output.name, op.name);
  }
  const oldMessages = new Map(oldIr.messages.map((m) => [m.name, m]));
  const jsonInputs = { protocols: new Set<Protocol>(), anchors: [] as string[] };
  for (const message of newIr.messages) {
    for (const field of message.fields) {
      if (field.type.kind !== "scalar" || field.type.scalar !== "json") continue;
      const protocols = reaching(message.name, "input");
      if (protocols.length === 0) continue;
      for (const p of protocols) jsonInputs.protocols.add(p);
      jsonInputs.anchors.push(`in:${message.name}.${field.name}`);
    }
  }
  const formatUses = (format: string): FormatUse[] =>
    newIr.messages.flatMap((message) =>
      message.fields
        // A field that moved to or from the format reports that itself.
        .filter((f) => f.format === format && oldMessages.get(message.name)?.fields.find((o) => o.name === f.name)?.format === format)
        .map((f) => ({
          message: message.name,
          field: f.name,
          subject: `${owner.get(message.name) ?? message.name}.${f.name}`,
          input: reaching(message.name, "input"),
          output: reaching(message.name, "output"),
        })),
    );
  return {
    every: commonProtocols(newIr.operations.map((op) => op.name)),
    jsonInputs: { protocols: ordered(jsonInputs.protocols), anchors: jsonInputs.anchors },
    formatUses,
  };
}

/** Every change between two IRs that the manifest alone can tell, in manifest order. */
export function manifestChanges(oldIr: Ir, newIr: Ir): Change[] {
  const changes: Change[] = [];
  const usages: [Usage, Usage] = [usageOf(oldIr), usageOf(newIr)];
  const oldOps = new Map(oldIr.operations.map((op) => [op.name, op]));
  const newOps = new Map(newIr.operations.map((op) => [op.name, op]));

  if (oldIr.proto.package !== newIr.proto.package) {
    changes.push(
      change("proto-package-changed", "api", "breaking", ["grpc"], `proto package changed from ${oldIr.proto.package} to ${newIr.proto.package}: every gRPC method and message is renamed`, [
        "api:package",
      ]),
    );
  }

  changes.push(...apiChanges(oldIr, newIr));
  const reached = operationReach(oldIr, newIr, usages);
  changes.push(...limitChanges(oldIr, newIr, reached.every, reached.jsonInputs));
  changes.push(...formatChanges(oldIr, newIr, reached.formatUses));

  // A removed operation and an added one with the same shape are one operation renamed.
  const removed = oldIr.operations.filter((op) => !newOps.has(op.name));
  const added = newIr.operations.filter((op) => !oldOps.has(op.name));
  const renamedAs = new Map<string, IrOperation>();
  for (const op of removed) {
    const matches = added.filter((candidate) => signature(candidate) === signature(op));
    const rivals = removed.filter((other) => signature(other) === signature(op));
    if (matches.length === 1 && rivals.length === 1) renamedAs.set(op.name, matches[0]!);
  }
  const renamedTargets = new Set([...renamedAs.values()].map((op) => op.name));

  for (const before of oldIr.operations) {
    const after = newOps.get(before.name);
    const successor = renamedAs.get(before.name);
    if (successor) {
      changes.push(
        change(
          "operation-renamed",
          before.name,
          "breaking",
          before.protocols,
          `renamed to '${successor.name}': clients calling '${before.name}' break`,
          [...operationAnchors(oldIr, before), ...operationAnchors(newIr, successor)],
          before.name,
        ),
      );
    } else if (!after) {
      changes.push(
        change("operation-removed", before.name, "breaking", before.protocols, `removed: clients calling it over ${before.protocols.join(", ")} break`, operationAnchors(oldIr, before), before.name),
      );
    } else {
      changes.push(...operationChanges(oldIr, newIr, before, after));
    }
  }
  for (const after of added) {
    if (renamedTargets.has(after.name)) continue;
    changes.push(change("operation-added", after.name, "safe", after.protocols, `added over ${after.protocols.join(", ")}`, operationAnchors(newIr, after), after.name));
    for (const protocol of after.protocols) {
      const stale = sinceAlreadyReleased(oldIr, after.name, protocol, after[protocol]!.since);
      if (stale) changes.push(stale);
    }
  }

  const newMessages = new Map(newIr.messages.filter((m) => m.shared).map((m) => [m.name, m]));
  const oldShared = oldIr.messages.filter((m) => m.shared);
  for (const before of oldShared) {
    const after = newMessages.get(before.name);
    if (!after) {
      changes.push(
        change("type-removed", before.name, "dangerous", ["grpc"], `type ${before.name} was removed; no operation reaches it any more, but code generated from types.proto may name it`, [
          `in:${before.name}`,
          `out:${before.name}`,
        ]),
      );
      continue;
    }
    const inputProtocols = reachProtocols(oldIr, newIr, before.name, (u) => u.messages, usages, "input");
    const outputProtocols = reachProtocols(oldIr, newIr, before.name, (u) => u.messages, usages, "output");
    const usedAsInput = usages.some((u) => (u.messages.get(before.name)?.input.size ?? 0) > 0);
    const usedAsOutput = usages.some((u) => (u.messages.get(before.name)?.output.size ?? 0) > 0);
    const directions: Direction[] = [...(usedAsInput ? ["input" as const] : []), ...(usedAsOutput || !usedAsInput ? ["output" as const] : [])];
    if (before.description !== after.description) {
      changes.push(
        change("type-description-changed", before.name, "safe", [...inputProtocols, ...outputProtocols], `description of type ${before.name} changed`, [`in:${before.name}`, `out:${before.name}`]),
      );
    }
    // Used both ways, a type reports each way; changes that do not depend on the way merge below.
    for (const direction of directions) {
      changes.push(...fieldChanges(before, after, { direction, subject: before.name, protocols: direction === "input" ? inputProtocols : outputProtocols, anchors: [], oldIr, newIr }));
    }
  }
  const oldSharedNames = new Set(oldShared.map((m) => m.name));
  for (const after of newMessages.values()) {
    if (!oldSharedNames.has(after.name)) {
      changes.push(change("type-added", after.name, "safe", ["grpc"], `type ${after.name} was added`, [`in:${after.name}`, `out:${after.name}`]));
    }
  }

  const newEnums = new Map(newIr.enums.map((e) => [e.name, e]));
  for (const before of oldIr.enums) {
    const after = newEnums.get(before.name);
    if (!after) {
      changes.push(
        change("enum-removed", before.name, "dangerous", ["grpc"], `enum ${before.name} was removed; no field uses it any more, but code generated from types.proto may name it`, [
          `enum:${before.name}`,
        ]),
      );
      continue;
    }
    changes.push(
      ...enumChanges(before, after, {
        input: reachProtocols(oldIr, newIr, before.name, (u) => u.enums, usages, "input"),
        output: reachProtocols(oldIr, newIr, before.name, (u) => u.enums, usages, "output"),
        inAnswers: usages.some((u) => (u.enums.get(before.name)?.output.size ?? 0) > 0),
      }),
    );
  }
  const oldEnumNames = new Set(oldIr.enums.map((e) => e.name));
  for (const after of newIr.enums) {
    if (!oldEnumNames.has(after.name)) changes.push(change("enum-added", after.name, "safe", ["grpc"], `enum ${after.name} was added`, [`enum:${after.name}`]));
  }

  // A shared type used both ways reports a direction-free change (renumbering, a description) once per way: keep one, seen by both.
  const byId = new Map<string, Change>();
  for (const c of changes) {
    const first = byId.get(c.id);
    if (!first) byId.set(c.id, c);
    else {
      first.protocols = ordered([...first.protocols, ...c.protocols]);
      first.anchors = [...new Set([...first.anchors, ...c.anchors])];
    }
  }
  return [...byId.values()];
}
