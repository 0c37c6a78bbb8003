// `npm run serve`: flags and environment, startup lines, one log line per call, clean shutdown.
import { createServer, ExplorerSetupError, ImplementationError, ListenError, MissingPackageError, redisStore, TlsConfigError, type ServiceServer } from "../generated/server/index.js";
import { SecretError, MIN_SECRET_LENGTH, type LogEntry, type RateLimitOptions, type TrustProxy } from "../runtime/server/index.js";
import { normalizeOrigin } from "../runtime/server/cors.js";
import { passwordHashCostProblem, redactUrl, type PasswordHashCost } from "./secrets.js";
import { createReferenceService } from "./service.js";
import type { Storage } from "./storage.js";
import { DatabaseError, DEFAULT_DATABASE_URL, openStorage, parseDatabaseUrl } from "./store/open.js";

export interface ServeSettings {
  /** Without one, the first admin_signup call stores the admin secret (the bootstrap window). */
  adminSecret?: string;
  /** Where the service's data lives: SQLite (the default, a file) or PostgreSQL (shared by replicas). */
  databaseUrl: string;
  port: number;
  grpcPort: number;
  host: string;
  /** GraphiQL on /graphql, the REST reference on /docs, the contracts; on unless --no-explorer. */
  explorer: boolean;
  /** MCP on /mcp of the HTTP port (--mcp): every admin and user operation a tool. */
  mcp: boolean;
  /** Lockout counts and admin sessions in this Redis, shared with every replica on it; in memory without. */
  redisUrl?: string;
  redisKeyPrefix?: string;
  /** Proxies in front of the HTTP port trusted to name the caller in X-Forwarded-For / Forwarded. */
  trustProxy?: TrustProxy;
  /** The same for the gRPC port (none by default: there the metadata is the caller's own). */
  grpcTrustProxy?: TrustProxy;
  /** Per address and operation class; on (30/s, burst 20) unless --no-rate-limit. */
  rateLimit: RateLimitOptions | false;
  /** Prometheus metrics: on the HTTP port's /metrics (--metrics) or on a port of their own (--metrics-port). */
  metrics: false | { port?: number };
  /** How long SIGTERM lets calls in flight finish. */
  shutdownGraceMs: number;
  /** Connections one client address may hold open on the HTTP port (0: no cap of its own; the stubs' default 1 000 when unset). */
  maxConnectionsPerAddress?: number;
  /** Webhooks, test_endpoint and key fetches may reach loopback and private addresses (development only). */
  allowPrivateOutbound?: boolean;
  /** scrypt cost of password hashes (default OWASP's N=2^14, r=8, p=5). */
  passwordHashCost?: PasswordHashCost;
  /** Browsers' cross-origin calls: the pages allowed on the user surface and token routes, and on the admin surface. */
  cors?: { origins: string[]; adminOrigins: string[] };
  /** TLS on every port: the certificate and key files (read again when they change, or on SIGHUP), and the clients' CA for mutual TLS. */
  tls?: { cert: string; key: string; clientCa?: string };
}

export class UsageError extends Error {}

export const USAGE = `usage: npm run serve -- [--admin-secret <secret>] [--database-url sqlite:./data/identity.sqlite | postgres://user:password@host/db]
       [--port 8080] [--grpc-port 9091] [--host 127.0.0.1] [--no-explorer] [--redis-url redis://host:6379] [--redis-key-prefix stubs:] [--trust-proxy <hops>|<cidr,...>]
       [--grpc-trust-proxy <hops>|<cidr,...>] [--forwarded-header x-forwarded-for|forwarded]
       [--allow-private-outbound] [--rate-limit 30/20 | --no-rate-limit] [--rate-limit-store-down open|closed] [--metrics] [--metrics-port <port>] [--shutdown-grace-ms 10000] [--mcp]
       [--max-connections-per-address 1000] [--cors-origin <origin,...>] [--cors-admin-origin <origin,...>]
       [--tls-cert <file> --tls-key <file> [--tls-client-ca <file>]] [--password-hash-cost <N>,<r>,<p>]
environment: SERVICE_ADMIN_SECRET, DATABASE_URL, PORT, GRPC_PORT, HOST, REDIS_URL, REDIS_KEY_PREFIX, TRUST_PROXY, GRPC_TRUST_PROXY, FORWARDED_HEADER,
             RATE_LIMIT (or "off"), RATE_LIMIT_STORE_DOWN, METRICS_PORT, SHUTDOWN_GRACE_MS, TLS_CERT, TLS_KEY, TLS_CLIENT_CA, PASSWORD_HASH_COST, MAX_CONNECTIONS_PER_ADDRESS,
             CORS_ORIGINS, CORS_ADMIN_ORIGINS (flags win)`;

const FLAGS = {
  "--admin-secret": "adminSecret",
  "--database-url": "databaseUrl",
  "--port": "port",
  "--grpc-port": "grpcPort",
  "--host": "host",
  "--redis-url": "redisUrl",
  "--redis-key-prefix": "redisKeyPrefix",
  "--trust-proxy": "trustProxy",
  "--grpc-trust-proxy": "grpcTrustProxy",
  "--forwarded-header": "forwardedHeader",
  "--rate-limit": "rateLimit",
  "--rate-limit-store-down": "rateLimitStoreDown",
  "--metrics-port": "metricsPort",
  "--shutdown-grace-ms": "shutdownGraceMs",
  "--tls-cert": "tlsCert",
  "--tls-key": "tlsKey",
  "--tls-client-ca": "tlsClientCa",
  "--password-hash-cost": "passwordHashCost",
  "--max-connections-per-address": "maxConnectionsPerAddress",
  "--cors-origin": "corsOrigins",
  "--cors-admin-origin": "corsAdminOrigins",
} as const;

/** `https://app.example.com,https://staff.example.com`: origins, each scheme://host[:port]. */
function parseOrigins(text: string | undefined, what: string): string[] {
  if (text === undefined) return [];
  const origins = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const origin of origins) {
    if (normalizeOrigin(origin) === undefined) throw new UsageError(`${what}: '${origin}' is not an origin; give scheme://host[:port], such as https://app.example.com`);
  }
  return origins;
}

/** `16384,8,5`: scrypt's N, r and p. */
function parsePasswordHashCost(text: string | undefined, what: string): PasswordHashCost | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+),(\d+),(\d+)$/.exec(text);
  if (!match) throw new UsageError(`${what} must be scrypt's <N>,<r>,<p> (such as 16384,8,5)`);
  const cost = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const problem = passwordHashCostProblem(cost);
  if (problem) throw new UsageError(`${what}: ${problem}`);
  return cost;
}

/** `30/20`: calls a second / burst, for every operation class; `off` turns the limit off. */
function parseRateLimit(text: string, storeDown: string | undefined, what: string): RateLimitOptions | false {
  if (text === "off") return false;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match || Number(match[1]) < 1) throw new UsageError(`${what} must be <calls a second>/<burst> (such as 30/20) or off`);
  if (storeDown !== undefined && storeDown !== "open" && storeDown !== "closed") throw new UsageError("--rate-limit-store-down must be open or closed");
  const rule = { perSecond: Number(match[1]), burst: Number(match[2]) };
  return { read: rule, write: rule, token: rule, ...(storeDown ? { whenStoreDown: storeDown as "open" | "closed" } : {}) };
}
type FlagName = keyof typeof FLAGS;

type ForwardedHeader = "x-forwarded-for" | "forwarded";

/**
 * `2` (hops) or `10.0.0.0/8,loopback` (addresses, ranges and the names loopback, linklocal,
 * uniquelocal), read by the header of --forwarded-header.
 */
function parseTrustProxy(text: string | undefined, header: ForwardedHeader | undefined, what: string): TrustProxy | undefined {
  if (text === undefined) return undefined;
  const trust = /^\d+$/.test(text)
    ? Number(text)
    : text
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "");
  if (Array.isArray(trust) && trust.length === 0) throw new UsageError(`${what} needs a hop count or a list of addresses`);
  return header ? { trust, header } : trust;
}

/** The TLS files: a certificate and its key together, or neither; a client CA only with them. */
function parseTls(cert: string | undefined, key: string | undefined, clientCa: string | undefined): ServeSettings["tls"] {
  if (cert === undefined && key === undefined) {
    if (clientCa !== undefined) throw new UsageError("--tls-client-ca (TLS_CLIENT_CA) needs --tls-cert and --tls-key");
    return undefined;
  }
  if (cert === undefined || key === undefined) throw new UsageError("--tls-cert (TLS_CERT) and --tls-key (TLS_KEY) go together");
  return { cert, key, ...(clientCa !== undefined ? { clientCa } : {}) };
}

function parseMilliseconds(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${what} must be a whole number of milliseconds`);
  return Number(text);
}

function parsePort(text: string, what: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`${what} must be a port number from 0 to 65535`);
  return port;
}

/** Settings from flags (`--flag value` or `--flag=value`), falling back to the environment. */
export function parseServeArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServeSettings {
  const given: Partial<Record<(typeof FLAGS)[FlagName], string>> = {};
  let explorer = true;
  let rateLimitOff = false;
  let metricsOnHttpPort = false;
  let allowPrivateOutbound = false;
  let mcp = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--allow-private-outbound") {
      allowPrivateOutbound = true;
      continue;
    }
    if (arg === "--mcp") {
      mcp = true;
      continue;
    }
    if (arg === "--no-explorer" || arg === "--no-rate-limit" || arg === "--metrics") {
      if (arg === "--no-explorer") explorer = false;
      if (arg === "--no-rate-limit") rateLimitOff = true;
      if (arg === "--metrics") metricsOnHttpPort = true;
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (!(flag in FLAGS)) throw new UsageError(`unknown argument ${flag}`);
    const value = inline ?? argv[++index];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    given[FLAGS[flag as FlagName]] = value;
  }
  const adminSecret = given.adminSecret ?? env.SERVICE_ADMIN_SECRET ?? "";
  // The stubs refuse a shorter one too (SecretError); said here first, with the flag's name.
  if (adminSecret !== "" && [...adminSecret].length < MIN_SECRET_LENGTH) {
    throw new UsageError(
      `${given.adminSecret ? "--admin-secret" : "SERVICE_ADMIN_SECRET"} must be at least ${MIN_SECRET_LENGTH} characters: it is all that stands between the network and every admin operation`,
    );
  }
  const redisUrl = given.redisUrl ?? env.REDIS_URL;
  const metricsPortText = given.metricsPort ?? env.METRICS_PORT;
  const metricsPort = metricsPortText === undefined ? undefined : parsePort(metricsPortText, given.metricsPort ? "--metrics-port" : "METRICS_PORT");
  if (redisUrl !== undefined && !/^rediss?:\/\/./.test(redisUrl)) throw new UsageError(`${given.redisUrl ? "--redis-url" : "REDIS_URL"} must be a redis:// or rediss:// URL`);
  // One header for both listeners: the proxies in front of either port write the same one.
  const forwardedHeader = given.forwardedHeader ?? env.FORWARDED_HEADER;
  if (forwardedHeader !== undefined && forwardedHeader !== "x-forwarded-for" && forwardedHeader !== "forwarded") throw new UsageError("--forwarded-header must be x-forwarded-for or forwarded");
  if (forwardedHeader !== undefined && (given.trustProxy ?? env.TRUST_PROXY) === undefined && (given.grpcTrustProxy ?? env.GRPC_TRUST_PROXY) === undefined) {
    throw new UsageError("--forwarded-header needs --trust-proxy or --grpc-trust-proxy");
  }
  const databaseUrl = given.databaseUrl ?? env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  try {
    parseDatabaseUrl(databaseUrl);
  } catch (error) {
    if (error instanceof DatabaseError) throw new UsageError(given.databaseUrl || !env.DATABASE_URL ? error.message : error.message.replace("--database-url", "DATABASE_URL"));
    throw error;
  }
  const passwordHashCost = parsePasswordHashCost(given.passwordHashCost ?? env.PASSWORD_HASH_COST, given.passwordHashCost ? "--password-hash-cost" : "PASSWORD_HASH_COST");
  const perAddressText = given.maxConnectionsPerAddress ?? env.MAX_CONNECTIONS_PER_ADDRESS;
  if (perAddressText !== undefined && !/^\d{1,9}$/.test(perAddressText)) {
    throw new UsageError(`${given.maxConnectionsPerAddress ? "--max-connections-per-address" : "MAX_CONNECTIONS_PER_ADDRESS"} must be a whole number of connections (0: no cap of its own)`);
  }
  const corsOrigins = parseOrigins(given.corsOrigins ?? env.CORS_ORIGINS, given.corsOrigins ? "--cors-origin" : "CORS_ORIGINS");
  const corsAdminOrigins = parseOrigins(given.corsAdminOrigins ?? env.CORS_ADMIN_ORIGINS, given.corsAdminOrigins ? "--cors-admin-origin" : "CORS_ADMIN_ORIGINS");
  return {
    ...(adminSecret === "" ? {} : { adminSecret }),
    ...(corsOrigins.length + corsAdminOrigins.length > 0 ? { cors: { origins: corsOrigins, adminOrigins: corsAdminOrigins } } : {}),
    ...(passwordHashCost ? { passwordHashCost } : {}),
    ...(perAddressText !== undefined ? { maxConnectionsPerAddress: Number(perAddressText) } : {}),
    databaseUrl,
    port: parsePort(given.port ?? env.PORT ?? "8080", given.port ? "--port" : "PORT"),
    grpcPort: parsePort(given.grpcPort ?? env.GRPC_PORT ?? "9091", given.grpcPort ? "--grpc-port" : "GRPC_PORT"),
    host: given.host ?? env.HOST ?? "127.0.0.1",
    explorer,
    mcp,
    redisUrl: given.redisUrl ?? env.REDIS_URL,
    redisKeyPrefix: given.redisKeyPrefix ?? env.REDIS_KEY_PREFIX,
    trustProxy: parseTrustProxy(given.trustProxy ?? env.TRUST_PROXY, forwardedHeader, given.trustProxy ? "--trust-proxy" : "TRUST_PROXY"),
    grpcTrustProxy: parseTrustProxy(given.grpcTrustProxy ?? env.GRPC_TRUST_PROXY, forwardedHeader, given.grpcTrustProxy ? "--grpc-trust-proxy" : "GRPC_TRUST_PROXY"),
    rateLimit: rateLimitOff
      ? false
      : parseRateLimit(given.rateLimit ?? env.RATE_LIMIT ?? "30/20", given.rateLimitStoreDown ?? env.RATE_LIMIT_STORE_DOWN, given.rateLimit ? "--rate-limit" : "RATE_LIMIT"),
    metrics: metricsPort !== undefined ? { port: metricsPort } : metricsOnHttpPort ? {} : false,
    ...(allowPrivateOutbound ? { allowPrivateOutbound } : {}),
    tls: parseTls(given.tlsCert ?? env.TLS_CERT, given.tlsKey ?? env.TLS_KEY, given.tlsClientCa ?? env.TLS_CLIENT_CA),
    shutdownGraceMs: parseMilliseconds(given.shutdownGraceMs ?? env.SHUTDOWN_GRACE_MS ?? "10000", given.shutdownGraceMs ? "--shutdown-grace-ms" : "SHUTDOWN_GRACE_MS"),
  };
}

/**
 * An unexpected failure: its kind and where it happened, without its message, which could quote
 * an input.
 */
export function formatInternalError(operation: string, error: unknown, at = new Date()): string {
  const name = error instanceof Error ? error.name : typeof error;
  const frames = error instanceof Error ? (error.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at ")) : [];
  return [`${at.toISOString()} ${operation} internal error: ${name}`, ...frames.slice(0, 8)].join("\n");
}

/** One line per call: time, operation, protocol, outcome, duration. Never inputs, answers or secrets. */
export function formatLogEntry(entry: LogEntry, at = new Date()): string {
  return `${at.toISOString()} ${entry.operation} ${entry.protocol} ${entry.outcome} ${entry.durationMs.toFixed(1)}ms`;
}

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: Output = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };

/** Starts the service; answers the running server, or the exit code when it could not start. */
export async function serve(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  output: Output = consoleOutput,
): Promise<(ServiceServer & { shutdownGraceMs: number }) | number> {
  let settings: ServeSettings;
  try {
    settings = parseServeArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`error: ${error.message}`);
    output.err(USAGE);
    return 2;
  }
  let storage: Storage;
  let data: string;
  try {
    const opened = await openStorage(settings.databaseUrl);
    storage = opened.storage;
    data = `${opened.description}${opened.migrated.length > 0 ? ` (migrated: ${opened.migrated.join(", ")})` : ""}`;
    for (const note of opened.notes) output.out(`note: ${note}`);
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    output.err(`error: ${error.message}`);
    return 1;
  }
  const bootstrap = settings.adminSecret === undefined;
  const service = createReferenceService({
    storage,
    bootstrapAdmin: bootstrap,
    allowPrivateOutbound: settings.allowPrivateOutbound ?? false,
    issuer: `${settings.tls ? "https" : "http"}://${settings.host}:${settings.port}`,
    grpcPort: settings.grpcPort,
    ...(settings.passwordHashCost ? { passwordHashCost: settings.passwordHashCost } : {}),
    onInternalError: (operation, error) => output.err(formatInternalError(operation, error)),
  });
  let server: ServiceServer;
  try {
    server = createServer(service.implementation, {
      adminSecret: settings.adminSecret ?? service.adminBootstrap,
      port: settings.port,
      grpcPort: settings.grpcPort,
      host: settings.host,
      explorer: settings.explorer,
      mcp: settings.mcp,
      logger: (entry) => output.out(formatLogEntry(entry)),
      onWarning: (message) => output.err(`warning: ${message}`),
      ...(settings.redisUrl ? { store: redisStore({ url: settings.redisUrl, ...(settings.redisKeyPrefix ? { keyPrefix: settings.redisKeyPrefix } : {}) }) } : {}),
      ...(settings.trustProxy !== undefined ? { trustProxy: settings.trustProxy } : {}),
      ...(settings.cors ? { cors: settings.cors } : {}),
      ...(settings.grpcTrustProxy !== undefined ? { grpcTrustProxy: settings.grpcTrustProxy } : {}),
      rateLimit: settings.rateLimit,
      metrics: settings.metrics,
      ...(settings.tls ? { tls: settings.tls } : {}),
      ...(settings.maxConnectionsPerAddress !== undefined ? { maxConnectionsPerAddress: settings.maxConnectionsPerAddress } : {}),
      dependencies: [storage],
      ...service.serverOptions,
    });
  } catch (error) {
    await storage.close();
    // A bad admin secret, implementation or certificate says all in its message: no stack trace.
    if (error instanceof ImplementationError || error instanceof TlsConfigError || error instanceof SecretError) {
      output.err(`error: ${error.message}`);
      return 1;
    }
    if (!(error instanceof ExplorerSetupError)) throw error;
    output.err(`error: ${error.message}`);
    output.err("or start without the explorer: --no-explorer");
    return 1;
  }
  let addresses;
  try {
    addresses = await server.listen();
  } catch (error) {
    if (error instanceof MissingPackageError) {
      output.err(`error: ${error.message}`);
      await server.close().catch(() => undefined);
      await storage.close();
      return 1;
    }
    if (!(error instanceof ListenError)) throw error;
    const flag = { http: "--port (PORT)", grpc: "--grpc-port (GRPC_PORT)", metrics: "--metrics-port (METRICS_PORT)" }[error.listener];
    output.err(`error: ${error.message}; choose another with ${flag}${error.code === "EADDRINUSE" ? ", or stop the program listening there" : ""}`);
    await server.close().catch(() => undefined);
    await storage.close();
    return 1;
  }
  service.setAddresses({ issuer: addresses.httpUrl, grpcPort: Number(addresses.grpcEndpoint.slice(addresses.grpcEndpoint.lastIndexOf(":") + 1)) });
  output.out(`identity reference service ${service.state.config.version}`);
  output.out(`  GraphQL  POST ${addresses.httpUrl}/graphql`);
  output.out(`  REST     ${addresses.httpUrl}/v1/...  (admin: ${addresses.httpUrl}/v1/admin/...)`);
  output.out(`  tokens   POST ${addresses.httpUrl}/oauth/token  POST ${addresses.httpUrl}/oauth/revoke`);
  output.out(`  gRPC     ${addresses.grpcEndpoint}  (${settings.tls ? "TLS, " : "plaintext, "}with reflection and grpc.health.v1)`);
  output.out(`  SCIM     ${addresses.httpUrl}/scim/v2  (Bearer: an organization's SCIM endpoint token)`);
  if (settings.mcp) output.out(`  MCP      POST ${addresses.httpUrl}/mcp  (Streamable HTTP; the admin secret header or a bearer token on each request)`);
  output.out(`  Connect, gRPC-Web  ${addresses.httpUrl}/<package>.<Service>/<Method>`);
  if (addresses.metricsUrl) output.out(`  metrics  GET ${addresses.metricsUrl}  (Prometheus)`);
  output.out(`  health   GET ${addresses.httpUrl}/healthz  GET ${addresses.httpUrl}/readyz`);
  output.out(`  data     ${data}`);
  if (settings.tls) {
    output.out(
      `  TLS      ${settings.tls.cert} on every port${settings.tls.clientCa ? `; clients need a certificate of ${settings.tls.clientCa}` : ""} (reloaded when the files change, or on SIGHUP)`,
    );
  }
  output.out(`  state    ${settings.redisUrl ? `Redis ${redactUrl(settings.redisUrl)} (shared with every replica on it)` : "in memory (this process only; --redis-url shares it)"}`);
  if (settings.explorer) {
    output.out(`explorer, in a browser (--no-explorer turns it off):`);
    output.out(`  GraphiQL   ${addresses.httpUrl}/graphql`);
    output.out(`  REST docs  ${addresses.httpUrl}/docs`);
    output.out(`  contracts  ${addresses.httpUrl}/openapi.yaml  ${addresses.httpUrl}/schema.graphql`);
  }
  const limit = settings.rateLimit && settings.rateLimit.read;
  output.out(`  limits   ${limit ? `${limit.perSecond} calls/s, burst ${limit.burst}, per address and operation class (--no-rate-limit turns them off)` : "none (--no-rate-limit)"}`);
  if (settings.allowPrivateOutbound) output.err("warning: --allow-private-outbound: webhooks, test_endpoint and key fetches may reach loopback and private addresses (development only)");
  if (bootstrap && !(await storage.adminSecrets.get("admin"))) {
    output.err("warning: no --admin-secret and no admin yet: whoever first calls admin_signup (GraphQL) becomes admin; until then every admin call is refused.");
    output.err("warning: in production pass --admin-secret (or SERVICE_ADMIN_SECRET), or call admin_signup before the port is reachable by others.");
  }
  output.out(`admin calls carry the admin secret in header x-service-admin-secret; Ctrl-C or SIGTERM stops (calls in flight get ${settings.shutdownGraceMs} ms)`);
  // Closing the server closes the database after the last call in flight.
  const closeServer = server.close.bind(server);
  return Object.assign(server, {
    shutdownGraceMs: settings.shutdownGraceMs,
    close: async (...args: Parameters<ServiceServer["close"]>) => {
      try {
        await closeServer(...args);
      } finally {
        await storage.close().catch(() => undefined);
      }
    },
  });
}

export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const started = await serve(argv, env);
  if (typeof started === "number") {
    process.exitCode = started;
    return;
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: closing; calls in flight get ${started.shutdownGraceMs} ms to finish\n`);
    started.close({ graceMs: started.shutdownGraceMs }).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // SIGHUP reads the TLS files again (a renewed certificate); a pair that does not fit keeps the one in use.
  process.on("SIGHUP", () => {
    try {
      started.reloadTls();
      process.stdout.write("SIGHUP: TLS certificate reloaded\n");
    } catch (error) {
      process.stderr.write(`SIGHUP: ${(error as Error).message}; still serving the previous certificate\n`);
    }
  });
}
