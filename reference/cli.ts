// `npm run serve`: flags and environment, startup lines, one log line per call, clean shutdown.
import { createServer, ExplorerSetupError, ImplementationError, type ServiceServer } from "../generated/server/index.js";
import type { LogEntry } from "../runtime/server/index.js";
import { createReferenceService } from "./service.js";

export interface ServeSettings {
  adminSecret: string;
  port: number;
  grpcPort: number;
  host: string;
  /** GraphiQL on /graphql, the REST reference on /docs, the contracts; on unless --no-explorer. */
  explorer: boolean;
}

export class UsageError extends Error {}

export const USAGE = `usage: npm run serve -- --admin-secret <secret> [--port 8080] [--grpc-port 9091] [--host 127.0.0.1] [--no-explorer]
environment: SERVICE_ADMIN_SECRET, PORT, GRPC_PORT, HOST (flags win)`;

const FLAGS = { "--admin-secret": "adminSecret", "--port": "port", "--grpc-port": "grpcPort", "--host": "host" } as const;
type FlagName = keyof typeof FLAGS;

function parsePort(text: string, what: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`${what} must be a port number from 0 to 65535`);
  return port;
}

/** Settings from flags (`--flag value` or `--flag=value`), falling back to the environment. */
export function parseServeArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServeSettings {
  const given: Partial<Record<(typeof FLAGS)[FlagName], string>> = {};
  let explorer = true;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--no-explorer") {
      explorer = false;
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (!(flag in FLAGS)) throw new UsageError(`unknown argument ${flag}`);
    const value = inline ?? argv[++index];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    given[FLAGS[flag as FlagName]] = value;
  }
  const adminSecret = given.adminSecret ?? env.SERVICE_ADMIN_SECRET ?? "";
  if (adminSecret === "") throw new UsageError("an admin secret is required: pass --admin-secret <secret> or set SERVICE_ADMIN_SECRET");
  return {
    adminSecret,
    port: parsePort(given.port ?? env.PORT ?? "8080", given.port ? "--port" : "PORT"),
    grpcPort: parsePort(given.grpcPort ?? env.GRPC_PORT ?? "9091", given.grpcPort ? "--grpc-port" : "GRPC_PORT"),
    host: given.host ?? env.HOST ?? "127.0.0.1",
    explorer,
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
export async function serve(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, output: Output = consoleOutput): Promise<ServiceServer | number> {
  let settings: ServeSettings;
  try {
    settings = parseServeArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`error: ${error.message}`);
    output.err(USAGE);
    return 2;
  }
  const service = createReferenceService({
    issuer: `http://${settings.host}:${settings.port}`,
    grpcPort: settings.grpcPort,
    onInternalError: (operation, error) => output.err(formatInternalError(operation, error)),
  });
  let server: ServiceServer;
  try {
    server = createServer(service.implementation, {
      adminSecret: settings.adminSecret,
      port: settings.port,
      grpcPort: settings.grpcPort,
      host: settings.host,
      explorer: settings.explorer,
      logger: (entry) => output.out(formatLogEntry(entry)),
      ...service.serverOptions,
    });
  } catch (error) {
    if (error instanceof ImplementationError) {
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
    const { code, message } = error as NodeJS.ErrnoException;
    output.err(`error: could not listen on ${settings.host}: ${code ?? message}`);
    await server.close().catch(() => undefined);
    return 1;
  }
  service.setAddresses({ issuer: addresses.httpUrl, grpcPort: Number(addresses.grpcEndpoint.slice(addresses.grpcEndpoint.lastIndexOf(":") + 1)) });
  output.out(`identity reference service ${service.state.config.version}`);
  output.out(`  GraphQL  POST ${addresses.httpUrl}/graphql`);
  output.out(`  REST     ${addresses.httpUrl}/v1/...  (admin: ${addresses.httpUrl}/v1/admin/...)`);
  output.out(`  tokens   POST ${addresses.httpUrl}/oauth/token  POST ${addresses.httpUrl}/oauth/revoke`);
  output.out(`  gRPC     ${addresses.grpcEndpoint}  (gRPC, gRPC-Web and Connect)`);
  if (settings.explorer) {
    output.out(`explorer, in a browser (--no-explorer turns it off):`);
    output.out(`  GraphiQL   ${addresses.httpUrl}/graphql`);
    output.out(`  REST docs  ${addresses.httpUrl}/docs`);
    output.out(`  contracts  ${addresses.httpUrl}/openapi.yaml  ${addresses.httpUrl}/schema.graphql`);
  }
  output.out(`admin calls carry the admin secret in header x-service-admin-secret; Ctrl-C stops`);
  return server;
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
    process.stdout.write(`${signal}: closing\n`);
    started.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
