// What every generated client method goes through: refusals before any byte is sent (protocol,
// server version, read-only mode), headers, deadlines, retries of reads, and pagination.
import type { DescService } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { holdsText, type CanonicalText } from "../flat.js";
import { expandPart, PROTOCOLS, protocolsOf, type ClientSchema, type ClientServiceFacts, type OperationPart, type OperationSpec, type Protocol } from "../schema.js";
import { IDEMPOTENCY_KEY_FORM, IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../idempotency.js";
import { ApiError, FAULT_CODES, type RawResponse } from "./errors.js";
export type { RawResponse } from "./errors.js";
import { createRestTransport } from "./rest.js";
import { PLATFORM } from "#client-platform";
import { connectionRefused, plaintextRefusal, type TlsClientOptions } from "./tls.js";
import { fetchFailure, type Plain, type Transport, type TransportSettings } from "./transport.js";
import type { ServerVersion, VersionQuestion } from "./server-version.js";
import type { ClientHooks, Logger, ResponseEvent } from "./observe.js";
export type { ClientHooks, Logger, RequestEvent, ResponseEvent } from "./observe.js";

/** The largest answer a client reads (32 MiB), on every protocol, unless `maxResponseBytes` says otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** The deadline of a call when neither the call nor the client names one. */
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface RetryPolicy {
  /** Attempts in all, the first included (default 3). */
  attempts?: number;
  /** Delay before the second attempt; doubles each time (default 100 ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface ClientConfig {
  /** Base URL of the service, such as http://localhost:8080 (a trailing slash is ignored); default: the environment's <API>_SERVICE_URL. */
  serviceUrl?: string;
  /** graphql (default), rest or grpc. Token routes always use rest. */
  protocol?: Protocol;
  /** gRPC target host:port; default: the host of serviceUrl with the service's gRPC port. Node only: elsewhere RPCs go as Connect to serviceUrl. */
  grpcEndpoint?: string;
  /** Headers sent on every request, over every protocol. */
  extraHeaders?: Record<string, string>;
  /** The server's version, if known; otherwise the client asks the server once when it matters. */
  serverVersion?: string;
  /** Refuse destructive operations before anything is sent. */
  readOnly?: boolean;
  /** Default deadline of each call, retries included (default DEFAULT_TIMEOUT_MS, 60 s; 0: none). */
  timeoutMs?: number;
  /** Retries of reads on transient failures, honouring Retry-After up to 60 s; writes are never retried. `false` turns them off. */
  retry?: RetryPolicy | false;
  /**
   * The fetch used for GraphQL and REST (default: the client's own pool of keep-alive connections,
   * at most 64 per host, closed by close(); a fetch given here is the caller's to close).
   */
  fetch?: typeof fetch;
  /**
   * A private CA, a client certificate (mutual TLS) or the server's name, for an https:// service:
   * REST and GraphQL use them (on Node, through the package undici), and gRPC too unless grpcTls says otherwise;
   * elsewhere the platform's fetch decides what it trusts, and these options are refused.
   */
  tls?: TlsClientOptions;
  /**
   * gRPC over TLS. Default: when serviceUrl is https://, with the CA and certificate of `tls` (or
   * the system's roots); plaintext when it is http://. `true` or options turn it on, `false` off.
   */
  grpcTls?: boolean | TlsClientOptions;
  /**
   * Let calls go in clear (http://, gRPC without TLS) to a host that is not loopback. Off by
   * default: such a call is refused before anything is sent, since it would carry a secret, a key,
   * a token or a password.
   */
  allowInsecure?: boolean;
  /** The largest answer read, in bytes, on every protocol (default DEFAULT_MAX_RESPONSE_BYTES, 32 MiB): a larger one is PAYLOAD_TOO_LARGE. */
  maxResponseBytes?: number;
  /** Called around every attempt of every call, on every protocol: to add headers, to watch. */
  hooks?: ClientHooks;
  /**
   * Where a line per attempt goes (operation, protocol, attempt, status, duration, retry; headers
   * with every credential redacted): `debug` for each attempt, `warn` for failures. Default: the
   * console when the environment's <API>_LOG is `debug` (every attempt) or `info` (failures).
   */
  logger?: Logger;
  /** Connect interceptors of gRPC calls (@connectrpc/connect's Interceptor), in order. */
  grpcInterceptors?: readonly Interceptor[];
}

/**
 * A random UUID (version 4) for an Idempotency-Key. crypto.randomUUID exists only in secure
 * contexts: a page served over plain http (a development server) has getRandomValues alone.
 */
function randomKey(): string {
  const { crypto } = globalThis;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => (byte | 256).toString(16).slice(1)).join("");
  return hex.replace(/(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
}

/** The deprecated operations a warning was given for, once per process. */
const warnedDeprecated = new WeakSet<OperationSpec>();

/**
 * An operation's module (generated/client/operations/), as the generated method that calls it
 * names it: \`() => import("./operations/adminMeta.js")\`. Its part holds that one operation, with
 * the messages and enums it reaches. A bundle makes each a chunk of its own, loaded on the first
 * call: an app loads the schema of the operations it calls, not all of them. A client tells its
 * operations apart by the loader's text (String(load)): two loaders of a client, two texts.
 */
export type OperationModule = () => Promise<{ part: OperationPart }>;

/** An operation as a call uses it: its spec, and the schema of the messages and enums it reaches. */
interface LoadedOperation {
  readonly operation: OperationSpec;
  readonly schema: ClientSchema;
  /** How its text kinds are read, where its messages hold one (loaded with the operation). */
  readonly canonical: CanonicalText | undefined;
}

/** Each operation module expanded once per process, whichever client loads it. */
const expandedParts = new WeakMap<OperationPart, Promise<LoadedOperation>>();

/** `part` with the service's facts, and wire-values' grammar of text kinds where its messages hold one (a module loaded then alone). */
function expand(service: ClientServiceFacts, part: OperationPart): Promise<LoadedOperation> {
  let expanded = expandedParts.get(part);
  if (!expanded) {
    const schema: ClientSchema = { ...service, ...expandPart(part) };
    // A module holds one operation: the one its method calls.
    const operation = Object.values(schema.operations)[0]!;
    expanded = holdsText(schema)
      ? import("../wire-values.js").then(({ canonicalText }) => ({ operation, schema, canonical: canonicalText }))
      : Promise.resolve({ operation, schema, canonical: undefined });
    expandedParts.set(part, expanded);
    // A grammar that failed to load (a page offline) is asked again by the next load.
    expanded.catch(() => expandedParts.delete(part));
  }
  return expanded;
}

/** The promise of a call's answer, and of the answer with its response. */
export interface ApiPromise<T> extends Promise<T> {
  withResponse(): Promise<{ data: T; response: RawResponse }>;
}

/**
 * A module of the SDK a call loads on a need (the telling of attempts, pagination, the
 * server-version refusal). One that does not load (a page gone offline) fails the call as
 * UNAVAILABLE with nothing sent, and `forget` lets the next call ask for it again.
 */
function onNeed<T>(module: Promise<T>, operation: string, protocol: Protocol, forget: () => void): Promise<T> {
  return module.catch((error: unknown) => {
    forget();
    throw new ApiError(FAULT_CODES.noAnswer, `${operation}: a module of the SDK did not load`, operation, protocol, { cause: error });
  });
}

type OpenTelemetryApi = typeof import("@opentelemetry/api");
let openTelemetryApi: Promise<OpenTelemetryApi | undefined> | OpenTelemetryApi | undefined | null = null;
/** The OpenTelemetry API when the package is installed (an optional dependency), loaded once; undefined otherwise. */
function openTelemetry(): OpenTelemetryApi | undefined | Promise<OpenTelemetryApi | undefined> {
  if (openTelemetryApi === null) {
    openTelemetryApi = import("@opentelemetry/api").then(
      (api) => (openTelemetryApi = api),
      () => (openTelemetryApi = undefined),
    );
  }
  return openTelemetryApi;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Headers of this call only. */
  headers?: Record<string, string>;
  /**
   * The Idempotency-Key of a write that takes one (1-255 printable ASCII characters, no space);
   * by default one made for the call. The same key on every attempt: the service answers a repeat
   * with the first answer, so a retried write is applied once.
   */
  idempotencyKey?: string;
  /** Retries of this call on transient failures, instead of the client's policy (0: one attempt). */
  maxRetries?: number;
  /**
   * Input fields this SDK does not know yet (a newer server's), sent beside the typed input over
   * REST and GraphQL; refused over gRPC, whose messages cannot carry them.
   */
  extraBody?: Record<string, unknown>;
}

/** The header naming the calling SDK's language, version and runtime, the same in every SDK: "typescript/2.6.0 node/24.11.0". */
export const SDK_HEADER = "x-api-client";

/** The runtime this code runs on, as the SDK header names it. */
function runtimeName(): string {
  const scope = globalThis as { Deno?: { version?: { deno?: string } }; Bun?: { version?: string }; process?: { versions?: { node?: string } }; navigator?: { userAgent?: string } };
  if (scope.Deno?.version?.deno) return `deno/${scope.Deno.version.deno}`;
  if (scope.Bun?.version) return `bun/${scope.Bun.version}`;
  if (scope.process?.versions?.node) return `node/${scope.process.versions.node}`;
  return scope.navigator?.userAgent ? "browser" : "unknown";
}

/** User-Agent (where the runtime lets a script set it: not in a browser) and the SDK header. */
function sdkHeaders(sdk: ClientDefinition["sdk"]): Record<string, string> {
  const runtime = runtimeName();
  return { ...(runtime === "browser" ? {} : { "user-agent": `${sdk.name}/${sdk.version}` }), [SDK_HEADER]: `typescript/${sdk.version} ${runtime}` };
}

/** The environment variable of a setting: IDENTITY_SERVICE_URL for the API named identity. */
export function environmentName(schema: Pick<ClientServiceFacts, "envPrefix">, setting: string): string {
  return `${schema.envPrefix}_${setting}`;
}

/** A setting from the environment, where there is one (Node, Deno, Bun; not a browser), else undefined. */
export function fromEnvironment(schema: Pick<ClientServiceFacts, "envPrefix">, setting: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[environmentName(schema, setting)];
    return value === "" ? undefined : value;
  } catch {
    // Deno without --allow-env throws: as if unset.
    return undefined;
  }
}

/** What is wrong with a call's options, refused before anything is sent; undefined when nothing is. */
function callOptionProblem(options: CallOptions): string | undefined {
  if (options.idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(options.idempotencyKey)) {
    return `idempotencyKey must be ${IDEMPOTENCY_KEY_FORM}, not ${JSON.stringify(options.idempotencyKey)}`;
  }
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) {
    return `maxRetries must be a whole number of retries, 0 or more, not ${options.maxRetries}`;
  }
  return undefined;
}

export interface ClientDefinition {
  /** What the client knows of the service as a whole. */
  service: ClientServiceFacts;
  /** Per protocol, the lowest minimum version of any operation of the API: a call above it needs the server's version first. */
  lowestSince: Readonly<Partial<Record<Protocol, string>>>;
  /** The module of the operation whose answer carries the server `version`. */
  versionOperation: OperationModule | null;
  /** The one an admin client holding a role holder's access token asks instead (the admin's own needs the secret); null: the same. */
  tokenVersionOperation?: OperationModule | null;
  /** The package and version of this SDK, as its User-Agent and SDK header name it. */
  sdk: { name: string; version: string };
  /** Loads the protobuf-es service descriptors; called only for protocol grpc. */
  loadGrpcServices: () => Promise<readonly DescService[]>;
}

export class ClientCore {
  readonly protocol: Protocol;
  private readonly settings: TransportSettings;
  private readonly transports = new Map<Protocol, Promise<Transport>>();
  /** Transports already created, to skip a promise per call. */
  private readonly ready = new Map<Protocol, Transport>();
  /** The server's version, once an operation newer than the API's oldest is called. */
  private serverVersion: Promise<ServerVersion> | undefined;
  /**
   * The operations loaded, by their module's loader as text: a generated method's \`() =>
   * import("./operations/adminMeta.js")\`, one text per module of the package, bundled or not. A
   * call of a loaded operation waits for no import(), which Node resolves anew each time (7 µs).
   */
  private readonly loaded = new Map<string, LoadedOperation>();
  /** Per protocol, why a call may not be sent (plaintext to another host), or nothing. */
  private readonly inClear: Record<Protocol, string | undefined>;
  private readonly closeFetch: (() => Promise<void>) | undefined;
  /** Who calls: User-Agent and the SDK header (SDK_HEADER), on every request of every protocol. */
  private readonly sdkHeaders: Record<string, string>;
  private readonly hooks: ClientHooks;
  private readonly logger: Logger | undefined;
  /** Log lines: every attempt (debug), or failures alone (info). */
  private readonly logAttempts: boolean;
  /** What tells of attempts, once loaded (a client given a hook or a logger). */
  private observers: Promise<typeof import("./observe.js")> | undefined;
  private closed = false;

  constructor(
    private readonly definition: ClientDefinition,
    private readonly config: ClientConfig,
    private readonly surfaceHeaders: () => Record<string, string>,
  ) {
    const protocol = config.protocol ?? "graphql";
    if (!PROTOCOLS.includes(protocol)) throw new TypeError(`protocol must be one of ${PROTOCOLS.join(", ")}, not '${protocol}'`);
    this.protocol = protocol;
    this.sdkHeaders = sdkHeaders(definition.sdk);
    this.hooks = config.hooks ?? {};
    const level = fromEnvironment(definition.service, "LOG")?.toLowerCase();
    this.logger = config.logger ?? (level === "debug" || level === "info" ? console : undefined);
    this.logAttempts = config.logger !== undefined || level === "debug";
    const givenUrl = config.serviceUrl ?? fromEnvironment(definition.service, "SERVICE_URL");
    if (!givenUrl) throw new TypeError(`serviceUrl is required, or the environment variable ${environmentName(definition.service, "SERVICE_URL")}`);
    const serviceUrl = givenUrl.replace(/\/+$/, "");
    const url = new URL(serviceUrl);
    const overHttp = plaintextRefusal({ secure: url.protocol === "https:", host: url.hostname, shown: url.origin }, "use an https:// serviceUrl", config.allowInsecure);
    const rpc = PLATFORM.rpcTarget(config, definition.service.grpcPort, url, overHttp);
    const ownFetch = config.fetch ? undefined : PLATFORM.ownFetch(config.tls);
    this.closeFetch = ownFetch?.close;
    this.settings = {
      service: definition.service,
      serviceUrl,
      grpcEndpoint: rpc.grpcEndpoint,
      grpcEndpointIsDefault: rpc.grpcEndpointIsDefault,
      fetch: config.fetch ?? ownFetch!.fetch,
      grpcTls: rpc.grpcTls,
      maxResponseBytes: config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      grpcInterceptors: config.grpcInterceptors ?? [],
      warn: (message) => this.logger?.warn(message),
    };
    this.inClear = { graphql: overHttp, rest: overHttp, grpc: rpc.inClear };
  }

  get grpcEndpoint(): string {
    return this.settings.grpcEndpoint;
  }

  /**
   * The operation of module \`load\` with its schema: loaded by the first call, expanded once, then
   * kept in \`loaded\` for every later call and iteration. One that does not load (a page offline) fails the call as UNAVAILABLE with
   * nothing sent, and the next call asks for it again. A deprecated operation warns once per
   * process. (A client calls the operations of its surfaces alone: its class has a method for each
   * of them, and for no other.)
   */
  private async operation(load: OperationModule): Promise<LoadedOperation> {
    const known = this.loaded.get(String(load));
    if (known) return known;
    let loaded: LoadedOperation;
    try {
      loaded = await expand(this.definition.service, (await load()).part);
    } catch (error) {
      throw new ApiError(FAULT_CODES.noAnswer, "a module of the SDK did not load", "", this.protocol, { cause: error });
    }
    const { operation } = loaded;
    if (operation.deprecated !== null && !warnedDeprecated.has(operation)) {
      // Once per process, to the client's logger or the console: a deprecation is worth one line, not one per call.
      warnedDeprecated.add(operation);
      (this.logger ?? console).warn(`${operation.pascalName} is deprecated: ${operation.deprecated}`);
    }
    this.loaded.set(String(load), loaded);
    return loaded;
  }

  private transport(protocol: Protocol): Promise<Transport> {
    let transport = this.transports.get(protocol);
    if (!transport) {
      transport =
        protocol === "graphql"
          ? // Loaded on the first GraphQL call: an app of REST alone never loads the document builder.
            import("./graphql.js").then((graphql) => graphql.createGraphqlTransport(this.settings))
          : protocol === "rest"
            ? Promise.resolve(createRestTransport(this.settings))
            : Promise.all([PLATFORM.loadRpc(), this.definition.loadGrpcServices()]).then(([rpc, services]) => rpc.createGrpcTransport(this.settings, services));
      this.transports.set(protocol, transport);
      transport.then(
        (created) => this.ready.set(protocol, created),
        () => this.transports.delete(protocol),
      );
    }
    return transport;
  }

  /**
   * The question of the server's version: its version operation, asked directly over this client's
   * protocol (not through call(), whose refusals could ask again), or the refusal of asking it.
   */
  private readonly askVersion: VersionQuestion = (caller, protocol, signal) => {
    const load = this.definition.versionOperation;
    if (!load) return new ApiError("FAILED_PRECONDITION", "this client cannot learn the server version; set serverVersion", caller.name, protocol, { refused: true });
    // A role holder's admin client asks another client's open read (tokenVersionOperation).
    return load()
      .then(({ part }) => expand(this.definition.service, part))
      .catch((error: unknown) => {
        throw new ApiError(FAULT_CODES.noAnswer, `${caller.name}: a module of the SDK did not load`, caller.name, protocol, { cause: error });
      })
      .then(({ operation, schema, canonical }) => {
        const over = operation[this.protocol] ? this.protocol : protocolsOf(operation)[0]!;
        const inClear = this.inClear[over];
        if (inClear) throw new ApiError("FAILED_PRECONDITION", inClear, caller.name, over, { refused: true });
        const headers = { ...this.sdkHeaders, ...this.config.extraHeaders, ...this.surfaceHeaders() };
        return this.transport(over).then((transport) => transport.call({ operation, schema, canonical, input: {}, headers, signal }));
      })
      .then((answer) => String(answer.version));
  };

  /** A reason to refuse the call before sending anything; a promise only for an operation newer than the API's oldest on `protocol`. */
  private refusal(operation: OperationSpec, protocol: Protocol, signal: AbortSignal | undefined): ApiError | undefined | Promise<ApiError | undefined> {
    const refuse = (message: string) => new ApiError("FAILED_PRECONDITION", message, operation.name, protocol, { refused: true });
    if (this.closed) return refuse(`${operation.name}: the client is closed; make a new one`);
    const binding = operation[protocol];
    const inClear = this.inClear[protocol];
    if (inClear) return refuse(inClear);
    if (!binding) {
      return refuse(`${operation.pascalName} not available over ${protocol}; use ${protocolsOf(operation).join(" or ")}`);
    }
    if (this.config.readOnly && operation.destructive) {
      return refuse(`${operation.pascalName} is destructive and this client is read-only`);
    }
    const lowest = this.definition.lowestSince[protocol];
    if (binding.since === lowest || lowest === undefined) return undefined;
    // Newer than the API's oldest: the server's version decides, in a module loaded on that need alone.
    this.serverVersion ??= onNeed(
      import("./server-version.js").then(({ ServerVersion }) => new ServerVersion(this.askVersion, this.config.serverVersion)),
      operation.name,
      protocol,
      () => (this.serverVersion = undefined),
    );
    return this.serverVersion.then((versions) => versions.refusal(operation, protocol, lowest, signal));
  }

  /**
   * One call of `name`: refusals first, then the transport, with retries. The promise of its
   * answer; `.withResponse()` gives the answer with what came with it (status, headers, attempts).
   */
  call(load: OperationModule, input: object | undefined, options: CallOptions = {}): ApiPromise<Plain> {
    const response: RawResponse = { status: undefined, headers: new Headers(), protocol: this.protocol, attempts: 0 };
    const full = this.run(load, input, options, response).then(
      (data) => ({ data, response }),
      (error: unknown) => {
        if (error instanceof ApiError && response.attempts > 0) Object.defineProperty(error, "response", { value: response, enumerable: false });
        throw error;
      },
    );
    // Awaited by whoever asks withResponse(); the answer alone otherwise.
    full.catch(() => {});
    const data = full.then((answer) => answer.data) as ApiPromise<Plain>;
    data.withResponse = () => {
      data.catch(() => {});
      return full;
    };
    return data;
  }

  private async run(load: OperationModule, input: object | undefined, options: CallOptions, response: RawResponse): Promise<Plain> {
    const { operation, schema, canonical } = await this.operation(load);
    // Token routes are REST whatever the protocol (spec §1, rule 2).
    const protocol: Protocol = operation.surface === "oauth" ? "rest" : this.protocol;
    // The call's deadline covers everything it waits for: the server's version, every attempt, every backoff.
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signals = [options.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
    const wrongOption = callOptionProblem(options);
    if (wrongOption) throw new ApiError("INVALID_ARGUMENT", `${operation.name}: ${wrongOption}`, operation.name, protocol, { refused: true });
    const pending = this.refusal(operation, protocol, signal);
    const refused = pending instanceof Promise ? await pending : pending;
    if (refused) throw refused;
    const transport = this.ready.get(protocol) ?? (await this.transport(protocol));
    const headers: Record<string, string> = { ...this.sdkHeaders, ...this.config.extraHeaders, ...this.surfaceHeaders(), ...options.headers };
    // One key for every attempt of this call: the service applies the write once and answers a
    // repeat with the first answer, so the write is retried like a read.
    if (operation.idempotencyKey) {
      // The call's key is the one key on the wire, whatever the spelling of a header given with it.
      for (const name of Object.keys(headers)) if (name.toLowerCase() === IDEMPOTENCY_KEY_HEADER) delete headers[name];
      headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey ?? randomKey();
    }
    const retried = operation.kind === "read" || operation.idempotent || operation.idempotencyKey;
    response.protocol = protocol;
    const onResponse = (status: number | undefined, received: Headers) => {
      response.status = status;
      response.headers = received;
    };
    const { hooks } = this;
    // A client given a hook or a logger loads what tells of attempts before its first call's first.
    const observers = hooks.onResponse || this.logger ? (this.observers ??= onNeed(import("./observe.js"), operation.name, protocol, () => (this.observers = undefined))) : undefined;
    const told = observers && (await observers);
    // Undefined without a hook or a logger: tell?.(...) then builds no event and reads no clock.
    const tell = told && ((event: ResponseEvent) => told.observe({ service: this.definition.service, hooks, logger: this.logger, logAttempts: this.logAttempts }, event, headers));
    // W3C trace context of the caller's active span, where the OpenTelemetry API is installed.
    const tracing = await openTelemetry();
    if (tracing) tracing.propagation.inject(tracing.context.active(), headers);
    for (let attempt = 1; ; attempt++) {
      response.attempts = attempt;
      const started = told ? performance.now() : 0;
      try {
        if (hooks.onRequest) await hooks.onRequest({ operation: operation.name, protocol, attempt, headers });
        const answer = await transport.call({
          operation,
          schema,
          canonical,
          input: (options.extraBody ? { ...input, ...options.extraBody } : (input ?? {})) as Plain,
          extraBody: options.extraBody,
          headers,
          signal,
          onResponse,
        });
        tell?.({ operation: operation.name, protocol, attempt, status: response.status, headers: response.headers, durationMs: performance.now() - started, willRetry: false });
        return answer;
      } catch (error) {
        // close() while the call was in flight: the caller ended it, as an abort does.
        if (this.closed) throw new ApiError(FAULT_CODES.cancelled, `${operation.name} was cancelled`, operation.name, protocol, { cause: error });
        if (!(error instanceof ApiError)) throw error;
        // A refused connection sent nothing: any call may go again.
        const again = (retried && error.transient) || (error.code === FAULT_CODES.noAnswer && connectionRefused(error.cause));
        // The backoff is a module of its own, loaded on the first failure that may go again; one that does not load ends the call with its failure.
        const retry = again && !signal?.aborted ? await import("./retry.js").catch(() => undefined) : undefined;
        const policy = this.config.retry === false ? { attempts: 1 } : (this.config.retry ?? {});
        const allowed = options.maxRetries !== undefined ? options.maxRetries + 1 : Math.max(1, policy.attempts ?? retry?.RETRY_DEFAULTS.attempts ?? 1);
        const willRetry = retry !== undefined && attempt < allowed && !signal?.aborted;
        tell?.({ operation: operation.name, protocol, attempt, status: error.status ?? response.status, headers: response.headers, durationMs: performance.now() - started, willRetry, error });
        if (!willRetry) throw error;
        await retry.sleep(retry.backoffMs(policy, attempt, error.retryAfterSeconds), signal);
        // Aborted while waiting: the caller hears it as from the transport, in the one error class.
        if (signal?.aborted) throw fetchFailure(signal.reason, { operation, signal }, protocol);
      }
    }
  }

  /** Every item of a paginated list, page after page, each exactly once. */
  async *iterate(load: OperationModule, input: object | undefined, options: CallOptions = {}): AsyncGenerator<unknown> {
    const { operation } = await this.operation(load);
    const { items } = await onNeed(import("./pages.js"), operation.name, this.protocol, () => {});
    yield* items(operation, input, (page) => this.call(load, page, options));
  }

  /** Ends every connection; calls in flight end CANCELLED, and later calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const transports = await Promise.allSettled(this.transports.values());
    this.transports.clear();
    this.ready.clear();
    await Promise.all([...transports.map((t) => (t.status === "fulfilled" ? t.value.close() : undefined)), this.closeFetch?.()]);
  }
}
