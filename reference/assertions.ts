// JWT-bearer assertions from trusted external issuers (a cluster's service-account issuer, SPIFFE,
// a generic OIDC provider). An assertion authenticates as the issuer's service account when it is
// signed by a key of the issuer, names the expected audience, has not expired and carries an
// allowed subject. Issuers are read from the store on every check, so a deleted or deactivated
// issuer stops authenticating at once.
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from "jose";
import type { TrustedIssuer } from "../generated/types.js";
import type { Core, JwksResolver } from "./core.js";
import { outboundRequest, type OutboundPolicy } from "./outbound.js";

/** The most of a discovery document or key set the service reads. */
const KEYS_READ_LIMIT = 256 * 1024;
import type { ClientRecord } from "./storage.js";

export interface AssertionIdentity {
  client: ClientRecord;
  issuer: TrustedIssuer;
  /** The external subject (the `subject_claim` of the assertion). */
  subject: string;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/** Exact subjects, or a trailing `*` for a prefix (for example `system:serviceaccount:ci:*`). */
function subjectAllowed(allowed: readonly string[], subject: string): boolean {
  if (allowed.length === 0) return true;
  return allowed.some((pattern) => (pattern.endsWith("*") ? subject.startsWith(pattern.slice(0, -1)) : pattern === subject));
}

/** The client a service account id names: its id or its client_id. */
export async function serviceAccount(core: Core, serviceAccountId: string): Promise<ClientRecord | undefined> {
  return (await core.storage.clients.get(serviceAccountId)) ?? (await core.storage.clients.find({ client_id: serviceAccountId }));
}

export class TrustedIssuers {
  constructor(private readonly core: Core) {}

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
        keys = await this.core.jwksResolver(issuer);
      } catch {
        continue;
      }
      try {
        const { payload } = await jwtVerify(assertion, createLocalJWKSet(keys), {
          issuer: issuerClaim,
          audience: issuer.expected_aud,
          currentDate: new Date(this.core.clock()),
          requiredClaims: ["exp"],
        });
        const subject = payload[issuer.subject_claim ?? "sub"];
        if (typeof subject !== "string" || !subjectAllowed(issuer.allowed_subjects, subject)) continue;
        return { client, issuer, subject };
      } catch {
        continue;
      }
    }
    return null;
  }
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
      if (typeof discovery.jwks_uri !== "string") throw new Error("the discovery document names no jwks_uri");
      url = discovery.jwks_uri;
    }
    return (await getJson(url, policy)) as unknown as JSONWebKeySet;
  };
}
