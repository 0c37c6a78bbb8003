// What each template of templates/go/ reads: the interface of its view, by the template's path
// (GoViews). go.ts renders a template only with a view of its interface, so a view that lacks a
// field its template reads fails to compile. A field a template reads is declared here as the
// template uses it: text it writes, a list it loops over, a flag it tests.

import type { ReadmeClientsView } from "./template-views.js";

/** Text a template writes only where it is set (`{{#if}}` / `{{#with}}`). */
type Optional<T> = T | undefined;

/** Features of the API that templates test: a part of the SDK exists only where an operation needs it. */
export interface FeaturesView {
  adminSecret: boolean;
  apiKey: boolean;
  clientId: boolean;
  orgAdmin: boolean;
  tokenRoutes: boolean;
}

/** How the examples open their client. */
export interface ExampleClientView {
  variable: string;
  /** The constructor's call up to its options, with the credentials the client's operations take: `NewAdminClient("http://localhost:8080", "s3cret",`, `NewClient("http://localhost:8080", bookstore.WithAPIKey("my-api-key"),`. */
  constructor: string;
  protocolOption: string;
  /** The prefix of the client's options: WithAdmin or With. */
  optionPrefix: string;
  /** The constructor's call taking its settings from the environment: `NewAdminClient("", "")`. */
  fromEnvironment: string;
  /** The command running it with those settings: `IDENTITY_SERVICE_URL=https://... go run .`. */
  environment: string;
}

export interface ExampleReadView {
  method: string;
  input: string;
  /** The variable of the answer. */
  answer: string;
  field: Optional<string>;
}

export interface ExampleListView {
  /** The list's method, which answers one page. */
  method: string;
  iterator: string;
  /** The page iterator, and the Go field of the items in a page. */
  pages: string;
  itemsField: string;
  input: string;
  item: string;
  print: string;
}

export interface ExamplesView {
  client: ExampleClientView;
  /** The call of the README's sections (a read where there is one): its method, input and answer variable. */
  call: { method: string; input: string; answer: string };
  read: Optional<ExampleReadView>;
  list: Optional<ExampleListView>;
  lookup: Optional<{ method: string; input: string; field: string; noun: string }>;
  notCarried: Optional<string>;
  /** How names are made: wire names and the methods they become. */
  names: readonly { wire: string; method: string }[];
}

export interface CodeView {
  code: string;
  name: string;
  value: string;
  doc: string;
  sentinel: string;
  sentinelDoc: string;
}

export interface ReadmeView extends ReadmeClientsView {
  modulePath: string;
  /** The build tag that leaves gRPC out. */
  noGRPCTag: string;
  envPrefix: string;
  /** The environment variables the clients read, with what each sets. */
  environment: readonly { name: string; meaning: string }[];
  package: string;
  title: string;
  version: string;
  tag: string;
  goVersion: string;
  license: readonly string[];
  clientSummary: string;
  constructorsSentence: string;
  optionsTable: string;
  examples: ExamplesView;
  features: Pick<FeaturesView, "tokenRoutes">;
  codes: readonly Pick<CodeView, "code" | "name" | "sentinel">[];
}

/** An option function: the user client's With<name>, the admin client's WithAdmin<name>. */
export interface OptionView {
  comment: string;
  function: string;
  parameters: string;
  apply: string;
  /** Option for the user client's, AdminOption for the admin client's. */
  type: "Option" | "AdminOption";
}

export interface ClientFileView {
  package: string;
  modulePath: string;
  /** The prefix of the environment variables the clients read: IDENTITY for IDENTITY_SERVICE_URL. */
  envPrefix: string;
  features: Pick<FeaturesView, "adminSecret" | "clientId" | "orgAdmin" | "tokenRoutes">;
  hasAdminClient: boolean;
  adminClient: Optional<string>;
  hasUserClient: boolean;
  userClient: Optional<string>;
  /** The option functions of the user client, then the admin client's, but those of grpc's types (grpc.go). */
  options: readonly OptionView[];
}

/** grpc.go: the options whose parameters are grpc's types, compiled unless the build leaves gRPC out. */
export interface GrpcFileView {
  package: string;
  /** The build tag that leaves gRPC out: identity_nogrpc. */
  noGRPCTag: string;
  grpcOptions: readonly OptionView[];
}

/** internal/transport/grpc_conn.go and grpc_off.go: the two sides of the build tag. */
export interface TransportGrpcBuildView {
  noGRPCTag: string;
}

export interface CodesFileView {
  package: string;
  modulePath: string;
  codes: readonly CodeView[];
}

export interface DocFileView {
  package: string;
  packageDoc: string;
  serverVersionOptions: string;
  grpcCodeMetadata: string;
  envPrefix: string;
  /** The User-Agent of every request. */
  userAgent: string;
  features: Pick<FeaturesView, "tokenRoutes" | "adminSecret">;
  examples: Pick<ExamplesView, "client" | "notCarried" | "names"> & { read: Optional<Omit<ExampleReadView, "field">>; list: Optional<Omit<ExampleListView, "print" | "itemsField">> };
}

export interface ErrorsFileView {
  package: string;
  modulePath: string;
  features: Pick<FeaturesView, "tokenRoutes">;
}

export interface FactsFileView {
  package: string;
  modulePath: string;
  /** Go literals. */
  service: { name: string; version: string; grpcPort: string };
  versionAnswers: string;
}

export interface GoModView {
  modulePath: string;
}

export interface MethodsFileView {
  package: string;
  modulePath: string;
  usesIter: boolean;
  clients: readonly {
    name: string;
    methods: readonly {
      name: string;
      doc: string;
      input: string;
      output: string;
      /** The variable of the operation's entry in the transport's table. */
      opVar: string;
      iterators: readonly { name: string; doc: string; item: string }[];
      /** The page iterator (<Method>Pages) of a paginated list. */
      pages: readonly { name: string; doc: string }[];
    }[];
  }[];
}

export interface TypesFileView {
  package: string;
  modulePath: string;
  /** types.go imports package time: a field's type is of it (time.Time, time.Duration), or a field is a date (DateOf takes a time.Time). */
  usesTime: boolean;
  /** A field is a date: types.go declares Date (transport.Date) and its helpers. */
  usesDate: boolean;
  enums: readonly { name: string; doc: string; values: readonly { name: string; value: string; doc: string }[] }[];
  structs: readonly {
    name: string;
    doc: string;
    empty: boolean;
    /** An answer struct: ExtraFields, the embedded answer and RawJSON. */
    answer: boolean;
    /** The receiver of its RawJSON method. */
    receiver: string;
    /** Aligned as gofmt aligns a struct's fields. */
    fields: readonly { nameCell: string; typeCell: string; tag: string; doc: string }[];
    /** A tagged union's method naming the variant given: each variant's field and wire name. */
    tag: { method: string; doc: string; cases: readonly { field: string; name: string }[] } | null;
  }[];
}

/** internal/transport/codes.go: Go literals and the lines of its tables. */
export interface TransportCodesView {
  features: Pick<FeaturesView, "tokenRoutes">;
  internalCodes: readonly string[];
  serverCodes: readonly string[];
  transientCodes: string;
  transientHTTPStatuses: string;
  oauthCodes: readonly string[];
  grpcNoAnswerStatuses: string;
  grpcUnreadableStatuses: string;
  grpcBareStatuses: string;
}

export interface TransportDescriptorsView {
  descriptorLines: readonly string[];
}

export interface TransportErrorsView {
  package: string;
  features: Pick<FeaturesView, "tokenRoutes">;
}

/** internal/transport/facts.go: Go literals and the lines of its tables. */
export interface TransportFactsView {
  features: Pick<FeaturesView, "adminSecret" | "apiKey">;
  transport: { defaultTimeout: string; defaultMaxResponseBytes: string; adminSecretHeader: string; apiKeyHeader: string };
  /** Go literal: the headers no log shows. */
  secretHeaders: string;
  constants: readonly { name: string; value: string; doc: string }[];
  texts: readonly string[];
  wireTexts: readonly string[];
  /** The unions (one_of), as a Go map literal. */
  unionMessages: string;
  /** The tagged unions' tags by message, as a Go map literal. */
  unionTags: string;
  versionOperations: string;
  tokenVersionOperation: string;
  hasEnums: boolean;
  enumFacts: readonly string[];
  messageFacts: readonly string[];
  operations: readonly { name: string; doc: string; entries: readonly string[] }[];
}

export interface TransportHttpView {
  features: Pick<FeaturesView, "tokenRoutes">;
}

/** The view of each template of templates/go/, by its path without .hbs. */
export interface GoViews {
  "README.md": ReadmeView;
  "client.go": ClientFileView;
  "codes.go": CodesFileView;
  "doc.go": DocFileView;
  "errors.go": ErrorsFileView;
  "facts.go": FactsFileView;
  "go.mod": GoModView;
  "grpc.go": GrpcFileView;
  "methods.go": MethodsFileView;
  "types.go": TypesFileView;
  "internal/transport/codes.go": TransportCodesView;
  "internal/transport/descriptors.go": TransportDescriptorsView;
  "internal/transport/errors.go": TransportErrorsView;
  "internal/transport/facts.go": TransportFactsView;
  "internal/transport/grpc_conn.go": TransportGrpcBuildView;
  "internal/transport/grpc_off.go": TransportGrpcBuildView;
  "internal/transport/http.go": TransportHttpView;
}
