// The JWTs the service signs, and the one check every token goes through. A valid signature is
// not enough: the check also consults the store, so a revoked token, an ended session, a revoked
// user or a deleted or deactivated client stops a token at once.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { decodeProtectedHeader, jwtVerify, SignJWT, type JSONWebKeySet, type JWK, type JWTPayload } from "jose";
import { ServiceError } from "../generated/server/index.js";
import type { SigningKeyRecord } from "./storage.js";
import { nowSeconds, type Core } from "./core.js";

export type SigningAlgorithm = "ES256" | "RS256";

export interface SigningKeyOption {
  /** PKCS#8 PEM or a node:crypto private key (EC P-256 for ES256, RSA for RS256). */
  privateKey: KeyObject | string;
  alg: SigningAlgorithm;
  kid?: string;
}

/** The claims of every token the service signs. */
export interface ServiceClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp: number;
  token_type: "access_token" | "id_token";
  /** The user session the token belongs to; the token dies with it. */
  sid?: string;
  /** The registered client the token was issued to; the token dies with it. */
  client_id?: string;
  roles?: string[];
  /** Space-separated, as in OAuth. */
  scope?: string;
}

export type ClaimsToSign = Omit<ServiceClaims, "iss" | "iat" | "exp" | "jti"> & { [claim: string]: unknown };

export interface SignedToken {
  token: string;
  jti: string;
  expiresIn: number;
  claims: ServiceClaims;
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  alg: SigningAlgorithm;
  kid: string;
  publicJwk: JWK;
}

/** RFC 7638 thumbprint: SHA-256 of the required members in lexical order. */
function thumbprint(jwk: JWK): string {
  const members = jwk.kty === "EC" ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return createHash("sha256").update(JSON.stringify(members)).digest("base64url");
}

/** The given key, or a new EC P-256 key when none is given. */
export function loadSigningKey(option: SigningKeyOption | undefined): SigningKey {
  const alg = option?.alg ?? "ES256";
  const privateKey = option ? (typeof option.privateKey === "string" ? createPrivateKey(option.privateKey) : option.privateKey) : generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  const expectedType = alg === "ES256" ? "ec" : "rsa";
  if (privateKey.asymmetricKeyType !== expectedType) throw new Error(`signing key: ${alg} needs an ${expectedType.toUpperCase()} private key`);
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: "jwk" }) as JWK;
  const kid = option?.kid ?? thumbprint(jwk);
  return { privateKey, publicKey, alg, kid, publicJwk: { ...jwk, kid, alg, use: "sig" } };
}

/** A new key pair of `alg`'s kind: EC P-256 for ES256, RSA-2048 for RS256. */
function newSigningKey(alg: SigningAlgorithm): SigningKey {
  const privateKey = alg === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey : generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  return loadSigningKey({ privateKey, alg });
}

/**
 * The keys of the moment: `current` signs; `next` is published ahead, so that relying parties that
 * cache the key set know it before a rotation promotes it; `retired` keys stay published (and
 * honoured) until the tokens they signed have expired.
 */
export interface KeyRing {
  current: SigningKey;
  next: SigningKey | undefined;
  retired: { key: SigningKey; retiredAt: number }[];
}

/** Where the keys come from: given to the service (memory), or kept in its database. */
export interface KeySource {
  /** The ring; `fresh`: read again rather than from a cache (a kid nobody knows may be another replica's rotation). */
  ring(fresh?: boolean): Promise<KeyRing>;
  rotate(replacement?: SigningKey): Promise<void>;
}

/** Keys given to the service: `retired` ones rotated out before this start are published one token lifetime from now. */
export function keysInMemory(core: Core, current: SigningKey, retired: readonly SigningKey[] = [], next?: SigningKey): KeySource {
  const now = nowSeconds(core);
  const ring: KeyRing = { current, next, retired: retired.map((key) => ({ key, retiredAt: now })) };
  return {
    async ring() {
      return ring;
    },
    async rotate(replacement) {
      ring.retired.unshift({ key: ring.current, retiredAt: nowSeconds(core) });
      ring.current = replacement ?? ring.next ?? newSigningKey(ring.current.alg);
      ring.next = newSigningKey(ring.current.alg);
    },
  };
}

/** How long a replica reuses the ring it read: another replica's rotation shows within this. */
const RING_CACHE_MS = 5_000;

/**
 * Keys kept in the service's database (PKCS#8 PEM, as the SAML IdP's keys are): made at the first
 * start (ES256, and the next key), the same after a restart and on every replica, rotated for all
 * of them at once. A unique index lets one current key exist; replicas that start together make
 * it once.
 */
export function keysInDatabase(core: Core): KeySource {
  const { storage } = core;
  let cached: { ring: KeyRing; until: number } | undefined;
  const toKey = (record: SigningKeyRecord) => loadSigningKey({ privateKey: record.private_key_pem, alg: record.alg, kid: record.kid });
  const record = (key: SigningKey, status: SigningKeyRecord["status"], retiredAt: number | null = null): SigningKeyRecord => ({
    kid: key.kid,
    alg: key.alg,
    private_key_pem: key.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    status,
    retired_at: retiredAt,
    created_at: nowSeconds(core),
  });

  async function read(): Promise<KeyRing> {
    let records = await storage.signingKeys.list({});
    if (!records.some((r) => r.status === "current")) {
      try {
        await storage.transaction(async () => {
          await storage.signingKeys.put(record(newSigningKey("ES256"), "current"));
          await storage.signingKeys.put(record(newSigningKey("ES256"), "next"));
        });
      } catch (error) {
        // Another replica made the first key at the same moment: its keys are the ones.
        if (!(error instanceof ServiceError && error.code === "ALREADY_EXISTS")) throw error;
      }
      records = await storage.signingKeys.list({});
    }
    const now = nowSeconds(core);
    const current = records.find((r) => r.status === "current")!;
    const next = records.find((r) => r.status === "next");
    const retired = records.filter((r) => r.status === "retired" && r.retired_at !== null && now < r.retired_at + core.config.accessTokenSeconds);
    return { current: toKey(current), next: next && toKey(next), retired: retired.map((r) => ({ key: toKey(r), retiredAt: r.retired_at! })).sort((a, b) => b.retiredAt - a.retiredAt) };
  }

  return {
    async ring(fresh = false) {
      if (!fresh && cached && cached.until > Date.now()) return cached.ring;
      const ring = await read();
      cached = { ring, until: Date.now() + RING_CACHE_MS };
      return ring;
    },
    async rotate(replacement) {
      const ring = await read();
      const now = nowSeconds(core);
      const promoted = replacement ?? ring.next ?? newSigningKey(ring.current.alg);
      await storage.transaction(async () => {
        await storage.signingKeys.put(record(ring.current, "retired", now));
        await storage.signingKeys.put(record(promoted, "current"));
        await storage.signingKeys.put(record(newSigningKey(promoted.alg), "next"));
        // Keys whose tokens have all expired are gone for good.
        for (const old of await storage.signingKeys.list({ status: "retired" })) {
          if (old.retired_at !== null && old.retired_at + core.config.accessTokenSeconds <= now) await storage.signingKeys.delete(old.kid);
        }
      });
      cached = undefined;
    },
  };
}

export class TokenService {
  constructor(
    private readonly core: Core,
    private readonly keys: KeySource,
  ) {}

  /** The retired keys still published (until the tokens they signed expire), newest first. */
  private live(ring: KeyRing): SigningKey[] {
    const now = nowSeconds(this.core);
    return ring.retired.filter(({ retiredAt }) => now < retiredAt + this.core.config.accessTokenSeconds).map(({ key }) => key);
  }

  /** Every key a token of this service may be signed with: current, retired still published, next. */
  private published(ring: KeyRing): SigningKey[] {
    return [ring.current, ...this.live(ring), ...(ring.next ? [ring.next] : [])];
  }

  /** The public key set a relying party verifies the service's tokens with: current, still-published retired, next. */
  async jwks(): Promise<JSONWebKeySet> {
    return { keys: this.published(await this.keys.ring()).map((key) => ({ ...key.publicJwk })) };
  }

  /** The algorithm of the current key (what discovery names). */
  async algorithm(): Promise<SigningAlgorithm> {
    return (await this.keys.ring()).current.alg;
  }

  /** Signs with the next key from now on (see KeySource); the current key stays published until its tokens expire. */
  rotate(replacement?: SigningKey): Promise<void> {
    return this.keys.rotate(replacement);
  }

  async sign(claims: ClaimsToSign, lifetimeSeconds: number): Promise<SignedToken> {
    const key = (await this.keys.ring()).current;
    const iat = nowSeconds(this.core);
    const full = { ...claims, iss: this.core.config.issuer, iat, exp: iat + lifetimeSeconds, jti: this.core.newId() } as ServiceClaims;
    const token = await new SignJWT(full).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" }).sign(key.privateKey);
    return { token, jti: full.jti, expiresIn: lifetimeSeconds, claims: full };
  }

  /** The key a token names, among the published ones (read again once when none is: another replica may have rotated). */
  private async keyOf(kid: unknown, alg: unknown): Promise<SigningKey | undefined> {
    const match = (ring: KeyRing) => this.published(ring).find((key) => key.kid === kid && key.alg === alg);
    return match(await this.keys.ring()) ?? match(await this.keys.ring(true));
  }

  /** The claims of a token this service signed with a published key and still honours, or null. */
  async verify(token: string): Promise<ServiceClaims | null> {
    let claims: ServiceClaims;
    try {
      const header = decodeProtectedHeader(token);
      const key = await this.keyOf(header.kid, header.alg);
      if (!key) return null;
      const result = await jwtVerify<ServiceClaims>(token, key.publicKey, {
        issuer: this.core.config.issuer,
        algorithms: [key.alg],
        currentDate: new Date(this.core.clock()),
        requiredClaims: ["sub", "jti", "exp"],
      });
      claims = result.payload;
    } catch {
      return null;
    }
    return (await this.stillHonoured(claims)) ? claims : null;
  }

  private async stillHonoured(claims: ServiceClaims): Promise<boolean> {
    const { storage } = this.core;
    if (await storage.revokedTokens.get(claims.jti)) return false;
    if (claims.sid !== undefined) {
      const session = await storage.sessions.get(claims.sid);
      if (!session || session.expires_at <= nowSeconds(this.core)) return false;
      const user = await storage.users.get(session.user_id);
      if (!user || user.revoked_timestamp !== null) return false;
    }
    if (claims.client_id !== undefined) {
      const client = await storage.clients.find({ client_id: claims.client_id });
      if (!client || !client.is_active) return false;
    }
    return true;
  }

  /** Stops a token this service signed, whoever presents it. */
  async revoke(claims: Pick<ServiceClaims, "jti" | "exp">): Promise<void> {
    await this.core.storage.revokedTokens.deleteWhere({ expires_at: { lte: nowSeconds(this.core) } });
    await this.core.storage.revokedTokens.put({ jti: claims.jti, expires_at: claims.exp });
  }
}
