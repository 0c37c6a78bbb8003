// Contract-level checks on the artifacts both sides regenerate in-process: `buf breaking` on the
// protobuf descriptors and @graphql-inspector/core on the GraphQL schema (the OpenAPI comparison
// lives in openapi-rules.ts). Each turns the tool's findings into Findings anchored to IR names.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { CriticalityLevel, diff as diffGraphqlSchemas } from "@graphql-inspector/core";
import { printSchema, type GraphQLSchema } from "graphql";
import type { Ir, Protocol } from "../ir/ir.js";
import { buildGraphqlSchema } from "../emit/graphql.js";
import { buildDescriptors } from "../emit/proto-descriptors.js";
import { planProto } from "../emit/proto-plan.js";
import type { Severity, Source } from "./change.js";
import type { ContractNames } from "./names.js";
import { customGraphqlScalars, mapScalarName } from "../sdk/scalars.js";

export interface Finding {
  source: Exclude<Source, "manifest" | "sdk">;
  protocol: Protocol;
  /** The tool's name for the kind of change (FIELD_REMOVED, RPC_NO_DELETE, ...). */
  kind: string;
  severity: Severity;
  message: string;
  /** Where it is, in the tool's own names (`User.email`, `AdminService.DeleteUser`); part of a contract-only change's id. */
  subject: string;
  /** Anchors in IR names, most specific first. */
  anchors: string[];
}

/** WIRE_JSON keeps every wire and JSON encoding stable; the two deletion rules add what a gRPC caller notices first. */
export const BUF_BREAKING_CONFIG = JSON.stringify({ version: "v2", breaking: { use: ["WIRE_JSON", "PACKAGE_SERVICE_NO_DELETE", "RPC_NO_DELETE"] } });

const BUF_PLATFORM_PACKAGES: Record<string, string> = {
  "darwin arm64": "@bufbuild/buf-darwin-arm64",
  "darwin x64": "@bufbuild/buf-darwin-x64",
  "linux arm64": "@bufbuild/buf-linux-aarch64",
  "linux x64": "@bufbuild/buf-linux-x64",
  "win32 arm64": "@bufbuild/buf-win32-arm64",
  "win32 x64": "@bufbuild/buf-win32-x64",
};

/** The buf binary itself when its platform package is installed (skipping the Node wrapper saves a Node start-up). */
function bufCommand(): { command: string; prefix: string[] } {
  const require = createRequire(import.meta.url);
  const platformPackage = endianness() === "LE" ? BUF_PLATFORM_PACKAGES[`${process.platform} ${arch()}`] : undefined;
  if (platformPackage) {
    try {
      return { command: require.resolve(`${platformPackage}/bin/buf${process.platform === "win32" ? ".exe" : ""}`), prefix: [] };
    } catch {
      // fall through to the wrapper, which knows how to find or fetch the binary
    }
  }
  return { command: process.execPath, prefix: [require.resolve("@bufbuild/buf/bin/buf")] };
}

/** A FileDescriptorSet without source info: buf wants spans with every location, and the check needs none. */
function descriptorSet(ir: Ir): Uint8Array {
  const files = buildDescriptors(planProto(ir)).map((file) => ({ ...file, sourceCodeInfo: undefined }));
  return toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }));
}

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

interface BufViolation {
  type: string;
  message: string;
}

/** Runs `buf breaking` on both sides' descriptor sets (no .proto compile) and anchors every violation. */
export async function bufFindings(oldIr: Ir, newIr: Ir, names: ContractNames): Promise<Finding[]> {
  const dir = mkdtempSync(join(tmpdir(), "apigen-diff-"));
  try {
    const oldImage = join(dir, "old.binpb");
    const newImage = join(dir, "new.binpb");
    writeFileSync(oldImage, descriptorSet(oldIr));
    writeFileSync(newImage, descriptorSet(newIr));
    const { command, prefix } = bufCommand();
    const result = await run(command, [...prefix, "breaking", newImage, "--against", oldImage, "--error-format", "json", "--config", BUF_BREAKING_CONFIG]);
    // buf exits 100 when it found breaking changes; anything else but 0 is a failure to run.
    if (result.code !== 0 && result.code !== 100) {
      throw new Error(`buf breaking failed (exit ${result.code}): ${result.stderr.trim().split("\n")[0] ?? ""}`);
    }
    return result.stdout
      .split("\n")
      .filter((line) => line.trim().startsWith("{"))
      .map((line) => bufFinding(JSON.parse(line) as BufViolation, names));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function bufFinding(violation: BufViolation, names: ContractNames): Finding {
  const text = violation.message.replace(/ See https?:\S+.*$/, "");
  const quoted = (pattern: RegExp) => text.match(pattern)?.[1];
  const anchors: string[] = [];
  let subject = "";

  const message = quoted(/on message "([^"]+)"/) ?? quoted(/message "([^"]+)" was deleted/);
  const enumName = quoted(/on enum "([^"]+)"/);
  const rpc = quoted(/RPC "([^"]+)"/);
  const service = quoted(/on service "([^"]+)"/) ?? quoted(/service "([^"]+)" was deleted/);
  if (message) {
    // Map fields are nested *Entry messages: they belong to the field of the outer message.
    const outer = message.split(".")[0]!;
    const prefixes = [...(names.protoMessages.get(outer) ?? [])];
    if (prefixes.length === 0 && outer.endsWith("Entry")) {
      // buf names the entry alone (ScoresEntry): the map field `scores` of whichever message has one.
      const mapField = outer.slice(0, -"Entry".length).replace(/[A-Z]/g, (c, i: number) => `${i === 0 ? "" : "_"}${c.toLowerCase()}`);
      for (const [key, fieldNames] of names.protoFields) {
        if (fieldNames.has(mapField)) for (const prefix of names.protoMessages.get(key.split("#")[0]!) ?? []) anchors.push(`${prefix}.${mapField}`);
      }
    }
    const number = quoted(/[Ff]ield "(\d+)"/);
    const fields = new Set<string>();
    for (const name of [quoted(/with name "([^"]+)"/), ...(text.match(/changed name from "([^"]+)" to "([^"]+)"/)?.slice(1) ?? [])]) {
      if (name) fields.add(name);
    }
    if (number) for (const name of names.protoFields.get(`${outer}#${number}`) ?? []) fields.add(name);
    for (const field of fields) for (const prefix of prefixes) anchors.push(`${prefix}.${field}`);
    anchors.push(...prefixes);
    subject = fields.size > 0 ? `${outer}.${[...fields][0]}` : outer;
  } else if (enumName) {
    const number = quoted(/[Ee]num value "(\d+)"/);
    const values = number ? [...(names.enumValues.get(`${enumName}#${number}`) ?? [])] : [];
    anchors.push(...values.map((v) => `enum:${enumName}.${v}`), `enum:${enumName}`);
    subject = number ? `${enumName}.${number}` : enumName;
  } else if (rpc) {
    const op = names.rpcs.get(`${service ?? ""}.${rpc}`) ?? names.rpcs.get(rpc);
    if (op) anchors.push(`op:${op}`);
    subject = service ? `${service}.${rpc}` : rpc;
  } else if (service) {
    for (const [key, op] of names.rpcs) if (key.startsWith(`${service}.`)) anchors.push(`op:${op}`);
    subject = service;
  }
  return { source: "buf", protocol: "grpc", kind: violation.type, severity: "breaking", message: text, subject: subject || violation.type, anchors };
}

/**
 * In the bundled CLI graphql-inspector and the emitters share one graphql-js. A test runner may load
 * graphql twice (ESM for this code, CommonJS for the inspector); then the inspector gets schemas
 * rebuilt from the SDL by its own copy, since graphql-js refuses types from another copy.
 */
async function inspectSchemas(oldSchema: GraphQLSchema, newSchema: GraphQLSchema) {
  try {
    return await diffGraphqlSchemas(oldSchema, newSchema);
  } catch (error) {
    if (!/another module or realm/.test((error as Error).message)) throw error;
    const graphql = createRequire(import.meta.url)("graphql") as typeof import("graphql");
    return diffGraphqlSchemas(graphql.buildSchema(printSchema(oldSchema)), graphql.buildSchema(printSchema(newSchema)));
  }
}

/** The GraphQL scalars the toolchain declares for field types (DateTime, Bytes, ...). */
const CUSTOM_SCALARS: ReadonlySet<string> = new Set(customGraphqlScalars().map((scalar) => scalar.name));

const GRAPHQL_SEVERITY: Record<CriticalityLevel, Severity> = {
  [CriticalityLevel.Breaking]: "breaking",
  [CriticalityLevel.Dangerous]: "dangerous",
  [CriticalityLevel.NonBreaking]: "safe",
};

/** @graphql-inspector/core on the two graphql-js schemas built in-process (the SDL is never re-parsed). */
export async function graphqlFindings(oldIr: Ir, newIr: Ir, names: ContractNames): Promise<Finding[]> {
  const changes = await inspectSchemas(buildGraphqlSchema(oldIr), buildGraphqlSchema(newIr));
  // The scalars of the map<V> fields either side has (IntMap, GenreMap) come and go with their fields.
  const mapScalars = new Set([oldIr, newIr].flatMap((ir) => ir.messages.flatMap((m) => m.fields.flatMap((f) => (f.mapValue ? [mapScalarName(f.mapValue)] : [])))));
  return changes.map((c) => {
    const path = c.path ?? "";
    const [typeName = "", fieldName, argumentName] = path.split(".");
    const anchors: string[] = [];
    if (typeName === "Query" || typeName === "Mutation") {
      if (fieldName === undefined) {
        for (const op of names.rootOperations.get(typeName) ?? []) anchors.push(`op:${op}`);
      } else if (argumentName !== undefined) {
        anchors.push(`arg:${fieldName}`, `op:${fieldName}`);
      } else {
        if (c.type === "FIELD_TYPE_CHANGED") anchors.push(`outtype:${fieldName}`);
        anchors.push(`op:${fieldName}`);
      }
    } else if (CUSTOM_SCALARS.has(typeName) || mapScalars.has(typeName)) {
      anchors.push(`scalar:${typeName}`);
    } else if (names.tagEnums.has(typeName)) {
      // A tagged union's tag enum: the enum is its tag, a value one of its variants (or the tag's, when the tag comes or goes).
      for (const { message, tag } of names.tagEnums.get(typeName)!) anchors.push(...(fieldName === undefined ? [] : [`out:${message}.${fieldName}`]), `out:${message}.${tag}`);
    } else {
      const prefixes = [...(names.graphqlTypes.get(typeName) ?? [])];
      if (fieldName !== undefined) anchors.push(...prefixes.map((prefix) => `${prefix}.${fieldName}`));
      anchors.push(...prefixes);
    }
    return {
      source: "graphql-inspector" as const,
      protocol: "graphql" as const,
      kind: String(c.type),
      severity: GRAPHQL_SEVERITY[c.criticality.level],
      message: c.message,
      subject: path || String(c.type),
      anchors,
    };
  });
}
