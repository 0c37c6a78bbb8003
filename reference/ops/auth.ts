// Admin: login, logout and session with the admin secret, server metadata, and the GraphQL-only
// extras: admin_signup (bootstraps the first admin of a service started without --admin-secret),
// update_env (refuses: configuration is by CLI flags), generate_jwt_keys.
import { generateKeyPair } from "node:crypto";
import { ServiceError } from "../../generated/server/index.js";
import type { JWTKeyType, WireProtocol } from "../../generated/types.js";
import { nowSeconds, refused } from "../core.js";
import { hashPassword } from "../secrets.js";
import type { Deps, Operations } from "../deps.js";

const PROTOCOLS: WireProtocol[] = ["graphql", "rest", "grpc"];

type PemPair = { publicKey: string; privateKey: string };
const pemEncoding = { publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } } as const;
const done = (resolve: (pair: PemPair) => void, reject: (error: Error) => void) => (error: Error | null, publicKey: string, privateKey: string) =>
  error ? reject(error) : resolve({ publicKey, privateKey });

function newPemKeyPair(type: JWTKeyType): Promise<PemPair> {
  return new Promise((resolve, reject) => {
    if (type.startsWith("RS")) generateKeyPair("rsa", { modulusLength: 2048, ...pemEncoding }, done(resolve, reject));
    else generateKeyPair("ec", { namedCurve: { ES256: "P-256", ES384: "P-384", ES512: "P-521" }[type as "ES256"], ...pemEncoding }, done(resolve, reject));
  });
}

export function authOperations({ core }: Deps): Operations<"adminLogin" | "adminLogout" | "adminSession" | "adminMeta" | "adminSignup" | "updateEnv" | "generateJWTKeys"> {
  return {
    async adminLogin(input, context) {
      const sessions = context.sessions;
      if (!(await sessions.verifySecret(input.admin_secret))) throw new ServiceError("UNAUTHENTICATED", "wrong admin secret");
      const session = await sessions.open();
      context.setCookie(sessions.cookieName, session.id, { maxAgeSeconds: session.expiresAt - session.createdAt });
      return { message: "admin session opened", created_at: session.createdAt, expires_at: session.expiresAt };
    },

    async adminLogout(_input, context) {
      const sessions = context.sessions;
      await sessions.close(context.cookies[sessions.cookieName]);
      context.setCookie(sessions.cookieName, "", { maxAgeSeconds: 0 });
      return { message: "admin session closed" };
    },

    async adminSession(_input, context) {
      const session = await context.sessions.get(context.cookies[context.sessions.cookieName]);
      if (session) return { message: "admin session", created_at: session.createdAt, expires_at: session.expiresAt };
      // The runtime let the call through, so the caller sent the admin secret header: no session to show.
      const now = nowSeconds(core);
      return { message: "authenticated by the admin secret header; no admin session is open", created_at: now, expires_at: now };
    },

    async adminMeta() {
      const { config } = core;
      return { version: config.version, client_id: config.clientId, enabled_protocols: PROTOCOLS, grpc_port: config.grpcPort, ...config.features };
    },

    async adminSignup(input, context) {
      if (!core.config.adminBootstrap) throw refused("the admin secret is set with --admin-secret when the server starts; use admin_login");
      const taken = () => refused("an admin is configured already; use admin_login");
      if (await core.storage.adminSecrets.get("admin")) throw taken();
      // The database decides a race: of two calls at once, one inserts and the other is refused.
      await core.storage.adminSecrets
        .insert({ id: "admin", secret_hash: await hashPassword(input.admin_secret, core.config.passwordHashCost), created_at: nowSeconds(core) })
        .catch((error: unknown) => {
          throw error instanceof ServiceError && error.code === "ALREADY_EXISTS" ? taken() : error;
        });
      const sessions = context.sessions;
      const session = await sessions.open();
      context.setCookie(sessions.cookieName, session.id, { maxAgeSeconds: session.expiresAt - session.createdAt });
      return { message: "admin created; admin session opened", created_at: session.createdAt, expires_at: session.expiresAt };
    },

    async updateEnv() {
      throw refused("configuration is by CLI flags; update_env is deprecated and always fails");
    },

    async generateJWTKeys(input) {
      if (input.type.startsWith("HS")) {
        const bytes = { HS256: 32, HS384: 48, HS512: 64 }[input.type as "HS256"];
        return { secret: core.random(bytes).toString("base64url"), public_key: null, private_key: null };
      }
      const pair = await newPemKeyPair(input.type);
      return { secret: null, public_key: pair.publicKey, private_key: pair.privateKey };
    },
  };
}
