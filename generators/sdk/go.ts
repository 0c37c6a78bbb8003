// The Go SDK (generated/go/): a view model built from the IR and the language-neutral SDK facts
// (sdk-facts.ts), laid out by the handlebars templates of templates/go/. The module has two
// packages: the public one at its root (clients, options, errors, types, methods) and the
// runtime's machinery in internal/transport (refusals, retries, pagination, the flat shape, the
// transports, and the facts tables they read). Its names come from go-names.ts; everything else Go
// adds is computed here: field types and JSON tags, doc comments, and Go literals laid out as gofmt
// lays them out (so that the module is gofmt-clean without running gofmt). Files under
// templates/go/ without .hbs (the hand-written runtime of internal/transport) are copied as they are.
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import type { Ir, Protocol } from "../ir/ir.js";
import type { DerivedGroup, GeneratedFile } from "../write/writer.js";
import { GO_KEYWORDS } from "../ir/passes/packages.js";
import { goName, goNames, goTemplates, type GoNames } from "./go-names.js";
import type { Template } from "./templates.js";
import { templateWithoutView } from "./template-views.js";
import type { GoViews } from "./go-views.js";
import { messageWords, notCarriedText, operationTable } from "../emit/operation-text.js";
import { goOptions, goOptionsTable } from "./client-options.js";
import { SCALAR_SPECS } from "./scalars.js";
import type { ScalarKind } from "../../runtime/schema.js";
import {
  buildSdkFacts,
  descriptorSetGroup,
  EXAMPLE_CREDENTIALS,
  exampleCredentials,
  factsLookup,
  type EnumFacts,
  type FieldFacts,
  type MessageFacts,
  type OperationFacts,
  type SdkFacts,
} from "./sdk-facts.js";

export const GO_DIR = "generated/go";
/** The go directive of go.mod: range-over-func iterators need Go 1.23. */
export const GO_VERSION = "1.23";

/** The Go constants of the protocols, as spec §4.2 names them. */
const PROTOCOL_CONSTANT: Record<Protocol, string> = { graphql: "ProtocolGraphQL", rest: "ProtocolREST", grpc: "ProtocolGRPC" };

// ---------------------------------------------------------------- literals

/** The option functions of a client, each with its doc comment. */
function goOptionViews(facts: SdkFacts, role: "admin" | "user") {
  return goOptions({ facts, role, sync: true }).map((option) => ({
    ...option,
    comment: goComment([`${option.function} ${option.doc}`]),
    type: role === "admin" ? ("AdminOption" as const) : ("Option" as const),
  }));
}

/** A Go interpreted string literal (a JSON string literal is one). */
export const goString = (text: string) => JSON.stringify(text);

/**
 * The lines of a keyed composite literal (`key: value,` each) as gofmt lays them out: runs of
 * one-line entries align their values, a multi-line entry stands alone, and (go/printer's
 * exprList) a key much longer or shorter than those before it starts a new run.
 */
export function goKeyedLines(entries: readonly { key: string; value: string }[], indent: string): string[] {
  const sections: { key: string; value: string }[][] = [];
  let size = 0;
  let lnsum = 0;
  let count = 0;
  entries.forEach((entry, i) => {
    const prevSize = size;
    size = entry.value.includes("\n") ? 0 : entry.key.length;
    let newSection = true;
    if (prevSize > 0 && size > 0) {
      if (count === 0 || (prevSize <= 40 && size <= 40)) newSection = false;
      else {
        const ratio = size / Math.exp(lnsum / count);
        newSection = 2.5 * ratio <= 1 || 2.5 <= ratio;
      }
    }
    if (i === 0 || newSection) sections.push([entry]);
    else sections.at(-1)!.push(entry);
    if (size > 0) {
      lnsum += Math.log(size);
      count++;
    }
  });
  const aligned = entries.length > 1;
  return sections.flatMap((section) => {
    const width = Math.max(...section.map((e) => e.key.length)) + 2;
    return section.map((e) => `${indent}${aligned && !e.value.includes("\n") ? `${e.key}:`.padEnd(width) : `${e.key}: `}${e.value},`);
  });
}

/** The specs of a const (or var) group without comments, as gofmt aligns them: `name = value`. */
export function goSpecLines(specs: readonly { name: string; value: string }[], indent: string): string[] {
  const width = Math.max(0, ...specs.map((s) => s.name.length));
  return specs.map((s) => `${indent}${s.name.padEnd(width)} = ${s.value}`);
}

/** A word that would start a list item if it began a line of a doc comment (gofmt would indent it). */
const LIST_MARKER = /^([-*+•]|\d+[.)])$/;

/** Words of `text` in lines of at most `width` characters; no line starts with a list marker. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width && !LIST_MARKER.test(word)) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A doc comment of paragraphs at an indentation, wrapped; "" separates nothing (skipped). */
export function goComment(paragraphs: readonly string[], indent = ""): string {
  return paragraphs
    .filter((p) => p.trim() !== "")
    .map((p) =>
      wrap(p, 100 - indent.length)
        .map((line) => `${indent}// ${line}`)
        .join("\n"),
    )
    .join(`\n${indent}//\n`);
}

/** A sentence's first letter in lower case, unless it starts an acronym (SAML, OIDC). */
const lowerFirst = (text: string) => (/^[A-Z][a-z]*\b(?![-'])/.test(text) && !/^[A-Z][a-z]*[A-Z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text);
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** "<Name> is ..." from a description that reads as a noun phrase (A user account. / Result of ...). */
function isDoc(name: string, description: string, fallback: string): string {
  const text = description.trim() || fallback;
  if (/^(A|An|The|One)\s/.test(text)) return `${name} is ${sentence(lowerFirst(text))}`;
  if (/^(Where|What|Which|Who|When|How)\s/.test(text)) return `${name} tells ${sentence(lowerFirst(text))}`;
  return `${name} is the ${sentence(lowerFirst(text))}`;
}

// ---------------------------------------------------------------- the view model

/** The prefix of the environment variables the clients read: the API's name upper-cased (IDENTITY_SERVICE_URL, BOOKSTORE_LOG). */
const goEnvPrefix = (ir: Ir) => ir.api.name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");

function scalarType(field: FieldFacts, names: GoNames): string {
  // map<V>: map[string]V.
  if (field.value) return `map[string]${scalarType({ ...field, kind: field.value, value: null }, names)}`;
  if (field.kind === "enum") return names.enumType.get(field.ref!)!;
  if (field.kind === "message") return `*${names.struct.get(field.ref!)!}`;
  return SCALAR_SPECS[field.kind].go.type;
}

/** The Go type of a field: optional scalars and enums are pointers, messages always are; lists and maps never. */
function goFieldType(field: FieldFacts, names: GoNames): string {
  const item = scalarType(field, names);
  if (field.list) return `[]${item}`;
  const pointer = !field.required && (field.kind === "enum" || (field.kind !== "message" && SCALAR_SPECS[field.kind].go.pointerWhenOptional));
  return pointer ? `*${item}` : item;
}

function fieldDoc(field: FieldFacts, input: boolean): string[] {
  // The form of a value whose Go type does not say it (a date is a string), as the proto comment says it.
  const form = field.kind !== "enum" && field.kind !== "message" ? (SCALAR_SPECS[field.kind].protoNote ?? "") : "";
  return [
    // Only what the manifest says of the field: no comment is better than one repeating its name.
    [field.description ? sentence(field.description) : "", form, field.secret ? "Secret." : "", input && field.required ? "Required." : "", ...(input ? field.rules : [])].filter(Boolean).join(" "),
    field.deprecated ? `Deprecated: ${sentence(field.deprecated)}` : "",
  ];
}

/**
 * Fields laid out as gofmt lays them out: in each run of fields without a comment between them, the
 * names and types are padded to the run's widest (a comment line ends a run).
 */
function alignFields<F extends { name: string; type: string; doc: string }>(fields: F[]): (F & { nameCell: string; typeCell: string })[] {
  const runs: F[][] = [];
  for (const field of fields) {
    if (runs.length === 0 || field.doc !== "") runs.push([field]);
    else runs.at(-1)!.push(field);
  }
  return runs.flatMap((run) => {
    const nameWidth = Math.max(...run.map((f) => f.name.length));
    const typeWidth = Math.max(...run.map((f) => f.type.length));
    return run.map((f) => ({ ...f, nameCell: f.name.padEnd(nameWidth), typeCell: f.type.padEnd(typeWidth) }));
  });
}

function structView(message: MessageFacts, names: GoNames, inputOnly: boolean, doc: string[]) {
  const fieldNames = names.fields.get(message.name)!;
  const name = names.struct.get(message.name)!;
  // An answer struct keeps what the SDK does not know (ExtraFields) and the JSON it came from (RawJSON).
  const answer = message.usedAsOutput;
  return {
    name,
    doc: goComment(doc),
    empty: message.fields.length === 0 && !answer,
    answer,
    receiver: name.charAt(0).toLowerCase(),
    fields: alignFields(
      message.fields.map((field, i) => {
        // Answers carry every field (null when unset); inputs leave out what is not given.
        const omit = inputOnly && !field.required ? ",omitempty" : "";
        return { name: fieldNames[i]!, type: goFieldType(field, names), tag: `${field.name}${omit}`, doc: goComment(fieldDoc(field, inputOnly), "\t") };
      }),
    ),
    tag:
      message.discriminator === null
        ? null
        : {
            method: names.unionTagMethod.get(message.name)!,
            doc: goComment([
              `${names.unionTagMethod.get(message.name)!} names the variant given: ${message.fields.map((f) => goString(f.name)).join(", ")}, or "" when none is. JSON answers carry it as ${goString(message.discriminator)}; the SDK writes it in REST requests.`,
            ]),
            cases: message.fields.map((field, i) => ({ field: fieldNames[i]!, name: goString(field.name) })),
          },
  };
}

function enumView(e: EnumFacts, names: GoNames) {
  const type = names.enumType.get(e.name)!;
  const constants = names.enumValues.get(e.name)!;
  return {
    name: type,
    doc: goComment([
      isDoc(type, e.description, `value of ${e.name}`),
      `Its values are the constants ${type}*; the wire carries them as these strings. An answer may hold a value this SDK does not know (one added to the service since): over gRPC, whose wire carries numbers, it reads as "UNKNOWN_<number>".`,
    ]),
    values: e.values.map((v, i) => {
      const name = constants[i]!;
      return { name, value: goString(v.name), doc: goComment([`${name} is ${goString(v.name)}${v.description ? `: ${sentence(lowerFirst(v.description))}` : "."}`], "\t") };
    }),
  };
}

/** The protocols of an operation as its doc comment says them. */
function protocolsDoc(op: OperationFacts): string {
  const list = op.protocols.map((p) => `${p} (since ${op.since[p]})`).join(", ");
  return `Protocols: ${list}${op.fixedProtocol ? `; always sent over ${op.fixedProtocol}, whatever the client's protocol` : ""}.`;
}

/** What a method's doc says of its retries, as the transport decides them (core.go, attempt). */
function retriesDoc(op: OperationFacts, idempotent: boolean): string {
  if (op.kind === "read") return "A read: retried on transient failures.";
  if (op.idempotencyKey)
    return `${idempotent ? "An idempotent write" : "A write"}, retried with an idempotency key: every call carries an Idempotency-Key (WithIdempotencyKey, else a random UUID), the same on every attempt, so the service applies it once.`;
  if (op.retried) return "An idempotent write: retried on transient failures.";
  return "A write: never retried, except after a connection refused before anything was sent.";
}

function methodDoc(op: OperationFacts, method: string, idempotent: boolean): string[] {
  return [
    [`${method} calls ${op.name}: ${sentence(op.description)}`, ...op.rules].join(" "),
    op.destructive ? "It is destructive: it permanently changes or removes data, and a read-only client refuses it." : "",
    protocolsDoc(op),
    `Auth: ${op.authSummary}. ${retriesDoc(op, idempotent)}`,
    op.deprecated ? `Deprecated: ${sentence(op.deprecated)}` : "",
  ];
}

function restLiteral(rest: NonNullable<OperationFacts["rest"]>): string {
  const params = rest.pathParams.length > 0 ? `, pathParams: []string{${rest.pathParams.map(goString).join(", ")}}` : "";
  const headers = rest.headers.length > 0 ? `, headers: [][2]string{${rest.headers.map(([field, header]) => `{${goString(field)}, ${goString(header)}}`).join(", ")}}` : "";
  return `&restBinding{method: ${goString(rest.method)}, path: ${goString(rest.path)}${params}${headers}${rest.inQuery ? ", inQuery: true" : ""}${rest.answer === "redirect" ? ", redirect: true" : ""}}`;
}

function paginationLiteral(pagination: NonNullable<OperationFacts["pagination"]>): string {
  if (pagination.style === "page") return `&pagination{style: paginationPage, items: ${goString(pagination.itemsField)}, pageSize: ${pagination.pageSize ?? 0}}`;
  return `&pagination{style: paginationToken, items: ${goString(pagination.itemsField)}, cursor: ${goString(pagination.cursorField!)}, nextCursor: ${goString(pagination.nextCursorField!)}}`;
}

/** The Go literal of one entry of the operation table, keyed as operation.go declares it. */
function operationEntries(op: OperationFacts, client: string, method: string): { key: string; value: string }[] {
  const protocols = (list: readonly Protocol[]) => list.map((p) => PROTOCOL_CONSTANT[p]).join(", ");
  const gated = op.protocols.filter((p) => op.versionGated[p]);
  const entries: [string, string | null][] = [
    ["name", goString(op.name)],
    ["pascalName", goString(method)],
    ["client", goString(client)],
    ["surface", goString(op.surface)],
    ["kind", goString(op.kind)],
    ["destructive", op.destructive ? "true" : null],
    ["auth", goString(op.auth)],
    ["authAnyOf", op.authAnyOf.length > 1 ? `[]string{${op.authAnyOf.map(goString).join(", ")}}` : null],
    ["deprecated", op.deprecated ? goString(op.deprecated) : null],
    ["protocols", `[]Protocol{${protocols(op.protocols)}}`],
    ["since", `map[Protocol]string{${op.protocols.map((p) => `${PROTOCOL_CONSTANT[p]}: ${goString(op.since[p]!)}`).join(", ")}}`],
    ["fixedProtocol", op.fixedProtocol ? PROTOCOL_CONSTANT[op.fixedProtocol] : null],
    ["versionGated", gated.length > 0 ? `map[Protocol]bool{${gated.map((p) => `${PROTOCOL_CONSTANT[p]}: true`).join(", ")}}` : null],
    ["retried", op.retried ? "true" : null],
    ["idempotencyKey", op.idempotencyKey ? "true" : null],
    ["fills", op.fills.length > 0 ? `[]string{${op.fills.map(goString).join(", ")}}` : null],
    ["graphql", op.graphql ? `&graphqlBinding{document: ${goString(op.graphql.document)}, withParams: ${op.graphql.withParams}}` : null],
    ["rest", op.rest ? restLiteral(op.rest) : null],
    ["grpc", op.grpc ? `&grpcBinding{path: ${goString(op.grpc.path)}, request: ${goString(op.grpc.requestType)}, response: ${goString(op.grpc.responseType)}}` : null],
    ["pagination", op.pagination ? paginationLiteral(op.pagination) : null],
    ["input", goString(op.input)],
    ["output", goString(op.output)],
  ];
  return entries.filter((e): e is [string, string] => e[1] !== null).map(([key, value]) => ({ key, value }));
}

/** The transport's constant of each field kind. */
const FIELD_KIND: Record<FieldFacts["kind"], string> = {
  ...(Object.fromEntries(Object.entries(SCALAR_SPECS).map(([kind, spec]) => [kind, spec.go.kind])) as Record<ScalarKind, string>),
  enum: "kindEnum",
  message: "kindMessage",
};

/** One field of the facts table, keyed, without its zero values. */
function fieldFactsLiteral(field: FieldFacts): string {
  const parts = [`name: ${goString(field.name)}`, `kind: ${FIELD_KIND[field.kind]}`];
  if (field.ref) parts.push(`ref: ${goString(field.ref)}`);
  if (field.value) parts.push(`value: ${FIELD_KIND[field.value]}`);
  if (field.list) parts.push("list: true");
  if (field.required) parts.push("required: true");
  if (field.protoPresence) parts.push("presence: true");
  if (field.secret) parts.push("secret: true");
  return `{${parts.join(", ")}}`;
}

/** Unexported identifier of a camelCase facts key: notCarried -> textNotCarried. */
const factName = (prefix: string, key: string) => `${prefix}${key.charAt(0).toUpperCase()}${key.slice(1)}`;

/** The methods of each client; idempotent names the operations the manifest declares idempotent. */
function clientViews(facts: SdkFacts, names: GoNames, idempotent: ReadonlySet<string>) {
  const messages = new Map(facts.messages.map((m) => [m.name, m]));
  const operations = new Map(facts.operations.map((op) => [op.name, op]));
  return names.clients.map((client) => ({
    name: client.name,
    methods: client.methods.map((method) => {
      const op = operations.get(method.operation)!;
      const input = names.struct.get(op.input)!;
      const output = names.struct.get(op.output)!;
      const iterators = [];
      const pages = [];
      if (op.pagination && method.pages) {
        pages.push({
          name: method.pages,
          doc: goComment([
            `${method.pages} walks the pages of ${method.name}, each answer once, ${op.pagination.style === "page" ? `with the input's page size (pagination limit, default ${op.pagination.pageSize}) from its page (default 1)` : `following the cursor each answer hands back (${op.pagination.nextCursorField})`}: a page is fetched as the loop asks for it, for the totals and cursors of each answer beside its items.`,
            `A failure ends the loop: it is yielded once, with a nil page. Input, options and errors as ${method.name}; WithResponseInto tells of the last page fetched.`,
          ]),
        });
      }
      if (op.pagination && method.iterator) {
        const iterator = method.iterator;
        const items = messages.get(op.output)!.fields.find((f) => f.name === op.pagination!.itemsField)!;
        iterators.push({
          name: iterator,
          item: goFieldType({ ...items, list: false, required: true }, names),
          doc: goComment([
            `${iterator} walks the ${items.name} of ${method.name}, page after page, each item exactly once: pages are fetched as the loop asks for more, ${op.pagination.style === "page" ? `with the input's page size (pagination limit, default ${op.pagination.pageSize}) from its page (default 1)` : `following the cursor each answer hands back (${op.pagination.nextCursorField})`}.`,
            `A failure ends the loop: it is yielded once, with a nil item. Input, options and errors as ${method.name}.`,
          ]),
        });
      }
      return { name: method.name, opVar: method.opVar, input, output, doc: goComment(methodDoc(op, method.name, idempotent.has(op.name))), iterators, pages };
    }),
  }));
}

/** Go's keywords and the names the examples declare themselves: an example variable takes none of them. */
const EXAMPLE_TAKEN = new Set([...GO_KEYWORDS, "admin", "client", "ctx", "err", "apiErr", "errors", "fmt", "log", "context"]);

/** How the examples open their client: the admin client, or the user client of an API without admin operations, with the credentials the API asks for. */
function goExampleClient(ir: Ir, names: GoNames, envPrefix: string) {
  const { adminSecret, clientId } = ir.api.features;
  const adminConstructor = names.clients.find((c) => c.role === "admin")?.constructor;
  const onAdmin = ir.docExamples.surface === "admin";
  const credentials = exampleCredentials(ir);
  // The API key an operation of the client takes, as an option of its constructor (the environment holds none), and a user's token.
  const apiKey = credentials.apiKey ? ` ${ir.api.go.package}.${onAdmin ? "WithAdmin" : "With"}APIKey(${goString(EXAMPLE_CREDENTIALS.apiKey)}),` : "";
  const accessToken = credentials.accessToken ? ` ${ir.api.go.package}.WithAccessToken(${goString(EXAMPLE_CREDENTIALS.accessToken)}),` : "";
  return onAdmin
    ? {
        variable: "admin",
        constructor: `${adminConstructor}("http://localhost:${ir.api.httpPort}",${adminSecret ? ` ${goString(EXAMPLE_CREDENTIALS.adminSecret)},` : ""}${apiKey}`,
        protocolOption: "WithAdminProtocol",
        optionPrefix: "WithAdmin",
        // The settings from the environment: the service URL and the admin secret.
        fromEnvironment: `${adminConstructor}(""${adminSecret ? `, ""` : ""}${apiKey.replace(/,$/, "").replace(/^ /, ", ")})`,
        environment: `${envPrefix}_SERVICE_URL=https://... ${adminSecret ? `${envPrefix}_ADMIN_SECRET=... ` : ""}go run .`,
      }
    : {
        variable: "client",
        constructor: `NewClient(${clientId ? `${goString(EXAMPLE_CREDENTIALS.clientId)}, ` : ""}"http://localhost:${ir.api.httpPort}",${apiKey}${accessToken}`,
        protocolOption: "WithProtocol",
        optionPrefix: "With",
        // The access token from the environment too; an API key the code gives.
        fromEnvironment: `NewClient(${clientId ? `${goString(EXAMPLE_CREDENTIALS.clientId)}, ` : ""}""${apiKey.replace(/,$/, "").replace(/^ /, ", ")})`,
        environment: `${envPrefix}_SERVICE_URL=https://... ${credentials.accessToken ? `${envPrefix}_ACCESS_TOKEN=... ` : ""}go run .`,
      };
}

/** The manifest's own operations in the README and package doc examples (passes/examples.ts), in Go's names. */
function goExamples(ir: Ir, facts: SdkFacts, names: GoNames, structs: readonly ReturnType<typeof structView>[]) {
  const { read, list, lookup, notCarried } = ir.docExamples;
  const method = (name: string) => names.clients.flatMap((c) => c.methods).find((m) => m.operation === name)!;
  const { operation, message, listItems } = factsLookup(facts);
  const struct = (messageName: string) => structs.find((s) => s.name === names.struct.get(messageName))!;
  const fieldName = (messageName: string, wire: string) => struct(messageName).fields.find((f) => f.tag.split(",")[0] === wire)!.name;
  const variable = (typeName: string, fallback: string) => {
    const name = typeName.replace(/^[A-Z]+(?=[A-Z][a-z])|^[A-Z]+$|^[A-Z]/, (head) => head.toLowerCase());
    return EXAMPLE_TAKEN.has(name) ? fallback : name;
  };
  // Fields a Println shows as values: required scalars (optional ones are pointers).
  const printable = (messageName: string) => message(messageName).fields.filter((f) => f.required && !f.list && f.kind !== "message" && f.kind !== "json" && f.kind !== "map");
  const readView =
    read === undefined
      ? undefined
      : (() => {
          const op = operation(read);
          const output = message(op.output);
          const shown = output.fields.find((f) => f.name === facts.versionField) ?? printable(op.output)[0];
          return {
            method: method(read).name,
            input: names.struct.get(op.input)!,
            answer: variable(names.struct.get(op.output)!, "answer"),
            field: shown ? fieldName(op.output, shown.name) : undefined,
          };
        })();
  const listView =
    list === undefined
      ? undefined
      : (() => {
          const { op, items } = listItems(list);
          const iterator = method(list).iterator!;
          const item = items.kind === "message" ? names.struct.get(items.ref!)! : "Item";
          const fields =
            items.kind === "message"
              ? printable(items.ref!)
                  .slice(0, 2)
                  .map((f) => fieldName(items.ref!, f.name))
              : [];
          const itemVariable = variable(item, "item");
          return {
            method: method(list).name,
            iterator,
            pages: method(list).pages!,
            itemsField: fieldName(op.output, op.pagination!.itemsField),
            input: names.struct.get(op.input)!,
            item: itemVariable,
            print: fields.length > 0 ? fields.map((f) => `${itemVariable}.${f}`).join(", ") : itemVariable,
          };
        })();
  const lookupView =
    lookup &&
    (() => {
      const op = operation(lookup.operation);
      return { method: method(lookup.operation).name, input: names.struct.get(op.input)!, field: fieldName(op.input, lookup.field), noun: messageWords(names.struct.get(op.output)!) };
    })();
  // An operation whose method is not its name merely capitalized: the acronyms show.
  const acronym = ir.operations.find((op) => method(op.name).name !== goName(op.name, new Set()));
  // The call of the README's sections: the example read, else the list, else the lookup, else the first operation of the example's client.
  const callName = read ?? list ?? lookup?.operation ?? facts.operations.find((op) => names.clients.find((c) => c.role === ir.docExamples.surface)?.methods.some((m) => m.operation === op.name))!.name;
  const callOp = operation(callName);
  return {
    client: goExampleClient(ir, names, goEnvPrefix(ir)),
    call: { method: method(callName).name, input: names.struct.get(callOp.input)!, answer: variable(names.struct.get(callOp.output)!, "answer") },
    read: readView,
    list: listView,
    lookup: lookupView,
    notCarried: notCarried && notCarriedText(facts.texts.notCarried, facts.texts.protocolSeparator, method(notCarried.operation).name, notCarried),
    // How names are made: the example read, and an operation whose name shows an acronym.
    names: [...(readView ? [{ wire: read!, method: readView.method }] : []), ...(acronym && acronym.name !== read ? [{ wire: acronym.name, method: method(acronym.name).name }] : [])],
  };
}

/** The whole view model the templates of templates/go/ lay out. */
export function goView(ir: Ir, facts: SdkFacts) {
  const names = goNames(ir, facts);
  const inputOf = new Map(facts.operations.map((op) => [op.input, op]));
  const methodOf = new Map(names.clients.flatMap((c) => c.methods.map((m) => [m.operation, { ...m, client: c.name, role: c.role }])));
  const enums = facts.enums.map((e) => enumView(e, names));
  const structs = facts.messages.map((message) => {
    const op = inputOf.get(message.name);
    const name = names.struct.get(message.name)!;
    const doc =
      op && !message.shared
        ? [`${name} is the input of ${methodOf.get(op.name)!.name}.`, message.description ? sentence(message.description) : ""]
        : [isDoc(name, message.description, `answer ${message.name}`)];
    return structView(message, names, message.usedAsInput && !message.usedAsOutput, doc);
  });
  const clients = clientViews(facts, names, new Set(ir.operations.filter((op) => op.idempotent).map((op) => op.name)));
  const codes = names.codes.map(({ code, constant: name, sentinel, internal }) => {
    const wire = facts.errors.server.find((e) => e.code === code);
    return {
      code,
      name,
      internal,
      value: goString(code),
      doc: goComment([`${name} is ${code}: ${wire ? `HTTP ${wire.http}, gRPC status ${wire.grpc}.` : "told by the client itself."}`], "\t"),
      sentinel,
      sentinelDoc: goComment([`${sentinel} matches every *APIError of code ${code}: errors.Is(err, ${ir.api.go.package}.${sentinel}).`], "\t"),
    };
  });
  // The transport package's tables name the codes by its own constants.
  const codeConstant = new Map(codes.map((c) => [c.code, c.internal]));
  const { texts, errors } = facts;
  const durationMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} * time.Second` : `${ms} * time.Millisecond`);
  const constant = (name: string, value: string | number, doc: string) => ({ name, value: String(value), doc: goComment([`${name}: ${doc}`]) });
  const operationsByClient = new Map(facts.clients.flatMap((c) => c.operations.map((name) => [name, c.role])));
  const versionOps = facts.clients.filter((c) => c.versionOperation);
  const usesDate = structs.some((s) => s.fields.some((f) => /(^|[^\w.])Date$/.test(f.type)));

  const adminClient = names.clients.find((c) => c.role === "admin");
  const userClient = names.clients.find((c) => c.role === "user");
  const hasAdminClient = adminClient !== undefined;
  const hasUserClient = userClient !== undefined;
  const titleOf = (role: string) => facts.clients.find((c) => c.role === role)!.title.replace(/^The/, "the");
  // The environment variables of the clients: <API>_SERVICE_URL, <API>_LOG, ... (the API's name upper-cased).
  const envPrefix = goEnvPrefix(ir);
  const userAgent = `${ir.api.go.modulePath}/${ir.api.version}`;
  const allOptions = [...(hasUserClient ? goOptionViews(facts, "user") : []), ...(hasAdminClient ? goOptionViews(facts, "admin") : [])];
  return {
    package: ir.api.go.package,
    // The clients the API has: one only where it has operations for it, named as api.surfaces says.
    hasAdminClient,
    hasUserClient,
    adminClient: adminClient?.name,
    userClient: userClient?.name,
    clientSummary: names.clients.map((c) => `\`${c.name}\` for ${titleOf(c.role)}`).join(", "),
    packageDoc: goComment([
      `Package ${ir.api.go.package} is the Go client of ${ir.api.title} ${ir.api.version}: ${names.clients.map((c) => `${c.role === "admin" ? "an admin client" : "a user client"} (${c.name}) for ${titleOf(c.role)}`).join(" and ")}, over GraphQL (the default), REST or gRPC, with one method per operation. Every answer is a plain struct in one flat shape whichever protocol carried it, and every failure is an *APIError.`,
    ]),
    // What the README says of the constructors the API has, as one sentence.
    constructorsSentence: `${[
      adminClient
        ? facts.features.adminSecret
          ? `\`${adminClient.constructor}(serviceURL, adminSecret, opts...)\` sends the admin secret in header \`${facts.service.adminSecretHeader}\` on every call`
          : `\`${adminClient.constructor}(serviceURL, opts...)\` returns a \`*${adminClient.name}\``
        : "",
      userClient
        ? facts.features.clientId
          ? `\`${userClient.constructor}(clientID, serviceURL, opts...)\` returns a \`*${userClient.name}\` whose \`clientID\` is the default \`client_id\` of the token calls`
          : `\`${userClient.constructor}(serviceURL, opts...)\` returns a \`*${userClient.name}\``
        : "",
    ]
      .filter(Boolean)
      .join("; ")}.`,
    serverVersionOptions: [hasAdminClient ? "WithAdminServerVersion" : "", hasUserClient ? "WithServerVersion" : ""].filter(Boolean).join(" / "),
    // The option functions of the clients (one loop of client.go.hbs writes both forms), and the README's table of them.
    options: allOptions.filter((option) => !option.grpcTypes),
    grpcOptions: allOptions.filter((option) => option.grpcTypes),
    // The build tag that leaves gRPC out, the package's name first: two SDKs in one program are built each its own way.
    noGRPCTag: `${ir.api.go.package}_nogrpc`,
    optionsTable: goOptionsTable(facts, [
      ...(adminClient ? [{ role: "admin" as const, name: `\`${adminClient.name}\`` }] : []),
      ...(userClient ? [{ role: "user" as const, name: `\`${userClient.name}\`` }] : []),
    ]),
    modulePath: ir.api.go.modulePath,
    envPrefix,
    userAgent,
    // The environment variables the clients read, as the README's table says them.
    environment: [
      { name: `${envPrefix}_SERVICE_URL`, meaning: 'The service URL, when the constructor\'s `serviceURL` is `""`.' },
      ...(adminClient && facts.features.adminSecret
        ? [
            {
              name: `${envPrefix}_ADMIN_SECRET`,
              meaning: `The admin secret of \`${adminClient.constructor}\`, when its \`adminSecret\` is \`""\`${facts.features.orgAdmin ? " and no access token is given" : ""}.`,
            },
          ]
        : []),
      ...(userClient || (adminClient && facts.features.orgAdmin)
        ? [
            {
              name: `${envPrefix}_ACCESS_TOKEN`,
              meaning: [
                userClient ? "The user client's access token, without `WithAccessToken`" : "",
                adminClient && facts.features.orgAdmin ? `the admin client's, without an admin secret (in the code or \`${envPrefix}_ADMIN_SECRET\`) or \`WithAdminAccessToken\`` : "",
              ]
                .filter(Boolean)
                .join("; ")
                .replace(/^t/, "T")
                .concat("."),
            },
          ]
        : []),
      { name: `${envPrefix}_LOG`, meaning: "`debug` logs every attempt to standard error, `info` failures and warnings only, `off` (or unset) nothing; a logger option wins." },
    ],
    goVersion: GO_VERSION,
    version: ir.api.version,
    tag: `v${ir.api.version}`,
    title: ir.api.title,
    description: ir.api.metadata.description,
    license: ir.api.metadata.license ? [ir.api.metadata.license] : [],
    repository: ir.api.metadata.repository ? [ir.api.metadata.repository] : [],
    features: facts.features,
    adminSecretHeader: facts.service.adminSecretHeader,
    apiKeyHeader: facts.service.apiKeyHeader,
    grpcPort: facts.service.grpcPort,
    grpcCodeMetadata: facts.errors.grpcCodeMetadata,
    adminTable: operationTable(
      ir.operations.filter((op) => methodOf.get(op.name)!.role === "admin"),
      { method: (op) => methodOf.get(op.name)!.name },
    ),
    userTable: operationTable(
      ir.operations.filter((op) => methodOf.get(op.name)!.role === "user"),
      { method: (op) => methodOf.get(op.name)!.name },
    ),
    // Go literals of the public package's facts.go.
    service: { name: goString(facts.service.name), version: goString(facts.service.version), grpcPort: String(facts.service.grpcPort) },
    // Go literals of what the transport package exports to the public one (its facts.go).
    transport: {
      adminSecretHeader: goString(facts.service.adminSecretHeader),
      apiKeyHeader: goString(facts.service.apiKeyHeader),
      defaultTimeout: durationMs(facts.defaultTimeoutMs),
      defaultMaxResponseBytes: String(facts.defaultMaxResponseBytes),
    },
    // Credentials, which no log shows: the service's own headers, then the standard ones.
    secretHeaders: `[]string{${[...new Set([facts.service.adminSecretHeader, facts.service.apiKeyHeader, "authorization", "proxy-authorization", "cookie", "set-cookie"].filter(Boolean).map((h) => h.toLowerCase()))].map(goString).join(", ")}}`,
    constants: [
      constant("packageName", goString(ir.api.go.package), "the prefix of the errors the package makes itself."),
      constant("envPrefix", goString(envPrefix), `the prefix of the environment variables the clients read (${envPrefix}_SERVICE_URL, ${envPrefix}_LOG, ...).`),
      constant("sdkVersion", goString(ir.api.version), "the version of this SDK, as the x-api-client header names it."),
      constant("userAgent", goString(userAgent), "the User-Agent of every request: the module path and the SDK's version."),
      constant("grpcPort", facts.service.grpcPort, "the port of the gRPC endpoint when no gRPC endpoint option names one."),
      constant("grpcCodeMetadata", goString(errors.grpcCodeMetadata), "the metadata key in which the server names the error code of a failed gRPC call."),
      constant("retryAfterKey", goString(errors.retryAfterKey), "the header (gRPC: metadata) of the wait an overloaded server asks for."),
      constant("versionField", goString(facts.versionField), "the answer field of the version operations that carries the server's version."),
      constant("iteratePageLimit", facts.iteratePageLimit, "the page size of iterators when the input names none."),
      constant("retryAttempts", facts.retry.attempts, "attempts in all of a read, when the retry policy names none."),
      constant("retryBaseDelay", durationMs(facts.retry.baseDelayMs), "the wait before the second attempt, doubled each time."),
      constant("retryMaxDelay", durationMs(facts.retry.maxDelayMs), "the longest wait between two attempts."),
      constant("retryAfterMax", durationMs(facts.retryAfterMaxMs), "a longer Retry-After is not waited for; the usual backoff applies."),
      constant("refusalCode", codeConstant.get(texts.refusalCode)!, "the code of every call the client refuses before sending it."),
      constant("httpFallbackServerError", codeConstant.get(errors.httpFallback.serverError)!, "the code of a 5xx status outside the table."),
      constant("httpFallbackOtherwise", codeConstant.get(errors.httpFallback.otherwise)!, "the code of any other status outside the table."),
      constant("grpcFallback", codeConstant.get(errors.grpcFallback)!, "the code of a gRPC status outside the table."),
      // The code of each failure the client names itself (one table for every language).
      ...Object.entries(errors.faults).map(([fault, code]) => constant(factName("fault", fault), codeConstant.get(code)!, `the code of a failure the client names itself (${fault}).`)),
    ],
    texts: goSpecLines(
      Object.entries(texts as Record<string, unknown>)
        .filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[0] !== "refusalCode")
        .map(([key, value]) => ({ name: factName("text", key), value: goString(value) })),
      "\t",
    ),
    wireTexts: goSpecLines(
      Object.entries(texts.wire).map(([key, value]) => ({ name: factName("wireText", key), value: goString(value) })),
      "\t",
    ),
    versionOperations: `map[string]string{${versionOps.map((c) => `${goString(c.role)}: ${goString(c.versionOperation!)}`).join(", ")}}`,
    tokenVersionOperation: goString(facts.tokenVersionOperation ?? ""),
    versionAnswers: `map[string]func() any{${[...new Set([...versionOps.map((c) => c.versionOperation!), ...(facts.tokenVersionOperation ? [facts.tokenVersionOperation] : [])])]
      .map((name) => `${goString(name)}: func() any { return new(${names.struct.get(facts.operations.find((op) => op.name === name)!.output)!}) }`)
      .join(", ")}}`,
    hasEnums: facts.enums.length > 0,
    enumFacts: goKeyedLines(
      facts.enums.map((e) => ({ key: goString(e.name), value: `{${e.values.map((v) => `{${goString(v.name)}, ${v.number}}`).join(", ")}}` })),
      "\t",
    ),
    unionTags: `map[string]string{${facts.messages
      .filter((m) => m.discriminator !== null)
      .map((m) => `${goString(m.name)}: ${goString(m.discriminator!)}`)
      .join(", ")}}`,
    unionMessages: `map[string]bool{${facts.messages
      .filter((m) => m.oneOf)
      .map((m) => `${goString(m.name)}: true`)
      .join(", ")}}`,
    messageFacts: goKeyedLines(
      facts.messages.map((m) => ({
        key: goString(m.name),
        value: m.fields.length === 0 ? "{}" : `{\n${m.fields.map((f) => `\t\t${fieldFactsLiteral(f)},`).join("\n")}\n\t}`,
      })),
      "\t",
    ),
    operations: facts.operations.map((op) => {
      const method = methodOf.get(op.name)!;
      const client = operationsByClient.get(op.name)!;
      return {
        name: method.opVar,
        doc: goComment([`${method.opVar} is operation ${op.name}, called by ${method.client}.${method.name}.`]),
        entries: goKeyedLines(operationEntries(op, client, method.name), "\t"),
      };
    }),
    codes,
    internalCodes: goSpecLines(
      codes.map((c) => ({ name: c.internal, value: `ErrorCode(${c.value})` })),
      "\t",
    ),
    serverCodes: errors.server.map((e) => `{${codeConstant.get(e.code)}, ${e.http}, ${e.grpc}}`),
    transientCodes: `[]ErrorCode{${errors.transientCodes.map((code) => codeConstant.get(code)!).join(", ")}}`,
    transientHTTPStatuses: `[]int{${errors.transientHttpStatuses.join(", ")}}`,
    oauthCodes: goKeyedLines(
      Object.entries(errors.oauth).map(([error, code]) => ({ key: goString(error), value: codeConstant.get(code)! })),
      "\t",
    ),
    grpcNoAnswerStatuses: `[]uint32{${errors.grpcNoAnswerStatuses.join(", ")}}`,
    grpcUnreadableStatuses: `[]uint32{${errors.grpcUnreadableStatuses.join(", ")}}`,
    grpcBareStatuses: `map[uint32]ErrorCode{${Object.entries(errors.grpcBareStatuses)
      .map(([status, code]) => `${status}: ${codeConstant.get(code)!}`)
      .join(", ")}}`,
    enums,
    structs,
    usesTime: usesDate || structs.some((s) => s.fields.some((f) => /\btime\./.test(f.type))),
    usesDate,
    clients,
    usesIter: clients.some((c) => c.methods.some((m) => m.iterators.length > 0 || m.pages.length > 0)),
    examples: goExamples(ir, facts, names, structs),
  };
}

// ---------------------------------------------------------------- templates

/** The template that ships the descriptor set; rendered by its own derived group. */
const DESCRIPTORS_TEMPLATE = "internal/transport/descriptors.go";
/** Copied as it is, without the generated-file header (go.sum allows no comments). */
const VERBATIM = new Set(["go.sum"]);

export function emitGo(ir: Ir): GeneratedFile[] {
  const view = goView(ir, buildSdkFacts(ir));
  return goTemplates().flatMap((template): GeneratedFile[] => {
    const path = `${GO_DIR}/${template.path}`;
    if (template.verbatim) return [{ path, content: template.render(), header: !VERBATIM.has(template.path), source: `templates/go/${template.path}` }];
    // Each template with its view (go-views.ts): the whole view model.
    switch (template.path) {
      case DESCRIPTORS_TEMPLATE:
        return [];
      case "README.md":
      case "client.go":
      case "codes.go":
      case "doc.go":
      case "errors.go":
      case "facts.go":
      case "grpc.go":
        // Options of grpc's types only where the clients have some: an import unused would not compile.
        return view.grpcOptions.length > 0 ? [{ path, content: template.render(view), header: true }] : [];
      case "go.mod":
      case "methods.go":
      case "types.go":
      case "internal/transport/codes.go":
      case "internal/transport/errors.go":
      case "internal/transport/facts.go":
      case "internal/transport/http.go":
      case "internal/transport/grpc_conn.go":
      case "internal/transport/grpc_off.go":
        return [{ path, content: template.render(view), header: true }];
      default:
        return templateWithoutView("go", template);
    }
  });
}

/**
 * descriptors.go, the descriptor set the gRPC transport builds its dynamic messages from, as a
 * derived group keyed on the hash the protobuf-es group already takes of the descriptors (as for
 * the Python SDK): a run where they did not change keeps the file on disk.
 */
export function emitGoDescriptors(descriptors: readonly FileDescriptorProto[], descriptorsHash: string): DerivedGroup {
  const template = goTemplates().find((t): t is Template<typeof DESCRIPTORS_TEMPLATE, GoViews[typeof DESCRIPTORS_TEMPLATE]> => t.path === DESCRIPTORS_TEMPLATE)!;
  const path = `${GO_DIR}/${template.path}`;
  return descriptorSetGroup("go-descriptors", path, template, 100, descriptors, descriptorsHash);
}
