// The one call pipeline behind every protocol: who is calling, may they, is the input valid, run
// the implementation, answer in the flat shape. Protocol adapters only translate to and from it.
import { ServiceError, type ErrorCode } from "../errors.js";
import type { ApiSchema, OperationSpec, Protocol } from "../schema.js";
import { missingRequiredField, normalizeMessage } from "../shape.js";
import { ADMIN_SESSION_COOKIE, AdminSecretGuard, AdminSessionStore, authorize, needsAdminCheck, DEFAULT_LOCKOUT, type LockoutPolicy } from "./auth.js";
import type { CallContext, CookieOptions, Principal } from "./context.js";
import { validateInput, type ValidationRules } from "../validate.js";

type Plain = Record<string, unknown>;

const SUPER_ADMIN: Principal = { kind: "super_admin" };
const ANONYMOUS: Principal = { kind: "anonymous" };
export type Handler = (input: Plain, context: CallContext) => Promise<unknown>;

export interface LogEntry {
  operation: string;
  protocol: Protocol;
  /** Error code, or "OK". */
  outcome: string;
  durationMs: number;
}

export interface ServerOptions {
  /** The admin secret every admin call must carry (the server's --admin-secret). */
  adminSecret: string;
  /** HTTP port for GraphQL and REST (default 8080; 0 picks a free one). */
  port?: number;
  /** gRPC port (default: the manifest's, 9091; 0 picks a free one). */
  grpcPort?: number;
  host?: string;
  lockout?: LockoutPolicy;
  /** Largest request body accepted, in bytes (default: the manifest's api.limits.request_bytes, which the contracts state). */
  bodyLimitBytes?: number;
  /** Resolves a bearer token to the signed-in user, or null when it is not valid. */
  verifyUserToken?: (token: string) => Promise<{ userId: string; roles: readonly string[] } | null>;
  /** Resolves the bearer token of a SCIM endpoint (auth level scim_token) to its organization, or null. */
  verifyScimToken?: (token: string) => Promise<{ orgId: string } | null>;
  /** Whether a signed-in user is an org-admin of the organization this call concerns. */
  isOrgAdmin?: (user: Extract<Principal, { kind: "user" }>, operation: OperationSpec, input: Plain) => Promise<boolean>;
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

export interface IncomingCall {
  protocol: Protocol;
  operation: OperationSpec;
  input: unknown;
  /** Reads the input (an HTTP body) once the caller is authenticated; `input` is ignored then. */
  readInput?: () => Promise<unknown>;
  /** What an adapter already established for this call (GraphQL checks before executing). */
  checked?: { principal: Principal; input?: Plain };
  headers: Readonly<Record<string, string>>;
  remoteAddress: string;
  setCookie(name: string, value: string, options?: CookieOptions): void;
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    const raw = part.slice(index + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // A malformed escape is the client's business: keep the value as sent.
    }
    cookies[part.slice(0, index).trim()] = value;
  }
  return cookies;
}

export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? "/"}`, "HttpOnly", "SameSite=Strict"];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join("; ");
}

export class CallPipeline {
  readonly guard: AdminSecretGuard;
  readonly adminSessions: AdminSessionStore;
  private readonly handlers = new Map<string, Handler>();

  constructor(
    readonly schema: ApiSchema,
    implementation: Record<string, unknown>,
    readonly options: ServerOptions,
    /** What the server checks of every input beyond its type (generated/server/rules.ts). */
    readonly rules: ValidationRules,
  ) {
    const now = options.now ?? Date.now;
    this.guard = new AdminSecretGuard(options.adminSecret, options.lockout ?? DEFAULT_LOCKOUT, now);
    this.adminSessions = new AdminSessionStore(now);
    const missing: OperationSpec[] = [];
    for (const operation of Object.values(schema.operations)) {
      const method = implementation[operation.method];
      if (typeof method === "function") {
        this.handlers.set(operation.name, method.bind(implementation) as Handler);
      } else {
        missing.push(operation);
        this.handlers.set(operation.name, () => Promise.reject(new ServiceError("UNIMPLEMENTED", `${operation.pascalName} is not implemented by this service`)));
      }
    }
    if (missing.length > 0) {
      const list = missing.map((op) => op.method).join(", ");
      if (!options.partial) {
        throw new ImplementationError(
          `the implementation lacks ${missing.length} of ${Object.keys(schema.operations).length} operations: ${list}. ` +
            "Implement them (npx apigen scaffold <file> adds typed stubs), or pass { partial: true } to answer them UNIMPLEMENTED.",
        );
      }
      const warn = options.onWarning ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
      warn(`${missing.length} of ${Object.keys(schema.operations).length} operations are not implemented and answer UNIMPLEMENTED: ${list}`);
    }
  }

  /** Who is calling. Synchronous unless a bearer token must be verified (no promise per admin call). */
  private principalOf(call: IncomingCall, cookies: Record<string, string>): Principal | Promise<Principal> {
    const level = call.operation.auth;
    if (needsAdminCheck(level)) {
      const secret = call.headers[this.schema.adminSecretHeader];
      if (secret !== undefined && secret !== "") {
        if (this.guard.verify(secret, call.remoteAddress)) return SUPER_ADMIN;
        throw new ServiceError("UNAUTHENTICATED", `wrong admin secret in header ${this.schema.adminSecretHeader}`);
      }
      if (cookies[ADMIN_SESSION_COOKIE] && this.adminSessions.get(cookies[ADMIN_SESSION_COOKIE])) return SUPER_ADMIN;
    }
    const authorization = call.headers["authorization"];
    // A SCIM endpoint's token is no user token: each is checked only where its level asks for it.
    if (level === "scim_token" && authorization?.toLowerCase().startsWith("bearer ")) {
      return Promise.resolve(this.options.verifyScimToken?.(authorization.slice(7).trim())).then((endpoint) => {
        if (!endpoint) throw new ServiceError("UNAUTHENTICATED", "the SCIM bearer token is not valid");
        return { kind: "scim", orgId: endpoint.orgId } as const;
      });
    }
    if (authorization?.toLowerCase().startsWith("bearer ") && level !== "public") {
      return Promise.resolve(this.options.verifyUserToken?.(authorization.slice(7).trim())).then((user) => {
        if (!user) throw new ServiceError("UNAUTHENTICATED", "the bearer token is not valid or has expired");
        return { kind: "user", userId: user.userId, roles: user.roles } as const;
      });
    }
    return ANONYMOUS;
  }

  /**
   * The auth check of a call whose input is not known yet: GraphQL coerces variables before any
   * resolver runs, and a caller without the secret must hear UNAUTHENTICATED there too, not a
   * complaint about the input. Org-admin checks that need the input wait for invoke().
   */
  async preauthorize(operation: OperationSpec, headers: Readonly<Record<string, string>>, remoteAddress: string): Promise<Principal> {
    const call = { protocol: "graphql" as const, operation, input: undefined, headers, remoteAddress, setCookie: () => {} };
    const principal = await this.principalOf(call, parseCookies(headers["cookie"]));
    if (operation.auth === "org_admin" && principal.kind === "user") return principal;
    await authorize(operation.auth, principal, operation.pascalName, this.schema.adminSecretHeader, async () => false);
    return principal;
  }

  /** Runs one call; answers the flat output or throws a ServiceError (never anything else). */
  async invoke(call: IncomingCall): Promise<Plain> {
    const started = this.options.logger ? performance.now() : 0;
    const { operation } = call;
    let outcome = "OK";
    try {
      const cookies = parseCookies(call.headers["cookie"]);
      const found = call.checked?.principal ?? this.principalOf(call, cookies);
      const principal = found instanceof Promise ? await found : found;
      // The body is read only once the caller is known: an unauthenticated caller learns nothing
      // about what it sent. The org-admin check alone needs the input, to know the organization.
      let raw = call.input;
      const readInput = call.readInput;
      const readRaw = readInput ? async () => void (raw = await readInput()) : undefined;
      let input: Plain | undefined = call.checked?.input;
      const validated = () => (input ??= validateInput(this.schema, this.rules, operation, raw));
      const allowed = authorize(operation.auth, principal, operation.pascalName, this.schema.adminSecretHeader, async () => {
        if (!(principal.kind === "user" && this.options.isOrgAdmin)) return false;
        await readRaw?.();
        return this.options.isOrgAdmin(principal, operation, validated());
      });
      if (allowed) await allowed;
      else if (readRaw) await readRaw();
      const sessions = this.adminSessions;
      const guard = this.guard;
      const context: CallContext = {
        operation,
        protocol: call.protocol,
        principal,
        remoteAddress: call.remoteAddress,
        headers: call.headers,
        cookies,
        setCookie: call.setCookie,
        // Built on first use: most operations never touch admin sessions.
        get adminSessions() {
          return sessions.forCall(guard, call.remoteAddress);
        },
      };
      const output = normalizeMessage(this.schema, operation.output, await this.handlers.get(operation.name)!(validated(), context));
      const missing = missingRequiredField(this.schema, operation.output, output);
      if (missing) throw new InternalFault(`the implementation of ${operation.name} answered without required field ${missing}`);
      return output;
    } catch (error) {
      if (!(error instanceof ServiceError)) this.options.onInternalError?.(operation.name, error);
      else if (!ALWAYS_POSSIBLE.has(error.code) && !this.rules.errorCodes[operation.name]?.includes(error.code)) {
        // The contract must state every answer: tell the operator, who adds the code to the manifest's errors:.
        this.options.onInternalError?.(operation.name, new UndeclaredErrorCode(operation.name, error.code));
      }
      const serviceError = error instanceof ServiceError ? error : new ServiceError("INTERNAL", `${operation.name} failed; see the server log`);
      outcome = serviceError.code;
      throw serviceError;
    } finally {
      this.options.logger?.({ operation: operation.name, protocol: call.protocol, outcome, durationMs: performance.now() - started });
    }
  }
}
