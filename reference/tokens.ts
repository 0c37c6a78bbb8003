// The JWTs the service signs, and the one check every token goes through. A valid signature is
// not enough: the check also consults the store, so a revoked token, an ended session, a revoked
// user or a deleted or deactivated client stops a token at once.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { jwtVerify, SignJWT, type JSONWebKeySet, type JWK, type JWTPayload } from "jose";
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

/** A key tokens were signed with: the current one (`retiredAt` null), or one rotated out at `retiredAt` (seconds). */
interface PublishedKey {
  key: SigningKey;
  retiredAt: number | null;
}

/** A new key pair of `alg`'s kind: EC P-256 for ES256, RSA-2048 for RS256. */
function newSigningKey(alg: SigningAlgorithm): SigningKey {
  const privateKey = alg === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey : generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  return loadSigningKey({ privateKey, alg });
}

export class TokenService {
  /** The current key first, then the retired ones still published. */
  private keys: PublishedKey[];
  /** The key the next rotation signs with, published ahead so that relying parties caching the JWKS know it before it signs. */
  private next: SigningKey | undefined;

  /**
   * `retired`: keys rotated out before this start, published (and honoured) for one token lifetime
   * from now; `next`: the key the next rotation promotes, published from now on.
   */
  constructor(
    private readonly core: Core,
    key: SigningKey,
    retired: readonly SigningKey[] = [],
    next?: SigningKey,
  ) {
    const now = nowSeconds(core);
    this.keys = [{ key, retiredAt: null }, ...retired.map((old) => ({ key: old, retiredAt: now }))];
    this.next = next;
  }

  private get current(): SigningKey {
    return this.keys[0]!.key;
  }

  /**
   * The keys still published: the current one, and each retired one until every token it signed
   * has expired (tokens live accessTokenSeconds at most, ID tokens included).
   */
  private published(): PublishedKey[] {
    const now = nowSeconds(this.core);
    this.keys = this.keys.filter(({ retiredAt }) => retiredAt === null || now < retiredAt + this.core.config.accessTokenSeconds);
    return this.keys;
  }

  /** The public key set a relying party verifies the service's tokens with. */
  jwks(): JSONWebKeySet {
    return { keys: [...this.published().map(({ key }) => ({ ...key.publicJwk })), ...(this.next ? [{ ...this.next.publicJwk }] : [])] };
  }

  /** The algorithm of the current key (what discovery names). */
  get algorithm(): SigningAlgorithm {
    return this.current.alg;
  }

  /**
   * Signs with the pre-published next key from now on (or `replacement`, or a new key of the same
   * algorithm when none was published), and publishes a new next key; the current key stays
   * published until the tokens it signed expire.
   */
  rotate(replacement?: SigningKey): void {
    const now = nowSeconds(this.core);
    const alg = this.current.alg;
    const promoted = replacement ?? this.next ?? newSigningKey(alg);
    this.keys = [{ key: promoted, retiredAt: null }, ...this.published().map((entry) => ({ ...entry, retiredAt: entry.retiredAt ?? now }))];
    this.next = newSigningKey(alg);
  }

  async sign(claims: ClaimsToSign, lifetimeSeconds: number): Promise<SignedToken> {
    const key = this.current;
    const iat = nowSeconds(this.core);
    const full = { ...claims, iss: this.core.config.issuer, iat, exp: iat + lifetimeSeconds, jti: this.core.newId() } as ServiceClaims;
    const token = await new SignJWT(full).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" }).sign(key.privateKey);
    return { token, jti: full.jti, expiresIn: lifetimeSeconds, claims: full };
  }

  /** The claims of a token this service signed with a published key and still honours, or null. */
  async verify(token: string): Promise<ServiceClaims | null> {
    let claims: ServiceClaims;
    try {
      const published = this.published();
      const result = await jwtVerify<ServiceClaims>(
        token,
        (header) => {
          const found = [...published.map(({ key }) => key), ...(this.next ? [this.next] : [])].find((key) => key.kid === header.kid && key.alg === header.alg);
          if (!found) throw new Error("no published key has this kid");
          return found.publicKey;
        },
        {
          issuer: this.core.config.issuer,
          algorithms: [...new Set([...published.map(({ key }) => key.alg), ...(this.next ? [this.next.alg] : [])])],
          currentDate: new Date(this.core.clock()),
          requiredClaims: ["sub", "jti", "exp"],
        },
      );
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
