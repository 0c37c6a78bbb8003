// Every option of the generated clients, once: what it means, which clients take it, and its name,
// type and doc in each SDK. Python's constructors and settings, Go's option functions (client and
// admin forms from one entry), every SDK README's options table and the options tables of docs/
// are written from this table. It is keyed by the TypeScript runtime's client config, so an option
// added there without an entry here (or an entry naming no option there) fails to compile.
import type { AdminClientConfig, ApiKeyConfig, ClientIdConfig, UserClientConfig } from "../../runtime/client/clients.js";
import type { ClientConfig } from "../../runtime/client/core.js";
import type { ApiFeatures } from "../../runtime/schema.js";
import type { SdkFacts } from "./sdk-facts.js";

/** Every option of the TypeScript clients: the keys of the table. */
export type ClientOptionKey = keyof (ClientConfig & AdminClientConfig & UserClientConfig & ClientIdConfig & ApiKeyConfig);

export type ClientRole = "admin" | "user";

/** What a text may depend on: the API's facts and the client it documents. */
export interface OptionContext {
  readonly facts: SdkFacts;
  readonly role: ClientRole;
  /** Python: the synchronous client (the async one takes an httpx.AsyncClient). */
  readonly sync: boolean;
}

type Text = string | ((context: OptionContext) => string);

/** Which clients have a form, and on which feature of the API it depends (ir.api.features). */
interface Availability {
  /** Default: both clients. */
  readonly clients?: readonly ClientRole[];
  /** Only where an operation of the API uses it (the form is left out otherwise). */
  readonly feature?: keyof ApiFeatures;
}

export interface TypeScriptForm extends Availability {
  readonly doc: Text;
}

export interface PythonForm extends Availability {
  /** The keyword argument. */
  readonly name: string;
  /** Its annotation and default, as the constructor declares it: `str | None = None`. */
  readonly declaration: Text;
  readonly doc: Text;
  /** Passed to the settings of the client core as this (default `<name>=<name>`; false: the constructor uses it itself). */
  readonly setting?: false | string;
  /** The names its declaration imports: [module, name], or [module] for the module itself. */
  readonly imports?: readonly (readonly [module: string, name?: string])[];
}

export interface GoForm extends Availability {
  /** The function's name without With / WithAdmin, and its parameters: `Timeout`, `d time.Duration`. */
  readonly name: string;
  readonly parameters: string;
  /** The Go statement applying it to the client's config `c`. */
  readonly apply: string;
  /** What it does, after the function's name: "sets the deadline of {client}'s calls". `{client}` is "the admin client" or "the user client". */
  readonly doc: Text;
  /** Its parameters are grpc's types: it is declared in grpc.go, which a build that leaves gRPC out does not compile. */
  readonly grpcTypes?: true;
}

export interface ClientOptionSpec {
  /** Its meaning in the TypeScript SDK (one form per client where they differ). */
  readonly typescript: TypeScriptForm | readonly TypeScriptForm[];
  /** The keyword arguments it takes in Python (several when Python splits it, none when Python has none). */
  readonly python: readonly PythonForm[];
  /** Go's option functions, or the constructor's positional parameter it is in Go. */
  readonly go: readonly GoForm[] | { readonly positional: string };
}

const apiKeyDoc = ({ facts }: OptionContext) => `API key of the operations with auth ${facts.apiKeySchemes.join(" or ")}; sent in header ${facts.service.apiKeyHeader} on every call.`;

/** In the order of spec §4.2: the service, the credentials, then the rest. */
export const CLIENT_OPTIONS = {
  serviceUrl: {
    typescript: {
      doc: ({ facts }) =>
        `Base URL of the service, such as http://localhost:${facts.service.httpPort} (a trailing slash is ignored); default: the environment's ${facts.service.envPrefix}_SERVICE_URL.`,
    },
    python: [
      {
        name: "service_url",
        declaration: "str | None = None",
        doc: ({ facts }) =>
          `Base URL of the service, such as http://localhost:${facts.service.httpPort} (no trailing slash needed); default: the environment's ${facts.service.envPrefix}_SERVICE_URL.`,
      },
    ],
    go: { positional: "serviceURL" },
  },
  adminSecret: {
    typescript: { clients: ["admin"], feature: "adminSecret", doc: ({ facts }) => `The server's --admin-secret; sent in header ${facts.service.adminSecretHeader} on every call.` },
    python: [
      {
        clients: ["admin"],
        feature: "adminSecret",
        name: "admin_secret",
        declaration: "str | None = None",
        setting: "secret=admin_secret",
        doc: ({ facts }) =>
          `The server's --admin-secret; sent in header ${facts.service.adminSecretHeader} on every call.${facts.features.orgAdmin ? " Required unless access_token is given." : ""} Default: the environment's ${facts.service.envPrefix}_ADMIN_SECRET.`,
      },
    ],
    go: { positional: "adminSecret" },
  },
  clientId: {
    typescript: { clients: ["user"], feature: "clientId", doc: "Identifier of the client application; the default client_id of the token calls." },
    python: [
      {
        clients: ["user"],
        feature: "clientId",
        name: "client_id",
        declaration: "str",
        doc: "Identifier of the client application; the default client_id of the token calls.",
        setting: 'fills={"client_id": client_id}',
      },
    ],
    go: { positional: "clientID" },
  },
  accessToken: {
    typescript: [
      {
        clients: ["admin"],
        feature: "orgAdmin",
        doc: "A user's access token instead of the admin secret, sent as a bearer token: the calls of auth org_admin, within what that user administers. Never with adminSecret.",
      },
      { clients: ["user"], doc: "Access token of the signed-in user, sent as a bearer token (setAccessToken changes it)." },
    ],
    python: [
      {
        clients: ["admin"],
        feature: "orgAdmin",
        name: "access_token",
        declaration: "str | None = None",
        doc: "A user's access token instead of the admin secret, sent as a bearer token: the calls of auth org_admin, within what that user administers. Never with admin_secret.",
      },
      { clients: ["user"], name: "access_token", declaration: "str | None = None", doc: "Access token of the signed-in user, sent as a bearer token (see set_access_token)." },
    ],
    go: [
      {
        clients: ["admin"],
        feature: "orgAdmin",
        name: "AccessToken",
        parameters: "token string",
        apply: "c.AccessToken = token",
        doc: 'makes the admin client call with a user\'s access token (sent as a bearer token) instead of the admin secret (pass "" for adminSecret): the calls of auth org_admin, within what that user administers. Never with an admin secret.',
      },
      {
        clients: ["user"],
        name: "AccessToken",
        parameters: "token string",
        apply: "c.AccessToken = token",
        doc: "signs the user client in: the token is sent as a bearer token (see SetAccessToken).",
      },
    ],
  },
  apiKey: {
    typescript: { feature: "apiKey", doc: apiKeyDoc },
    python: [{ feature: "apiKey", name: "api_key", declaration: "str | None = None", doc: apiKeyDoc }],
    go: [
      {
        feature: "apiKey",
        name: "APIKey",
        parameters: "key string",
        apply: "c.ExtraHeaders = transport.MergeHeaders(c.ExtraHeaders, map[string]string{transport.APIKeyHeader: key})",
        doc: ({ facts }) => `sends key as the API key of the operations with auth ${facts.apiKeySchemes.join(" or ")} (header ${facts.service.apiKeyHeader}) on every request of {client}.`,
      },
    ],
  },
  extraHeaders: {
    typescript: { doc: "Headers sent on every request, over every protocol." },
    python: [{ name: "extra_headers", declaration: "Mapping[str, str] | None = None", imports: [["collections.abc", "Mapping"]], doc: "Headers sent on every request, over every protocol." }],
    go: [
      {
        name: "ExtraHeaders",
        parameters: "h map[string]string",
        apply: "c.ExtraHeaders = transport.MergeHeaders(c.ExtraHeaders, h)",
        doc: "adds headers (gRPC: metadata) to every request of {client}.",
      },
    ],
  },
  protocol: {
    typescript: { doc: ({ facts }) => `${facts.protocols.join(", ")} (the first is the default)${facts.features.tokenRoutes ? "; the token calls always use rest" : ""}.` },
    python: [
      {
        name: "protocol",
        declaration: 'Protocol = "graphql"',
        imports: [[".types", "Protocol"]],
        doc: ({ facts }) => `${facts.protocols.join(", ")}${facts.features.tokenRoutes ? "; the token calls always use rest" : ""}.`,
      },
    ],
    go: [
      {
        name: "Protocol",
        parameters: "p Protocol",
        apply: "c.Protocol = p",
        doc: ({ facts }) =>
          `chooses the protocol of {client}'s calls: ProtocolGraphQL (default), ProtocolREST or ProtocolGRPC.${facts.features.tokenRoutes ? " The token calls always use REST." : ""}`,
      },
    ],
  },
  grpcEndpoint: {
    typescript: { doc: ({ facts }) => `gRPC target host:port; default: the host of serviceUrl with port ${facts.service.grpcPort}. Node only: elsewhere RPCs go as Connect to serviceUrl.` },
    python: [{ name: "grpc_endpoint", declaration: "str | None = None", doc: ({ facts }) => `gRPC target host:port; default: the host of service_url with port ${facts.service.grpcPort}.` }],
    go: [
      {
        name: "GRPCEndpoint",
        parameters: "addr string",
        apply: "c.GRPCEndpoint = addr",
        doc: "sets the gRPC target (host:port) of {client}; by default the host of serviceURL with port DefaultGRPCPort.",
      },
    ],
  },
  serverVersion: {
    typescript: { doc: "The server's version if known; otherwise the client asks the server once, when an operation's minimum version matters." },
    python: [{ name: "server_version", declaration: "str | None = None", doc: "The server's version if known; otherwise asked once when an operation's minimum version matters." }],
    go: [
      {
        name: "ServerVersion",
        parameters: "version string",
        apply: "c.ServerVersion = version",
        doc: "tells {client} the server's version. Without it the client asks the server once, the first time an operation's minimum version matters.",
      },
    ],
  },
  readOnly: {
    typescript: { doc: "Refuse destructive operations before anything is sent." },
    python: [{ name: "read_only", declaration: "bool = False", doc: "Refuse destructive operations before anything is sent." }],
    go: [{ name: "ReadOnly", parameters: "", apply: "c.ReadOnly = true", doc: "makes {client} refuse destructive operations before anything is sent." }],
  },
  timeoutMs: {
    typescript: { doc: ({ facts }) => `Deadline of each call in milliseconds, the server-version lookup and retries included (default ${facts.defaultTimeoutMs}; 0: none).` },
    python: [
      {
        name: "timeout",
        declaration: "float | None = DEFAULT_TIMEOUT",
        imports: [["._schema", "DEFAULT_TIMEOUT"]],
        doc: ({ facts }) =>
          `Deadline of each call in seconds, the whole call (the server-version lookup, every attempt and backoff, the answer's body) included; default ${facts.defaultTimeoutMs / 1000}; None waits as long as it takes.`,
      },
    ],
    go: [
      {
        name: "Timeout",
        parameters: "d time.Duration",
        apply: "c.Timeout, c.TimeoutSet = d, true",
        doc: "sets the deadline of each call of {client}, the server-version lookup and retries included (default DefaultTimeout; 0: none beyond the context's).",
      },
    ],
  },
  retry: {
    typescript: {
      doc: "Retries on transient failures, honouring retry-after-ms or Retry-After up to 60 s (default 3 attempts, 100 ms doubling, at most 2 s): of reads, and of writes, which carry an Idempotency-Key so that the service applies them once; a write that takes no key (it sets a cookie) goes again only when its connection was refused. false turns them off; maxRetries sets one call's.",
    },
    python: [
      {
        name: "retry",
        declaration: "RetryPolicy | bool = True",
        imports: [["._core", "RetryPolicy"]],
        doc: "Retries on transient failures of reads and of writes, which carry an Idempotency-Key; False turns them off; max_retries sets one call's.",
      },
    ],
    go: [
      {
        name: "Retry",
        parameters: "policy RetryPolicy",
        apply: "c.Retry = transport.RetryPolicy(policy)",
        doc: "sets the retry policy of {client}'s reads and of its writes, which carry an idempotency key (default DefaultRetryPolicy: 3 attempts, 100 ms doubling, at most 2 s; NoRetry turns retries off; WithMaxRetries sets one call's).",
      },
    ],
  },
  hooks: {
    typescript: {
      doc: "{ onRequest, onResponse }: called around every attempt of every call, on every protocol (onRequest may add headers; onResponse sees the status, headers, duration, retry and error).",
    },
    python: [
      {
        name: "event_hooks",
        declaration: "Mapping[str, list[Callable[..., Any]]] | None = None",
        imports: [
          ["collections.abc", "Callable"],
          ["collections.abc", "Mapping"],
          ["typing", "Any"],
        ],
        doc: 'httpx\'s event hooks of every GraphQL and REST request, {"request": [...], "response": [...]} (async functions for the async clients), given to the client\'s own httpx client; with http_client, give them to it instead.',
      },
    ],
    go: [
      {
        name: "Middleware",
        parameters: "m Middleware",
        apply: "c.Middleware = append(c.Middleware, transport.Middleware(m))",
        doc: "wraps every HTTP attempt (GraphQL and REST) of {client} in m; the first given is the outermost.",
      },
    ],
  },
  logger: {
    typescript: {
      doc: ({ facts }) =>
        `Takes a line per attempt (debug) and per failure (warn), credentials redacted (default: the console when ${facts.service.envPrefix}_LOG is debug, or info for failures alone).`,
    },
    python: [],
    go: [
      {
        name: "Logger",
        parameters: "logger *slog.Logger",
        apply: "c.Logger = logger",
        doc: ({ facts }) =>
          `makes {client} log through logger (log/slog): a record per attempt (operation, protocol, attempt, status, duration, will_retry), at debug level, warn for a failure, and a warning per answer field kept raw in ExtraFields; credentials and secret input fields redacted. Default: the environment's ${facts.service.envPrefix}_LOG (debug, info, off) to standard error.`,
      },
    ],
  },
  grpcInterceptors: {
    typescript: { doc: "Connect interceptors (@connectrpc/connect) of gRPC calls, in order." },
    python: [
      {
        name: "grpc_interceptors",
        declaration: ({ sync }) => `Sequence[${sync ? "GrpcInterceptor" : "AsyncGrpcInterceptor"}] | None = None`,
        imports: [
          ["collections.abc", "Sequence"],
          ["._observe", "GrpcInterceptor"],
          ["._observe", "AsyncGrpcInterceptor"],
        ],
        doc: "Interceptors every gRPC call goes through, in order: grpc.UnaryUnaryClientInterceptor objects (grpc.aio.UnaryUnaryClientInterceptor for the async clients).",
      },
    ],
    go: [
      {
        name: "GRPCUnaryInterceptor",
        parameters: "interceptor grpc.UnaryClientInterceptor",
        apply: "c.GRPC.Interceptors = append(c.GRPC.Interceptors, interceptor)",
        grpcTypes: true,
        doc: "chains interceptor into {client}'s gRPC connection: it sees every attempt over gRPC; the first given is the outermost.",
      },
    ],
  },
  fetch: {
    typescript: { doc: "The fetch of GraphQL and REST (default: the client's own pool of keep-alive connections, closed by close(); a fetch given here stays open)." },
    python: [
      {
        name: "http_client",
        declaration: ({ sync }) => `${sync ? "httpx.Client" : "httpx.AsyncClient"} | None = None`,
        imports: [["httpx"]],
        doc: "The httpx client for GraphQL and REST (default: one of the client's own, closed by close()).",
        setting: false,
      },
    ],
    go: [
      {
        name: "HTTPClient",
        parameters: "client *http.Client",
        apply: "c.HTTPClient = client",
        doc: "makes {client} send GraphQL and REST calls through client; Close then leaves it open.",
      },
    ],
  },
  tls: {
    typescript: {
      doc: "A private CA, a client certificate (mutual TLS) or the server's name, for an https:// service: REST and GraphQL use them, and gRPC too unless grpcTls says otherwise. Node only: in browsers, Deno and Bun the platform's fetch decides what it trusts, and these options are refused.",
    },
    python: [
      {
        name: "verify",
        declaration: "Verify = True",
        imports: [["._tls", "Verify"]],
        doc: "TLS verification of an https:// service: True (the system's roots), a CA bundle file (also gRPC's roots unless grpc_root_certificates is given), or an ssl.SSLContext. Not used with http_client.",
      },
      {
        name: "cert",
        declaration: "ClientCert | None = None",
        imports: [["._tls", "ClientCert"]],
        doc: "A client certificate for mutual TLS: a file with its key, or (certificate file, key file); gRPC presents it too. Not used with http_client.",
      },
    ],
    // Go: the *tls.Config of WithGRPCTLS secures the client's own HTTP client too.
    go: [],
  },
  grpcTls: {
    typescript: {
      doc: "gRPC over TLS, on Node. Default: when serviceUrl is https://, with the CA and certificate of tls; plaintext when it is http://. true or options turn it on, false off. Elsewhere RPCs go as Connect to serviceUrl.",
    },
    python: [
      { name: "grpc_tls", declaration: "bool | None = None", doc: "gRPC over TLS; None: when service_url is https:// (with verify's CA and cert), plaintext when http://." },
      { name: "grpc_root_certificates", declaration: "bytes | None = None", doc: "PEM CA certificates of gRPC over TLS (default: verify's CA file, else the system's roots)." },
      { name: "grpc_client_cert", declaration: "bytes | None = None", doc: "PEM client certificate chain of gRPC over TLS (default: cert's)." },
      { name: "grpc_client_key", declaration: "bytes | None = None", doc: "PEM private key of grpc_client_cert." },
    ],
    go: [
      {
        name: "GRPCTLS",
        parameters: "cfg *tls.Config",
        apply: "c.GRPCSecurity, c.GRPCTLS = transport.GRPCOverTLS, cfg",
        doc: "makes {client}'s gRPC connection use TLS with cfg (nil: the system's roots), which is the default when serviceURL is https://. cfg (a private CA in RootCAs, a client certificate in Certificates) also secures the client's own HTTP client for GraphQL and REST.",
      },
      {
        name: "GRPCInsecure",
        parameters: "",
        apply: "c.GRPCSecurity = transport.GRPCPlaintext",
        doc: "makes {client}'s gRPC connection plaintext, the default when serviceURL is http://. A host that is not loopback also needs the insecure transport option.",
      },
      {
        name: "GRPCDialOptions",
        parameters: "opts ...grpc.DialOption",
        apply: "c.GRPC.Dial = append(c.GRPC.Dial, opts...)",
        grpcTypes: true,
        doc: "adds options to the gRPC connection of {client} (after the transport credentials of the TLS or insecure option, which a credentials option here replaces).",
      },
    ],
  },
  maxResponseBytes: {
    typescript: { doc: ({ facts }) => `The largest answer read, in bytes, on every protocol (default ${facts.defaultMaxResponseBytes}, 32 MiB): a larger one is PAYLOAD_TOO_LARGE.` },
    python: [
      {
        name: "max_response_bytes",
        declaration: "int = DEFAULT_MAX_RESPONSE_BYTES",
        imports: [["._schema", "DEFAULT_MAX_RESPONSE_BYTES"]],
        doc: ({ facts }) => `The largest answer read, on every protocol (default ${facts.defaultMaxResponseBytes}, 32 MiB); a larger one is PAYLOAD_TOO_LARGE.`,
      },
    ],
    go: [
      {
        name: "MaxResponseBytes",
        parameters: "n int64",
        apply: "c.MaxResponse = n",
        doc: "sets the largest answer {client} reads, on every protocol (default DefaultMaxResponseBytes, 32 MiB); a larger one is CodePayloadTooLarge.",
      },
    ],
  },
  allowInsecure: {
    typescript: { doc: "Let calls go in clear (http://, gRPC without TLS) to a host that is not loopback; refused before anything is sent otherwise, since they carry credentials." },
    python: [
      {
        name: "allow_insecure",
        declaration: "bool = False",
        doc: ({ facts }) =>
          `Send calls in clear (http://, gRPC without TLS) to a host that is not loopback; refused by default, since they carry ${facts.features.adminSecret ? "the admin secret, " : ""}tokens and passwords.`,
      },
    ],
    go: [
      {
        name: "InsecureTransport",
        parameters: "",
        apply: "c.Insecure = true",
        doc: "lets {client} send calls in clear (http://, gRPC without TLS) to a host that is not loopback. Without it such a call is refused before anything is sent, since it would carry credentials.",
      },
    ],
  },
} as const satisfies Record<ClientOptionKey, ClientOptionSpec>;

const textOf = (text: Text, context: OptionContext) => (typeof text === "string" ? text : text(context));

/** Whether a form applies to a client of this API. */
function available(form: Availability, context: OptionContext): boolean {
  return (form.clients ?? ["admin", "user"]).includes(context.role) && (form.feature === undefined || context.facts.features[form.feature]);
}

const entries = () => Object.entries(CLIENT_OPTIONS) as [ClientOptionKey, ClientOptionSpec][];
/** The order of form `formIndex` of entry `entryIndex` (an entry has a few forms at most). */
const orderOf = (entryIndex: number, formIndex: number) => entryIndex * 100 + formIndex;

/** Where a form stands in the table: an options table lists its rows in this order. */
interface Ordered {
  readonly order: number;
}

export interface ResolvedTypeScriptOption extends Ordered {
  readonly name: ClientOptionKey;
  readonly doc: string;
}
export interface ResolvedPythonOption extends Ordered {
  readonly name: string;
  readonly imports: readonly (readonly [module: string, name?: string])[];
  readonly declaration: string;
  readonly doc: string;
  /** What the constructor passes to the settings of the client core (`name=name`), or undefined: it uses it itself. */
  readonly setting: string | undefined;
}
export interface ResolvedGoOption extends Ordered {
  /** The same for the admin and the user form: AccessToken. */
  readonly key: string;
  /** The function: WithTimeout, WithAdminTimeout. */
  readonly function: string;
  /** Its name as a README cell shows it: WithTimeout(d). */
  readonly usage: string;
  readonly parameters: string;
  readonly apply: string;
  readonly doc: string;
  readonly grpcTypes: boolean;
}

export function typescriptOptions(context: OptionContext): ResolvedTypeScriptOption[] {
  return entries().flatMap(([name, spec], entryIndex) => {
    const forms: readonly TypeScriptForm[] = "doc" in spec.typescript ? [spec.typescript] : spec.typescript;
    return forms.flatMap((form, formIndex) => (available(form, context) ? [{ name, doc: textOf(form.doc, context), order: orderOf(entryIndex, formIndex) }] : []));
  });
}

export function pythonOptions(context: OptionContext): ResolvedPythonOption[] {
  return entries().flatMap(([, spec], entryIndex) =>
    spec.python.flatMap((form, formIndex) =>
      available(form, context)
        ? [
            {
              name: form.name,
              imports: form.imports ?? [],
              declaration: textOf(form.declaration, context),
              doc: textOf(form.doc, context),
              setting: form.setting === false ? undefined : (form.setting ?? `${form.name}=${form.name}`),
              order: orderOf(entryIndex, formIndex),
            },
          ]
        : [],
    ),
  );
}

/** The option functions of a Go client: With<name> for the user client, WithAdmin<name> for the admin client; `client` names the client in their docs. */
export function goOptions(context: OptionContext, client = context.role === "admin" ? "the admin client" : "the user client"): ResolvedGoOption[] {
  const prefix = context.role === "admin" ? "WithAdmin" : "With";
  return entries().flatMap(([, spec], entryIndex) =>
    "positional" in spec.go
      ? []
      : spec.go.flatMap((form, formIndex) =>
          available(form, context)
            ? [
                {
                  key: form.name,
                  function: `${prefix}${form.name}`,
                  usage: `${prefix}${form.name}(${form.parameters.replace(/ .*?(?=,|$)/g, "").replace(/^opts$/, "...")})`,
                  parameters: form.parameters,
                  apply: form.apply,
                  doc: textOf(form.doc, context).replaceAll("{client}", client),
                  grpcTypes: form.grpcTypes === true,
                  order: orderOf(entryIndex, formIndex),
                },
              ]
            : [],
        ),
  );
}

/** A Markdown table of options: one row per name, the meaning beside it. */
function optionsTable(header: [string, string], rows: readonly { name: string; doc: string }[]): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return [`| ${header[0]} | ${header[1]} |`, "|---|---|", ...rows.map((row) => `| ${cell(row.name)} | ${cell(row.doc)} |`)].join("\n");
}

/**
 * The rows of an SDK's options table for the clients the API has: an option of both clients once
 * (with each client's meaning when they differ), an option of one client marked with its name.
 */
function mergedOptionRows(
  clients: readonly { role: ClientRole; name: string }[],
  rowsOf: (role: ClientRole) => readonly { key: string; name: string; doc: string; order: number }[],
): { name: string; doc: string }[] {
  const merged = new Map<string, { names: string[]; docs: { client: string; doc: string }[]; order: number }>();
  for (const client of clients) {
    for (const row of rowsOf(client.role)) {
      const entry = merged.get(row.key) ?? merged.set(row.key, { names: [], docs: [], order: row.order }).get(row.key)!;
      if (!entry.names.includes(row.name)) entry.names.push(row.name);
      entry.docs.push({ client: client.name, doc: row.doc });
      entry.order = Math.min(entry.order, row.order);
    }
  }
  return [...merged.values()]
    .sort((a, b) => a.order - b.order)
    .map(({ names, docs }) => {
      const same = docs.every((d) => d.doc === docs[0]!.doc);
      const doc = same ? docs[0]!.doc : docs.map((d) => `${d.client}: ${d.doc}`).join(" ");
      return { name: names.join(" / "), doc: docs.length < clients.length ? `${docs[0]!.client} only. ${doc}` : doc };
    });
}

/** The options table of the TypeScript SDK's README and docs, for the clients the API has. */
export function typescriptOptionsTable(facts: SdkFacts, clients: readonly { role: ClientRole; name: string }[]): string {
  return optionsTable(
    ["option", "meaning"],
    mergedOptionRows(clients, (role) => typescriptOptions({ facts, role, sync: false }).map((o) => ({ key: o.name, name: `\`${o.name}\``, doc: o.doc, order: o.order }))),
  );
}

/** The constructor arguments table of the Python SDK's README and docs. */
export function pythonOptionsTable(facts: SdkFacts, clients: readonly { role: ClientRole; name: string }[]): string {
  return optionsTable(
    ["argument", "meaning"],
    mergedOptionRows(clients, (role) => pythonOptions({ facts, role, sync: true }).map((o) => ({ key: o.name, name: `\`${o.name}\``, doc: o.doc, order: o.order }))),
  );
}

/** The option functions table of the Go SDK's README and docs: each admin option beside its user twin. */
export function goOptionsTable(facts: SdkFacts, clients: readonly { role: ClientRole; name: string }[]): string {
  const roles = clients.map((c) => c.role);
  return optionsTable(
    [`option (${(["admin", "user"] as const).filter((role) => roles.includes(role)).join(" / ")} client)`, "meaning"],
    mergedOptionRows(clients, (role) => goOptions({ facts, role, sync: true }, "the client").map((o) => ({ key: o.key, name: `\`${o.usage}\``, doc: o.doc, order: o.order }))),
  );
}
