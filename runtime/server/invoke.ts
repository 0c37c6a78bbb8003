// The one call pipeline behind every protocol: who is calling, may they, is the input valid, run
// the implementation, answer in the flat shape. Protocol adapters only translate to and from it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError, type ErrorCode } from "../errors.js";
import type { ApiSchema, AuthSchemeSpec, OperationSpec } from "../schema.js";
import {
  article,
  authorize,
  authorizeAny,
  credentialsOf,
  DEFAULT_SECRET_WORDS,
  SecretError,
  SecretGuard,
  SessionStore,
  type Credentials,
  type LockoutScope,
  type SchemeRequirement,
  type SecretBootstrap,
  type SecretWords,
} from "./auth.js";
import { clientAddressResolver, type ClientAddressResolver, type TrustProxy } from "./client-address.js";
import type { CallContext, CallProtocol, CookieOptions, Principal, Sessions } from "./context.js";
import { HealthState, type Dependency } from "./health.js";
import type { McpOptions } from "./mcp-options.js";
import { Metrics, type MetricsOptions } from "./metrics.js";
import { RateLimiter, type OperationClass, type RateLimitOptions } from "./rate-limit.js";
import { andThen, DEFAULT_GLOBAL_LOCKOUT, DEFAULT_LOCKOUT, MemoryStore, type LockoutPolicy, type MaybePromise, type Store } from "./store.js";
import type { TlsOptions } from "./tls.js";
import { Tracing, type CallSpan, type TracingOptions } from "./tracing.js";
import { whenSettled, type Eventual } from "./pending.js";
import type { ValidationRules } from "../validate.js";
import { CompiledCodecs, type OperationCodec } from "./compiled-codecs.js";
import { IDEMPOTENCY_KEY_HEADER } from "../idempotency.js";
import { crossOriginAdmin, normalizeOrigin, type CorsOptions } from "./cors.js";
import {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyOf,
  idempotencyScope,
  inputHash,
  MemoryIdempotencyStore,
  refusalOf,
  type IdempotencyOptions,
  type IdempotencyRequest,
  type IdempotencyStore,
} from "./idempotency.js";

type Plain = Record<string, unknown>;

const SECRET_HOLDER: Principal = { kind: "secret" };
/** The guard of an API no operation of which takes a secret: it is never asked, and would accept none. */
const NO_SECRET: SecretBootstrap = { verifier: () => Promise.resolve(undefined) };
const ANONYMOUS: Principal = { kind: "anonymous" };
export type Handler = (input: Plain, context: CallContext) => Promise<unknown>;

/** What a call of one operation needs of the pipeline, set up once at start. */
interface OperationCall {
  readonly handler: Handler;
  /** The operation's scheme (the first where it takes several). */
  readonly scheme: AuthSchemeSpec;
  /** Where the operation takes several schemes or scopes (OperationSpec.authAnyOf): each, with its scopes; the call is judged by authorizeAny. */
  readonly anyOf?: readonly SchemeRequirement[];
  readonly codec: OperationCodec;
}

export interface LogEntry {
  operation: string;
  protocol: CallProtocol;
  /** Error code, or "OK". */
  outcome: string;
  durationMs: number;
}

export interface ServerOptions {
  /**
   * The secret every call of a secret scheme must carry (in the scheme's header), at least
   * MIN_SECRET_LENGTH (12) characters, or, for a service whose first secret is stored by one of its
   * operations, where the stored one is checked. Required when an operation of the API takes it
   * (schema.features.adminSecret); an API without such operations takes none. The generated
   * server's options name it after the secret scheme (admin_secret: adminSecret).
   */
  secret?: string | SecretBootstrap;
  /**
   * TLS on every port (off by default): HTTPS (HTTP/1.1 and h2 by ALPN) on the HTTP port, and on the
   * metrics port; gRPC over TLS (h2) on the gRPC port. Certificates given as file paths are read
   * again when the files change. `clientCa` asks every client for a certificate it signed (mutual TLS).
   */
  tls?: TlsOptions;
  /** HTTP port for GraphQL and REST (default: the manifest's api.http_port, 8080 unless it names another; 0 picks a free one). */
  port?: number;
  /**
   * Browsers' cross-origin calls (runtime/server/cors.ts): `origins` whose pages may call the user
   * surface and the token routes, with credentials; `adminOrigins` the admin surface too. Off by
   * default: no CORS header. Whatever it says, an admin call from another origin's page that
   * adminOrigins does not list is refused (PERMISSION_DENIED).
   */
  cors?: CorsOptions;
  /**
   * Idempotency keys of writes (runtime/server/idempotency.ts): on by default, in this process's
   * memory; give a shared `store` (the service's database) when replicas serve one API. `false`
   * ignores the Idempotency-Key header.
   */
  idempotency?: IdempotencyOptions | false;
  /** gRPC port (default: the manifest's, 9091; 0 picks a free one). */
  grpcPort?: number;
  host?: string;
  /** Failed secrets from one address that lock it out, and the window (default 10 in 15 minutes). */
  lockout?: LockoutPolicy;
  /**
   * Failed secrets from all addresses together, and the window, after which every secret
   * check is refused, the right secret too, until the oldest failure leaves the window (default 100
   * a minute): an attacker with many addresses guesses no faster than that. Counted in the store.
   */
  globalLockout?: LockoutPolicy;
  /**
   * Where the state the stubs keep between calls lives: lockout counts, sessions, rate-limit
   * counters. Default: in this process (memoryStore()). Replicas behind a load balancer share it
   * with redisStore(url). While the store cannot be reached, calls of a secret scheme answer UNAVAILABLE.
   */
  store?: Store;
  /**
   * Proxies in front of the HTTP port (GraphQL, REST, Connect, gRPC-Web, MCP, mounts) trusted to name
   * the caller in X-Forwarded-For (or Forwarded): a hop count or a list of addresses and CIDR ranges.
   * Default: none, the caller is the TCP peer and the headers are ignored. The gRPC port has its own
   * (grpcTrustProxy).
   */
  trustProxy?: TrustProxy;
  /**
   * The same for the gRPC port, whose callers write their metadata themselves unless a proxy in
   * front of that port rewrites it. Default: none, the caller is the TCP peer; trustProxy never applies there.
   */
  grpcTrustProxy?: TrustProxy;
  /**
   * Rate limits per caller address and operation class (reads, writes, token routes), counted in the
   * store: off by default; `true` or options for 30 calls a second with a burst of 20 per class.
   * Refused calls answer TOO_MANY_REQUESTS with Retry-After.
   */
  rateLimit?: boolean | RateLimitOptions;
  /** Prometheus metrics (needs prom-client): off by default; `true` serves them on /metrics of the HTTP port. */
  metrics?: boolean | MetricsOptions;
  /** One OpenTelemetry span per call (needs @opentelemetry/api and the service's SDK): off by default. */
  tracing?: boolean | TracingOptions;
  /** GET /healthz and /readyz on the HTTP port (default true). */
  health?: boolean;
  /**
   * Backends of the implementation, such as its database: while one cannot be reached, /readyz
   * and grpc.health.v1 answer NOT_SERVING (the store of `store` is always one).
   */
  dependencies?: Dependency[];
  /**
   * Most connections the HTTP port holds open at once (HTTP/1.1 and HTTP/2 together; default
   * DEFAULT_MAX_CONNECTIONS of http-port.ts, 10 000): past it a new connection is closed at once, so a flood of idle
   * connections cannot take every file descriptor.
   */
  maxConnections?: number;
  /**
   * Most connections one client address holds open at once on the HTTP port, and on the gRPC port (default
   * DEFAULT_MAX_CONNECTIONS_PER_ADDRESS of http-port.ts, 1 000; 0: no cap of its own): past it a new
   * connection from that address is closed at once, so one address cannot take every slot of
   * maxConnections. Behind a reverse proxy every connection comes from the proxy: raise it there.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Time a request may take to send its headers, and its headers and body, in milliseconds
   * (defaults DEFAULT_HEADERS_TIMEOUT_MS, 20 s, and DEFAULT_REQUEST_TIMEOUT_MS, 60 s): a slower
   * sender's connection is closed, checked every second, freeing its slot while others are served.
   */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Largest request body accepted, in bytes (default: the manifest's api.limits.request_bytes, which the contracts state). */
  bodyLimitBytes?: number;
  /**
   * Resolves a bearer token to the signed-in user, or null when it is not valid; `scopes`, what the
   * token grants, is checked against the scopes an operation's scheme asks for (none granted when absent).
   */
  verifyUserToken?: (token: string) => Promise<{ userId: string; roles: readonly string[]; scopes?: readonly string[] } | null>;
  /**
   * Resolves the bearer token of a scheme whose tokens are not users' access tokens (the scheme's
   * `token`, given as `kind`) to its holder, or null when it is not valid; `scopes` as verifyUserToken's.
   */
  verifyToken?: (token: string, kind: string) => Promise<{ holder: string; scopes?: readonly string[] } | null>;
  /**
   * Resolves the API key of a call whose auth is api_key (header schema.apiKeyHeader) to its
   * holder, or null when the key is not valid; without it every such call is UNAUTHENTICATED.
   */
  verifyApiKey?: (key: string) => Promise<{ keyId: string; roles?: readonly string[] } | null>;
  /**
   * Whether a signed-in user holds the API's role (schema.orgAdminRole) for what this call concerns
   * (the operations of a rule with an org role). It may throw PERMISSION_DENIED instead of answering
   * false, to say what and which role were needed.
   */
  hasRole?: (user: Extract<Principal, { kind: "user" }>, operation: OperationSpec, input: Plain) => Promise<boolean>;
  /** One entry per call; never holds inputs, answers or secrets. */
  logger?: (entry: LogEntry) => void;
  /** Called with every failure that is not a ServiceError (a bug), for the operator's log. */
  onInternalError?: (operation: string, error: unknown) => void;
  /** Clock, for tests. */
  now?: () => number;
  /**
   * Serve the explorer (default false): GraphiQL on GET /graphql for browsers, the OpenAPI document
   * rendered on /docs, /openapi.yaml and /schema.graphql. Needs the packages of runtime/server/explorer-packages.ts.
   */
  explorer?: boolean;
  /**
   * Accept an implementation that lacks operations (default false): each missing one answers
   * UNIMPLEMENTED on every protocol, and they are listed once at start-up through `onWarning`.
   * Without it, a missing operation stops start-up with one message naming every gap.
   */
  partial?: boolean;
  /** Start-up warnings (default: a line on stderr). */
  onWarning?: (message: string) => void;
  /**
   * Further routes on the HTTP port, each owning the paths under its prefix (a protocol the manifest
   * does not describe, such as webhooks at /hooks). They share the port's listener, body limit, caller address and rate limits.
   */
  mounts?: readonly HttpMount[];
  /**
   * MCP on /mcp (Streamable HTTP; needs @modelcontextprotocol/sdk): off by default; `true` makes
   * every operation a tool, options narrow them (readOnly, surfaces, groups, operations) or serve
   * the three tools of dynamic mode. Each tool call runs through this pipeline with the request's credentials.
   */
  mcp?: boolean | McpOptions;
}

/** What a mounted route is given with each request. */
export interface MountContext {
  /** The caller's address: the TCP peer, or what the trusted proxies say. */
  readonly clientAddress: string;
  /** The largest request body the port accepts, in bytes. */
  readonly bodyLimit: number;
  /** The request's body as text, refused (PAYLOAD_TOO_LARGE) past `bodyLimit`. */
  readBody(request: IncomingMessage): Promise<string>;
  /** Counts the request against the rate limit of its class; throws TOO_MANY_REQUESTS (with retryAfter) when it may not go on. */
  admit(operationClass: OperationClass): Promise<void>;
}

export interface HttpMount {
  /** The path the mount owns, with every path under it ("/hooks"). */
  readonly prefix: string;
  handle(request: IncomingMessage, response: ServerResponse, context: MountContext): Promise<void>;
}

/**
 * An implementation that cannot be served. Its message says everything: the stack (frames inside
 * the runtime) is left out, so an uncaught one prints as one clear message.
 */
export class ImplementationError extends Error {
  override name = "ImplementationError";
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** The role check authorize() is given for the schemes without a role, which never call it. */
const NO_ROLE_CHECK = async () => false;

/** Codes any call may answer whatever its contract lists: faults, gaps and outages. */
const ALWAYS_POSSIBLE = new Set<ErrorCode>(["INTERNAL", "UNIMPLEMENTED", "UNAVAILABLE"]);

/** An implementation answered a code its operation's contract does not list; the answer still goes out. */
export class UndeclaredErrorCode extends Error {
  override name = "UndeclaredErrorCode";
  constructor(operation: string, code: ErrorCode) {
    super(`${operation} answered ${code}, which operations.yaml does not list under its errors:`);
  }
}

/** A fault of the implementation, reported as INTERNAL to the caller and in full to onInternalError. */
class InternalFault extends Error {
  override name = "InternalFault";
}

/** How run() hands a call's outcome back, once: its ServiceError, or its flat output. It must not throw. */
export type CallSettler = (error: ServiceError | undefined, output: Plain | undefined) => void;

/** The port a call came in on: each trusts its own proxies (options trustProxy, grpcTrustProxy). */
export type Listener = "http" | "grpc";

export interface IncomingCall {
  protocol: CallProtocol;
  /** Connect and gRPC-Web calls speak gRPC (protocol) but come in on the HTTP port (listener). */
  listener: Listener;
  operation: OperationSpec;
  input: unknown;
  /** Reads the input (an HTTP body) once the caller is authenticated; `input` is ignored then. */
  readInput?: () => Eventual<unknown>;
  /** What an adapter already established for this call (GraphQL checks before executing). */
  checked?: { principal: Principal; input?: Plain };
  headers: Readonly<Record<string, string>>;
  /** The TCP peer; the pipeline resolves the caller's address from it (the listener's trust of proxies). */
  remoteAddress: string;
  setCookie(name: string, value: string, options?: CookieOptions): void;
  /** Marks the answer as the replay of a key's first answer (Idempotent-Replayed: true). */
  markReplayed(): void;
}

/**
 * The prefixes of cookies a server over TLS sets and reads (RFC 6265bis §4.1.3): a browser keeps a
 * `__Host-` cookie only if it came over TLS, with Secure, Path=/ and no Domain, so no other host
 * (a sibling subdomain) and no plaintext answer can plant or overwrite it; `__Secure-` for a
 * cookie of another path.
 */
const HOST_PREFIX = "__Host-";
const SECURE_PREFIX = "__Secure-";

/**
 * The cookies of a request by name. `secure` (a server over TLS): only the `__Host-` and `__Secure-`
 * cookies count, read under their names without the prefix; a plain cookie of the same name could
 * have been planted by another host or in clear, so it is ignored.
 */
export function parseCookies(header: string | undefined, secure = false): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    let name = part.slice(0, index).trim();
    if (secure) {
      if (name.startsWith(HOST_PREFIX)) name = name.slice(HOST_PREFIX.length);
      else if (name.startsWith(SECURE_PREFIX)) name = name.slice(SECURE_PREFIX.length);
      else continue;
    }
    const raw = part.slice(index + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // A malformed escape is the client's business: keep the value as sent.
    }
    cookies[name] = value;
  }
  return cookies;
}

/** A Set-Cookie value: HttpOnly always, SameSite=Strict unless asked for Lax; over TLS (`secure`) also Secure, under a `__Host-` (or `__Secure-`) name. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}, secure = false): string {
  const path = options.path ?? "/";
  const fullName = secure ? `${path === "/" ? HOST_PREFIX : SECURE_PREFIX}${name}` : name;
  const parts = [`${fullName}=${encodeURIComponent(value)}`, `Path=${path}`, "HttpOnly", `SameSite=${options.sameSite ?? "Strict"}`];
  if (secure) parts.push("Secure");
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join("; ");
}

/**
 * What an implementation is told about its call. A class, not an object literal: a literal with a
 * getter makes V8 give each call its own hidden class, which keeps every call's objects alive
 * across young-generation collections (measured: 6 µs of GC per REST call, against under 1).
 */
class PipelineCallContext implements CallContext {
  readonly #sessions: SessionStore;
  readonly #guard: SecretGuard;
  constructor(
    readonly operation: OperationSpec,
    readonly protocol: CallProtocol,
    readonly principal: Principal,
    readonly remoteAddress: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly cookies: Readonly<Record<string, string>>,
    readonly setCookie: CallContext["setCookie"],
    sessions: SessionStore,
    guard: SecretGuard,
  ) {
    this.#sessions = sessions;
    this.#guard = guard;
  }

  /** Built on first use: most operations never touch sessions. */
  get sessions(): Sessions {
    return this.#sessions.forCall(this.#guard, this.remoteAddress);
  }
}

export class CallPipeline {
  readonly guard: SecretGuard;
  readonly sessions: SessionStore;
  readonly store: Store;
  /** SERVING while the store is reachable and the server is not shutting down; gRPC health reads it too. */
  readonly health: HealthState;
  /** The instruments of the options that are on, set by start() once their packages are loaded. */
  rateLimiter: RateLimiter | undefined;
  metrics: Metrics | undefined;
  tracing: Tracing | undefined;
  /** Errors the pipeline has already counted, so that an adapter reporting them again changes nothing. */
  private readonly settled = new WeakSet<ServiceError>();
  /** The caller's address of a call on the HTTP port: its TCP peer, or what the proxies of trustProxy say. */
  readonly clientAddress: ClientAddressResolver;
  /** The same on the gRPC port, after grpcTrustProxy. */
  readonly grpcClientAddress: ClientAddressResolver;
  /** Served over TLS (every port is): cookies are Secure, under `__Host-` names, and only those are read. */
  readonly secureCookies: boolean;
  /** Each operation's implementation, auth scheme and compiled codec: one look-up per call. */
  private readonly calls = new Map<string, OperationCall>();
  /** What the refusals of calls without credentials ask for (credentialsOf). */
  private readonly credentials: Credentials;
  /** The input check and the flat answer of each message, compiled from the schema and the rules. */
  readonly codecs: CompiledCodecs;
  /** Where idempotency keys are kept, with their window and lease; undefined when keys are ignored. */
  readonly idempotency: { store: IdempotencyStore; windowMs: number; leaseMs: number } | undefined;
  private readonly now: () => number;
  /** The origins whose pages may call the admin surface (cors.adminOrigins). */
  private readonly adminOrigins: ReadonlySet<string>;

  constructor(
    readonly schema: ApiSchema,
    implementation: Record<string, unknown>,
    readonly options: ServerOptions,
    /** What the server checks of every input beyond its type (generated/server/rules.ts). */
    readonly rules: ValidationRules,
    /** How refusals name the API's secret and its session (ServiceDefinition.secretWords). */
    private readonly words: SecretWords = DEFAULT_SECRET_WORDS,
  ) {
    const now = options.now ?? Date.now;
    this.now = now;
    this.adminOrigins = new Set((options.cors?.adminOrigins ?? []).map((origin) => normalizeOrigin(origin) ?? origin));
    this.store = options.store ?? new MemoryStore();
    const idempotency = options.idempotency === false ? undefined : (options.idempotency ?? {});
    this.idempotency = idempotency && {
      store: idempotency.store ?? new MemoryIdempotencyStore(),
      windowMs: idempotency.windowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS,
      leaseMs: idempotency.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS,
    };
    this.clientAddress = clientAddressResolver(options.trustProxy, "trustProxy");
    this.grpcClientAddress = clientAddressResolver(options.grpcTrustProxy, "grpcTrustProxy");
    this.secureCookies = options.tls !== undefined;
    this.credentials = credentialsOf(schema, words);
    this.codecs = new CompiledCodecs(schema, rules);
    if (options.secret === undefined && schema.features.adminSecret) throw new SecretError(`${article(words.secret)} ${words.secret} is required`);
    this.guard = new SecretGuard(
      options.secret ?? NO_SECRET,
      options.lockout ?? DEFAULT_LOCKOUT,
      this.store,
      now,
      (scope, retryAfterSeconds) => this.onLockout(scope, retryAfterSeconds),
      options.globalLockout ?? DEFAULT_GLOBAL_LOCKOUT,
      words,
    );
    this.sessions = new SessionStore(schema.adminSessionCookie, this.store, now);
    this.health = new HealthState([this.store, ...(options.dependencies ?? [])]);
    const missing: OperationSpec[] = [];
    for (const operation of Object.values(schema.operations)) {
      const method = implementation[operation.method];
      if (typeof method !== "function") missing.push(operation);
      const handler: Handler =
        typeof method === "function" ? (method.bind(implementation) as Handler) : () => Promise.reject(new ServiceError("UNIMPLEMENTED", `${operation.pascalName} is not implemented by this service`));
      const anyOf = operation.authAnyOf?.map((r) => ({ scheme: schema.authSchemes[r.scheme]!, scopes: r.scopes ?? [] }));
      this.calls.set(operation.name, { handler, scheme: schema.authSchemes[operation.auth]!, ...(anyOf ? { anyOf } : {}), codec: this.codecs.of(operation) });
    }
    if (missing.length > 0) {
      const list = missing.map((op) => op.method).join(", ");
      if (!options.partial) {
        throw new ImplementationError(
          `the implementation lacks ${missing.length} of ${Object.keys(schema.operations).length} operations: ${list}. ` +
            "Implement them (npx apigen scaffold <file> adds typed stubs), or pass { partial: true } to answer them UNIMPLEMENTED.",
        );
      }
      this.warn(`${missing.length} of ${Object.keys(schema.operations).length} operations are not implemented and answer UNIMPLEMENTED: ${list}`);
    }
  }

  /** Start-up warnings and store outages: options.onWarning, or a line on stderr. */
  private readonly warn = (message: string) => (this.options.onWarning ? this.options.onWarning(message) : process.stderr.write(`warning: ${message}\n`));

  private onLockout(scope: LockoutScope, retryAfterSeconds: number): void {
    if (scope === "address") this.metrics?.lockout();
    // Every holder of the secret is shut out meanwhile: the operator should hear why.
    else this.warn(`too many wrong ${this.words.secret}s from all addresses (globalLockout): every ${this.words.secret} check is refused for ${retryAfterSeconds} s`);
  }

  /** Starts the store and loads the instruments of the options that are on (listen() calls it). */
  async start(): Promise<void> {
    const { options } = this;
    await this.store.start(this.warn);
    const optionsOf = <T extends object>(value: boolean | T | undefined): T | undefined => (value === true ? ({} as T) : value || undefined);
    const metrics = optionsOf(options.metrics);
    const tracing = optionsOf(options.tracing);
    const rateLimit = optionsOf(options.rateLimit);
    if (metrics) this.metrics ??= await Metrics.create(metrics);
    if (tracing) this.tracing ??= await Tracing.create(tracing, `${this.schema.name}-server`);
    if (rateLimit) this.rateLimiter ??= await RateLimiter.create(this.store, rateLimit, (operationClass) => this.metrics?.rateLimited(operationClass));
  }

  /**
   * Counts a call an adapter refused before it reached invoke() (a body it could not read, GraphQL
   * variables found wrong before executing): in the log, the metrics and a span like any call.
   * Errors that came out of invoke() were counted there and are ignored.
   */
  settle(protocol: CallProtocol, operation: OperationSpec, error: unknown, headers: Readonly<Record<string, string>> = {}): void {
    if (error instanceof ServiceError && this.settled.has(error)) return;
    const code = error instanceof ServiceError ? error.code : "INTERNAL";
    this.tracing?.start(operation, protocol, headers)?.end(code);
    this.finish(protocol, operation, code, undefined);
  }

  /** The log entry and the metrics of a finished call; `started` is left out for a call that never ran. */
  private finish(protocol: CallProtocol, operation: OperationSpec, outcome: string, started: number | undefined): void {
    // Nothing records the call: no clock reading (invoke() reads none at the start either then).
    if (!this.options.logger && !this.metrics) return;
    const seconds = started === undefined ? undefined : (performance.now() - started) / 1000;
    this.options.logger?.({ operation: operation.name, protocol, outcome, durationMs: (seconds ?? 0) * 1000 });
    this.metrics?.observe(protocol, operation.name, outcome, seconds);
  }

  /**
   * Who is calling, by the credentials the operation's scheme takes (looked up once per call by the
   * caller). Synchronous unless the store or a bearer-token check answers later: with the in-memory
   * store a call of a secret scheme makes no promise.
   */
  private principalOf(call: IncomingCall, scheme: AuthSchemeSpec, address: string, cookies: Record<string, string>): MaybePromise<Principal> {
    if (scheme.kind === "secret") {
      const noSecretYet = this.guard.requireSecret();
      if (noSecretYet) return noSecretYet.then(() => this.principalOf(call, scheme, address, cookies));
      const secret = call.headers[this.schema.adminSecretHeader];
      if (secret !== undefined && secret !== "") {
        return andThen(this.guard.verify(secret, address), (ok) => {
          if (ok) return SECRET_HOLDER;
          throw new ServiceError("UNAUTHENTICATED", `wrong ${this.words.secret} in header ${this.schema.adminSecretHeader}`);
        });
      }
      const sessionId = scheme.session ? cookies[this.schema.adminSessionCookie] : undefined;
      if (sessionId) {
        // A browser says where a request comes from: the session cookie acts only for the service's own pages.
        const site = call.headers["sec-fetch-site"];
        if (site !== undefined && site !== "same-origin" && site !== "none") {
          throw new ServiceError("PERMISSION_DENIED", `the ${this.words.session} cookie is not accepted on a cross-site request; send the ${this.words.secret} header`);
        }
        return andThen(this.sessions.get(sessionId), (session) => (session ? SECRET_HOLDER : this.bearerPrincipal(call, scheme)));
      }
    }
    return this.bearerPrincipal(call, scheme);
  }

  private bearerPrincipal(call: IncomingCall, scheme: AuthSchemeSpec): MaybePromise<Principal> {
    if (scheme.kind === "api_key") {
      const key = call.headers[this.schema.apiKeyHeader];
      if (!key) return ANONYMOUS;
      return Promise.resolve(this.options.verifyApiKey?.(key)).then((holder) => {
        if (!holder) throw new ServiceError("UNAUTHENTICATED", `the API key in header ${this.schema.apiKeyHeader} is not valid`);
        return { kind: "api_key", keyId: holder.keyId, roles: holder.roles ?? [] } as const;
      });
    }
    const authorization = call.headers["authorization"];
    // A token of another kind is no user token: each is checked only where its scheme asks for it.
    const kind = scheme.token;
    if (kind !== undefined && kind !== "access" && authorization?.toLowerCase().startsWith("bearer ")) {
      return this.tokenHolder(authorization.slice(7).trim(), kind).then((holder) => {
        if (!holder) throw new ServiceError("UNAUTHENTICATED", `the bearer token (kind ${kind}) is not valid`);
        return holder;
      });
    }
    if (authorization?.toLowerCase().startsWith("bearer ") && scheme.kind !== "none") {
      return this.tokenHolder(authorization.slice(7).trim(), "access").then((user) => {
        if (!user) throw new ServiceError("UNAUTHENTICATED", "the bearer token is not valid or has expired");
        return user;
      });
    }
    return ANONYMOUS;
  }

  /** Who holds a bearer token of a kind (access: a signed-in user), with the scopes it grants; null when the service's verifier refuses it. */
  private tokenHolder(token: string, kind: string): Promise<Principal | null> {
    if (kind === "access") {
      return Promise.resolve(this.options.verifyUserToken?.(token)).then((user) =>
        user ? { kind: "user", userId: user.userId, roles: user.roles, ...(user.scopes ? { scopes: user.scopes } : {}) } : null,
      );
    }
    return Promise.resolve(this.options.verifyToken?.(token, kind)).then((holder) =>
      holder ? { kind: "token", token: kind, holder: holder.holder, ...(holder.scopes ? { scopes: holder.scopes } : {}) } : null,
    );
  }

  /**
   * Who is calling an operation that takes several schemes or scopes: one principal for each
   * credential the call carries of those schemes (the secret or its session, the API key, the bearer
   * token), each checked. A credential that is present and wrong refuses the call, even when another
   * it carries would do: it is never passed over. Credentials of schemes the operation does not take
   * are not looked at. None: no principal (authorizeAny takes the caller as anonymous).
   */
  private principalsOf(call: IncomingCall, requirements: readonly SchemeRequirement[], address: string, cookies: Record<string, string>): MaybePromise<Principal[]> {
    const schemes = requirements.map((r) => r.scheme);
    const principals: Principal[] = [];
    const secretSchemes = schemes.filter((s) => s.kind === "secret");
    const secret = call.headers[this.schema.adminSecretHeader];
    const sessionId = secretSchemes.some((s) => s.session) ? cookies[this.schema.adminSessionCookie] : undefined;
    const bySecret = (): MaybePromise<void> => {
      if (secretSchemes.length === 0) return;
      if (secret !== undefined && secret !== "") {
        return andThen(this.guard.requireSecret(), () =>
          andThen(this.guard.verify(secret, address), (ok) => {
            if (!ok) throw new ServiceError("UNAUTHENTICATED", `wrong ${this.words.secret} in header ${this.schema.adminSecretHeader}`);
            principals.push(SECRET_HOLDER);
          }),
        );
      }
      if (sessionId) {
        const site = call.headers["sec-fetch-site"];
        if (site !== undefined && site !== "same-origin" && site !== "none") {
          throw new ServiceError("PERMISSION_DENIED", `the ${this.words.session} cookie is not accepted on a cross-site request; send the ${this.words.secret} header`);
        }
        // An unknown or expired session is no credential (as for one scheme): the call goes on without it.
        return andThen(this.sessions.get(sessionId), (session) => {
          if (session) principals.push(SECRET_HOLDER);
        });
      }
    };
    const byKey = (): MaybePromise<void> => {
      const key = call.headers[this.schema.apiKeyHeader];
      if (!schemes.some((s) => s.kind === "api_key") || !key) return;
      return Promise.resolve(this.options.verifyApiKey?.(key)).then((holder) => {
        if (!holder) throw new ServiceError("UNAUTHENTICATED", `the API key in header ${this.schema.apiKeyHeader} is not valid`);
        principals.push({ kind: "api_key", keyId: holder.keyId, roles: holder.roles ?? [] });
      });
    };
    const byToken = (): MaybePromise<void> => {
      const authorization = call.headers["authorization"];
      if (!authorization?.toLowerCase().startsWith("bearer ")) return;
      // The kinds of token the schemes take, in their order; a secret scheme's callers may be signed-in users (refused, or let in by a role).
      const kinds = [...new Set(schemes.flatMap((s) => (s.kind === "bearer" ? [s.token ?? "access"] : s.kind === "secret" ? ["access"] : [])))];
      if (kinds.length === 0) return;
      const token = authorization.slice(7).trim();
      // The first kind whose verifier knows the token; a token none knows is wrong.
      const tryKind = (index: number): Promise<void> =>
        this.tokenHolder(token, kinds[index]!).then((holder) => {
          if (holder) principals.push(holder);
          else if (index + 1 < kinds.length) return tryKind(index + 1);
          else throw new ServiceError("UNAUTHENTICATED", "the bearer token is not valid or has expired");
        });
      return tryKind(0);
    };
    return andThen(bySecret(), () => andThen(byKey(), () => andThen(byToken(), () => principals)));
  }

  /**
   * The auth check of a call whose input is not known yet: GraphQL coerces variables before any
   * resolver runs, and a caller without the secret must hear UNAUTHENTICATED there too, not a
   * complaint about the input. Role checks that need the input wait for invoke(). Only
   * protocols of the HTTP port (GraphQL, MCP) ask, so the HTTP port's trust applies.
   */
  async preauthorize(operation: OperationSpec, headers: Readonly<Record<string, string>>, remoteAddress: string): Promise<Principal> {
    const call = { protocol: "graphql" as const, listener: "http" as const, operation, input: undefined, headers, remoteAddress, setCookie: () => {}, markReplayed: () => {} };
    const address = this.clientAddress(remoteAddress, headers);
    if (this.rateLimiter) await this.rateLimiter.admit(operation, address);
    const { scheme, anyOf } = this.calls.get(operation.name)!;
    if (anyOf) {
      const principals = await this.principalsOf(call, anyOf, address, parseCookies(headers["cookie"], this.secureCookies));
      // A role check needs the input: a signed-in user a role would let in is checked again by invoke().
      return authorizeAny(anyOf, principals, operation.pascalName, this.credentials, async (principal) => principal.kind === "user");
    }
    const principal = await this.principalOf(call, scheme, address, parseCookies(headers["cookie"], this.secureCookies));
    if (scheme.orgRole && principal.kind === "user") return principal;
    await authorize(scheme, principal, operation.pascalName, this.credentials, async () => false);
    return principal;
  }

  /** The Set-Cookie value of a cookie an implementation sets, as this server serves it (serializeCookie). */
  cookie(name: string, value: string, options?: CookieOptions): string {
    return serializeCookie(name, value, options, this.secureCookies);
  }

  /** Runs one call; answers the flat output or rejects with a ServiceError (never anything else). */
  invoke(call: IncomingCall): Promise<Plain> {
    return new Promise((resolve, reject) => this.run(call, (error, output) => (error ? reject(error) : resolve(output!))));
  }

  /**
   * Runs one call and hands `settle` its flat output or its ServiceError, once. Each step that
   * answers at once is taken at once, with no promise between steps: a REST call authenticated by
   * the secret makes two promises, its implementation's and the one that waits for it (see
   * Pending for why that matters).
   */
  run(call: IncomingCall, settle: CallSettler): void {
    const started = this.options.logger || this.metrics ? performance.now() : 0;
    const { operation } = call;
    const span: CallSpan | undefined = this.tracing?.start(operation, call.protocol, call.headers);
    let done = false;
    // The span, the log and the metrics, then the caller: answered even when a logger throws.
    const conclude = (error: ServiceError | undefined, output: Plain | undefined) => {
      done = true;
      const outcome = error ? error.code : "OK";
      try {
        span?.end(outcome);
        this.finish(call.protocol, operation, outcome, started);
      } catch (fault) {
        this.warn(`recording the outcome of ${operation.name} failed: ${(fault as Error)?.message ?? fault}`);
      }
      settle(error, output);
    };
    const fail = (error: unknown) => {
      if (!done) conclude(this.serviceErrorOf(operation, error), undefined);
    };
    try {
      const cookies = parseCookies(call.headers["cookie"], this.secureCookies);
      const address = (call.listener === "grpc" ? this.grpcClientAddress : this.clientAddress)(call.remoteAddress, call.headers);
      const { scheme, anyOf, codec, handler } = this.calls.get(operation.name)!;
      // A web page of another origin never reaches the admin surface unless cors.adminOrigins lists it.
      if (operation.surface === "admin" && call.headers.origin !== undefined) {
        const refusal = crossOriginAdmin(call.headers, this.adminOrigins);
        if (refusal) {
          fail(refusal);
          return;
        }
      }
      // The implementation's answer, checked, to `done`; its failure to `failed`.
      const perform = (principal: Principal, raw: unknown, input: Plain | undefined, done: (output: Plain) => void, failed: (error: unknown) => void) => {
        const context = new PipelineCallContext(operation, call.protocol, principal, address, call.headers, cookies, call.setCookie, this.sessions, this.guard);
        const answered = span ? span.run(() => handler((input ??= codec.validate(raw)), context)) : handler((input ??= codec.validate(raw)), context);
        whenSettled(
          answered,
          (value) => {
            const output = codec.normalize(value);
            const missing = codec.missingField(output);
            if (missing) throw new InternalFault(`the implementation of ${operation.name} answered without required field ${missing}`);
            done(output);
          },
          failed,
        );
      };
      const answer = (principal: Principal, raw: unknown, input: Plain | undefined) => {
        const key = operation.idempotencyKey && this.idempotency ? idempotencyKeyOf(call.headers[IDEMPOTENCY_KEY_HEADER]) : undefined;
        if (key === undefined) return perform(principal, raw, input, (output) => conclude(undefined, output), fail);
        const { store, windowMs, leaseMs } = this.idempotency!;
        const checked = (input ??= codec.validate(raw));
        const request: IdempotencyRequest = { scope: idempotencyScope(principal, address), key, operation: operation.name, inputHash: inputHash(checked) };
        whenSettled(
          store.claim(request, this.now(), leaseMs, windowMs),
          (claim) => {
            if (claim.state === "replay") {
              call.markReplayed();
              return conclude(undefined, claim.answer);
            }
            const refusal = refusalOf(claim, operation);
            if (refusal) return fail(refusal);
            perform(
              principal,
              raw,
              checked,
              // The answer is kept before it is sent: a repeat after a lost answer finds it.
              (output) =>
                whenSettled(
                  store.complete(request, output, this.now(), windowMs),
                  () => conclude(undefined, output),
                  (error) => {
                    this.warn(`keeping the answer of ${operation.name} for its Idempotency-Key failed (a repeat after the lease runs it again): ${(error as Error)?.message ?? error}`);
                    conclude(undefined, output);
                  },
                ),
              // Nothing was written: the key is free for a repeat to run again.
              (error) =>
                whenSettled(
                  store.release(request),
                  () => fail(error),
                  () => fail(error),
                ),
            );
          },
          fail,
        );
      };
      const authorized = (principals: readonly Principal[]) => {
        // The body is read only once the caller is known: an unauthenticated caller learns nothing
        // about what it sent. The role check alone needs the input, to know what the call concerns.
        let raw = call.input;
        const readInput = call.readInput;
        let input: Plain | undefined = call.checked?.input;
        let read = false;
        // Only the check of a scheme with a role needs a function (authorize calls it for no other).
        const hasRole = async (caller: Principal) => {
          if (!(caller.kind === "user" && this.options.hasRole)) return false;
          if (readInput && !read) {
            raw = await readInput();
            read = true;
          }
          return this.options.hasRole(caller, operation, (input ??= codec.validate(raw)));
        };
        const proceed = (caller: Principal) => {
          if (readInput && !read) whenSettled(readInput(), (body) => answer(caller, body, input), fail);
          else answer(caller, raw, input);
        };
        if (anyOf) {
          whenSettled(authorizeAny(anyOf, principals, operation.pascalName, this.credentials, hasRole), proceed, fail);
          return;
        }
        const principal = principals[0] ?? ANONYMOUS;
        const roleCheck = !scheme.orgRole ? NO_ROLE_CHECK : () => hasRole(principal);
        const allowed = authorize(scheme, principal, operation.pascalName, this.credentials, roleCheck);
        if (allowed) whenSettled(allowed, () => proceed(principal), fail);
        else proceed(principal);
      };
      const identify = () =>
        call.checked
          ? authorized([call.checked.principal])
          : anyOf
            ? whenSettled(this.principalsOf(call, anyOf, address, cookies), authorized, fail)
            : whenSettled(this.principalOf(call, scheme, address, cookies), (principal) => authorized([principal]), fail);
      // GraphQL counted the call against the rate limit before executing (preauthorize).
      if (this.rateLimiter && !call.checked) whenSettled(this.rateLimiter.admit(operation, address), identify, fail);
      else identify();
    } catch (error) {
      fail(error);
    }
  }

  /** The ServiceError a failed call answers; faults, and codes its contract does not list, are told to onInternalError. */
  private serviceErrorOf(operation: OperationSpec, error: unknown): ServiceError {
    try {
      if (!(error instanceof ServiceError)) this.options.onInternalError?.(operation.name, error);
      else if (!ALWAYS_POSSIBLE.has(error.code) && !this.rules.errorCodes[operation.name]?.includes(error.code)) {
        // The contract must state every answer: tell the operator, who adds the code to the manifest's errors:.
        this.options.onInternalError?.(operation.name, new UndeclaredErrorCode(operation.name, error.code));
      }
    } catch (fault) {
      // A reporter that throws changes nothing of the answer.
      this.warn(`onInternalError failed on ${operation.name}: ${(fault as Error)?.message ?? fault}`);
    }
    const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", `${operation.name} failed; see the server log`);
    this.settled.add(serviceError);
    return serviceError;
  }
}
