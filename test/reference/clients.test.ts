// §3: clients. The secret is answered on create and rotate only and stored as a hash; after a
// rotation the old secret works for the grace window and then stops; deleting a client stops the
// tokens already issued to it.
import { describe, expect, it } from "vitest";
import { oauthErrorOf } from "../../runtime/errors.js";
import type { Principal } from "../../runtime/server/context.js";
import { DEFAULT_CLIENT_SECRET_GRACE_SECONDS } from "../../reference/service.js";
import { createHarness, expectCode, type Harness } from "./context.js";

const anonymous: { principal: Principal } = { principal: { kind: "anonymous" } };

async function newClient(h: Harness, scopes = ["read", "write"]) {
  const created = await h.call("createClient", { name: "billing", description: "billing worker", allowed_scopes: scopes });
  return { client: created.client, secret: created.client_secret };
}

function clientCredentials(h: Harness, clientId: string, secret: string, scope?: string) {
  return h.call("oauthToken", { grant_type: "client_credentials", client_id: clientId, client_secret: secret, ...(scope ? { scope } : {}) }, anonymous);
}

describe("clients", () => {
  it("answers the secret on create only; get and list never hold it or its hash", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(client).toMatchObject({ name: "billing", allowed_scopes: ["read", "write"], is_active: true });

    const stored = (await h.service.state.storage.clients.get(client.id))!;
    expect(JSON.stringify(stored)).not.toContain(secret);
    const hash = stored.secrets[0]!.hash;

    for (const answer of [await h.callRaw("getClient", { id: client.id }), await h.callRaw("clients", {})]) {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(hash);
      expect(text).not.toContain("secret");
    }
    expect((await h.call("clients", {})).pagination).toEqual({ limit: 10, page: 1, offset: 0, total: 1 });
  });

  it("authenticates client_credentials with the secret in the body or with HTTP Basic", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    const token = await clientCredentials(h, client.client_id, secret);
    expect(token).toMatchObject({ token_type: "Bearer", expires_in: 1800, scope: "read write", refresh_token: null, id_token: null });
    const claims = await h.service.state.verifyAccessToken(token.access_token);
    expect(claims).toMatchObject({ sub: client.client_id, client_id: client.client_id, scope: "read write", token_type: "access_token" });

    const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString("base64");
    const viaBasic = await h.call("oauthToken", { grant_type: "client_credentials", scope: "read" }, { ...anonymous, headers: { authorization: `Basic ${basic}` } });
    expect(viaBasic.scope).toBe("read");

    const both = h.call("oauthToken", { grant_type: "client_credentials", client_secret: secret }, { ...anonymous, headers: { authorization: `Basic ${basic}` } });
    expect((await expectCode(both, "INVALID_ARGUMENT")).oauthError).toBe("invalid_request");
  });

  it("refuses wrong secrets, unknown clients, scopes outside the client's and unknown grants, never echoing the secret", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    const wrong = await expectCode(clientCredentials(h, client.client_id, `${secret}x`), "UNAUTHENTICATED");
    expect(wrong.oauthError).toBe("invalid_client");
    expect(wrong.message).not.toContain(secret);
    expect((await expectCode(clientCredentials(h, "nobody", secret), "UNAUTHENTICATED")).oauthError).toBe("invalid_client");
    expect((await expectCode(clientCredentials(h, client.client_id, secret, "read admin"), "INVALID_ARGUMENT")).oauthError).toBe("invalid_scope");
    expect((await expectCode(h.call("oauthToken", { grant_type: "client_credentials" }, anonymous), "UNAUTHENTICATED")).oauthError).toBe("invalid_client");
    expect(oauthErrorOf(await expectCode(h.call("oauthToken", { grant_type: "password" }, anonymous), "INVALID_ARGUMENT"))).toBe("unsupported_grant_type");
  });

  it(`keeps the old secret working for the grace window after rotation (default ${DEFAULT_CLIENT_SECRET_GRACE_SECONDS} s), then stops it`, async () => {
    const h = createHarness();
    const { client, secret: oldSecret } = await newClient(h);
    const rotated = await h.call("rotateClientSecret", { id: client.id });
    expect(rotated.client_secret).not.toBe(oldSecret);
    expect(rotated.client.id).toBe(client.id);
    expect(JSON.stringify(await h.callRaw("getClient", { id: client.id }))).not.toContain(rotated.client_secret);

    await clientCredentials(h, client.client_id, rotated.client_secret);
    h.advance(DEFAULT_CLIENT_SECRET_GRACE_SECONDS - 1);
    await clientCredentials(h, client.client_id, oldSecret);
    h.advance(1);
    await expectCode(clientCredentials(h, client.client_id, oldSecret), "UNAUTHENTICATED");
    await clientCredentials(h, client.client_id, rotated.client_secret);
  });

  it("with a grace window of 0 the old secret stops at once; a second rotation ends the first grace too", async () => {
    const h = createHarness({ clientSecretGraceSeconds: 0 });
    const { client, secret: first } = await newClient(h);
    const { client_secret: second } = await h.call("rotateClientSecret", { id: client.id });
    await expectCode(clientCredentials(h, client.client_id, first), "UNAUTHENTICATED");
    await clientCredentials(h, client.client_id, second);

    const graceful = createHarness({ clientSecretGraceSeconds: 60 });
    const made = await newClient(graceful);
    const { client_secret: b } = await graceful.call("rotateClientSecret", { id: made.client.id });
    graceful.advance(30);
    const { client_secret: c } = await graceful.call("rotateClientSecret", { id: made.client.id });
    await clientCredentials(graceful, made.client.client_id, made.secret); // still inside its own window
    await clientCredentials(graceful, made.client.client_id, b);
    graceful.advance(31);
    await expectCode(clientCredentials(graceful, made.client.client_id, made.secret), "UNAUTHENTICATED");
    await clientCredentials(graceful, made.client.client_id, b);
    await clientCredentials(graceful, made.client.client_id, c);
  });

  it("delete stops the tokens already issued to the client and its secret", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    const { access_token } = await clientCredentials(h, client.client_id, secret);
    expect((await h.call("validateJWTToken", { token_type: "access_token", token: access_token }, anonymous)).is_valid).toBe(true);

    await h.call("deleteClient", { id: client.id });
    expect(await h.service.state.verifyAccessToken(access_token)).toBeNull();
    expect(await h.call("validateJWTToken", { token_type: "access_token", token: access_token }, anonymous)).toEqual({ is_valid: false, claims: null });
    await expectCode(clientCredentials(h, client.client_id, secret), "UNAUTHENTICATED");
    await expectCode(h.call("getClient", { id: client.id }), "NOT_FOUND");
    await expectCode(h.call("deleteClient", { id: client.id }), "NOT_FOUND");
  });

  it("a deactivated client gets no tokens and its tokens stop until it is active again", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    const { access_token } = await clientCredentials(h, client.client_id, secret);
    const updated = await h.call("updateClient", { id: client.id, is_active: false, allowed_scopes: ["read"] });
    expect(updated).toMatchObject({ is_active: false, allowed_scopes: ["read"], name: "billing" });
    expect(await h.service.state.verifyAccessToken(access_token)).toBeNull();
    await expectCode(clientCredentials(h, client.client_id, secret), "UNAUTHENTICATED");
    await h.call("updateClient", { id: client.id, is_active: true });
    expect(await h.service.state.verifyAccessToken(access_token)).not.toBeNull();
  });

  it("a client's metadata (spec §2) is its name and description: update_client changes them and leaves the rest", async () => {
    const h = createHarness();
    const { client } = await newClient(h);
    const updated = await h.call("updateClient", { id: client.id, name: "invoices", description: "bills customers" });
    expect(updated).toMatchObject({ name: "invoices", description: "bills customers", allowed_scopes: client.allowed_scopes, is_active: true });
    expect(await h.call("getClient", { id: client.id })).toMatchObject({ name: "invoices", description: "bills customers" });
  });

  it("refuses scope names the OAuth grammar does not allow", async () => {
    const h = createHarness();
    const error = await expectCode(h.call("createClient", { name: "x", allowed_scopes: ["read", "has space"] }), "INVALID_ARGUMENT");
    expect(error.field).toBe("allowed_scopes[1]");
  });

  it("revocation (RFC 7009) answers {} whether or not anything was revoked, and revoked tokens stop verifying", async () => {
    const h = createHarness();
    const { client, secret } = await newClient(h);
    const { access_token } = await clientCredentials(h, client.client_id, secret);
    expect(await h.call("oauthRevoke", { token: "not-a-token" }, anonymous)).toEqual({});
    expect(await h.call("oauthRevoke", { token: access_token, client_id: "someone-else" }, anonymous)).toEqual({});
    expect(await h.service.state.verifyAccessToken(access_token)).not.toBeNull();
    expect(await h.call("oauthRevoke", { token: access_token, token_type_hint: "access_token" }, anonymous)).toEqual({});
    expect(await h.service.state.verifyAccessToken(access_token)).toBeNull();
    expect(await h.call("oauthRevoke", { token: access_token }, anonymous)).toEqual({});
  });
});
