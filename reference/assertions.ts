// JWT-bearer assertions from trusted external issuers (a cluster's service-account issuer, SPIFFE,
// a generic OIDC provider). An assertion authenticates as the issuer's service account when it is
// signed by a key of the issuer, names the expected audience, has not expired, lives at most
// MAX_ASSERTION_LIFETIME_SECONDS, carries a subject the issuer's allowed_subjects name (an empty
// list names none; `*` names all) and has not been used before (its jti, or without one the hash of what was signed and of its signature's bytes,
// is kept in the database until it expires, so a replay fails on every replica). Issuers are read
// from the store on every check, so a deleted or deactivated issuer stops authenticating at once;
// their keys are cached for KEY_CACHE_SECONDS and fetched again at once for an unknown key id.
import { createHash } from "node:crypto";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import { ServiceError } from "../generated/server/index.js";
import type { TrustedIssuer } from "../generated/types.js";
import { nowSeconds, type Core, type JwksResolver } from "./core.js";
import { outboundRequest, type OutboundPolicy } from "./outbound.js";
import type { ClientRecord } from "./storage.js";

/** The most of a discovery document or key set the service reads. */
const KEYS_READ_LIMIT = 256 * 1024;
/** Longest an assertion may live (exp - iat), unless the service is configured otherwise. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 3600;
/** How long an issuer's keys are used before they are fetched again. */
const KEY_CACHE_SECONDS = 300;
/** At most one fetch of an issuer's keys for an unknown key id per this many seconds. */
const UNKNOWN_KID_REFETCH_SECONDS = 10;

export interface AssertionIdentity {
  client: ClientRecord;
  issuer: TrustedIssuer;
  /** The external subject (the `subject_claim` of the assertion). */
  subject: string;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/** Exact subjects, or a trailing `*` for a prefix (for example `system:serviceaccount:ci:*`). */
function subjectAllowed(allowed: readonly string[], subject: string): boolean {
  return allowed.some((pattern) => (pattern.endsWith("*") ? subject.startsWith(pattern.slice(0, -1)) : pattern === subject));
}

/** The client a service account id names: its id or its client_id. */
export async function serviceAccount(core: Core, serviceAccountId: string): Promise<ClientRecord | undefined> {
  return (await core.storage.clients.get(serviceAccountId)) ?? (await core.storage.clients.find({ client_id: serviceAccountId }));
}

interface CachedKeys {
  keys: JSONWebKeySet;
  fetchedAt: number;
}

export class TrustedIssuers {
  private readonly keyCache = new Map<string, CachedKeys>();

  constructor(
    private readonly core: Core,
    private readonly maxLifetimeSeconds = MAX_ASSERTION_LIFETIME_SECONDS,
  ) {}

  /** The issuer's keys: cached, fetched again when stale or (at most every 10 s) for a key id they lack. */
  private async keysOf(issuer: TrustedIssuer, kid: string | undefined): Promise<JSONWebKeySet> {
    const now = nowSeconds(this.core);
    const cached = this.keyCache.get(issuer.id);
    const knows = (keys: JSONWebKeySet) => kid === undefined || keys.keys.some((key) => key.kid === kid);
    if (cached && now - cached.fetchedAt < KEY_CACHE_SECONDS && (knows(cached.keys) || now - cached.fetchedAt < UNKNOWN_KID_REFETCH_SECONDS)) return cached.keys;
    const keys = await this.core.jwksResolver(issuer);
    this.keyCache.set(issuer.id, { keys, fetchedAt: now });
    return keys;
  }

  /** Who an assertion authenticates as, or null when no active trusted issuer vouches for it. */
  async authenticate(assertion: string): Promise<AssertionIdentity | null> {
    let issuerClaim: unknown;
    try {
      issuerClaim = decodeJwt(assertion).iss;
    } catch {
      return null;
    }
    if (typeof issuerClaim !== "string") return null;
    const issuerUrl = withoutTrailingSlash(issuerClaim);
    const candidates = await this.core.storage.trustedIssuers.list({ is_active: true, issuer_url: { in: [issuerUrl, `${issuerUrl}/`] } });
    for (const issuer of candidates) {
      const client = await serviceAccount(this.core, issuer.service_account_id);
      if (!client || !client.is_active) continue;
      let keys: JSONWebKeySet;
      try {
        keys = await this.keysOf(issuer, decodeProtectedHeader(assertion).kid);
      } catch {
        continue;
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(assertion, createLocalJWKSet(keys), {
          issuer: issuerClaim,
          audience: issuer.expected_aud,
          currentDate: new Date(this.core.clock()),
          requiredClaims: ["exp"],
        }));
      } catch {
        continue;
      }
      const subject = payload[issuer.subject_claim ?? "sub"];
      if (typeof subject !== "string" || !subjectAllowed(issuer.allowed_subjects, subject)) continue;
      const issuedAt = typeof payload.iat === "number" ? payload.iat : nowSeconds(this.core);
      if (payload.exp! - issuedAt > this.maxLifetimeSeconds) continue;
      // Single use: the first to record it wins; a replay (here or on another replica) finds it
      // taken. A database that cannot be reached is UNAVAILABLE, not a refusal.
      const key = `${issuer.id}:${typeof payload.jti === "string" ? `jti:${payload.jti}` : `sig:${signatureKey(assertion)}`}`;
      await this.core.storage.usedAssertions.deleteWhere({ expires_at: { lt: nowSeconds(this.core) } });
      try {
        await this.core.storage.usedAssertions.insert({ key, expires_at: payload.exp! });
      } catch (error) {
        if (error instanceof ServiceError && error.code === "ALREADY_EXISTS") return null;
        throw error;
      }
      return { client, issuer, subject };
    }
    return null;
  }
}

/** The group order n of each ECDSA curve of JWS (RFC 7518 §3.4, RFC 8812 §3.2). */
const ECDSA_ORDERS: Record<string, bigint> = {
  ES256: BigInt("0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"),
  ES384: BigInt("0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973"),
  ES512: BigInt("0x01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409"),
  ES256K: BigInt("0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"),
};

/**
 * What makes a verified assertion without a jti this one and no other: the hash of what its issuer
 * signed and of its signature's bytes, not of its text. Base64url's unused last bits decode to the
 * same bytes, and an ECDSA signature (r, s) verifies as (r, n - s) too: s is taken as the lower of
 * the two, so every variant of one signature has one key. RSA and EdDSA signatures have no second
 * form that Node's verification accepts.
 */
export function signatureKey(assertion: string): string {
  const dot = assertion.lastIndexOf(".");
  let bytes = Buffer.from(assertion.slice(dot + 1), "base64url");
  const order = ECDSA_ORDERS[String(decodeProtectedHeader(assertion).alg)];
  if (order !== undefined && bytes.length % 2 === 0) {
    const half = bytes.length / 2;
    const s = BigInt(`0x${bytes.subarray(half).toString("hex") || "0"}`);
    const low = s > order - s ? order - s : s;
    bytes = Buffer.concat([bytes.subarray(0, half), Buffer.from(low.toString(16).padStart(half * 2, "0"), "hex")]);
  }
  return createHash("sha256").update(assertion.slice(0, dot)).update(".").update(bytes).digest("hex");
}

async function getJson(url: string, policy: OutboundPolicy): Promise<Record<string, unknown>> {
  const answer = await outboundRequest(url, { method: "GET", headers: { accept: "application/json" }, timeoutMs: 5000, maxBytes: KEYS_READ_LIMIT }, policy);
  if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}`);
  if (answer.truncated) throw new Error(`GET ${url} answered more than ${KEYS_READ_LIMIT} bytes`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

/**
 * The default key source: the configured JWKS URL, or the one the issuer's discovery document
 * names, fetched from public addresses only, without following redirects, at most 256 KiB each.
 */
export function issuerJwksFetcher(policy: OutboundPolicy): JwksResolver {
  return async (issuer) => {
    let url = issuer.key_source_type === "jwks_url" ? issuer.jwks_url : null;
    if (!url) {
      const discovery = await getJson(`${withoutTrailingSlash(issuer.issuer_url)}/.well-known/openid-configuration`, policy);
      // OpenID Connect Discovery §4.3: the document must be the issuer's own.
      if (typeof discovery.issuer !== "string" || withoutTrailingSlash(discovery.issuer) !== withoutTrailingSlash(issuer.issuer_url)) {
        throw new Error("the discovery document names another issuer");
      }
      if (typeof discovery.jwks_uri !== "string") throw new Error("the discovery document names no jwks_uri");
      url = discovery.jwks_uri;
    }
    return (await getJson(url, policy)) as unknown as JSONWebKeySet;
  };
}
