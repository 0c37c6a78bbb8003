// The operations pass: each operation with its names, inline input and output messages, rules
// over several input fields, pagination, error codes and its binding on every protocol it is
// carried over. The rules of one concern are left to their passes (routes, versions, auth, pagination).
import type { PathSegment, RawOperation } from "../../load/load.js";
import { didYouMean } from "../naming.js";
import { PROTOCOLS, type IrMessage, type IrOperation, type Protocol } from "../ir.js";
import { authRequirementsOf, checkAuth, errorCodesOf } from "./auth.js";
import type { IrContext } from "./context.js";
import { buildMessage } from "./messages.js";
import { iteratorName, operationNames, type OperationNames } from "./names.js";
import { resolvePagination } from "./pagination.js";
import { checkRouteDeclaration, DEFAULT_REST_PREFIX, restBinding } from "./routes.js";
import { checkMinimumVersions } from "./versions.js";

/** An operation of the manifest, the names derived from it, and where its errors are reported. */
interface OperationSource {
  name: string;
  rawOp: RawOperation;
  names: OperationNames;
  protocols: Protocol[];
  path: PathSegment[];
  subject: string;
}

/** Method and path shape -> the operation that took the route and its path (routes.ts). */
type Routes = Map<string, { name: string; path: string }>;

/** Sets context.operations and context.inlineMessages (each operation's input, then its inline output), in declaration order. */
export function resolveOperations(context: IrContext): void {
  /** The cookie each operation that opens a session sets, whether or not its sets_cookies lists it. */
  const sessionCookies = new Map(context.authSchemes.flatMap((s) => (s.session ? [[s.session.openedBy, s.session.cookie] as const] : [])));
  const routes: Routes = new Map();
  for (const [name, rawOp] of Object.entries(context.raw.operations)) {
    const source: OperationSource = {
      name,
      rawOp,
      names: operationNames(name, context.acronyms),
      protocols: PROTOCOLS.filter((p) => rawOp.protocols[p] !== undefined),
      path: ["operations", name],
      subject: `operation '${name}'`,
    };
    checkDeclaration(context, source);
    const { input, output } = resolveMessages(context, source);
    checkFieldSetRules(context, source, input);
    context.operations.push(resolveOperation(context, source, input, output, sessionCookies, routes));
  }
}

/** What an operation declares that no JSON Schema checks: its group, kind, route, versions, auth and deprecation. */
function checkDeclaration(context: IrContext, { rawOp, protocols, path, subject }: OperationSource): void {
  const { raw, report } = context;
  const groupTitles = raw.api.groups ?? {};
  if (!(rawOp.group in groupTitles)) {
    report("unknown-group", [...path, "group"], subject, `group '${rawOp.group}' is not declared under api.groups${didYouMean(rawOp.group, Object.keys(groupTitles))}`);
  }
  if ((rawOp.destructive ?? false) && rawOp.kind === "read") {
    report("destructive-read", [...path, "kind"], subject, "a destructive operation changes or removes data, so its kind must be write");
  }
  if (rawOp.idempotent !== undefined && rawOp.kind === "read") {
    report("idempotent-read", [...path, "idempotent"], subject, "a read is idempotent by nature; idempotent: true is for writes that leave the same state when repeated");
  }
  checkRouteDeclaration(rawOp, protocols, path, subject, report);
  checkMinimumVersions(rawOp, protocols, raw.api.version, path, subject, report);
  checkAuth(rawOp, context.authSchemes, path, subject, report);
  if (rawOp.deprecated !== undefined && rawOp.deprecated.trim() === "") {
    report("deprecated-without-reason", [...path, "deprecated"], subject, "deprecated needs a reason");
  }
}

/** The operation's input message and its output: inline, or the shared type it names. Inline ones join context.inlineMessages. */
function resolveMessages(context: IrContext, { name, rawOp, names, protocols, path, subject }: OperationSource): { input: IrMessage; output: IrMessage } {
  const { report, enumNames } = context;
  const { pascalName } = names;
  // Request and response messages live in one file per group: small files keep protoc-gen-es fast.
  const protoFile = rawOp.surface === "oauth" ? "" : `${context.proto.directory}/${rawOp.group}.proto`;
  const input = buildMessage(context, `${pascalName}Request`, [...path, "input"], subject, rawOp.input ?? {}, {
    description: `Input of ${name}.`,
    shared: false,
    graphqlName: `${pascalName}Request`,
    graphqlInputName: `${pascalName}Input`,
    protoFile,
  });
  input.usedAsInput = true;
  context.inlineMessages.push(input);

  let output: IrMessage;
  if (typeof rawOp.output === "string") {
    const shared = context.sharedByName.get(rawOp.output);
    if (!shared) {
      const what = enumNames.has(rawOp.output) ? `the enum '${rawOp.output}'; an output must be a type` : `unknown type '${rawOp.output}'${didYouMean(rawOp.output, context.typeNames)}`;
      report(enumNames.has(rawOp.output) ? "invalid-output" : "unknown-type", [...path, "output"], subject, `output refers to ${what}`);
      output = input; // placeholder; the build fails below
    } else {
      output = shared;
    }
  } else {
    output = buildMessage(context, `${pascalName}Response`, [...path, "output"], subject, rawOp.output, {
      description: `Answer of ${name}.`,
      shared: false,
      graphqlName: `${pascalName}Response`,
      graphqlInputName: `${pascalName}ResponseInput`,
      protoFile,
    });
    context.inlineMessages.push(output);
  }
  output.usedAsOutput = true;

  if (protocols.includes("graphql") && output.fields.length === 0 && output !== input) {
    report("empty-graphql-type", [...path, "output"], subject, "an operation carried over graphql must return at least one field", "key");
  }
  return { input, output };
}

/** The fields a rule over several fields (exactly_one_of, at_least_one_of) names: optional input fields. */
function checkFieldSetRules(context: IrContext, { rawOp, path, subject }: OperationSource, input: IrMessage): void {
  for (const [key, fieldNames] of [
    ["exactly_one_of", rawOp.exactly_one_of ?? []],
    ["at_least_one_of", rawOp.at_least_one_of ?? []],
  ] as const) {
    const inputNames = input.fields.map((f) => f.name);
    fieldNames.forEach((fieldName, index) => {
      const field = input.fields.find((f) => f.name === fieldName);
      if (!field) context.report("unknown-field", [...path, key, index], subject, `${key} names '${fieldName}', which is not an input field${didYouMean(fieldName, inputNames)}`);
      else if (field.required) context.report("invalid-rule", [...path, key, index], subject, `${key} names '${fieldName}', which is required; make it optional`);
    });
  }
}

/** The IR operation: its pagination, flags, error codes, cookies, and its GraphQL, REST and gRPC bindings. */
function resolveOperation(context: IrContext, source: OperationSource, input: IrMessage, output: IrMessage, sessionCookies: ReadonlyMap<string, string>, routes: Routes): IrOperation {
  const { raw, report } = context;
  const { name, rawOp, protocols, path, subject } = source;
  const { pascalName, camelName, title } = source.names;
  const authAnyOf = authRequirementsOf(rawOp);
  const authKinds = authAnyOf.map((r) => context.authSchemes.find((s) => s.name === r.scheme)?.kind ?? "none");
  const pagination = resolvePagination(rawOp, input, output, context.sharedByName, (message) => report("invalid-pagination", [...path, "pagination"], subject, message));
  const setsCookies = [...new Set([...(rawOp.sets_cookies ?? []), ...(sessionCookies.has(name) ? [sessionCookies.get(name)!] : [])])];
  const op: IrOperation = {
    name,
    pascalName,
    camelName,
    title,
    surface: rawOp.surface,
    group: rawOp.group,
    description: rawOp.description,
    kind: rawOp.kind,
    destructive: rawOp.destructive ?? false,
    idempotent: rawOp.kind === "read" || rawOp.idempotent === true,
    auth: authAnyOf[0]!.scheme,
    authAnyOf,
    errors: rawOp.errors ?? [],
    errorCodes: errorCodesOf(
      authKinds,
      rawOp.errors ?? [],
      authAnyOf.some((r) => r.scopes.length > 0),
    ),
    idempotencyKey: rawOp.kind === "write" && setsCookies.length === 0,
    setsCookies,
    pagination,
    ...(pagination.style === "none" ? {} : { iteratorName: iteratorName(pascalName) }),
    exactlyOneOf: rawOp.exactly_one_of ?? [],
    atLeastOneOf: rawOp.at_least_one_of ?? [],
    protocols,
    input,
    output,
    position: context.loaded.locate(path, "key"),
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
  if (rawOp.protocols.rest !== undefined) {
    const schemeHeaders = context.authSchemes.flatMap((scheme) => (scheme.header ? [scheme.header] : []));
    op.rest = restBinding(name, rawOp, input, output, raw.api.rest_prefix ?? DEFAULT_REST_PREFIX, routes, path, subject, report, schemeHeaders);
  }
  if (rawOp.protocols.grpc !== undefined && rawOp.surface !== "oauth") {
    const service = context.serviceNames[rawOp.surface];
    op.grpc = {
      since: rawOp.protocols.grpc,
      service,
      rpc: pascalName,
      serviceTypeName: `${context.proto.package}.${service}`,
      requestMessage: input.name,
      responseMessage: `${pascalName}Response`,
    };
  }
  return op;
}
