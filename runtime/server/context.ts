// What an implementation sees of a call, whatever protocol carried it.
import type { OperationSpec, Protocol } from "../schema.js";

/** The protocols a call arrives by: the manifest's three, and MCP tool calls (option mcp). */
export type CallProtocol = Protocol | "mcp";

/** Who is calling, as established by the runtime before the implementation runs. */
export type Principal =
  | { readonly kind: "anonymous" }
  /** Holder of the API's secret (or of a session opened with it): a secret scheme's caller. */
  | { readonly kind: "secret" }
  /** A signed-in user, from a bearer token the service issued; `scopes`: what the token grants, where verifyUserToken says. */
  | { readonly kind: "user"; readonly userId: string; readonly roles: readonly string[]; readonly scopes?: readonly string[] }
  /** The holder of a bearer token of a kind other than a user's access token (a bearer scheme's token), as the service's verifyToken names it, with the scopes it grants where it says. */
  | { readonly kind: "token"; readonly token: string; readonly holder: string; readonly scopes?: readonly string[] }
  /** The holder of an API key (auth api_key), as the service's verifyApiKey names it. */
  | { readonly kind: "api_key"; readonly keyId: string; readonly roles: readonly string[] };

export interface CookieOptions {
  maxAgeSeconds?: number;
  path?: string;
  /** Strict (the default); Lax for a cookie a cross-site top-level navigation must carry, such as a sign-in session. */
  sameSite?: "Strict" | "Lax";
}

export interface CallContext {
  readonly operation: OperationSpec;
  readonly protocol: CallProtocol;
  readonly principal: Principal;
  /** The caller's address: the TCP peer, or what trusted proxies say (option trustProxy; on the gRPC port grpcTrustProxy). */
  readonly remoteAddress: string;
  /** Request headers (gRPC: metadata), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  /** Sets an HttpOnly, SameSite=Strict cookie on the answer. */
  setCookie(name: string, value: string, options?: CookieOptions): void;
  /** The sessions that stand in for the API's secret (a secret scheme's session), opened and closed by the operations that manage them. */
  readonly sessions: Sessions;
}

export interface Session {
  readonly id: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * The sessions standing in for the secret, kept in the server's store (shared by replicas with the
 * Redis store). Each method fails with UNAVAILABLE while the store cannot be reached, and with
 * TOO_MANY_REQUESTS (verifySecret) while the caller's address is locked out.
 */
export interface Sessions {
  /** The name of the cookie that carries a session. */
  readonly cookieName: string;
  /** Compares a presented secret with the API's secret in constant time; failures count toward lockout. */
  verifySecret(candidate: string): Promise<boolean>;
  open(): Promise<Session>;
  get(id: string | undefined): Promise<Session | undefined>;
  close(id: string | undefined): Promise<void>;
}

type Nullable<T> = null extends T ? true : false;
type ReplyValue<T> = T extends (infer Item)[]
  ? ReplyValue<Item>[]
  : T extends object
    ? string extends keyof T
      ? T // free-form maps and JSON objects are taken as they are
      : Reply<T>
    : T;

/**
 * What an implementation returns for an answer of type T: fields that may be null may also be
 * left out (the runtime fills them with null, and lists and maps with empty ones).
 */
export type Reply<T> = {
  [K in keyof T as Nullable<T[K]> extends true ? never : T[K] extends unknown[] | Record<string, string> ? never : K]: ReplyValue<T[K]>;
} & {
  [K in keyof T as Nullable<T[K]> extends true ? K : T[K] extends unknown[] | Record<string, string> ? K : never]?: ReplyValue<T[K]> | null;
};
