// In-process calls of the reference implementation: a CallContext stub, input validated as the
// runtime would (defaults filled, bad input refused), a clock tests can move and counter ids.
import { expect } from "vitest";
import type { CallContext, Implementation } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { rules } from "../../generated/server/rules.js";
import { createReferenceService, type ReferenceService, type ReferenceServiceOptions } from "../../reference/service.js";
import { ServiceError, type ErrorCode } from "../../runtime/errors.js";
import type { OperationSpec, Protocol } from "../../runtime/schema.js";
import { SecretGuard, SessionStore } from "../../runtime/server/auth.js";
import { MemoryStore } from "../../runtime/server/store.js";
import type { CookieOptions, Principal } from "../../runtime/server/context.js";
import { validateInput } from "../../runtime/validate.js";
import { testStorage } from "../helpers/test-storage.js";
import { normalizeMessage } from "../../runtime/shape.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

export const ADMIN_SECRET = "test-admin-secret";
export const START_MS = Date.UTC(2030, 0, 1);

type Method = keyof Implementation;
export type InputOf<M extends Method> = Parameters<Implementation[M]>[0];
export type OutputOf<M extends Method> = Awaited<ReturnType<Implementation[M]>>;

/** A reply as it is on the wire: every field present, lists and maps never null. */
export type Wire<T> = T extends (infer Item)[]
  ? Wire<Item>[]
  : T extends object
    ? string extends keyof T
      ? T
      : { [K in keyof T]-?: NonNullable<T[K]> extends unknown[] | Record<string, string> ? Wire<NonNullable<T[K]>> : Wire<T[K]> }
    : T;

export interface CallOptions {
  /** Who calls; by default nobody for public operations (as the runtime sees them) and the admin otherwise. */
  principal?: Principal;
  /** Calls as the user of this access token, as the runtime would resolve it. */
  bearer?: string;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  protocol?: Protocol;
}

export interface SetCookie {
  name: string;
  value: string;
  options: CookieOptions | undefined;
}

export function operationOf(method: Method): OperationSpec {
  const operation = Object.values(schema.operations).find((o) => o.method === method);
  if (!operation) throw new Error(`no operation with method ${method}`);
  return operation;
}

export interface Harness {
  service: ReferenceService;
  implementation: Implementation;
  /** Milliseconds since the epoch, as the service sees them. */
  now(): number;
  advance(seconds: number): void;
  /** Cookies the last calls set, newest last. */
  cookiesSet: SetCookie[];
  adminSessions: SessionStore;
  context(method: Method, options?: CallOptions): Promise<CallContext>;
  /** Validates `input` like the runtime, calls the implementation, and answers as the runtime would put it on the wire. */
  call<M extends Method>(method: M, input: InputOf<M>, options?: CallOptions): Promise<Wire<OutputOf<M>>>;
  /** The same call, answering what the implementation returned, before the runtime drops undeclared fields. */
  callRaw<M extends Method>(method: M, input: InputOf<M>, options?: CallOptions): Promise<OutputOf<M>>;
}

export function createHarness(options: ReferenceServiceOptions = {}): Harness {
  let now = START_MS;
  let counter = 0;
  const service = createReferenceService({
    passwordHashCost: TEST_PASSWORD_HASH_COST,
    clock: () => now,
    ids: () => `id-${++counter}`,
    dnsResolver: async () => [],
    storage: testStorage(),
    ...options,
  });
  const store = new MemoryStore();
  const adminSessions = new SessionStore(schema.adminSessionCookie, store, () => now);
  const guard = new SecretGuard(ADMIN_SECRET, undefined, store, () => now);
  const cookiesSet: SetCookie[] = [];

  const harness: Harness = {
    service,
    implementation: service.implementation,
    now: () => now,
    advance(seconds) {
      now += seconds * 1000;
    },
    cookiesSet,
    adminSessions,
    async context(method, callOptions = {}) {
      const operation = operationOf(method);
      let principal: Principal = callOptions.principal ?? (operation.auth === "public" ? { kind: "anonymous" } : { kind: "secret" });
      const headers: Record<string, string> = { "user-agent": "vitest", ...callOptions.headers };
      if (callOptions.bearer !== undefined) {
        const user = await service.serverOptions.verifyUserToken(callOptions.bearer);
        if (!user) throw new ServiceError("UNAUTHENTICATED", "the bearer token is not valid or has expired");
        principal = { kind: "user", userId: user.userId, roles: user.roles };
        headers.authorization = `Bearer ${callOptions.bearer}`;
      }
      return {
        operation,
        protocol: callOptions.protocol ?? "rest",
        principal,
        remoteAddress: "127.0.0.1",
        headers,
        cookies: callOptions.cookies ?? {},
        setCookie: (name, value, cookieOptions) => cookiesSet.push({ name, value, options: cookieOptions }),
        sessions: adminSessions.forCall(guard, "127.0.0.1"),
      };
    },
    async call(method, input, callOptions) {
      const output = await harness.callRaw(method, input, callOptions);
      return normalizeMessage(schema, operationOf(method).output, output) as never;
    },
    async callRaw(method, input, callOptions) {
      const context = await harness.context(method, callOptions);
      const validated = validateInput(schema, rules, context.operation, input);
      const handler = service.implementation[method] as unknown as (input: unknown, context: CallContext) => Promise<never>;
      return handler.call(service.implementation, validated, context);
    },
  };
  return harness;
}

/** Awaits `promise` and checks it failed with a ServiceError of `code`; answers the error. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}, but the call succeeded`).toBeInstanceOf(ServiceError);
  expect((error as ServiceError).code, (error as ServiceError).message).toBe(code);
  return error as ServiceError;
}

/** Signs up a user with a password and answers the user id and tokens. */
export async function signUp(harness: Harness, email: string, password = "correct-horse-1") {
  const answer = await harness.call("signup", { email, password, confirm_password: password });
  return { userId: answer.user!.id, accessToken: answer.access_token!, refreshToken: answer.refresh_token!, idToken: answer.id_token ?? null, password };
}

/** The user's member record gets the org-admin role of the manifest. */
export async function makeOrgAdmin(harness: Harness, orgId: string, userId: string) {
  return harness.call("addOrgMember", { org_id: orgId, user_id: userId, roles: [schema.orgAdminRole] });
}
