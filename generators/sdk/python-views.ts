// What each template of templates/python/ reads: the interface of its view, by the template's path
// (PythonViews). python.ts renders a template only with a view of its interface, so a view that
// lacks a field its template reads fails to compile. A field a template reads is declared here as
// the template uses it: text it writes, a list it loops over, a flag it tests.

import type { ReadmeClientsView } from "./template-views.js";

export interface KeyValueView {
  key: string;
  value: string;
}

/** Text a template writes only where it is set (`{{#if}}` / `{{#with}}`). */
type Optional<T> = T | undefined;

export interface ExampleClientView {
  /** The variable the examples open the client as. */
  variable: string;
  sync: string;
  async: string;
  /** The credentials the client's operations take, as keyword arguments: admin_secret, client_id, api_key, access_token. */
  credentials: { name: string; example: string }[];
  /** The constructor's arguments when the environment gives the rest: "", client_id="..." or api_key="...". */
  environmentArguments: string;
  /** A shell command running an application with the environment variables that client reads. */
  environmentCommand: string;
}

export interface ExamplesView {
  client: ExampleClientView;
  read: Optional<{ method: string; field: Optional<string> }>;
  list: Optional<{ method: string; pageArguments: string; iterator: string; pagesIterator: string; itemsAttr: string; item: string; print: string }>;
  /** A write that takes an Idempotency-Key; `arguments`: its required ones, each followed by ", ". */
  keyed: Optional<{ method: string; arguments: string }>;
  notCarried: Optional<string>;
}

/** Features of the API that templates test: a part of the runtime exists only where an operation needs it. */
export interface FeaturesView {
  tokenRoutes: boolean;
  /** The admin client takes the admin secret. */
  adminSecret: boolean;
  /** An org-admin's access token may stand for the admin secret. */
  orgAdmin: boolean;
}

export interface PackageInitView {
  title: string;
  version: string;
  module: string;
  examples: { client: Omit<ExampleClientView, "async">; read: ExamplesView["read"] };
  exports: { clients: string; errors: readonly string[]; all: readonly string[] };
}

export interface ClientView {
  name: string;
  bases: readonly string[];
  doc: string;
  /** The constructor's keyword arguments, each as declared. */
  params: readonly string[];
  role: string;
  settings: readonly string[];
  /** The class of client.with_raw_response, and the raw twins of its groups' classes it inherits. */
  rawName: string;
  rawBases: readonly string[];
  rawDoc: string;
}

export interface ClientsModuleView {
  clientImports: string;
  clients: readonly ClientView[];
}

export interface DescriptorsView {
  descriptorLines: readonly string[];
}

export interface HttpModuleView {
  features: FeaturesView;
}

/** _schema.py: every value is a Python literal, or a number. */
export interface SchemaModuleView {
  schemaImports: string;
  service: {
    name: string;
    version: string;
    secretHeader: string;
    secretRequired: string;
    secretOption: string;
    secretVariable: string;
    /** The secret's variable in the list of environment variables ("_ADMIN_SECRET, "), empty where no operation takes it. */
    secretVariableDoc: string;
    roleToken: string;
    roleTokenText: string;
    filledOptions: string;
    apiKeyHeader: string;
    grpcPort: number;
    envPrefix: string;
    /** The PyPI distribution and its version, as the User-Agent names them. */
    distribution: string;
    sdkVersion: string;
  };
  protocols: string;
  grpcMissing: string;
  grpcCodeMetadata: string;
  grpcNoAnswerStatuses: string;
  grpcUnreadableStatuses: string;
  retryAfterKey: string;
  retryAfterMsKey: string;
  idempotency: { header: string; pattern: string; form: string };
  retry: { attempts: number; baseDelay: number; maxDelay: number };
  iteratePageLimit: number;
  defaultTimeout: number;
  retryAfterMax: number;
  defaultMaxResponseBytes: number;
  texts: readonly KeyValueView[];
  wireTexts: readonly KeyValueView[];
  answerTypeTexts: readonly KeyValueView[];
  versionField: string;
  clientRoles: readonly { role: string; versionOperation: string }[];
  tokenVersionOperation: string;
  enums: readonly { key: string; numbers: string }[];
  messages: readonly { key: string; fields: readonly string[] }[];
  /** The unions (one_of), as a Python frozenset expression. */
  unions: string;
  /** The tagged unions' tags by message, as a Python dict expression. */
  unionTags: string;
  operations: readonly { key: string; entries: readonly KeyValueView[] }[];
}

export interface ErrorClassView {
  code: string;
  name: string;
  doc: string;
}

export interface ErrorsModuleView {
  features: FeaturesView;
  errors: {
    literal: string;
    refusalCode: string;
    httpTable: string;
    grpcTable: string;
    bareGrpcTable: string;
    oauthTable: string;
    transientCodes: string;
    transientStatuses: string;
    faults: readonly { name: string; code: string }[];
    classes: readonly ErrorClassView[];
    classTable: string;
    httpFallbackServer: string;
    httpFallbackOther: string;
    grpcFallbackName: string;
    grpcFallback: string;
  };
}

export interface ResourcesInitView {
  resourceModules: readonly { file: string }[];
}

export interface IteratorView {
  name: string;
  /** The type of an item, in the iterator's return type. */
  item: string;
  /** The class the runtime reads each item as. */
  itemClass: string;
  doc: string;
  /** The iterator of whole pages beside it. */
  pagesName: string;
  pagesDoc: string;
}

export interface MethodView {
  name: string;
  /** The operation's name as a Python literal, its key in OPERATIONS. */
  key: string;
  /** The keyword arguments, each as declared. */
  params: readonly string[];
  /** The input dict the method sends, as a Python expression. */
  given: string;
  returns: string;
  /** The method takes idempotency_key= (the operation's calls carry an Idempotency-Key). */
  keyed: boolean;
  /** A deprecated operation's warnings.warn(...) statement (Python's DeprecationWarning), run before the call; "" for the others. */
  deprecation: string;
  doc: string;
  /** The docstring of its twin in the raw class, which answers a RawResponse. */
  rawDoc: string;
  iterators: readonly IteratorView[];
}

export interface ResourceClassView {
  name: string;
  base: string;
  doc: string;
  def: string;
  await: string;
  iteratorType: string;
  methods: readonly MethodView[];
  /** The twin class whose methods answer a RawResponse. */
  rawName: string;
  rawBase: string;
  rawDoc: string;
}

/** resources/<group>.py, one a group. */
export interface ResourceModuleView {
  doc: string;
  imports: string;
  classes: readonly ResourceClassView[];
}

export interface TypesInitView {
  title: string;
  version: string;
  protocolLiteral: string;
  typesInit: { imports: string; all: readonly string[]; models: readonly { key: string; name: string }[] };
}

export interface TypedDictKeyView {
  key: string;
  type: string;
}

/** types/<module>.py, one a module of types. */
export interface TypesModuleView {
  doc: string;
  imports: string;
  /** The names this module imports dataclasses.field and _model.JsonValue as, for each answer class's extra. */
  field: string;
  jsonValue: string;
  all: readonly string[];
  enums: readonly { name: string; literal: string; doc: string }[];
  answerClasses: readonly {
    name: string;
    doc: string;
    /** The message's name as a Python literal. */
    message: string;
    fields: readonly { attr: string; type: string; doc: string }[];
    /** A tagged union's tag, a property that names the variant given. */
    tag: { attr: string; type: string; doc: string; expression: string } | null;
  }[];
  inputDicts: readonly {
    name: string;
    doc: string;
    classForm: readonly {
      requiredBase: readonly { name: string; base: string; fields: readonly TypedDictKeyView[] }[];
      bases: string;
      fields: readonly (TypedDictKeyView & { doc: string })[];
    }[];
    functionalForm: readonly { declaration: string }[];
  }[];
}

export interface ReadmeView extends ReadmeClientsView {
  distribution: string;
  title: string;
  version: string;
  clientSummary: string;
  pythonVersion: string;
  module: string;
  examples: ExamplesView;
  optionsTable: string;
  /** The longest wait (seconds) the service may ask for that a client honours. */
  retryAfterMax: number;
  /** The prefix of the environment variables the clients read. */
  envPrefix: string;
  /** The address the README examples use: http://localhost:<api.http_port>. */
  serviceUrl: string;
  /** The default deadline of a call, in seconds. */
  defaultTimeout: number;
  features: FeaturesView;
  errors: { classes: readonly Pick<ErrorClassView, "code" | "name">[] };
}

export interface PyprojectView {
  distribution: string;
  version: string;
  tomlDescription: string;
  requiresPython: string;
  license: readonly string[];
  keywords: string;
  dependencies: string;
  grpcExtra: string;
  urls: readonly KeyValueView[];
  module: string;
  lineLength: number;
}

/** The view of each template of templates/python/, by its path without .hbs. */
export interface PythonViews {
  "package/__init__.py": PackageInitView;
  "package/_clients.py": ClientsModuleView;
  "package/_descriptors.py": DescriptorsView;
  "package/_http.py": HttpModuleView;
  "package/_schema.py": SchemaModuleView;
  "package/errors.py": ErrorsModuleView;
  "package/resources/__init__.py": ResourcesInitView;
  "package/resources/group.py": ResourceModuleView;
  "package/types/__init__.py": TypesInitView;
  "package/types/group.py": TypesModuleView;
  "project/README.md": ReadmeView;
  "project/pyproject.toml": PyprojectView;
}
