// The public surface of each generated SDK, read from the IR through the names its emitter uses:
// package, methods, iterators, exported types, their fields and option names. Code written against
// an SDK names these, so a name that disappears breaks that code at compile time even when the
// wire does not change (an iterator dropped with `pagination: page`). Each language plugs in with
// one function; the diff compares both sides' surfaces and reports each difference for its language.
import { clientClassOf } from "../emit/client.js";
import { exportedInterfaces } from "../emit/typescript.js";
import type { Ir } from "../ir.js";
import { SDK_LANGUAGES, type SdkLanguage, type Severity } from "./change.js";

export const SURFACE_KINDS = ["package", "method", "iterator", "type", "field", "enum-value", "option"] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

export interface SurfaceEntry {
  kind: SurfaceKind;
  /** The name as code writes it, qualified by its owner: `AdminClient.iterateUsers`, `User.email`. */
  name: string;
  /**
   * Anchors of the manifest changes that can explain the entry appearing or vanishing, most
   * specific first: `iterator:users`, `op:users`, `in:UsersRequest.query`, `enum:KeyStatus.retired`,
   * `package:npm.sdk`. (`method:` and `iterator:` are carried by changes that rename methods.)
   */
  anchors: string[];
}

/** One language's surface of an IR. Entries of types that vanish as a whole need not list their fields. */
export type SurfaceOf = (ir: Ir) => SurfaceEntry[];

/** The TypeScript SDK: client methods and iterators, the types of types.ts and their fields, the npm package. */
export function typescriptSurface(ir: Ir): SurfaceEntry[] {
  const entries: SurfaceEntry[] = [{ kind: "package", name: ir.api.sdkPackage, anchors: ["package:npm.sdk"] }];
  for (const op of ir.operations) {
    const client = clientClassOf(op);
    entries.push({ kind: "method", name: `${client}.${op.camelName}`, anchors: [`method:${op.name}`, `op:${op.name}`] });
    if (op.iteratorName !== undefined) {
      entries.push({ kind: "iterator", name: `${client}.${op.iteratorName}`, anchors: [`iterator:${op.name}`, `op:${op.name}`] });
    }
  }
  for (const e of ir.enums) {
    entries.push({ kind: "type", name: e.name, anchors: [`enum:${e.name}`] });
    for (const value of e.values) entries.push({ kind: "enum-value", name: `${e.name}.${value.name}`, anchors: [`enum:${e.name}.${value.name}`] });
  }
  for (const message of ir.messages) {
    const { output, input } = exportedInterfaces(message);
    for (const [typeName, prefix] of [[output, "out"], [input, "in"]] as const) {
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
 * The SDKs whose surface the diff compares. Python and Go plug in here with a function built on
 * their emitter's naming (`pythonSurface(ir)` from emit/python.ts), listing the same kinds of entry.
 */
export const SDK_SURFACES: Partial<Record<SdkLanguage, SurfaceOf>> = {
  typescript: typescriptSurface,
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
  method: "method",
  iterator: "iterator",
  type: "exported type",
  field: "field",
  "enum-value": "enum value",
  option: "option",
};

/**
 * Every name one side's SDK has and the other's lacks: a removed name breaks code that uses it, an
 * added one is safe. Fields of a type removed or added as a whole are left out (the type says it).
 */
export function surfaceFindings(oldIr: Ir, newIr: Ir, surfaces: Partial<Record<SdkLanguage, SurfaceOf>> = SDK_SURFACES): SurfaceFinding[] {
  const findings: SurfaceFinding[] = [];
  for (const language of SDK_LANGUAGES) {
    const surfaceOf = surfaces[language];
    if (!surfaceOf) continue;
    const key = (e: SurfaceEntry) => `${e.kind} ${e.name}`;
    const before = new Map(surfaceOf(oldIr).map((e) => [key(e), e]));
    const after = new Map(surfaceOf(newIr).map((e) => [key(e), e]));
    const typeNames = (side: Map<string, SurfaceEntry>) => new Set([...side.values()].filter((e) => e.kind === "type").map((e) => e.name));
    const [oldTypes, newTypes] = [typeNames(before), typeNames(after)];
    const ownerKept = (entry: SurfaceEntry) => {
      if (entry.kind !== "field" && entry.kind !== "enum-value") return true;
      const owner = entry.name.slice(0, entry.name.lastIndexOf("."));
      return oldTypes.has(owner) && newTypes.has(owner);
    };
    const report = (entry: SurfaceEntry, removed: boolean) =>
      findings.push({
        source: "sdk",
        language,
        kind: `${entry.kind}-${removed ? "removed" : "added"}`,
        severity: removed ? "breaking" : "safe",
        message: removed
          ? `${KIND_WORDS[entry.kind]} ${entry.name} was removed from the ${language} SDK: code that uses it no longer compiles`
          : `${KIND_WORDS[entry.kind]} ${entry.name} was added to the ${language} SDK`,
        subject: `${language}.${entry.name}`,
        anchors: entry.anchors,
      });
    for (const [k, entry] of before) if (!after.has(k) && ownerKept(entry)) report(entry, true);
    for (const [k, entry] of after) if (!before.has(k) && ownerKept(entry)) report(entry, false);
  }
  return findings;
}
