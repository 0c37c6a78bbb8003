// The public surface of each generated SDK, read from the IR through the names its emitter uses:
// package, clients and their options, methods, their keyword arguments, iterators, exported types
// and their fields. Code written against an SDK names these, so a name that disappears breaks that
// code even when the wire does not change (an iterator dropped with `pagination: page`). Each
// language plugs in with one function; the diff compares both sides' surfaces and reports each
// difference for its language.
import { clientClasses } from "../emit/operation-text.js";
import { goNames } from "../sdk/go-names.js";
import { pythonArgumentName } from "../sdk/python-names.js";
import { pythonView } from "../sdk/python.js";
import { buildSdkFacts } from "../sdk/sdk-facts.js";
import { exportedInterfaces } from "../emit/typescript.js";
import { openEnumName } from "../ir/passes/names.js";
import { clientOf, type Ir } from "../ir/ir.js";
import { SDK_LANGUAGES, type SdkLanguage, type Severity } from "./change.js";

export const SURFACE_KINDS = ["package", "client", "option", "method", "argument", "iterator", "type", "field", "enum-value"] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

/** Kinds that belong to an owner named before their last dot: reported only while the owner stays on both sides. */
const OWNED: ReadonlySet<SurfaceKind> = new Set(["option", "argument", "field", "enum-value"]);

export interface SurfaceEntry {
  kind: SurfaceKind;
  /**
   * The name as code writes it, qualified by its owner: `AdminClient.iterateUsers`, `User.email`,
   * `AdminClient.users.query` (a keyword argument of a method).
   */
  name: string;
  /**
   * Anchors of the manifest changes that can explain the entry appearing or vanishing, most
   * specific first: `iterator:users`, `op:users`, `in:UsersRequest.query`, `enum:KeyStatus.retired`,
   * `package:npm.sdk`. (`method:` and `iterator:` are carried by changes that rename methods.)
   */
  anchors: string[];
}

/** One language's surface of an IR. */
export type SurfaceOf = (ir: Ir) => SurfaceEntry[];

/** The TypeScript SDK: client methods and iterators, the types of its types module and their fields, the npm package. */
export function typescriptSurface(ir: Ir): SurfaceEntry[] {
  const entries: SurfaceEntry[] = [{ kind: "package", name: ir.api.sdkPackage, anchors: ["package:npm.sdk"] }];
  // Their options come from the runtime, not the manifest.
  for (const client of clientClasses(ir)) entries.push({ kind: "client", name: client, anchors: [] });
  for (const op of ir.operations) {
    const client = clientOf(ir, op).name;
    entries.push({ kind: "method", name: `${client}.${op.camelName}`, anchors: [`method:${op.name}`, `op:${op.name}`] });
    if (op.iteratorName !== undefined) {
      entries.push({ kind: "iterator", name: `${client}.${op.iteratorName}`, anchors: [`iterator:${op.name}`, `op:${op.name}`] });
    }
  }
  for (const e of ir.enums) {
    // Beside the enum, its open type, which answers use (GenreOrUnknown).
    entries.push({ kind: "type", name: e.name, anchors: [`enum:${e.name}`] }, { kind: "type", name: openEnumName(e.name), anchors: [`enum:${e.name}`] });
    for (const value of e.values) entries.push({ kind: "enum-value", name: `${e.name}.${value.name}`, anchors: [`enum:${e.name}.${value.name}`] });
  }
  for (const message of ir.messages) {
    const { output, input } = exportedInterfaces(message);
    for (const [typeName, prefix] of [
      [output, "out"],
      [input, "in"],
    ] as const) {
      if (typeName === undefined) continue;
      entries.push({ kind: "type", name: typeName, anchors: [`${prefix}:${message.name}`] });
      for (const field of message.fields) {
        entries.push({ kind: "field", name: `${typeName}.${field.name}`, anchors: [`${prefix}:${message.name}.${field.name}`, `${prefix}:${message.name}`] });
      }
    }
  }
  return entries;
}

/**
 * The Python SDK, read from the view model its templates lay out, so that every name is the
 * emitter's own (keyword escaping included): distribution and module, the sync and async clients
 * with their options, methods, keyword arguments and iterators, the answer dataclasses and input
 * TypedDicts with their fields, the enums (Literal types) with their values.
 */
export function pythonSurface(ir: Ir): SurfaceEntry[] {
  const view = pythonView(ir, buildSdkFacts(ir));
  const declared = (declaration: string) => /^\w+/.exec(declaration)![0];
  const entries: SurfaceEntry[] = [
    { kind: "package", name: view.distribution, anchors: ["package:python.distribution"] },
    { kind: "package", name: `import ${view.module}`, anchors: ["package:python.module"] },
  ];
  const inputs = new Map(ir.operations.map((op) => [op.name, op.input]));
  for (const client of view.clients) {
    entries.push({ kind: "client", name: client.name, anchors: [] });
    for (const option of client.params) entries.push({ kind: "option", name: `${client.name}.${declared(option)}`, anchors: [] });
    for (const method of client.methods) {
      const op = JSON.parse(method.key) as string;
      const input = inputs.get(op)!;
      entries.push({ kind: "method", name: `${client.name}.${method.name}`, anchors: [`method:${op}`, `op:${op}`] });
      for (const param of method.params) {
        const field = input.fields.find((f) => pythonArgumentName(f.name) === declared(param));
        entries.push({ kind: "argument", name: `${client.name}.${method.name}.${declared(param)}`, anchors: [...(field ? [`in:${input.name}.${field.name}`] : []), `op:${op}`] });
      }
      for (const iterator of method.iterators) entries.push({ kind: "iterator", name: `${client.name}.${iterator.name}`, anchors: [`iterator:${op}`, `op:${op}`] });
    }
  }
  for (const e of ir.enums) {
    entries.push({ kind: "type", name: e.name, anchors: [`enum:${e.name}`] });
    for (const value of e.values) entries.push({ kind: "enum-value", name: `${e.name}.${value.name}`, anchors: [`enum:${e.name}.${value.name}`] });
  }
  const messages = new Map(ir.messages.map((m) => [m.name, m]));
  for (const answer of view.answerClasses) {
    const message = messages.get(JSON.parse(answer.message) as string)!;
    entries.push({ kind: "type", name: answer.name, anchors: [`out:${message.name}`] });
    // The dataclass has one attribute per field, in the field's order.
    answer.fields.forEach((attribute, index) => {
      const field = message.fields[index]!;
      entries.push({ kind: "field", name: `${answer.name}.${attribute.attr}`, anchors: [`out:${message.name}.${field.name}`, `out:${message.name}`] });
    });
  }
  for (const input of view.inputDicts) {
    const message = ir.messages.find((m) => m.shared && m.usedAsInput && m.graphqlInputName === input.name)!;
    entries.push({ kind: "type", name: input.name, anchors: [`in:${message.name}`] });
    // A TypedDict's keys are the wire names.
    for (const field of message.fields) entries.push({ kind: "field", name: `${input.name}.${field.name}`, anchors: [`in:${message.name}.${field.name}`, `in:${message.name}`] });
  }
  return entries;
}

/**
 * The Go SDK, read from the names its emitter uses (sdk/go-names.ts): the module and package, the
 * clients with their methods and iterators, the structs (input and answer) with their fields, the
 * enum types with their constants.
 */
export function goSurface(ir: Ir): SurfaceEntry[] {
  const names = goNames(ir, buildSdkFacts(ir));
  // The module as the manifest names it: the /vN suffix follows api.version, and a major bump is
  // already reported as the version line, not as a package that vanished.
  const entries: SurfaceEntry[] = [{ kind: "package", name: `${ir.api.go.module} (package ${ir.api.go.package})`, anchors: ["package:go.module", "package:go.package"] }];
  // Go spells every identifier with api.acronyms (and Go's own initialisms), so a change of the
  // acronyms can explain any Go name appearing or vanishing.
  const named = (anchors: string[]) => [...anchors, "api:acronyms"];
  for (const client of names.clients) {
    entries.push({ kind: "client", name: client.name, anchors: [] });
    for (const method of client.methods) {
      const op = method.operation;
      entries.push({ kind: "method", name: `${client.name}.${method.name}`, anchors: named([`method:${op}`, `op:${op}`]) });
      if (method.iterator !== undefined) entries.push({ kind: "iterator", name: `${client.name}.${method.iterator}`, anchors: named([`iterator:${op}`, `op:${op}`]) });
    }
  }
  // One struct per message, in the IR's order (an operation's inline input is <Method>Input).
  for (const message of ir.messages) {
    const struct = names.struct.get(message.name)!;
    const prefix = message.usedAsInput && !message.usedAsOutput ? "in" : "out";
    entries.push({ kind: "type", name: struct, anchors: named([`${prefix}:${message.name}`]) });
    names.fields.get(message.name)!.forEach((field, i) => {
      const fieldName = message.fields[i]!.name;
      entries.push({ kind: "field", name: `${struct}.${field}`, anchors: named([`api:go.field_names.${fieldName}`, `${prefix}:${message.name}.${fieldName}`, `${prefix}:${message.name}`]) });
    });
  }
  for (const e of ir.enums) {
    const type = names.enumType.get(e.name)!;
    entries.push({ kind: "type", name: type, anchors: named([`enum:${e.name}`]) });
    names.enumValues.get(e.name)!.forEach((value, i) => {
      entries.push({ kind: "enum-value", name: `${type}.${value}`, anchors: named([`enum:${e.name}.${e.values[i]!.name}`]) });
    });
  }
  return entries;
}

/** The SDKs whose surface the diff compares. */
export const SDK_SURFACES: Partial<Record<SdkLanguage, SurfaceOf>> = {
  typescript: typescriptSurface,
  python: pythonSurface,
  go: goSurface,
};

export interface SurfaceFinding {
  source: "sdk";
  language: SdkLanguage;
  kind: string;
  severity: Severity;
  message: string;
  /** `<language>.<name>`: part of the id when no manifest change explains it. */
  subject: string;
  anchors: string[];
}

const KIND_WORDS: Record<SurfaceKind, string> = {
  package: "package",
  client: "client",
  option: "option",
  method: "method",
  argument: "keyword argument",
  iterator: "iterator",
  type: "exported type",
  field: "field",
  "enum-value": "enum value",
};

/**
 * Every name one side's SDK has and the other's lacks: a removed name breaks code that uses it, an
 * added one is safe. The options, arguments, fields and values of an owner that comes or goes as a
 * whole are left to the owner.
 */
export function surfaceFindings(oldIr: Ir, newIr: Ir, surfaces: Partial<Record<SdkLanguage, SurfaceOf>> = SDK_SURFACES): SurfaceFinding[] {
  const findings: SurfaceFinding[] = [];
  for (const language of SDK_LANGUAGES) {
    const surfaceOf = surfaces[language];
    if (!surfaceOf) continue;
    const key = (e: SurfaceEntry) => `${e.kind} ${e.name}`;
    const before = new Map(surfaceOf(oldIr).map((e) => [key(e), e]));
    const after = new Map(surfaceOf(newIr).map((e) => [key(e), e]));
    const owners = (side: Map<string, SurfaceEntry>) => new Set([...side.values()].filter((e) => !OWNED.has(e.kind)).map((e) => e.name));
    const [oldOwners, newOwners] = [owners(before), owners(after)];
    const ownerKept = (entry: SurfaceEntry) => {
      if (!OWNED.has(entry.kind)) return true;
      const owner = entry.name.slice(0, entry.name.lastIndexOf("."));
      return oldOwners.has(owner) && newOwners.has(owner);
    };
    const report = (entry: SurfaceEntry, removed: boolean) =>
      findings.push({
        source: "sdk",
        language,
        kind: `${entry.kind}-${removed ? "removed" : "added"}`,
        severity: removed ? "breaking" : "safe",
        message: removed
          ? `${KIND_WORDS[entry.kind]} ${entry.name} was removed from the ${language} SDK: code that uses it breaks`
          : `${KIND_WORDS[entry.kind]} ${entry.name} was added to the ${language} SDK`,
        subject: `${language}.${entry.name}`,
        anchors: entry.anchors,
      });
    for (const [k, entry] of before) if (!after.has(k) && ownerKept(entry)) report(entry, true);
    for (const [k, entry] of after) if (!before.has(k) && ownerKept(entry)) report(entry, false);
  }
  return findings;
}
