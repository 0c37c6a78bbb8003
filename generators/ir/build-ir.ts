// Turns a schema-valid manifest into the IR, checking everything a JSON Schema cannot say
// (references, name collisions, protocol and flag consistency). All problems are reported at once.
// The rules of one concern live in a pass of their own (generators/ir/passes/): names, auth, routes,
// pagination, versions, field rules, packages; this module walks the manifest and joins them.
import { protoCamelCase, safeObjectProperty } from "@bufbuild/protobuf/reflect";
import { BUILTIN_FORMAT_RULES } from "../../runtime/formats.js";
import type { Diagnostic, SourcePosition } from "../load/diagnostics.js";
import { ManifestError } from "../load/diagnostics.js";
import type { LoadedManifest, PathSegment, RawField, RawFields } from "../load/load.js";
import { assignNumbers, type FieldNumberLock } from "../load/lock.js";
import { didYouMean, upperSnakeCase } from "./naming.js";
import { apiFeatures, authSettings, checkAuth, errorCodesOf, resolveAuthSchemes } from "./passes/auth.js";
import { clientName as clientNameOf, groupName, iteratorName, operationNames, serviceName as serviceNameOf } from "./passes/names.js";
import { resolveConstraints } from "./passes/constraints.js";
import { resolvePackages } from "./passes/packages.js";
import { pickDocExamples } from "./passes/examples.js";
import { resolvePagination } from "./passes/pagination.js";
import type { Report } from "./passes/report.js";
import { checkRouteDeclaration, DEFAULT_REST_PREFIX, restBinding } from "./passes/routes.js";
import { checkAcceptedVersions, checkMinimumVersions } from "./passes/versions.js";
import {
  clientRoleOf,
  PROTOCOLS,
  SCALARS,
  type ClientRole,
  type IrClient,
  type IrFormat,
  type Ir,
  type IrEnum,
  type IrField,
  type IrMessage,
  type IrOperation,
  type Scalar,
  type Surface,
  type TypeRef,
} from "./ir.js";

const DEFAULT_ACRONYMS = ["OIDC", "SAML", "SCIM", "JWT", "FGA"];
/** Type names other languages use, and the manifest's word for each. */
const TYPE_ALIASES: Record<string, Scalar> = {
  boolean: "bool",
  integer: "int64",
  int: "int64",
  long: "int64",
  str: "string",
  text: "string",
  number: "float64",
  float: "float64",
  double: "float64",
  object: "json",
  dict: "map",
};
/** Names GraphQL or this toolchain's SDL already uses: root types, built-in and custom scalars. */
const GRAPHQL_RESERVED = new Set(["Query", "Mutation", "Subscription", "String", "Int", "Float", "Boolean", "ID", "Int64", "Map", "JSON"]);
/** Writes named after one of these verbs leave the same state when repeated with the same input. */
const IDEMPOTENT_VERBS = new Set(["update", "delete", "remove"]);

interface ParsedTypeExpr {
  base: string;
  list: boolean;
  required: boolean;
}

function parseTypeExpr(expr: string): ParsedTypeExpr {
  const required = expr.endsWith("!");
  const bare = required ? expr.slice(0, -1) : expr;
  const list = bare.endsWith("[]");
  return { base: list ? bare.slice(0, -2) : bare, list, required };
}

export function buildIr(loaded: LoadedManifest, lock: FieldNumberLock): Ir {
  const { raw, file } = loaded;
  const diagnostics: Diagnostic[] = [];
  const report: Report = (code, path, subject, message, which = "value") => {
    diagnostics.push({ code, file, position: loaded.locate(path, which), subject, message });
  };
  const nextLock: FieldNumberLock = structuredClone(lock);

  const acronyms = new Set(raw.api.acronyms ?? DEFAULT_ACRONYMS);
  const groupTitles = raw.api.groups ?? {};
  const enumsRaw = raw.enums ?? {};
  const typesRaw = raw.types ?? {};
  const protoPackage = raw.api.proto_package;
  const protoDirectory = protoPackage.replace(/\./g, "/");
  const typesFile = `${protoDirectory}/types.proto`;
  const serviceFile = (surface: "admin" | "user") => `${protoDirectory}/${surface}_service.proto`;
  const declaredSurfaces = raw.api.surfaces ?? {};
  const serviceName = (surface: ClientRole) => declaredSurfaces[surface]?.service ?? serviceNameOf(surface, acronyms);
  const clientName = (surface: ClientRole) => declaredSurfaces[surface]?.client ?? clientNameOf(surface, acronyms);

  // ---- enums ----
  const enumValueOwners = new Map<string, string>();
  const enums: IrEnum[] = Object.entries(enumsRaw).map(([name, rawEnum]) => {
    const entries: [string, string][] = Array.isArray(rawEnum.values) ? rawEnum.values.map((v) => [v, ""]) : Object.entries(rawEnum.values);
    const prefix = upperSnakeCase(name);
    const { numbers, reserved } = assignNumbers(
      (nextLock.enums[name] ??= {}),
      entries.map(([v]) => v),
    );
    const protoNames = new Map<string, string>();
    const values = entries.map(([value, description], index) => {
      const valuePath = ["enums", name, "values", Array.isArray(rawEnum.values) ? index : value];
      const protoName = `${prefix}_${upperSnakeCase(value)}`;
      const clash = protoNames.get(protoName);
      if (clash !== undefined) {
        report("proto-name-clash", valuePath, `enum '${name}'`, `values '${clash}' and '${value}' both become ${protoName} in proto; rename one`);
      } else if (protoName === `${prefix}_UNSPECIFIED`) {
        report("proto-zero-value-name", valuePath, `enum '${name}'`, `value '${value}' becomes ${protoName} in proto, the name of the zero value; rename it`);
      } else {
        const other = enumValueOwners.get(protoName);
        if (other !== undefined) {
          report(
            "proto-name-clash",
            valuePath,
            `enum '${name}'`,
            `value '${value}' becomes ${protoName} in proto, which enum '${other}' already declares (proto enum values share one scope); rename one`,
          );
        }
        enumValueOwners.set(protoName, name);
      }
      protoNames.set(protoName, value);
      if (["true", "false", "null"].includes(value)) {
        report("graphql-reserved-name", valuePath, `enum '${name}'`, `'${value}' cannot be an enum value in GraphQL; rename it`);
      }
      return { name: value, description, protoName, protoNumber: numbers.get(value)! };
    });
    return {
      name,
      description: rawEnum.description ?? "",
      values,
      reserved: reserved.map((r) => ({ ...r, protoName: `${prefix}_${upperSnakeCase(r.name)}` })),
      protoZeroName: `${prefix}_UNSPECIFIED`,
      protoFile: typesFile,
      position: loaded.locate(["enums", name], "key"),
    };
  });
  // ---- formats ----
  const formats: Record<string, IrFormat> = {};
  for (const [name, rule] of Object.entries(BUILTIN_FORMAT_RULES)) {
    formats[name] = { name, description: rule.expected, builtin: true, pattern: rule.pattern, example: rule.example, ...("maxLength" in rule ? { maxLength: rule.maxLength } : {}) };
  }
  for (const [name, rawFormat] of Object.entries(raw.formats ?? {})) {
    const formatPath = ["formats", name];
    if (formats[name]?.builtin) {
      report("builtin-format-redeclared", formatPath, `format '${name}'`, `'${name}' is a built-in format (${Object.keys(BUILTIN_FORMAT_RULES).join(", ")}); choose another name`, "key");
      continue;
    }
    const example = rawFormat.example ?? rawFormat.values?.[0] ?? "";
    if (rawFormat.pattern !== undefined) {
      try {
        if (!new RegExp(rawFormat.pattern, "u").test(example)) report("format-example-mismatch", [...formatPath, "example"], `format '${name}'`, `example '${example}' does not match the pattern`);
      } catch (error) {
        report(
          "invalid-pattern",
          [...formatPath, "pattern"],
          `format '${name}'`,
          `pattern is not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, "")})`,
        );
      }
    } else if (!rawFormat.values!.includes(example)) {
      report("format-example-mismatch", [...formatPath, "example"], `format '${name}'`, `example '${example}' is not one of the values`);
    }
    formats[name] = {
      name,
      description: rawFormat.description,
      builtin: false,
      example,
      ...(rawFormat.pattern !== undefined ? { pattern: rawFormat.pattern } : {}),
      ...(rawFormat.values !== undefined ? { values: rawFormat.values } : {}),
    };
  }

  const enumNames = new Set(Object.keys(enumsRaw));
  const typeNames = new Set(Object.keys(typesRaw));
  const knownTypeNames = [...SCALARS, ...enumNames, ...typeNames];

  // ---- fields ----
  const resolveField = (path: PathSegment[], subject: string, name: string, rawField: RawField, number: number): IrField => {
    const spec = typeof rawField === "string" ? { type: rawField } : rawField;
    const expr = parseTypeExpr(spec.type);
    const typePath = typeof rawField === "string" ? path : [...path, "type"];
    let type: TypeRef = { kind: "scalar", scalar: "string" };
    if ((SCALARS as readonly string[]).includes(expr.base)) {
      type = { kind: "scalar", scalar: expr.base as Scalar };
      if (expr.list && (expr.base === "map" || expr.base === "json")) {
        report("unsupported-type", typePath, subject, `field '${name}': a list of ${expr.base} is not supported; declare a type that holds the ${expr.base} and list that`);
      }
    } else if (enumNames.has(expr.base)) {
      type = { kind: "enum", name: expr.base };
    } else if (typeNames.has(expr.base)) {
      type = { kind: "message", name: expr.base };
    } else {
      const alias = TYPE_ALIASES[expr.base.toLowerCase()];
      const hint = alias ? `; did you mean '${alias}'?` : didYouMean(expr.base, knownTypeNames);
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
      position: loaded.locate(path, "key"),
    };
    if (spec.format !== undefined) field.format = spec.format;
    field.constraints = resolveConstraints(field, typeof rawField === "string" ? {} : rawField, (key, message) => report("invalid-rule", [...path, key], subject, `field '${name}': ${message}`));
    if (spec.deprecated !== undefined) field.deprecated = spec.deprecated;
    return field;
  };

  /** required_if and same_as name a sibling field of a fitting type; a default names a value of its enum. */
  const checkFieldReferences = (fields: IrField[], path: PathSegment[], subject: string) => {
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
          const values = other.type.kind === "enum" ? enumValuesOf(other.type.name) : undefined;
          const kind = other.type.kind === "scalar" ? other.type.scalar : other.type.kind;
          const fits = values
            ? values.includes(String(requiredIf.equals))
            : kind === "string"
              ? typeof requiredIf.equals === "string"
              : kind === "bool"
                ? typeof requiredIf.equals === "boolean"
                : ["int32", "int64", "float64"].includes(kind) && typeof requiredIf.equals === "number";
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
        const values = enumValuesOf(field.type.name);
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
  };
  const enumValuesOf = (name: string) => enums.find((e) => e.name === name)?.values.map((v) => v.name);

  const buildMessage = (
    name: string,
    lockKey: string,
    path: PathSegment[],
    subject: string,
    rawFields: RawFields,
    options: { description: string; shared: boolean; graphqlName: string; graphqlInputName: string; protoFile: string },
  ): IrMessage => {
    const fieldNames = Object.keys(rawFields);
    const { numbers, reserved } = assignNumbers((nextLock.messages[lockKey] ??= {}), fieldNames);
    const jsonNames = new Map<string, string>();
    for (const fieldName of fieldNames) {
      const jsonName = protoCamelCase(fieldName);
      const clash = jsonNames.get(jsonName);
      if (clash !== undefined) {
        report("json-name-clash", [...path, fieldName], subject, `fields '${clash}' and '${fieldName}' both become ${jsonName} in proto JSON; rename one`, "key");
      }
      jsonNames.set(jsonName, fieldName);
    }
    const fields = fieldNames.map((fieldName) => resolveField([...path, fieldName], subject, fieldName, rawFields[fieldName]!, numbers.get(fieldName)!));
    checkFieldReferences(fields, path, subject);
    return {
      name,
      description: options.description,
      fields,
      reserved,
      shared: options.shared,
      usedAsInput: false,
      usedAsOutput: false,
      graphqlName: options.graphqlName,
      graphqlInputName: options.graphqlInputName,
      protoFile: options.protoFile,
      position: loaded.locate(path.slice(0, -1), "key"),
    };
  };

  const sharedMessages = Object.entries(typesRaw).map(([name, rawType]) =>
    buildMessage(name, name, ["types", name, "fields"], `type '${name}'`, rawType.fields, {
      description: rawType.description ?? "",
      shared: true,
      graphqlName: name,
      graphqlInputName: name.endsWith("Input") ? name : `${name}Input`,
      protoFile: typesFile,
    }),
  );
  const sharedByName = new Map(sharedMessages.map((m) => [m.name, m]));

  // ---- auth schemes ----
  const authSchemes = resolveAuthSchemes(raw, report);
  /** The cookie each operation that opens a session sets, whether or not its sets_cookies lists it. */
  const sessionCookies = new Map(authSchemes.flatMap((s) => (s.session ? [[s.session.openedBy, s.session.cookie] as const] : [])));

  // ---- operations ----
  const inlineMessages: IrMessage[] = [];
  const operations: IrOperation[] = [];
  const routes = new Map<string, { name: string; path: string }>();
  const restPrefix = raw.api.rest_prefix ?? DEFAULT_REST_PREFIX;
  const apiVersion = raw.api.version;

  for (const [name, rawOp] of Object.entries(raw.operations)) {
    const subject = `operation '${name}'`;
    const opPath = ["operations", name];
    const { pascalName, camelName, title } = operationNames(name, acronyms);
    const auth = rawOp.auth;
    const destructive = rawOp.destructive ?? false;
    const protocols = PROTOCOLS.filter((p) => rawOp.protocols[p] !== undefined);

    if (!(rawOp.group in groupTitles)) {
      report("unknown-group", [...opPath, "group"], subject, `group '${rawOp.group}' is not declared under api.groups${didYouMean(rawOp.group, Object.keys(groupTitles))}`);
    }
    if (destructive && rawOp.kind === "read") {
      report("destructive-read", [...opPath, "kind"], subject, "a destructive operation changes or removes data, so its kind must be write");
    }
    checkRouteDeclaration(rawOp, protocols, opPath, subject, report);
    checkMinimumVersions(rawOp, protocols, apiVersion, opPath, subject, report);
    checkAuth(rawOp, authSchemes, opPath, subject, report);
    if (rawOp.deprecated !== undefined && rawOp.deprecated.trim() === "") {
      report("deprecated-without-reason", [...opPath, "deprecated"], subject, "deprecated needs a reason");
    }

    // Request and response messages live in one file per group: small files keep protoc-gen-es fast.
    const protoFile = rawOp.surface === "oauth" ? "" : `${protoDirectory}/${rawOp.group}.proto`;
    const input = buildMessage(`${pascalName}Request`, `${pascalName}Request`, [...opPath, "input"], subject, rawOp.input ?? {}, {
      description: `Input of ${name}.`,
      shared: false,
      graphqlName: `${pascalName}Request`,
      graphqlInputName: `${pascalName}Input`,
      protoFile,
    });
    input.usedAsInput = true;
    inlineMessages.push(input);

    let output: IrMessage;
    if (typeof rawOp.output === "string") {
      const shared = sharedByName.get(rawOp.output);
      if (!shared) {
        const what = enumNames.has(rawOp.output) ? `the enum '${rawOp.output}'; an output must be a type` : `unknown type '${rawOp.output}'${didYouMean(rawOp.output, typeNames)}`;
        report(enumNames.has(rawOp.output) ? "invalid-output" : "unknown-type", [...opPath, "output"], subject, `output refers to ${what}`);
        output = input; // placeholder; the build fails below
      } else {
        output = shared;
      }
    } else {
      output = buildMessage(`${pascalName}Response`, `${pascalName}Response`, [...opPath, "output"], subject, rawOp.output, {
        description: `Answer of ${name}.`,
        shared: false,
        graphqlName: `${pascalName}Response`,
        graphqlInputName: `${pascalName}ResponseInput`,
        protoFile,
      });
      inlineMessages.push(output);
    }
    output.usedAsOutput = true;

    if (protocols.includes("graphql") && output.fields.length === 0 && output !== input) {
      report("empty-graphql-type", [...opPath, "output"], subject, "an operation carried over graphql must return at least one field", "key");
    }

    const exactlyOneOf = rawOp.exactly_one_of ?? [];
    const atLeastOneOf = rawOp.at_least_one_of ?? [];
    // The fields a rule over several fields names: optional input fields.
    for (const [key, fieldNames] of [
      ["exactly_one_of", exactlyOneOf],
      ["at_least_one_of", atLeastOneOf],
    ] as const) {
      const inputNames = input.fields.map((f) => f.name);
      fieldNames.forEach((fieldName, index) => {
        const field = input.fields.find((f) => f.name === fieldName);
        if (!field) report("unknown-field", [...opPath, key, index], subject, `${key} names '${fieldName}', which is not an input field${didYouMean(fieldName, inputNames)}`);
        else if (field.required) report("invalid-rule", [...opPath, key, index], subject, `${key} names '${fieldName}', which is required; make it optional`);
      });
    }

    const pagination = resolvePagination(rawOp, input, output, sharedByName, (message) => report("invalid-pagination", [...opPath, "pagination"], subject, message));

    const op: IrOperation = {
      name,
      pascalName,
      camelName,
      title,
      surface: rawOp.surface,
      group: rawOp.group,
      description: rawOp.description,
      kind: rawOp.kind,
      destructive,
      idempotent: rawOp.kind === "read" || name.split("_").some((word) => IDEMPOTENT_VERBS.has(word)),
      auth,
      errors: rawOp.errors ?? [],
      errorCodes: errorCodesOf(authSchemes.find((s) => s.name === auth)?.kind ?? "none", rawOp.errors ?? []),
      setsCookies: [...new Set([...(rawOp.sets_cookies ?? []), ...(sessionCookies.has(name) ? [sessionCookies.get(name)!] : [])])],
      pagination,
      ...(pagination.style === "none" ? {} : { iteratorName: iteratorName(pascalName) }),
      exactlyOneOf,
      atLeastOneOf,
      protocols,
      input,
      output,
      position: loaded.locate(opPath, "key"),
    };
    if (rawOp.deprecated !== undefined) op.deprecated = rawOp.deprecated;
    if (rawOp.protocols.graphql !== undefined) {
      op.graphql = {
        since: rawOp.protocols.graphql,
        rootType: rawOp.kind === "read" ? "Query" : "Mutation",
        field: name,
      };
      if (input.fields.length > 0) {
        op.graphql.argument = { name: "params", required: input.fields.some((f) => f.required) };
      }
    }
    if (rawOp.protocols.rest !== undefined) op.rest = restBinding(name, rawOp, input, output, restPrefix, routes, opPath, subject, report);
    if (rawOp.protocols.grpc !== undefined && rawOp.surface !== "oauth") {
      const service = serviceName(rawOp.surface as ClientRole);
      op.grpc = {
        since: rawOp.protocols.grpc,
        service,
        rpc: pascalName,
        serviceTypeName: `${protoPackage}.${service}`,
        requestMessage: input.name,
        responseMessage: `${pascalName}Response`,
      };
    }
    operations.push(op);
  }

  // ---- references between messages: which shared types are reached from inputs and outputs ----
  const markUsage = (message: IrMessage, as: "usedAsInput" | "usedAsOutput", seen = new Set<string>()) => {
    for (const field of message.fields) {
      if (field.type.kind !== "message" || seen.has(field.type.name)) continue;
      const target = sharedByName.get(field.type.name);
      if (!target) continue;
      seen.add(target.name);
      target[as] = true;
      markUsage(target, as, seen);
    }
  };
  for (const op of operations) {
    markUsage(op.input, "usedAsInput");
    markUsage(op.output, "usedAsOutput");
  }

  // ---- what GraphQL reaches: its types need fields and names of their own ----
  const reachedByGraphql = new Set<string>();
  const reach = (message: IrMessage) => {
    if (reachedByGraphql.has(message.name)) return;
    reachedByGraphql.add(message.name);
    for (const field of message.fields) {
      const target = field.type.kind === "message" ? sharedByName.get(field.type.name) : undefined;
      if (target) reach(target);
    }
  };
  for (const op of operations) {
    if (!op.graphql) continue;
    if (op.input.fields.length > 0) reach(op.input);
    reach(op.output);
  }
  for (const message of sharedMessages) {
    if (message.fields.length === 0 && reachedByGraphql.has(message.name)) {
      diagnostics.push({ code: "empty-graphql-type", file, position: message.position, subject: `type '${message.name}'`, message: "a type carried over graphql must have at least one field" });
    }
  }
  for (const [section, names] of [
    ["type", Object.keys(typesRaw)],
    ["enum", Object.keys(enumsRaw)],
  ] as const) {
    for (const name of names) {
      if (GRAPHQL_RESERVED.has(name)) {
        diagnostics.push({
          code: "graphql-reserved-name",
          file,
          position: loaded.locate([section === "type" ? "types" : "enums", name], "key"),
          subject: `${section} '${name}'`,
          message: `its type name '${name}' is reserved in GraphQL; rename it`,
        });
      }
    }
  }

  // ---- every derived name must be unique within its namespace (GraphQL and proto types share one) ----
  const messages = [...sharedMessages, ...inlineMessages];
  checkUnique(
    [
      ...(["admin", "user"] as const).map((surface) => ({
        name: serviceName(surface),
        owner: `the ${surface} gRPC service`,
        position: loaded.locate(declaredSurfaces[surface]?.service ? ["api", "surfaces", surface, "service"] : ["operations"], declaredSurfaces[surface]?.service ? "value" : "key"),
      })),
      // The clients are types of every SDK, beside the messages and enums (TypeScript exports both from one index).
      ...(["admin", "user"] as const).map((surface) => ({
        name: clientName(surface),
        owner: `the ${surface} client`,
        position: loaded.locate(["api", "surfaces", surface, "client"]),
      })),
      ...enums.map((e) => ({ name: e.name, owner: `enum '${e.name}'`, position: e.position })),
      ...messages.flatMap((m) => [
        { name: m.name, owner: ownerOf(m), position: m.position },
        ...(m.usedAsOutput || m.shared ? [{ name: m.graphqlName, owner: ownerOf(m), position: m.position }] : []),
        ...(m.usedAsInput ? [{ name: m.graphqlInputName, owner: ownerOf(m), position: m.position }] : []),
      ]),
      ...operations.flatMap((op) => (op.grpc && op.output.shared ? [{ name: op.grpc.responseMessage, owner: `the response message of operation '${op.name}'`, position: op.position }] : [])),
    ],
    "type name",
  );
  checkUnique(
    operations.map((op) => ({ name: op.camelName, owner: `operation '${op.name}'`, position: op.position })),
    "client method name",
  );

  function ownerOf(m: IrMessage): string {
    if (m.shared) return `type '${m.name}'`;
    const op = m.name.replace(/(Request|Response)$/, "");
    return `the ${m.name.endsWith("Request") ? "input" : "output"} of operation '${operations.find((o) => o.pascalName === op)?.name ?? op}'`;
  }

  function checkUnique(entries: { name: string; owner: string; position: SourcePosition }[], what: string): void {
    const seen = new Map<string, { owner: string; position: SourcePosition }>();
    const reported = new Set<string>();
    for (const entry of entries) {
      const first = seen.get(entry.name);
      if (first && first.owner !== entry.owner && !reported.has(`${entry.owner} ${entry.name}`)) {
        reported.add(`${entry.owner} ${entry.name}`);
        diagnostics.push({
          code: "name-clash",
          file,
          position: entry.position,
          subject: entry.owner,
          message: `its ${what} '${entry.name}' is already taken by ${first.owner} (line ${first.position.line}); rename one`,
        });
      } else if (!first) {
        seen.set(entry.name, entry);
      }
    }
  }

  const packages = resolvePackages(raw.api, (path, message) => report("invalid-package", ["api", ...path], "api", message));
  const fieldNamesInUse = new Set(messages.flatMap((message) => message.fields.map((field) => field.name)));
  for (const field of Object.keys(packages.go.fieldNames)) {
    if (!fieldNamesInUse.has(field)) {
      report("unknown-field", ["api", "packages", "go", "field_names", field], "api", `Go name given for field '${field}', which no message has${didYouMean(field, fieldNamesInUse)}`, "key");
    }
  }
  checkAcceptedVersions(raw.api, report);

  if (diagnostics.length > 0) throw new ManifestError(diagnostics);

  const groups = Object.entries(groupTitles)
    .map(([group, title]) => ({ name: group, pascalName: groupName(group, acronyms), title, operations: operations.filter((op) => op.group === group).map((op) => op.name) }))
    .filter((g) => g.operations.length > 0);

  const services = (["admin", "user"] as const)
    .map((surface) => {
      const name = serviceName(surface);
      return {
        surface,
        name,
        typeName: `${protoPackage}.${name}`,
        protoFile: serviceFile(surface),
        operations: operations.filter((op) => op.surface === surface && op.grpc).map((op) => op.name),
      };
    })
    .filter((s) => s.operations.length > 0);

  const versionOperations: Partial<Record<Surface, string>> = Object.fromEntries(
    (["admin", "user"] as const).flatMap((surface) => {
      const op = operations.find(
        (o) =>
          o.surface === surface &&
          o.kind === "read" &&
          !o.input.fields.some((f) => f.required) &&
          o.output.fields.some((f) => f.name === "version" && f.type.kind === "scalar" && f.type.scalar === "string"),
      );
      return op ? [[surface, op.name]] : [];
    }),
  );

  const tokenRoutes = operations.some((op) => op.surface === "oauth");
  const clients: IrClient[] = (["admin", "user"] as const)
    .filter((role) => operations.some((op) => clientRoleOf(op) === role))
    .map((role) => ({
      role,
      name: clientName(role),
      surfaces: role === "admin" ? ["admin"] : tokenRoutes ? ["user", "oauth"] : ["user"],
      title: role === "admin" ? "The admin interface" : tokenRoutes ? "The user interface and the token routes" : "The user interface",
    }));

  return {
    api: {
      name: raw.api.name,
      title: raw.api.title,
      description: raw.api.description ?? "",
      version: apiVersion,
      authSchemes,
      ...authSettings(authSchemes, operations),
      grpcPort: raw.api.grpc_port ?? 9091,
      restPrefix,
      limits: {
        requestBytes: raw.api.limits?.request_bytes ?? 1024 * 1024,
        jsonDepth: raw.api.limits?.json_depth ?? 32,
        jsonBytes: raw.api.limits?.json_bytes ?? 64 * 1024,
      },
      ...packages,
      acronyms: [...acronyms],
      features: apiFeatures(operations, authSchemes),
      breakingChangesAccepted: raw.api.breaking_changes_accepted ?? [],
    },
    proto: { package: protoPackage, directory: protoDirectory, typesFile, services },
    clients,
    groups,
    enums,
    formats,
    messages,
    operations,
    versionOperations,
    docExamples: pickDocExamples(operations, versionOperations),
    lock: nextLock,
  };
}
