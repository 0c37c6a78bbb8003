// §3: trusted issuers (JWT-bearer assertions authenticate as the issuer's service account; delete
// stops them at once) and SCIM endpoints (token answered on create and rotate only; the old token
// stops on rotate, every token on delete).
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import type { TrustedIssuer } from "../../generated/types.js";
import type { Principal } from "../../runtime/server/context.js";
import { ASSERTION_JWT_BEARER, GRANT_TOKEN_EXCHANGE, TOKEN_TYPE_ACCESS, TOKEN_TYPE_JWT } from "../../reference/ops/oauth.js";
import { createHarness, expectCode, type Harness } from "./context.js";

const anonymous: { principal: Principal } = { principal: { kind: "anonymous" } };
const ISSUER = "https://cluster.example.com";
const AUDIENCE = "identity-service";

async function externalIssuer() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwks: JSONWebKeySet = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] };
  const resolved: string[] = [];
  return {
    jwks,
    resolved,
    resolver: async (issuer: TrustedIssuer) => {
      resolved.push(issuer.id);
      return jwks;
    },
    assertion: (h: Harness, claims: { sub?: string; aud?: string; iss?: string; lifetime?: number; jti?: string; kid?: string } = {}) => {
      const now = Math.floor(h.now() / 1000);
      return new SignJWT(claims.jti ? { jti: claims.jti } : {})
        .setProtectedHeader({ alg: "ES256", kid: claims.kid ?? "k1" })
        .setIssuer(claims.iss ?? ISSUER)
        .setAudience(claims.aud ?? AUDIENCE)
        .setSubject(claims.sub ?? "system:serviceaccount:ci:builder")
        .setIssuedAt(now)
        .setExpirationTime(now + (claims.lifetime ?? 300))
        .sign(privateKey);
    },
  };
}

async function setup(allowedSubjects: string[] | null = ["system:serviceaccount:ci:*"]) {
  const external = await externalIssuer();
  const h = createHarness({ jwksResolver: external.resolver });
  const { client } = await h.call("createClient", { name: "ci", allowed_scopes: ["deploy", "read"] });
  const issuer = await h.call("addTrustedIssuer", {
    service_account_id: client.id,
    name: "cluster",
    issuer_url: ISSUER,
    key_source_type: "jwks_url",
    jwks_url: `${ISSUER}/openid/v1/jwks`,
    expected_aud: AUDIENCE,
    issuer_type: "kubernetes",
    ...(allowedSubjects ? { allowed_subjects: allowedSubjects } : {}),
  });
  return { h, external, client, issuer };
}

const withAssertion = (h: Harness, assertion: string, extra: Record<string, string> = {}) =>
  h.call("oauthToken", { grant_type: "client_credentials", client_assertion_type: ASSERTION_JWT_BEARER, client_assertion: assertion, ...extra }, anonymous);

describe("trusted issuers", () => {
  it("a JWT-bearer client assertion authenticates as the issuer's service account", async () => {
    const { h, external, client, issuer } = await setup();
    const token = await withAssertion(h, await external.assertion(h), { scope: "deploy" });
    expect(token).toMatchObject({ token_type: "Bearer", scope: "deploy", refresh_token: null });
    expect(await h.service.state.verifyAccessToken(token.access_token)).toMatchObject({ sub: client.client_id, client_id: client.client_id });
    expect(external.resolved).toEqual([issuer.id]);
  });

  it("token exchange of an assertion answers an access token of the service account", async () => {
    const { h, external, client } = await setup();
    const exchanged = await h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: await external.assertion(h), subject_token_type: TOKEN_TYPE_JWT }, anonymous);
    expect(exchanged.issued_token_type).toBe(TOKEN_TYPE_ACCESS);
    expect(await h.service.state.verifyAccessToken(exchanged.access_token)).toMatchObject({ sub: client.client_id, ext_sub: "system:serviceaccount:ci:builder", ext_iss: ISSUER });
  });

  it("refuses assertions with the wrong audience, issuer, subject, key or lifetime", async () => {
    const { h, external } = await setup(["system:serviceaccount:ci:*"]);
    await withAssertion(h, await external.assertion(h, { sub: "system:serviceaccount:ci:other" }));
    const refused = [
      await external.assertion(h, { aud: "someone-else" }),
      await external.assertion(h, { iss: "https://other.example.com" }),
      await external.assertion(h, { sub: "system:serviceaccount:prod:builder" }),
    ];
    const expired = await external.assertion(h, { lifetime: 60 });
    h.advance(120);
    refused.push(expired);
    const stranger = await externalIssuer();
    refused.push(await stranger.assertion(h));
    for (const assertion of refused) expect((await expectCode(withAssertion(h, assertion), "UNAUTHENTICATED")).oauthError).toBe("invalid_client");
    await expectCode(withAssertion(h, "not.a.jwt"), "UNAUTHENTICATED");
  });

  it("an assertion is used once: a replay fails, with or without a jti, kept in the database", async () => {
    const { h, external } = await setup();
    const withJti = await external.assertion(h, { jti: "once" });
    await withAssertion(h, withJti);
    await expectCode(withAssertion(h, withJti), "UNAUTHENTICATED");
    // Another assertion with the same jti is the same assertion to the issuer.
    await expectCode(withAssertion(h, await external.assertion(h, { jti: "once" })), "UNAUTHENTICATED");
    const withoutJti = await external.assertion(h);
    await h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: withoutJti, subject_token_type: TOKEN_TYPE_JWT }, anonymous);
    const replay = await expectCode(h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: withoutJti, subject_token_type: TOKEN_TYPE_JWT }, anonymous), "FAILED_PRECONDITION");
    expect(replay.message).toBe("subject_token is not a valid assertion of a trusted issuer");
    expect(await h.service.state.storage.usedAssertions.count()).toBe(2);
  });

  // The security review: the used-assertion record hashed the compact text, so the same signature
  // with its last character's unused bits flipped, or ECDSA's s replaced by n - s, was taken again
  // (3 tokens from one assertion).
  it("a replay without a jti fails as a variant too: its signature re-encoded, or mirrored (n - s)", async () => {
    const { h, external } = await setup();
    const original = await external.assertion(h);
    const [head, claims, signature] = original.split(".") as [string, string, string];
    const bytes = Buffer.from(signature, "base64url");
    // 64 bytes are 86 characters, whose last one carries 4 bits that decode to nothing.
    const last = signature.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const reencoded = `${head}.${claims}.${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(reencoded.split(".")[2]!, "base64url")).toEqual(bytes);
    const n = BigInt("0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"); // P-256's group order
    const s = BigInt(`0x${bytes.subarray(32).toString("hex")}`);
    const mirrored = `${head}.${claims}.${Buffer.concat([bytes.subarray(0, 32), Buffer.from((n - s).toString(16).padStart(64, "0"), "hex")]).toString("base64url")}`;
    // Both variants verify: each would be a token of its own if the record were keyed on the text.
    const keys = createLocalJWKSet(external.jwks);
    for (const variant of [reencoded, mirrored]) await jwtVerify(variant, keys, { issuer: ISSUER, audience: AUDIENCE });
    await withAssertion(h, original);
    for (const variant of [reencoded, mirrored, original]) await expectCode(withAssertion(h, variant), "UNAUTHENTICATED");
    expect(await h.service.state.storage.usedAssertions.count()).toBe(1);
  });

  it("refuses an assertion living longer than an hour, and any subject when allowed_subjects is empty", async () => {
    const { h, external } = await setup();
    await expectCode(withAssertion(h, await external.assertion(h, { lifetime: 3601 })), "UNAUTHENTICATED");
    await withAssertion(h, await external.assertion(h, { lifetime: 3600 }));
    const open = await setup(null);
    await expectCode(withAssertion(open.h, await open.external.assertion(open.h)), "UNAUTHENTICATED");
    const any = await setup(["*"]);
    await withAssertion(any.h, await any.external.assertion(any.h, { sub: "anyone" }));
  });

  it("caches the issuer's keys, and fetches them again at once for a key id they lack", async () => {
    const { h, external, issuer } = await setup();
    await withAssertion(h, await external.assertion(h));
    await withAssertion(h, await external.assertion(h));
    expect(external.resolved).toEqual([issuer.id]);
    // The issuer rotated its key: an unknown kid fetches the keys again (once), then they are cached.
    h.advance(11);
    await expectCode(withAssertion(h, await external.assertion(h, { kid: "k2" })), "UNAUTHENTICATED");
    expect(external.resolved).toEqual([issuer.id, issuer.id]);
    await expectCode(withAssertion(h, await external.assertion(h, { kid: "k2" })), "UNAUTHENTICATED");
    expect(external.resolved).toHaveLength(2);
    h.advance(301);
    await withAssertion(h, await external.assertion(h));
    expect(external.resolved).toHaveLength(3);
  });

  it("delete stops assertions from the issuer at once; deactivating does too", async () => {
    const { h, external, issuer } = await setup();
    await withAssertion(h, await external.assertion(h));
    await h.call("updateTrustedIssuer", { id: issuer.id, is_active: false });
    await expectCode(withAssertion(h, await external.assertion(h)), "UNAUTHENTICATED");
    await h.call("updateTrustedIssuer", { id: issuer.id, is_active: true });
    const assertion = await external.assertion(h);
    await withAssertion(h, assertion);

    await h.call("deleteTrustedIssuer", { id: issuer.id });
    await expectCode(withAssertion(h, assertion), "UNAUTHENTICATED");
    const exchange = h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: assertion }, anonymous);
    expect((await expectCode(exchange, "FAILED_PRECONDITION")).oauthError).toBe("invalid_grant");
    await expectCode(h.call("getTrustedIssuer", { id: issuer.id }), "NOT_FOUND");
  });

  it("checks its inputs: jwks_url with key_source_type jwks_url, an existing service account, no duplicates", async () => {
    const { h, client, issuer } = await setup();
    const base = { service_account_id: client.id, name: "n", issuer_url: ISSUER, expected_aud: AUDIENCE, issuer_type: "oidc" as const };
    expect((await expectCode(h.call("addTrustedIssuer", { ...base, key_source_type: "jwks_url" }), "INVALID_ARGUMENT")).field).toBe("jwks_url");
    await expectCode(h.call("addTrustedIssuer", { ...base, service_account_id: "nope", key_source_type: "oidc_discovery" }), "NOT_FOUND");
    await expectCode(h.call("addTrustedIssuer", { ...base, key_source_type: "oidc_discovery" }), "ALREADY_EXISTS");
    await h.call("addTrustedIssuer", { ...base, expected_aud: "other", key_source_type: "oidc_discovery" });

    const list = await h.call("trustedIssuers", { service_account_id: client.id });
    expect(list.pagination.total).toBe(2);
    expect((await h.call("trustedIssuers", { service_account_id: "nobody" })).trusted_issuers).toEqual([]);
    expect(await h.call("getTrustedIssuer", { id: issuer.id })).toEqual(issuer);
  });
});

describe("SCIM endpoints", () => {
  async function withOrg() {
    const h = createHarness();
    const org = await h.call("createOrganization", { name: "acme" });
    return { h, orgId: org.id };
  }

  it("answers the token on create only; get never holds it", async () => {
    const { h, orgId } = await withOrg();
    const created = await h.call("createSCIMEndpoint", { org_id: orgId });
    expect(created.token).toMatch(/^scim_/);
    expect(created.scim_endpoint).toMatchObject({ org_id: orgId, enabled: true });
    expect(await h.service.state.verifyScimToken(created.token)).toEqual({ org_id: orgId, endpoint_id: created.scim_endpoint.id });

    const fetched = await h.callRaw("getSCIMEndpoint", { org_id: orgId });
    expect(fetched).toEqual(created.scim_endpoint);
    expect(JSON.stringify(fetched)).not.toContain(created.token);
    expect(JSON.stringify(await h.service.state.storage.scimEndpoints.list())).not.toContain(created.token);
    await expectCode(h.call("createSCIMEndpoint", { org_id: orgId }), "ALREADY_EXISTS");
  });

  it("rotate answers a new token once and the old one stops at once", async () => {
    const { h, orgId } = await withOrg();
    const { token: oldToken } = await h.call("createSCIMEndpoint", { org_id: orgId });
    const rotated = await h.call("rotateSCIMToken", { org_id: orgId });
    expect(rotated.token).not.toBe(oldToken);
    expect(await h.service.state.verifyScimToken(oldToken)).toBeNull();
    expect(await h.service.state.verifyScimToken(rotated.token)).toMatchObject({ org_id: orgId });
  });

  it("delete stops the token at once", async () => {
    const { h, orgId } = await withOrg();
    const { token } = await h.call("createSCIMEndpoint", { org_id: orgId });
    await h.call("deleteSCIMEndpoint", { org_id: orgId });
    expect(await h.service.state.verifyScimToken(token)).toBeNull();
    await expectCode(h.call("getSCIMEndpoint", { org_id: orgId }), "NOT_FOUND");
    await expectCode(h.call("rotateSCIMToken", { org_id: orgId }), "NOT_FOUND");
    await expectCode(h.call("deleteSCIMEndpoint", { org_id: orgId }), "NOT_FOUND");
  });
});
