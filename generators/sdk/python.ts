// The Python SDK (generated/python/): a view model built from the IR and the language-neutral SDK
// facts (sdk-facts.ts), laid out by the handlebars templates of templates/python/. Everything Python
// adds is computed here (the names in python-names.ts): type expressions, the module of each type
// and method, docstrings and literals. The templates hold no decisions; files under templates/python/ without .hbs (the
// hand-written runtime) are copied as they are.
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { UsageError } from "../load/diagnostics.js";
import { PYTHON_KEYWORDS } from "../ir/passes/packages.js";
import {
  pythonArgumentName,
  pythonAttributeName,
  pythonClientName,
  pythonIteratorName,
  pythonMethodName,
  pythonModuleName,
  pythonPagesIteratorName,
  pythonRawClientName,
  pythonRawResourceClassName,
  pythonResourceClassName,
  PYTHON_SDK_NAMES,
} from "./python-names.js";
import { clientRoleOf, type Ir } from "../ir/ir.js";
import { upperSnakeCase } from "../ir/naming.js";
import type { DerivedGroup, GeneratedFile } from "../write/writer.js";
import { notCarriedText, operationTable } from "../emit/operation-text.js";
import { loadTemplates, type Template, type TemplateFile } from "./templates.js";
import { templateWithoutView } from "./template-views.js";
import type { PythonViews } from "./python-views.js";
import { pythonOptions, pythonOptionsTable, type ResolvedPythonOption } from "./client-options.js";
import { SCALAR_SPECS } from "./scalars.js";
import { IDEMPOTENCY_KEY_FORM, IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../../runtime/idempotency.js";
import { allOrder, importOrder, PythonFile } from "./python-printer.js";
import {
  buildSdkFacts,
  descriptorSetGroup,
  EXAMPLE_CREDENTIALS,
  exampleCredentials,
  factsLookup,
  ROLE_TOKEN_TEXT,
  type ClientFacts,
  type FieldFacts,
  type MessageFacts,
  type OperationFacts,
  type SdkFacts,
} from "./sdk-facts.js";

export const PYTHON_DIR = "generated/python";
/**
 * Third-party requirements of the package: httpx always (and httpcore, through which the sync
 * client bounds its own sockets by each call's deadline; httpx 0.26 is the first on httpcore 1),
 * grpcio and protobuf with the grpc extra.
 */
export const PYTHON_DEPENDENCIES = ["httpx>=0.26,<1", "httpcore>=1,<2"];
export const PYTHON_GRPC_EXTRA = ["grpcio>=1.60,<2", "protobuf>=4.25,<8"];
export const PYTHON_REQUIRES = ">=3.10";
/** ruff's line length in the generated pyproject.toml. */
const PYTHON_LINE_LENGTH = 160;

/** A value as a Python literal. */
export function pyLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return String(value);
  // A JSON string literal is a valid Python string literal.
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return value.length === 1 ? `(${pyLiteral(value[0])},)` : `(${value.map(pyLiteral).join(", ")})`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${JSON.stringify(key)}: ${pyLiteral(item)}`)
    .join(", ")}}`;
}

/** Text safe inside a triple-quoted docstring. */
const docText = (text: string) => text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"').trim();

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// ---------------------------------------------------------------- type expressions

interface Names {
  /** Message name -> answer class / input TypedDict. */
  answerClass: Map<string, string>;
  inputDict: Map<string, string>;
}

/** How one module writes type expressions: each name they use is asked of its file, which imports it. */
interface ModuleTypes {
  readonly file: PythonFile;
  /** A type the package declares (an enum, answer class or input TypedDict, or a JSON type of _model.py), as this module names it. */
  own(name: string): string;
}

function itemType(field: FieldFacts, as: "input" | "answer", names: Names, types: ModuleTypes): string {
  // Any name, not only those this SDK knows: a newer service may send or take a value added since.
  if (field.kind === "enum") return `${types.own(field.ref!)} | str`;
  if (field.kind === "message") {
    const name = (as === "input" ? names.inputDict : names.answerClass).get(field.ref!);
    if (!name) throw new Error(`no Python ${as} type for message ${field.ref}`);
    return types.own(name);
  }
  if (field.value) {
    // map<V>: Mapping[str, V] in, dict[str, V] out.
    const value = itemType({ ...field, kind: field.value, value: null, list: false }, as, names, types);
    return as === "input" ? `${types.file.use("collections.abc", "Mapping")}[str, ${value}]` : `dict[str, ${value}]`;
  }
  const python = SCALAR_SPECS[field.kind].python;
  const imported = python.imports?.[as];
  if (imported) {
    if ("own" in imported) types.own(imported.own);
    else types.file.use(imported.module, imported.name);
  }
  return python[as];
}

function fieldType(field: FieldFacts, as: "input" | "answer", names: Names, types: ModuleTypes): string {
  const item = itemType(field, as, names, types);
  if (!field.list) return item;
  return as === "input" ? `${types.file.use("collections.abc", "Sequence")}[${item}]` : `list[${item}]`;
}

// ---------------------------------------------------------------- view model

interface FieldView {
  attr: string;
  type: string;
  doc: string;
}

/** What an input of a timestamp takes (_shape.py): a datetime naming its timezone. */
const TIMESTAMP_INPUT = "A timezone-aware datetime (a naive one is refused).";

/** `input`: the field is sent, so its docs state the server's rules for it. */
function fieldDoc(field: FieldFacts, input: boolean): string {
  return docText(
    // Only what the manifest says of the field, and what a timestamp takes: no doc is better than one repeating its name.
    [
      field.description,
      field.secret ? "Secret." : "",
      input && field.kind === "timestamp" ? TIMESTAMP_INPUT : "",
      ...(input ? field.rules : []),
      field.deprecated ? `Deprecated: ${field.deprecated}` : "",
    ]
      .filter(Boolean)
      .join(" "),
  );
}

function answerClassView(message: MessageFacts, names: Names, types: ModuleTypes) {
  // The template declares the class @dataclass(frozen=True, slots=True), a Model with _message: ClassVar[str].
  types.file.use("dataclasses", "dataclass");
  types.file.use("typing", "ClassVar");
  types.own("Model");
  return {
    name: names.answerClass.get(message.name)!,
    message: JSON.stringify(message.name),
    doc: docText(message.description || `Answer ${message.name}.`),
    fields: message.fields.map((f): FieldView => ({
      attr: pythonAttributeName(f.name),
      type: f.alwaysInAnswer ? fieldType(f, "answer", names, types) : `${fieldType(f, "answer", names, types)} | None`,
      doc: fieldDoc(f, false),
    })),
    tag: message.discriminator === null ? null : tagPropertyView(message, message.discriminator, types),
  };
}

/** A tagged union's tag as a property of its answer class: the variant given, whatever the protocol carried. */
function tagPropertyView(message: MessageFacts, tag: string, types: ModuleTypes) {
  const variants = message.fields.map((f) => JSON.stringify(f.name));
  const chain = message.fields.map((f) => `${JSON.stringify(f.name)} if self.${pythonAttributeName(f.name)} is not None else `).join("");
  return {
    attr: pythonAttributeName(tag),
    type: `${types.file.use("typing", "Literal")}[${variants.join(", ")}] | None`,
    doc: docText(`Which variant is given: ${message.fields.map((f) => f.name).join(", ")} (None when none is).`),
    expression: `${chain}None`,
  };
}

function inputDictView(message: MessageFacts, names: Names, types: ModuleTypes) {
  const name = names.inputDict.get(message.name)!;
  const entry = (f: FieldFacts) => ({ key: f.name, type: f.required ? fieldType(f, "input", names, types) : `${fieldType(f, "input", names, types)} | None`, doc: fieldDoc(f, true) });
  const typedDict = () => types.file.use("typing", "TypedDict");
  const required = message.fields.filter((f) => f.required).map(entry);
  const optional = message.fields.filter((f) => !f.required).map(entry);
  const mixed = required.length > 0 && optional.length > 0;
  // A key that is a Python keyword can only be declared in the functional syntax, which cannot mix
  // required and optional keys: there every key is optional (the server still checks them).
  if (message.fields.some((f) => PYTHON_KEYWORDS.has(f.name))) {
    const keys = [...required, ...optional].map((f) => `${JSON.stringify(f.key)}: ${f.type}`).join(", ");
    return { name, doc: docText(message.description || name), classForm: [], functionalForm: [{ declaration: `${typedDict()}(${JSON.stringify(name)}, {${keys}}, total=False)` }] };
  }
  return {
    name,
    doc: docText(message.description || name),
    classForm: [
      {
        // Required keys in a base of their own, so that the optional ones can be total=False (Python 3.10 has no NotRequired).
        requiredBase: mixed ? [{ name: `_${name}Required`, base: typedDict(), fields: required }] : [],
        bases: mixed ? `_${name}Required, total=False` : optional.length === 0 ? typedDict() : `${typedDict()}, total=False`,
        fields: mixed ? optional : [...required, ...optional],
      },
    ],
    functionalForm: [],
  };
}

function methodDoc(op: OperationFacts, params: { attr: string; field: FieldFacts }[]): string {
  const marks = [op.destructive ? "Destructive." : "", op.deprecated ? `Deprecated: ${op.deprecated}` : ""].filter(Boolean).join(" ");
  const protocols = `Protocols: ${op.protocols.map((p) => `${p} (since ${op.since[p]})`).join(", ")}${op.fixedProtocol ? `; always sent over ${op.fixedProtocol}` : ""}.`;
  const args = [
    // An argument the manifest says nothing of, and that has no rule, is left out rather than named twice.
    ...params.map(({ attr, field }) => ({ attr, text: fieldDoc(field, true) })).filter(({ text }) => text !== ""),
    { attr: "extra_headers", text: "Headers of this call only, added to the client's." },
    {
      attr: "extra_body",
      text: "Top-level input fields this SDK does not know yet, sent beside the others (REST: in the body or the query; GraphQL: in the variables' params). Refused over gRPC (INVALID_ARGUMENT), whose messages carry only the fields this SDK knows.",
    },
    { attr: "timeout", text: "Deadline of this call in seconds (default: the client's timeout)." },
    {
      attr: "max_retries",
      text: op.retried
        ? "Retries of this call on transient failures (no answer, 429, 502-504), instead of the client's RetryPolicy; 0: one attempt."
        : "Retries of this call after a refused connection (nothing was sent; this write is not retried otherwise), instead of the client's RetryPolicy; 0: one attempt.",
    },
    ...(op.idempotencyKey
      ? [
          {
            attr: "idempotency_key",
            text: `The Idempotency-Key of this call, ${IDEMPOTENCY_KEY_FORM} (default: a new UUID). Every attempt carries the same key, so the service applies the write once; give your own to make a later call a repeat of this one. A wrong key raises ValueError.`,
          },
        ]
      : []),
  ];
  const lines = [
    ...wrap(docText([op.description, ...op.rules].join(" "))),
    "",
    ...wrap([marks, protocols].filter(Boolean).join(" ")),
    "",
    "Args:",
    ...args.flatMap(({ attr, text }) => wrap(`${attr}: ${text}`, 92).map((line, i) => (i === 0 ? `    ${line}` : `        ${line}`))),
    "",
    "Raises:",
    "    ApiError: the call failed or was refused before anything was sent.",
  ];
  return lines.join("\n");
}

function operationView(op: OperationFacts, message: MessageFacts, names: Names, answer: MessageFacts, types: ModuleTypes) {
  const params = message.fields.map((field) => ({ attr: pythonArgumentName(field.name), field }));
  const declarations = params.map(({ attr, field }) => (field.required ? `${attr}: ${fieldType(field, "input", names, types)}` : `${attr}: ${fieldType(field, "input", names, types)} | None = None`));
  // Required arguments first: Python reads them more easily, and keyword-only arguments may come in any order.
  const ordered = [...declarations.filter((d) => !d.endsWith("= None")), ...declarations.filter((d) => d.endsWith("= None"))];
  const returns = types.own(names.answerClass.get(op.output)!);
  const given = `{${params.map(({ attr, field }) => `${JSON.stringify(field.name)}: ${attr}`).join(", ")}}`;
  const pagination = op.pagination;
  const items = pagination ? answer.fields.find((f) => f.name === pagination.itemsField)! : undefined;
  return {
    name: pythonMethodName(op.name),
    key: JSON.stringify(op.name),
    params: ordered,
    given,
    returns,
    /** The call takes an Idempotency-Key (keyword argument idempotency_key). */
    keyed: op.idempotencyKey,
    deprecation: op.deprecated ? `${types.file.use("warnings", "warn")}(${pyLiteral(`${pythonMethodName(op.name)}() is deprecated: ${op.deprecated}`)}, DeprecationWarning, stacklevel=2)` : "",
    doc: methodDoc(op, params),
    /** The docstring of its twin answering a RawResponse (client.with_raw_response). */
    rawDoc: wrap(
      `As ${pythonMethodName(op.name)}(), answering a RawResponse: the HTTP status (None over gRPC), the headers (gRPC: metadata), the protocol and the attempts of the call; .parse() gives its answer.`,
    ).join("\n"),
    iterators: items
      ? [
          {
            name: pythonIteratorName(op.name),
            item: itemType(items, "answer", names, types),
            itemClass: items.kind === "enum" ? "str" : itemType(items, "answer", names, types),
            doc: `Every item of ${items.name} of ${pythonMethodName(op.name)}(), page after page, each once; pages are fetched as the loop goes.\n\nArgs and errors as ${pythonMethodName(op.name)}().`,
            pagesName: pythonPagesIteratorName(op.name),
            pagesDoc: `Every page of ${pythonMethodName(op.name)}(), each its whole answer, as ${pythonIteratorName(op.name)}() walks them; pages are fetched as the loop goes.\n\nArgs and errors as ${pythonMethodName(op.name)}().`,
          },
        ]
      : [],
  };
}

/** The entries of one Operation(...) of the facts table, as Python keyword arguments. */
function operationEntries(op: OperationFacts, message: MessageFacts, answer: MessageFacts, file: PythonFile) {
  const fact = (name: string) => file.use("._facts", name);
  const graphql = op.graphql ? `${fact("GraphqlBinding")}(${pyLiteral(op.graphql.document)}, ${pyLiteral(op.graphql.withParams)})` : "None";
  const redirect = `${op.rest?.headers.length ? `, headers=(${op.rest.headers.map(([field, header]) => `(${pyLiteral(field)}, ${pyLiteral(header)}),`).join(" ")})` : ""}${op.rest?.answer === "redirect" ? ", redirect=True" : ""}`;
  const rest = op.rest
    ? op.rest.pathParams.length === 0 && !op.rest.inQuery
      ? `${fact("RestBinding")}(${pyLiteral(op.rest.method)}, ${pyLiteral(op.rest.path)}${redirect})`
      : `${fact("RestBinding")}(${pyLiteral(op.rest.method)}, ${pyLiteral(op.rest.path)}, (${op.rest.pathParams.map((p) => `${pyLiteral(p)},`).join(" ")}), ${op.rest.inQuery ? "True" : "False"}${redirect})`
    : "None";
  const grpc = op.grpc ? `${fact("GrpcBinding")}(${pyLiteral(op.grpc.path)}, ${pyLiteral(op.grpc.requestType)}, ${pyLiteral(op.grpc.responseType)})` : "None";
  const items = op.pagination ? answer.fields.find((f) => f.name === op.pagination!.itemsField)! : undefined;
  const pagination = op.pagination
    ? op.pagination.style === "page"
      ? `${fact("Pagination")}(${pyLiteral(op.pagination.style)}, ${pyLiteral(pythonAttributeName(items!.name))}, ${op.pagination.pageSize ?? "None"})`
      : `${fact("Pagination")}(${pyLiteral(op.pagination.style)}, ${pyLiteral(pythonAttributeName(items!.name))}, None, ${pyLiteral(op.pagination.cursorField)}, ${pyLiteral(pythonAttributeName(op.pagination.nextCursorField!))})`
    : "None";
  const gated = Object.entries(op.versionGated)
    .filter(([, gatedOver]) => gatedOver)
    .map(([p]) => p);
  const entries: [string, string][] = [
    ["name", pyLiteral(op.name)],
    ["pascal_name", pyLiteral(op.pascalName)],
    ["method", pyLiteral(pythonMethodName(op.name))],
    ["surface", pyLiteral(op.surface)],
    ["kind", pyLiteral(op.kind)],
    ["destructive", pyLiteral(op.destructive)],
    ["auth", pyLiteral(op.auth)],
    ["auth_any_of", pyLiteral(op.authAnyOf)],
    ["protocols", pyLiteral(op.protocols)],
    ["fixed_protocol", pyLiteral(op.fixedProtocol)],
    ["retried", pyLiteral(op.retried)],
    ["idempotency_key", pyLiteral(op.idempotencyKey)],
    ["fills", pyLiteral(op.fills)],
    ["since", pyLiteral(op.since)],
    ["version_gated", gated.length > 0 ? `frozenset(${pyLiteral(gated)})` : "frozenset()"],
    ["graphql", graphql],
    ["rest", rest],
    ["grpc", grpc],
    ["pagination", pagination],
    ["input", pyLiteral(op.input)],
    ["output", pyLiteral(op.output)],
    ["arguments", pyLiteral(Object.fromEntries(message.fields.map((f) => [f.name, pythonArgumentName(f.name)])))],
  ];
  return entries.map(([key, value]) => ({ key, value }));
}

/** The options a constructor reads from the environment when the code gives none: <envPrefix>_<variable>. */
const ENVIRONMENT_OPTIONS: Readonly<Record<string, string>> = { service_url: "SERVICE_URL", admin_secret: "ADMIN_SECRET", access_token: "ACCESS_TOKEN" };

/** The options of a client's constructor, from the table (sdk/client-options.ts); those read from the environment optional. */
function clientOptions(role: ClientFacts["role"], sync: boolean, facts: SdkFacts): ResolvedPythonOption[] {
  return pythonOptions({ facts, role, sync }).map((option) => {
    const variable = ENVIRONMENT_OPTIONS[option.name];
    if (variable === undefined) return option;
    const name = `${facts.service.envPrefix}_${variable}`;
    return {
      ...option,
      declaration: option.declaration.includes("=") ? option.declaration : `${option.declaration} | None = None`,
      doc: option.doc.includes(name) ? option.doc : `${option.doc} Default: the environment variable ${name}.`,
    };
  });
}

/** The constructor arguments of a client, from the table of client options (sdk/client-options.ts). */
function configParams(role: ClientFacts["role"], sync: boolean, facts: SdkFacts) {
  return clientOptions(role, sync, facts).map((option) => ({
    decl: `${option.name}: ${option.declaration}`,
    name: option.name,
    doc: option.doc,
    setting: option.setting,
    imports: option.imports,
  }));
}

/** The README's table of constructor arguments: the table of client options'. */
function readmeOptionsTable(facts: SdkFacts): string {
  return pythonOptionsTable(
    facts,
    facts.clients.map((c) => ({ role: c.role, name: `\`${pythonClientName(c, "sync")}\`` })),
  );
}

/** The module of types/ holding the types that operations of several groups reach (and those none reach). */
const SHARED_TYPES_MODULE = "shared";

/**
 * resources/<group>.py: per group and client, the sync and async classes holding the group's
 * methods, which the clients inherit (the methods are the client's: admin.users()).
 * A group whose operations are on both clients has a class for each, named after the client.
 */
function resourceModules(
  ir: Ir,
  facts: SdkFacts,
  methods: ReadonlyMap<string, ReturnType<typeof operationView>>,
  names: { taken: ReadonlyMap<string, string> },
  fileOf: (group: string) => PythonFile,
) {
  const classOwners = new Map(names.taken);
  const roleOf = new Map(facts.clients.flatMap((client) => client.operations.map((name) => [name, client.role])));
  const clientOfRole = new Map(facts.clients.map((client) => [client.role, client]));
  return ir.groups.map((group) => {
    const pythonFile = fileOf(group.name);
    const roles = facts.clients.map((client) => client.role).filter((role) => group.operations.some((name) => roleOf.get(name) === role));
    const classes = roles.flatMap((role) =>
      (["sync", "async"] as const).map((mode) => {
        const sync = mode === "sync";
        const client = pythonClientName(clientOfRole.get(role)!, mode);
        return {
          role,
          mode,
          name: pythonResourceClassName(group.pascalName, role, mode, roles.length > 1),
          base: pythonFile.use(".._base", sync ? "SyncResource" : "AsyncResource"),
          doc: wrap(docText(`${group.title}: the operations of group ${group.name} on ${client}, which inherits them.`)).join("\n"),
          rawName: pythonRawResourceClassName(group.pascalName, role, mode, roles.length > 1),
          rawBase: pythonFile.use(".._base", sync ? "SyncRawResource" : "AsyncRawResource"),
          rawDoc: wrap(docText(`The operations of group ${group.name} on ${client}.with_raw_response, each answering a RawResponse.`)).join("\n"),
          def: sync ? "def" : "async def",
          await: sync ? "" : "await ",
          iteratorType: sync ? "Iterator" : "AsyncIterator",
          methods: group.operations.filter((name) => roleOf.get(name) === role).map((name) => methods.get(name)!),
        };
      }),
    );
    for (const name of classes.flatMap((c) => [c.name, c.rawName])) {
      const owner = classOwners.get(name);
      if (owner) throw new UsageError(`the Python class ${name} of group ${group.name} is taken by ${owner === "another type" ? "a type of the same name" : owner}; rename one in the manifest`);
      classOwners.set(name, `the class of group ${group.name}`);
    }
    // The template writes each method's extra_headers: Mapping[str, str], its OPERATIONS[...], a raw twin's RawResponse[...] and an iterator's Iterator[...] / AsyncIterator[...].
    pythonFile.use("collections.abc", "Mapping");
    pythonFile.use(".._schema", "OPERATIONS");
    pythonFile.use(".._observe", "RawResponse");
    for (const c of classes) if (c.methods.some((m) => m.iterators.length > 0)) pythonFile.use("collections.abc", c.iteratorType);
    return {
      file: pythonModuleName(group.name),
      doc: docText(`${group.title}: the methods of group ${group.name}.`),
      classes,
      imports: pythonFile.imports(),
    };
  });
}

type AnswerClassView = ReturnType<typeof answerClassView>;
type InputDictView = ReturnType<typeof inputDictView>;
interface EnumView {
  name: string;
  literal: string;
  doc: string;
}

/** The names of _model.py that type expressions write. */
const MODEL_TYPES = new Set(["JsonInput", "JsonObject", "JsonValue", "Model"]);

/** The modules of types/: the module of each message and enum, and how each module writes type expressions. */
function typesLayout(ir: Ir, facts: SdkFacts, names: Names) {
  const moduleOf = typeModuleOf(ir, facts);
  // By Python name: an input TypedDict is named apart from its message.
  const moduleOfType = new Map([
    ...facts.enums.map((e) => [e.name, moduleOf(e.name)] as const),
    ...[...names.answerClass, ...names.inputDict].map(([message, name]) => [name, moduleOf(message)] as const),
  ]);
  const fileOf = pythonFiles();
  const typesOf = (module: string): ModuleTypes => {
    const file = fileOf(module);
    return {
      file,
      own: (name) => {
        if (MODEL_TYPES.has(name)) return file.use(".._model", name);
        const declaredIn = moduleOfType.get(name);
        if (declaredIn === undefined) throw new Error(`no module of types/ declares ${name}`);
        return declaredIn === module ? name : file.use(`.${declaredIn}`, name);
      },
    };
  };
  return { moduleOf, typesOf };
}

/** types/<module>.py: the enums, answer classes and input TypedDicts of each module (typeModuleOf), in manifest order. */
function typeModules(
  ir: Ir,
  layout: ReturnType<typeof typesLayout>,
  types: { enums: readonly EnumView[]; answerClasses: readonly (readonly [string, AnswerClassView])[]; inputDicts: readonly (readonly [string, InputDictView])[] },
) {
  const { moduleOf } = layout;
  const files = [...new Set([SHARED_TYPES_MODULE, ...ir.groups.map((g) => pythonModuleName(g.name))])].sort();
  return files
    .map((file) => {
      const enums = types.enums.filter((e) => moduleOf(e.name) === file);
      const answerClasses = types.answerClasses.filter(([message]) => moduleOf(message) === file).map(([, view]) => view);
      const inputDicts = types.inputDicts.filter(([message]) => moduleOf(message) === file).map(([, view]) => view);
      return { file, enums, answerClasses, inputDicts, all: allOrder([...enums.map((e) => e.name), ...answerClasses.map((c) => c.name), ...inputDicts.map((d) => d.name)]) };
    })
    .filter((module) => module.all.length > 0)
    .map((module) => {
      const pythonFile = layout.typesOf(module.file).file;
      // The template declares each enum as a Literal[...], and each answer class's extra = field(...): dict[str, JsonValue].
      if (module.enums.length > 0) pythonFile.use("typing", "Literal");
      const extra = module.answerClasses.length > 0 ? { field: pythonFile.use("dataclasses", "field"), jsonValue: layout.typesOf(module.file).own("JsonValue") } : { field: "", jsonValue: "" };
      return {
        ...module,
        ...extra,
        doc: docText(
          module.file === SHARED_TYPES_MODULE
            ? "Types that operations of several groups (or none) reach."
            : `Types only the operations of group ${ir.groups.find((g) => pythonModuleName(g.name) === module.file)!.name} reach.`,
        ),
        imports: pythonFile.imports(),
      };
    });
}

function clientViews(facts: SdkFacts, methods: Map<string, ReturnType<typeof operationView>>, resources: ReturnType<typeof resourceModules>, file: PythonFile) {
  // The template passes the arguments into the client core's Settings.
  file.use("._core", "Settings");
  return facts.clients.flatMap((client) =>
    (["sync", "async"] as const).map((mode) => {
      const sync = mode === "sync";
      const base = client.role === "admin" ? (sync ? "SyncClientBase" : "AsyncClientBase") : sync ? "SyncUserClientBase" : "AsyncUserClientBase";
      const name = pythonClientName(client, mode);
      const params = configParams(client.role, sync, facts);
      for (const [module, name] of params.flatMap((p) => p.imports)) file.use(module, name);
      const title = `${client.title} of ${facts.service.title}, over graphql (default), rest or grpc${sync ? "" : ", with asyncio"}.`;
      const usage = sync ? `with ${name}(service_url=...) as client: ...` : `async with ${name}(service_url=...) as client: ...`;
      return {
        name,
        // The client's base, then the classes of its groups' methods, in the manifest's order of groups.
        bases: [
          file.use("._base", base),
          ...resources.flatMap((module) => module.classes.filter((c) => c.role === client.role && c.mode === mode).map((c) => file.use(`.resources.${module.file}`, c.name))),
        ],
        // client.with_raw_response: the same methods, each answering a RawResponse.
        rawName: pythonRawClientName(client, mode),
        rawBases: resources.flatMap((module) => module.classes.filter((c) => c.role === client.role && c.mode === mode).map((c) => file.use(`.resources.${module.file}`, c.rawName))),
        rawDoc: wrap(`The methods of ${name}, each answering a RawResponse (what came with the answer, and .parse() for the answer itself): ${name}.with_raw_response.`).join("\n"),
        role: JSON.stringify(client.role),
        doc: [title, "", `Use it as a context manager (${usage}) or call ${sync ? "close()" : "await close()"} when done.`, "", "Args:", ...params.map((p) => `    ${p.name}: ${p.doc}`)].join("\n"),
        params: params.map((p) => p.decl),
        settings: params.flatMap((p) => (p.setting ? [p.setting] : [])),
        methods: client.operations.map((name) => methods.get(name)!),
      };
    }),
  );
}

/** Exceptions of Python and its standard library: an error class named like one would be mistaken for it. */
const PYTHON_EXCEPTIONS = new Set(["CancelledError", "TimeoutError", "PermissionError", "ConnectionError", "InterruptedError", "LookupError", "NotImplementedError"]);

function errorView(facts: SdkFacts) {
  const { errors } = facts;
  const pascal = (code: string) => code.toLowerCase().replace(/(^|_)(.)/g, (_, __: string, c: string) => c.toUpperCase());
  const className = (code: string) => (PYTHON_EXCEPTIONS.has(`${pascal(code)}Error`) ? `Api${pascal(code)}Error` : `${pascal(code)}Error`);
  const all = [...errors.server.map((e) => e.code), ...errors.clientOnly];
  const classes = all.map((code) => {
    const wire = errors.server.find((e) => e.code === code);
    return { code, name: className(code), doc: wire ? `${code}: HTTP ${wire.http}, gRPC status ${wire.grpc}.` : `${code}: told by the client itself.` };
  });
  return {
    literal: all.map(pyLiteral).join(", "),
    httpTable: errors.server.map((e) => `${pyLiteral(e.code)}: ${e.http}`).join(", "),
    grpcTable: errors.server.map((e) => `${pyLiteral(e.code)}: ${e.grpc}`).join(", "),
    oauthTable: Object.entries(errors.oauth)
      .map(([error, code]) => `${pyLiteral(error)}: ${pyLiteral(code)}`)
      .join(", "),
    transientCodes: errors.transientCodes.map(pyLiteral).join(", "),
    transientStatuses: errors.transientHttpStatuses.join(", "),
    httpFallbackServer: pyLiteral(errors.httpFallback.serverError),
    httpFallbackOther: pyLiteral(errors.httpFallback.otherwise),
    grpcFallback: pyLiteral(errors.grpcFallback),
    bareGrpcTable: Object.entries(errors.grpcBareStatuses)
      .map(([status, code]) => `${status}: ${pyLiteral(code)}`)
      .join(", "),
    faults: Object.entries(errors.faults).map(([fault, code]) => ({ name: `_${fault.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`, code: pyLiteral(code) })),
    grpcFallbackName: errors.grpcFallback,
    refusalCode: pyLiteral(facts.texts.refusalCode),
    classes,
    classTable: classes.map((c) => `${pyLiteral(c.code)}: ${c.name}`).join(", "),
  };
}

/** A PythonFile per module (keyed as the caller names its modules), made when first asked for. */
function pythonFiles(): (module: string) => PythonFile {
  const files = new Map<string, PythonFile>();
  return (module) => {
    let file = files.get(module);
    if (!file) files.set(module, (file = new PythonFile(PYTHON_LINE_LENGTH)));
    return file;
  };
}

/** The module of types/ of each message and enum: that of the one group whose operations reach it, else shared. */
function typeModuleOf(ir: Ir, facts: SdkFacts): (name: string) => string {
  const fields = new Map(facts.messages.map((m) => [m.name, m.fields]));
  const groups = new Map<string, Set<string>>();
  for (const op of ir.operations) {
    const reached = new Set<string>();
    const reach = (name: string) => {
      if (reached.has(name)) return;
      reached.add(name);
      for (const field of fields.get(name) ?? []) if (field.ref) reach(field.ref);
    };
    reach(op.input.name);
    reach(op.output.name);
    for (const name of reached) {
      if (!groups.has(name)) groups.set(name, new Set());
      groups.get(name)!.add(op.group);
    }
  }
  // A type no operation reaches is shared, and so is all it reaches: shared.py imports from no group module.
  const unreached = [...fields.keys(), ...facts.enums.map((e) => e.name)].filter((name) => !groups.has(name));
  const reachedFromShared = new Set<string>();
  const share = (name: string) => {
    if (reachedFromShared.has(name)) return;
    reachedFromShared.add(name);
    for (const field of fields.get(name) ?? []) if (field.ref) share(field.ref);
  };
  unreached.forEach(share);
  // What one group's types reach is that group's or shared: a group module imports from shared.py only, never the other way.
  return (name) => {
    if (reachedFromShared.has(name)) return SHARED_TYPES_MODULE;
    const of = [...(groups.get(name) ?? [])];
    return of.length === 1 ? pythonModuleName(of[0]!) : SHARED_TYPES_MODULE;
  };
}

/** Python's keywords and the names the README examples take themselves: an example variable takes none of them. */
const EXAMPLE_TAKEN = new Set(["admin", "client", "page", "main", "await", "async", "for", "in", "with", "as", "from", "import", "class", "def", "return", "print", "type", "id"]);

/** The manifest's own operations in the README and package docstring examples (passes/examples.ts), in Python's names. */
function pythonExamples(ir: Ir, facts: SdkFacts, methods: ReadonlyMap<string, ReturnType<typeof operationView>>) {
  const { read, list, notCarried } = ir.docExamples;
  const { operation, message, listItems } = factsLookup(facts);
  const method = (name: string) => methods.get(name)!.name;
  const attr = pythonAttributeName;
  const readView =
    read === undefined
      ? undefined
      : (() => {
          const output = message(operation(read).output);
          const shown = output.fields.find((f) => f.name === facts.versionField) ?? output.fields.find((f) => !f.list && f.kind !== "message");
          return { method: method(read), field: shown ? attr(shown.name) : undefined };
        })();
  const listView =
    list === undefined
      ? undefined
      : (() => {
          const { op, items } = listItems(list);
          const fields = items.kind === "message" ? message(items.ref!).fields.filter((f) => !f.list && f.kind === "string") : [];
          const shown = fields.find((f) => f.name !== "id") ?? fields[0];
          const variable = items.kind === "message" ? upperSnakeCase(items.ref!).toLowerCase() : "item";
          const item = EXAMPLE_TAKEN.has(variable) ? "item" : variable;
          const limit = op.pagination!.style === "page" ? Math.min(20, op.pagination!.pageSize ?? 20) : undefined;
          return {
            method: method(list),
            pageArguments: limit === undefined ? "" : `pagination={"limit": ${limit}, "page": 1}`,
            iterator: methods.get(list)!.iterators[0]!.name,
            pagesIterator: methods.get(list)!.iterators[0]!.pagesName,
            itemsAttr: attr(items.name),
            item,
            print: shown ? `${item}.${attr(shown.name)}` : item,
          };
        })();
  const admin = ir.docExamples.surface === "admin";
  const shownClient = facts.clients.find((c) => c.role === ir.docExamples.surface)!;
  // A write of the shown client that takes an Idempotency-Key, with its required inputs all strings (written "..."): the README's example of a key.
  const keyedView = shownClient.operations
    .map((name) => operation(name))
    .filter((op) => op.idempotencyKey && op.fixedProtocol === null)
    .map((op) => ({ op, required: message(op.input).fields.filter((f) => f.required) }))
    .filter(({ required }) => required.every((f) => f.kind === "string" && !f.list))
    .map(({ op, required }) => ({ method: method(op.name), arguments: required.map((f) => `${pythonArgumentName(f.name)}="...", `).join("") }))[0];
  // The credentials the API's declared schemes ask of the client (exampleCredentials), each a placeholder to replace.
  const taken = exampleCredentials(ir);
  const adminSecret = admin && facts.features.adminSecret ? { name: "admin_secret", example: EXAMPLE_CREDENTIALS.adminSecret } : undefined;
  const clientId = !admin && facts.features.clientId ? { name: "client_id", example: EXAMPLE_CREDENTIALS.clientId } : undefined;
  const apiKey = taken.apiKey ? { name: "api_key", example: EXAMPLE_CREDENTIALS.apiKey } : undefined;
  const accessToken = taken.accessToken ? { name: "access_token", example: EXAMPLE_CREDENTIALS.accessToken } : undefined;
  const asArgument = (credential: { name: string; example: string }) => `${credential.name}="${credential.example}"`;
  return {
    // The client the examples open: the admin client, or the user client of an API without admin operations.
    client: {
      variable: admin ? "admin" : "client",
      sync: pythonClientName(shownClient, "sync"),
      async: pythonClientName(shownClient, "async"),
      credentials: [adminSecret, clientId, apiKey, accessToken].filter((c) => c !== undefined),
      // The arguments of a client configured from the environment: a user client's client_id and an API key, which the environment does not hold.
      environmentArguments: [clientId, apiKey]
        .filter((c) => c !== undefined)
        .map(asArgument)
        .join(", "),
      environmentCommand: [
        `${facts.service.envPrefix}_SERVICE_URL=https://...`,
        ...(adminSecret ? [`${facts.service.envPrefix}_ADMIN_SECRET=...`] : []),
        ...(accessToken ? [`${facts.service.envPrefix}_ACCESS_TOKEN=...`] : []),
        "python app.py",
      ].join(" "),
    },
    read: readView,
    list: listView,
    keyed: keyedView,
    notCarried: notCarried && notCarriedText(facts.texts.notCarried, facts.texts.protocolSeparator, operation(notCarried.operation).pascalName, notCarried),
  };
}

/** The whole view model the templates of templates/python/ lay out. */
export function pythonView(ir: Ir, facts: SdkFacts) {
  const messages = new Map(facts.messages.map((m) => [m.name, m]));
  const ir_messages = new Map(ir.messages.map((m) => [m.name, m]));
  const answerMessages = facts.messages.filter((m) => m.usedAsOutput || (m.shared && !m.usedAsInput));
  const inputMessages = facts.messages.filter((m) => m.shared && m.usedAsInput);
  const names: Names = {
    answerClass: new Map(answerMessages.map((m) => [m.name, ir_messages.get(m.name)!.graphqlName])),
    inputDict: new Map(inputMessages.map((m) => [m.name, ir_messages.get(m.name)!.graphqlInputName])),
  };
  const publicTypes = [...facts.enums.map((e) => e.name), ...names.answerClass.values(), ...names.inputDict.values()];
  const errors = errorView(facts);
  const errorClasses = errors.classes.map((c) => c.name);
  // Every type is exported beside the SDK's own names (package and types/ __init__), and imported where clients and methods use it.
  const taken = new Map<string, string>([
    ...PYTHON_SDK_NAMES.map((name) => [name, "the SDK"] as const),
    ...errorClasses.map((name) => [name, "an error class"] as const),
    ...facts.clients
      .flatMap((c) => [pythonClientName(c, "sync"), pythonClientName(c, "async"), pythonRawClientName(c, "sync"), pythonRawClientName(c, "async")])
      .map((name) => [name, "a client"] as const),
  ]);
  for (const name of publicTypes) {
    const owner = taken.get(name);
    if (owner) throw new UsageError(`the Python name ${name} of a type is taken by ${owner}; rename one in the manifest`);
    taken.set(name, "another type");
  }
  // Each method is written in its group's resources/ module, which imports its types from the types package.
  const resourceFile = pythonFiles();
  const groupOf = new Map(ir.operations.map((op) => [op.name, op.group]));
  const resourceTypes = (group: string): ModuleTypes => {
    const file = resourceFile(group);
    return { file, own: (name) => file.use("..types", name) };
  };
  const methods = new Map(facts.operations.map((op) => [op.name, operationView(op, messages.get(op.input)!, names, messages.get(op.output)!, resourceTypes(groupOf.get(op.name)!))]));
  const { texts } = facts;
  const { distribution, module } = ir.api.python;
  const metadata = ir.api.metadata;
  const layout = typesLayout(ir, facts, names);
  const answerClasses = answerMessages.map((m) => answerClassView(m, names, layout.typesOf(layout.moduleOf(m.name))));
  const inputDicts = inputMessages.map((m) => inputDictView(m, names, layout.typesOf(layout.moduleOf(m.name))));
  const enums = facts.enums.map((e) => ({
    name: e.name,
    key: pyLiteral(e.name),
    literal: e.values.map((v) => pyLiteral(v.name)).join(", "),
    numbers: e.values.map((v) => `${pyLiteral(v.name)}: ${v.number}`).join(", "),
    doc: [docText(e.description), ...e.values.filter((v) => v.description).map((v) => docText(`${v.name}: ${v.description}.`))].join("\n\n"),
  }));
  const resources = resourceModules(ir, facts, methods, { taken }, resourceFile);
  const clientsFile = new PythonFile(PYTHON_LINE_LENGTH);
  const clients = clientViews(facts, methods, resources, clientsFile);
  const types = typeModules(ir, layout, {
    enums,
    answerClasses: answerMessages.map((m, i) => [m.name, answerClasses[i]!] as const),
    inputDicts: inputMessages.map((m, i) => [m.name, inputDicts[i]!] as const),
  });
  const schemaFile = new PythonFile(PYTHON_LINE_LENGTH);
  // The template writes the tables' Field(...) and Operation(...).
  schemaFile.use("._facts", "Field");
  schemaFile.use("._facts", "Operation");
  const operations = facts.operations.map((op) => ({ key: pyLiteral(op.name), entries: operationEntries(op, messages.get(op.input)!, messages.get(op.output)!, schemaFile) }));
  // types/__init__.py re-exports _model.py's JSON types and Model and every type of its modules, and declares Protocol as a Literal.
  const typesInitFile = new PythonFile(PYTHON_LINE_LENGTH);
  const reexported = [
    ...["JsonInput", "JsonInputValue", "JsonObject", "JsonValue", "Model"].map((name) => typesInitFile.use(".._model", name)),
    ...types.flatMap((typesModule) => typesModule.all.map((name) => typesInitFile.use(`.${typesModule.file}`, name))),
  ];
  typesInitFile.use("typing", "Literal");
  return {
    distribution,
    module,
    version: ir.api.version,
    title: ir.api.title,
    description: pyLiteral(`Typed clients of ${ir.api.title} over GraphQL, REST and gRPC, sync and async.`),
    tomlDescription: JSON.stringify(`Typed clients of ${ir.api.title} over GraphQL, REST and gRPC, sync and async.`),
    requiresPython: JSON.stringify(PYTHON_REQUIRES),
    pythonVersion: `${PYTHON_REQUIRES.replace(">=", "")} or later`,
    adminSecretHeader: facts.service.adminSecretHeader,
    apiKeyHeader: facts.service.apiKeyHeader,
    grpcPort: facts.service.grpcPort,
    examples: pythonExamples(ir, facts, methods),
    versionOperations: Object.values(ir.versionOperations)
      .map((name) => `\`${name}\``)
      .join(" / "),
    // The clients the API has, as the README's first paragraph names them.
    clientSummary: facts.clients
      .map((client) => {
        return `\`${pythonClientName(client, "sync")}\` / \`${pythonClientName(client, "async")}\` for ${client.title.charAt(0).toLowerCase()}${client.title.slice(1)}`;
      })
      .join(", "),
    adminClient: facts.clients.find((c) => c.role === "admin")?.name,
    apiKeyAuth: facts.apiKeySchemes.map((name) => `\`${name}\``).join(" or "),
    userClient: facts.clients.find((c) => c.role === "user")?.name,
    hasAdminClient: facts.clients.some((c) => c.role === "admin"),
    hasUserClient: facts.clients.some((c) => c.role === "user"),
    // The README's table of constructor arguments, from the table of client options.
    optionsTable: readmeOptionsTable(facts),
    adminTable: operationTable(
      ir.operations.filter((op) => clientRoleOf(op) === "admin"),
      { method: (op) => `${pythonMethodName(op.name)}()` },
    ),
    userTable: operationTable(
      ir.operations.filter((op) => clientRoleOf(op) === "user"),
      { method: (op) => `${pythonMethodName(op.name)}()` },
    ),
    license: metadata.license ? [JSON.stringify(metadata.license)] : [],
    keywords: JSON.stringify(metadata.keywords),
    lineLength: PYTHON_LINE_LENGTH,
    dependencies: JSON.stringify(PYTHON_DEPENDENCIES),
    grpcExtra: JSON.stringify(PYTHON_GRPC_EXTRA),
    urls: [
      ...(metadata.homepage ? [{ key: "Homepage", value: JSON.stringify(metadata.homepage) }] : []),
      ...(metadata.repository ? [{ key: "Repository", value: JSON.stringify(metadata.repository) }] : []),
    ],
    features: facts.features,
    service: {
      name: pyLiteral(facts.service.name),
      version: pyLiteral(facts.service.version),
      secretHeader: pyLiteral(facts.service.adminSecretHeader),
      secretRequired: pyLiteral(facts.features.adminSecret),
      // The admin clients' argument and its environment variable, where an operation takes the secret.
      secretOption: pyLiteral(facts.features.adminSecret ? "admin_secret" : ""),
      secretVariable: pyLiteral(facts.features.adminSecret ? "ADMIN_SECRET" : ""),
      secretVariableDoc: facts.features.adminSecret ? "_ADMIN_SECRET, " : "",
      roleToken: pyLiteral(facts.features.orgAdmin),
      roleTokenText: pyLiteral(facts.features.orgAdmin ? ROLE_TOKEN_TEXT : ""),
      apiKeyHeader: pyLiteral(facts.service.apiKeyHeader),
      // The input fields the user client fills in from its arguments: the token calls' client_id, where one takes it.
      filledOptions: facts.features.clientId ? '{"client_id": "client_id"}' : "{}",
      grpcPort: facts.service.grpcPort,
      envPrefix: pyLiteral(facts.service.envPrefix),
      distribution: pyLiteral(distribution),
      sdkVersion: pyLiteral(ir.api.version),
    },
    /** The prefix of the environment variables the clients read (<envPrefix>_LOG, ...). */
    envPrefix: facts.service.envPrefix,
    /** The address of the examples: the manifest's HTTP port on localhost. */
    serviceUrl: `http://localhost:${facts.service.httpPort}`,
    protocols: pyLiteral(facts.protocols),
    protocolLiteral: facts.protocols.map(pyLiteral).join(", "),
    grpcMissing: pyLiteral(`protocol "grpc" needs the grpc extra, which is not installed: pip install "${distribution}[grpc]" (from a wheel file: pip install "<wheel>[grpc]")`),
    grpcCodeMetadata: pyLiteral(facts.errors.grpcCodeMetadata),
    grpcNoAnswerStatuses: facts.errors.grpcNoAnswerStatuses.join(", "),
    grpcUnreadableStatuses: facts.errors.grpcUnreadableStatuses.join(", "),
    retryAfterKey: pyLiteral(facts.errors.retryAfterKey),
    // The wait in milliseconds (as OpenAI's and Anthropic's APIs send it), read before retry-after, as the TypeScript client reads it.
    retryAfterMsKey: pyLiteral("retry-after-ms"),
    idempotency: { header: pyLiteral(IDEMPOTENCY_KEY_HEADER), pattern: pyLiteral(IDEMPOTENCY_KEY_PATTERN.source), form: pyLiteral(IDEMPOTENCY_KEY_FORM) },
    texts: Object.entries({ ...texts, wire: undefined })
      .filter(([, value]) => typeof value === "string")
      .map(([key, value]) => ({ key: pyLiteral(key), value: pyLiteral(value) })),
    wireTexts: Object.entries(texts.wire).map(([key, value]) => ({ key: pyLiteral(key), value: pyLiteral(value) })),
    answerTypeTexts: Object.entries(texts.answerTypes).map(([key, value]) => ({ key: pyLiteral(key), value: pyLiteral(value) })),
    retry: { attempts: facts.retry.attempts, baseDelay: facts.retry.baseDelayMs / 1000, maxDelay: facts.retry.maxDelayMs / 1000 },
    iteratePageLimit: facts.iteratePageLimit,
    defaultTimeout: facts.defaultTimeoutMs / 1000,
    retryAfterMax: facts.retryAfterMaxMs / 1000,
    defaultMaxResponseBytes: facts.defaultMaxResponseBytes,
    versionField: pyLiteral(facts.versionField),
    clientRoles: facts.clients.map((c) => ({ role: pyLiteral(c.role), versionOperation: pyLiteral(c.versionOperation) })),
    tokenVersionOperation: pyLiteral(facts.tokenVersionOperation),
    enums,
    messages: facts.messages.map((m) => ({
      key: pyLiteral(m.name),
      fields: m.fields.map(
        (f) => [f.name, pythonAttributeName(f.name), f.kind, f.ref, f.list, f.required, f.protoPresence].map(pyLiteral).join(", ") + (f.value ? `, value=${pyLiteral(f.value)}` : ""),
      ),
    })),
    unionTags: `{${facts.messages.flatMap((m) => (m.discriminator === null ? [] : [`${pyLiteral(m.name)}: ${pyLiteral(m.discriminator)}`])).join(", ")}}`,
    unions: ((names) => (names.length === 0 ? "frozenset()" : `frozenset({${names.join(", ")}})`))(facts.messages.filter((m) => m.oneOf).map((m) => pyLiteral(m.name))),
    operations,
    schemaImports: schemaFile.imports(),
    answerClasses,
    inputDicts,
    resourceModules: resources,
    typeModules: types,
    clientImports: clientsFile.imports(),
    typesInit: {
      imports: typesInitFile.imports(),
      models: answerMessages.map((m) => ({ key: pyLiteral(m.name), name: names.answerClass.get(m.name)! })),
      all: allOrder([...reexported, "Protocol"]),
    },
    exports: {
      clients: importOrder(clients.map((c) => c.name)).join(", "),
      errors: importOrder(["ApiError", "ErrorCode", ...errorClasses]),
      all: allOrder([...clients.map((c) => c.name), "ApiError", "ErrorCode", ...errorClasses, "OPERATIONS", "Operation", "RawResponse", "RetryPolicy", "SERVICE_VERSION"]),
    },
    errors,
    clients,
  };
}

// ---------------------------------------------------------------- templates

/** Layout only: a docstring at an indentation, its closing quotes on a line of their own when it spans several. */
function docstring(text: string, indent: number): string {
  const pad = " ".repeat(indent);
  const lines = text.split("\n");
  if (lines.length === 1) return `${pad}"""${lines[0]}"""`;
  return [`${pad}"""${lines[0]}`, ...lines.slice(1).map((line) => (line ? `${pad}${line}` : "")), `${pad}"""`].join("\n");
}

type PythonTemplate = TemplateFile<PythonViews>;

let templates: PythonTemplate[] | undefined;

/** The template that ships the descriptor set; rendered by its own derived group. */
const DESCRIPTORS_TEMPLATE = "package/_descriptors.py";

function pythonTemplates(): PythonTemplate[] {
  return (templates ??= loadTemplates<PythonViews>("python", { docstring }));
}

/** Where a template of templates/python/ lands: project/ in generated/python/, package/ in its module. */
function outputPath(ir: Ir, template: PythonTemplate): string {
  const [folder, ...rest] = template.path.split("/");
  return folder === "project" ? `${PYTHON_DIR}/${rest.join("/")}` : `${PYTHON_DIR}/src/${ir.api.python.module}/${rest.join("/")}`;
}

export function emitPython(ir: Ir): GeneratedFile[] {
  const view = pythonView(ir, buildSdkFacts(ir));
  return pythonTemplates().flatMap((template): GeneratedFile[] => {
    const path = outputPath(ir, template);
    if (template.verbatim) return [{ path, content: template.render(), header: !template.path.endsWith("py.typed"), source: `templates/python/${template.path}` }];
    // Each template with its view (python-views.ts): the whole view model, or a module of a list of it, each to <its folder>/<module>.py.
    const folder = path.replace(/\/[^/]+$/, "");
    switch (template.path) {
      case DESCRIPTORS_TEMPLATE:
        return [];
      case "package/resources/group.py":
        return view.resourceModules.map((module) => ({ path: `${folder}/${module.file}.py`, content: template.render(module), header: true }));
      case "package/types/group.py":
        return view.typeModules.map((module) => ({ path: `${folder}/${module.file}.py`, content: template.render(module), header: true }));
      case "package/__init__.py":
      case "package/_clients.py":
      case "package/_http.py":
      case "package/_schema.py":
      case "package/errors.py":
      case "package/resources/__init__.py":
      case "package/types/__init__.py":
      case "project/README.md":
      case "project/pyproject.toml":
        return [{ path, content: template.render(view), header: true }];
      default:
        return templateWithoutView("python", template);
    }
  });
}

/**
 * _descriptors.py, the descriptor set the gRPC transport builds its message classes from, as a
 * derived group: it follows from the descriptors alone, so it keys on the hash the protobuf-es group
 * already takes of them (`descriptorsHash`), and a run where they did not change keeps the file on
 * disk instead of serializing them again.
 */
export function emitPythonDescriptors(ir: Ir, descriptors: readonly FileDescriptorProto[], descriptorsHash: string): DerivedGroup {
  const template = pythonTemplates().find((t): t is Template<typeof DESCRIPTORS_TEMPLATE, PythonViews[typeof DESCRIPTORS_TEMPLATE]> => t.path === DESCRIPTORS_TEMPLATE)!;
  const path = outputPath(ir, template);
  return descriptorSetGroup("python-descriptors", path, template, 96, descriptors, descriptorsHash);
}
