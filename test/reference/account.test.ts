// User operations and user tokens: sign-up and sign-in with hashed passwords, sessions, profile,
// revoke_access / enable_access (§3), email and OTP flows, token validation, the refresh_token and
// authorization_code grants, token exchange of a user token, and revocation.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import type { Principal } from "../../runtime/server/context.js";
import { GRANT_TOKEN_EXCHANGE, TOKEN_TYPE_ACCESS } from "../../reference/ops/oauth.js";
import { USER_SESSION_COOKIE } from "../../reference/sessions.js";
import { createHarness, expectCode, signUp, type Harness } from "./context.js";

const anonymous: { principal: Principal } = { principal: { kind: "anonymous" } };
const lastSecret = (h: Harness, purpose?: string) => [...h.service.state.outbox].reverse().find((m) => !purpose || m.purpose === purpose)!.secret;

describe("sign-up and sign-in", () => {
  it("signs up with a hashed password and answers tokens, a session cookie and the user", async () => {
    const h = createHarness();
    const answer = await h.call("signup", { email: "Alice@Example.com", given_name: "Alice", password: "correct-horse-1", confirm_password: "correct-horse-1" }, anonymous);
    expect(answer.user).toMatchObject({ email: "alice@example.com", given_name: "Alice", email_verified: false, roles: ["user"], signup_methods: "basic_auth" });
    expect(answer.access_token).toBeTruthy();
    expect(answer.refresh_token).toMatch(/^rt_/);
    expect(answer.id_token).toBeTruthy();
    expect(h.cookiesSet.at(-1)?.name).toBe(USER_SESSION_COOKIE);

    const stored = (await h.service.state.storage.users.get(answer.user!.id))!;
    expect(stored.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain("correct-horse-1");
    expect(JSON.stringify(answer)).not.toContain("correct-horse-1");
    expect(await h.service.serverOptions.verifyUserToken(answer.access_token!)).toEqual({ userId: answer.user!.id, roles: ["user"] });
  });

  it("refuses duplicates, mismatched or short passwords, and roles not allowed at sign-up", async () => {
    const h = createHarness();
    await signUp(h, "alice@example.com");
    await expectCode(h.call("signup", { email: "ALICE@example.com", password: "another-pass", confirm_password: "another-pass" }), "ALREADY_EXISTS");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abcdefg", confirm_password: "abcdefX" }), "INVALID_ARGUMENT")).field).toBe("confirm_password");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abc", confirm_password: "abc" }), "INVALID_ARGUMENT")).field).toBe("password");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abcdefg", confirm_password: "abcdefg", roles: ["admin"] }), "INVALID_ARGUMENT")).field).toBe("roles");
    expect((await expectCode(h.call("signup", { password: "abcdefg", confirm_password: "abcdefg" }), "INVALID_ARGUMENT")).field).toBe("email");
    const closed = createHarness({ features: { is_sign_up_enabled: false } });
    await expectCode(closed.call("signup", { email: "b@example.com", password: "abcdefg", confirm_password: "abcdefg" }), "FAILED_PRECONDITION");
  });

  it("logs in with the right password only, with one message for unknown users and wrong passwords", async () => {
    const h = createHarness();
    const { userId, password } = await signUp(h, "alice@example.com");
    const answer = await h.call("login", { email: "alice@example.com", password }, anonymous);
    expect(answer.user?.id).toBe(userId);
    const wrong = await expectCode(h.call("login", { email: "alice@example.com", password: "wrong-password" }), "UNAUTHENTICATED");
    const unknown = await expectCode(h.call("login", { email: "nobody@example.com", password }), "UNAUTHENTICATED");
    expect(wrong.message).toBe(unknown.message);
    expect(wrong.message).not.toContain("wrong-password");
    await expectCode(h.call("login", { email: "alice@example.com", password, roles: ["admin"] }), "PERMISSION_DENIED");
  });

  it("session refreshes tokens, profile reads the user, logout ends the session and its tokens", async () => {
    const h = createHarness();
    const { userId, accessToken, refreshToken } = await signUp(h, "alice@example.com");
    const profile = await h.call("profile", {}, { bearer: accessToken });
    expect(profile.id).toBe(userId);
    const session = await h.call("session", {}, { bearer: accessToken });
    expect(session.access_token).not.toBe(accessToken);

    await h.call("logout", {}, { bearer: accessToken });
    expect(h.cookiesSet.at(-1)).toMatchObject({ name: USER_SESSION_COOKIE, value: "", options: { maxAgeSeconds: 0 } });
    for (const token of [accessToken, session.access_token!]) expect(await h.service.serverOptions.verifyUserToken(token)).toBeNull();
    await expectCode(h.call("oauthToken", { grant_type: "refresh_token", refresh_token: refreshToken }, anonymous), "FAILED_PRECONDITION");
  });
});

describe("revoke_access and enable_access", () => {
  it("a revoked user cannot log in and its tokens stop; enabling lets it log in again", async () => {
    const h = createHarness();
    const { userId, accessToken, password } = await signUp(h, "alice@example.com");
    await h.call("revokeAccess", { user_id: userId });
    expect((await h.call("user", { id: userId })).revoked_timestamp).toBe(Math.floor(h.now() / 1000));
    expect(await h.service.serverOptions.verifyUserToken(accessToken)).toBeNull();
    await expectCode(h.call("login", { email: "alice@example.com", password }), "PERMISSION_DENIED");
    await h.call("magicLinkLogin", { email: "alice@example.com" });
    expect(h.service.state.outbox).toEqual([]);

    await h.call("enableAccess", { user_id: userId });
    expect((await h.call("user", { id: userId })).revoked_timestamp).toBeNull();
    const again = await h.call("login", { email: "alice@example.com", password });
    expect(await h.service.serverOptions.verifyUserToken(again.access_token!)).toMatchObject({ userId });
    await expectCode(h.call("revokeAccess", { user_id: "nope" }), "NOT_FOUND");
  });
});

describe("claims that are true (email_verified)", () => {
  const idTokenClaims = async (h: ReturnType<typeof createHarness>, idToken: string | null) => (await h.call("validateJWTToken", { token_type: "id_token", token: idToken! })).claims;

  it("a sign-up proves nothing: email_verified is false in the user and the ID token until a magic link proves the address", async () => {
    const h = createHarness();
    const { idToken } = await signUp(h, "alice@example.com");
    expect(await idTokenClaims(h, idToken)).toMatchObject({ email: "alice@example.com", email_verified: false });
    await h.call("magicLinkLogin", { email: "alice@example.com" });
    const proved = await h.call("verifyEmail", { token: lastSecret(h, "magic_link_login") });
    expect(proved.user?.email_verified).toBe(true);
    expect(await idTokenClaims(h, proved.id_token)).toMatchObject({ email_verified: true });
  });

  it("a bearer token alone cannot change the email: the password is needed, and the new address is unverified", async () => {
    const h = createHarness();
    const { accessToken, password } = await signUp(h, "alice@example.com");
    await h.call("magicLinkLogin", { email: "alice@example.com" });
    await h.call("verifyEmail", { token: lastSecret(h, "magic_link_login") });
    const stolen = { bearer: accessToken };
    const refused = await expectCode(h.call("updateProfile", { email: "mallory@example.com" }, stolen), "INVALID_ARGUMENT");
    expect(refused.message).toBe("old_password: is required to change the email address and must match the current password");
    await expectCode(h.call("updateProfile", { email: "mallory@example.com", old_password: "guess-1234" }, stolen), "INVALID_ARGUMENT");
    expect((await h.call("profile", {}, stolen)).email).toBe("alice@example.com");

    await h.call("updateProfile", { email: "alice@new.example.com", old_password: password }, stolen);
    const after = await h.call("login", { email: "alice@new.example.com", password });
    expect(after.user).toMatchObject({ email: "alice@new.example.com", email_verified: false });
    expect(await idTokenClaims(h, after.id_token)).toMatchObject({ email: "alice@new.example.com", email_verified: false });
  });

  it("an account without a password changes its email only within 10 minutes of signing in", async () => {
    const h = createHarness();
    await h.call("magicLinkLogin", { email: "bob@example.com" });
    const { access_token } = await h.call("verifyEmail", { token: lastSecret(h, "magic_link_login") });
    h.advance(11 * 60);
    const refused = await expectCode(h.call("updateProfile", { email: "mallory@example.com" }, { bearer: access_token! }), "FAILED_PRECONDITION");
    expect(refused.message).toBe("changing the email address needs a sign-in within the last 10 minutes; sign in again");
    await h.call("magicLinkLogin", { email: "bob@example.com" });
    const fresh = await h.call("verifyEmail", { token: lastSecret(h, "magic_link_login") });
    await h.call("updateProfile", { email: "bob@new.example.com" }, { bearer: fresh.access_token! });
    expect(await h.call("profile", {}, { bearer: fresh.access_token! })).toMatchObject({ email: "bob@new.example.com", email_verified: false });
  });
});

describe("email and one-time password flows", () => {
  it("email verification: sign-up answers no tokens until the emailed token is verified", async () => {
    const h = createHarness({ features: { is_email_verification_enabled: true } });
    const answer = await h.call("signup", { email: "alice@example.com", password: "abcdefg", confirm_password: "abcdefg" });
    expect(answer.access_token).toBeNull();
    expect(answer.user?.email_verified).toBe(false);
    await expectCode(h.call("login", { email: "alice@example.com", password: "abcdefg" }), "FAILED_PRECONDITION");
    const pending = await h.call("verificationRequests", {});
    expect(pending.verification_requests).toHaveLength(1);
    expect(pending.verification_requests[0]).toMatchObject({ identifier: "basic_auth_signup", email: "alice@example.com", token: null });

    const verified = await h.call("verifyEmail", { token: lastSecret(h, "basic_auth_signup") }, anonymous);
    expect(verified.user?.email_verified).toBe(true);
    expect(verified.access_token).toBeTruthy();
    await expectCode(h.call("verifyEmail", { token: lastSecret(h, "basic_auth_signup") }), "INVALID_ARGUMENT");
    expect((await h.call("verificationRequests", {})).verification_requests).toEqual([]);
  });

  it("forgot and reset password: the old password stops, sessions end, the token is single-use", async () => {
    const h = createHarness();
    const { accessToken } = await signUp(h, "alice@example.com");
    const forgot = await h.call("forgotPassword", { email: "alice@example.com" });
    const unknown = await h.call("forgotPassword", { email: "nobody@example.com" });
    expect(forgot.message).toBe(unknown.message);
    const token = lastSecret(h, "forgot_password");
    await h.call("resetPassword", { token, password: "new-password-1", confirm_password: "new-password-1" });
    expect(await h.service.serverOptions.verifyUserToken(accessToken)).toBeNull();
    await expectCode(h.call("login", { email: "alice@example.com", password: "correct-horse-1" }), "UNAUTHENTICATED");
    await h.call("login", { email: "alice@example.com", password: "new-password-1" });
    await expectCode(h.call("resetPassword", { token, password: "x-password-2", confirm_password: "x-password-2" }), "INVALID_ARGUMENT");
  });

  it("magic link: creates the user, emails a token that verify_email turns into a session", async () => {
    const h = createHarness();
    await h.call("magicLinkLogin", { email: "new@example.com" });
    const signedIn = await h.call("verifyEmail", { token: lastSecret(h, "magic_link_login") });
    expect(signedIn.user).toMatchObject({ email: "new@example.com", email_verified: true, signup_methods: "magic_link_login" });
    expect(signedIn.access_token).toBeTruthy();
  });

  it("multi-factor: login answers the OTP screen, verify_otp signs in, wrong OTPs are limited", async () => {
    const h = createHarness();
    const { accessToken, password } = await signUp(h, "alice@example.com");
    await h.call("updateProfile", { is_multi_factor_auth_enabled: true }, { bearer: accessToken });
    const login = await h.call("login", { email: "alice@example.com", password });
    expect(login).toMatchObject({ access_token: null, should_show_email_otp_screen: true });
    const otp = lastSecret(h, "verify_otp");
    expect(otp).toMatch(/^\d{6}$/);
    await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp: otp === "000000" ? "111111" : "000000" }), "INVALID_ARGUMENT");
    const verified = await h.call("verifyOTP", { email: "alice@example.com", otp });
    expect(verified.access_token).toBeTruthy();
    await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp }), "INVALID_ARGUMENT");

    await h.call("login", { email: "alice@example.com", password });
    const next = lastSecret(h, "verify_otp");
    for (let attempt = 0; attempt < 5; attempt++) await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp: next === "999999" ? "111111" : "999999" }), "INVALID_ARGUMENT");
    await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp: next }), "INVALID_ARGUMENT");
  });

  it("wrong passwords are limited per account: 10 in 15 minutes lock it, known or not, whatever the address", async () => {
    const h = createHarness();
    const { password } = await signUp(h, "alice@example.com");
    for (const email of ["alice@example.com", "nobody@example.com"]) {
      for (let attempt = 0; attempt < 10; attempt++) await expectCode(h.call("login", { email, password: `wrong-${attempt}-password` }), "UNAUTHENTICATED");
      const locked = await expectCode(h.call("login", { email: email.toUpperCase(), password }), "TOO_MANY_REQUESTS");
      expect(locked.message).toBe("too many wrong guesses for this account; try again in 900 s");
    }
    h.advance(15 * 60);
    expect((await h.call("login", { email: "alice@example.com", password })).access_token).toBeTruthy();
    // A success starts the count again.
    for (let attempt = 0; attempt < 9; attempt++) await expectCode(h.call("login", { email: "alice@example.com", password: "wrong-password" }), "UNAUTHENTICATED");
    expect((await h.call("login", { email: "alice@example.com", password })).access_token).toBeTruthy();
  });

  it("wrong one-time passwords count per account across re-issued codes", async () => {
    const h = createHarness();
    const { accessToken, password } = await signUp(h, "alice@example.com");
    await h.call("updateProfile", { is_multi_factor_auth_enabled: true }, { bearer: accessToken });
    for (let code = 0; code < 2; code++) {
      await h.call("login", { email: "alice@example.com", password });
      const otp = lastSecret(h, "verify_otp");
      for (let attempt = 0; attempt < 5; attempt++) await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp: otp === "999999" ? "111111" : "999999" }), "INVALID_ARGUMENT");
    }
    // A third code brings no new guesses: even the right one is refused until the window ends.
    await h.call("login", { email: "alice@example.com", password });
    const third = lastSecret(h, "verify_otp");
    await expectCode(h.call("verifyOTP", { email: "alice@example.com", otp: third }), "TOO_MANY_REQUESTS");
    h.advance(15 * 60);
    await h.call("login", { email: "alice@example.com", password });
    expect((await h.call("verifyOTP", { email: "alice@example.com", otp: lastSecret(h, "verify_otp") })).access_token).toBeTruthy();
  });

  it("update_profile changes the password only with the old one and ends the other sessions", async () => {
    const h = createHarness();
    const first = await signUp(h, "alice@example.com");
    const second = await h.call("login", { email: "alice@example.com", password: first.password });
    expect((await expectCode(h.call("updateProfile", { old_password: "nope", new_password: "next-pass-1", confirm_new_password: "next-pass-1" }, { bearer: first.accessToken }), "INVALID_ARGUMENT")).field).toBe("old_password");
    await h.call("updateProfile", { old_password: first.password, new_password: "next-pass-1", confirm_new_password: "next-pass-1", nickname: "ally" }, { bearer: first.accessToken });
    expect(await h.service.serverOptions.verifyUserToken(first.accessToken)).not.toBeNull();
    expect(await h.service.serverOptions.verifyUserToken(second.access_token!)).toBeNull();
    expect((await h.call("profile", {}, { bearer: first.accessToken })).nickname).toBe("ally");
  });
});

describe("validation of tokens and sessions", () => {
  it("validate_jwt_token checks type, roles and liveness; validate_session checks the cookie", async () => {
    const h = createHarness();
    const { accessToken, idToken, refreshToken } = await signUp(h, "alice@example.com");
    const cookie = h.cookiesSet.at(-1)!.value;
    expect(await h.call("validateJWTToken", { token_type: "access_token", token: accessToken })).toMatchObject({ is_valid: true, claims: { token_type: "access_token", roles: ["user"] } });
    expect((await h.call("validateJWTToken", { token_type: "id_token", token: idToken! })).claims).toMatchObject({ email: "alice@example.com" });
    expect((await h.call("validateJWTToken", { token_type: "id_token", token: accessToken })).is_valid).toBe(false);
    expect((await h.call("validateJWTToken", { token_type: "access_token", token: accessToken, roles: ["admin"] })).is_valid).toBe(false);
    expect((await h.call("validateJWTToken", { token_type: "refresh_token", token: refreshToken })).is_valid).toBe(true);
    expect((await h.call("validateSession", { cookie })).user?.email).toBe("alice@example.com");
    expect(await h.call("validateSession", { cookie: "ses_forged" })).toEqual({ is_valid: false, user: null });

    h.advance(1801);
    expect((await h.call("validateJWTToken", { token_type: "access_token", token: accessToken })).is_valid).toBe(false);
  });
});

describe("user grants at /oauth/token", () => {
  it("refresh_token rotates: the new one works and narrows the scope only", async () => {
    const h = createHarness();
    const { refreshToken } = await signUp(h, "alice@example.com");
    const first = await h.call("oauthToken", { grant_type: "refresh_token", refresh_token: refreshToken }, anonymous);
    expect(first).toMatchObject({ token_type: "Bearer", scope: "openid email profile" });
    expect(first.refresh_token).not.toBe(refreshToken);
    expect(first.id_token).toBeTruthy();
    const second = await h.call("oauthToken", { grant_type: "refresh_token", refresh_token: first.refresh_token!, scope: "openid" }, anonymous);
    // A refresh narrows the scope, never widens it (RFC 6749 §6).
    expect(second.scope).toBe("openid");
    expect((await expectCode(h.call("oauthToken", { grant_type: "refresh_token", refresh_token: second.refresh_token!, scope: "admin" }, anonymous), "INVALID_ARGUMENT")).oauthError).toBe("invalid_scope");
  });

  it("authorization_code with PKCE: the verifier must match and the code works once", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const verifier = "a-long-random-code-verifier-of-the-client-0123456789";
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const code = await h.service.state.issueAuthorizationCode({ userId, redirectUri: "https://app.example.com/cb", codeChallenge: challenge, nonce: "n-1" });
    const exchange = (input: Record<string, string>) => h.call("oauthToken", { grant_type: "authorization_code", code, redirect_uri: "https://app.example.com/cb", ...input }, anonymous);

    const tokens = await exchange({ code_verifier: verifier, client_id: "reference" });
    expect(tokens.refresh_token).toBeTruthy();
    expect((await h.service.state.verifyAccessToken(tokens.id_token!))?.nonce).toBe("n-1");
    await expectCode(exchange({ code_verifier: verifier }), "FAILED_PRECONDITION");

    const again = await h.service.state.issueAuthorizationCode({ userId, codeChallenge: challenge });
    await expectCode(h.call("oauthToken", { grant_type: "authorization_code", code: again, code_verifier: "wrong" }, anonymous), "FAILED_PRECONDITION");
  });

  it("token exchange of a user token issued to a client keeps the subject and names the client as actor", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const { client, client_secret } = await h.call("createClient", { name: "api", allowed_scopes: ["read"] });
    const code = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, scope: ["openid", "read"] });
    const issued = await h.call("oauthToken", { grant_type: "authorization_code", code, client_id: client.client_id, client_secret }, anonymous);
    const exchanged = await h.call(
      "oauthToken",
      { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: issued.access_token, subject_token_type: TOKEN_TYPE_ACCESS, client_id: client.client_id, client_secret, scope: "openid" },
      anonymous,
    );
    expect(exchanged.issued_token_type).toBe(TOKEN_TYPE_ACCESS);
    expect(await h.service.state.verifyAccessToken(exchanged.access_token)).toMatchObject({ sub: userId, act: { sub: client.client_id }, scope: "openid" });
    await expectCode(h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: issued.access_token }, anonymous), "UNAUTHENTICATED");
    await h.call("logout", {}, { bearer: issued.access_token });
    // The exchanged token belongs to the same session and ends with it.
    expect(await h.service.state.verifyAccessToken(exchanged.access_token)).toBeNull();
  });

  it("a client cannot re-issue a token it was not given, nor for an audience of its choosing", async () => {
    const h = createHarness();
    const { accessToken } = await signUp(h, "alice@example.com");
    const { client, client_secret } = await h.call("createClient", { name: "api", allowed_scopes: ["read"] });
    const authenticated = { client_id: client.client_id, client_secret };
    // The service's own sign-in token is not the client's to exchange.
    const borrowed = await expectCode(
      h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: accessToken, subject_token_type: TOKEN_TYPE_ACCESS, ...authenticated }, anonymous),
      "FAILED_PRECONDITION",
    );
    expect([borrowed.message, borrowed.oauthError]).toEqual(["subject_token was not issued to this client", "invalid_grant"]);
    // No token for an audience the service does not know, by any grant.
    const elsewhere = await expectCode(h.call("oauthToken", { grant_type: "client_credentials", resource: "https://evil.example.com", ...authenticated }, anonymous), "INVALID_ARGUMENT");
    expect(elsewhere.oauthError).toBe("invalid_target");
    const ownAudience = await h.call("oauthToken", { grant_type: "client_credentials", resource: client.client_id, ...authenticated }, anonymous);
    expect(ownAudience.access_token).toBeTruthy();
  });

  it("a refresh token used twice ends its whole session, for both holders", async () => {
    const h = createHarness();
    const { refreshToken } = await signUp(h, "alice@example.com");
    const rotated = await h.call("oauthToken", { grant_type: "refresh_token", refresh_token: refreshToken }, anonymous);
    expect(await h.service.serverOptions.verifyUserToken(rotated.access_token)).not.toBeNull();
    // The first token again: a copy is in someone else's hands.
    const replay = await expectCode(h.call("oauthToken", { grant_type: "refresh_token", refresh_token: refreshToken }, anonymous), "FAILED_PRECONDITION");
    expect(replay.message).toBe("the refresh token was used already; its session is ended");
    expect(await h.service.serverOptions.verifyUserToken(rotated.access_token)).toBeNull();
    await expectCode(h.call("oauthToken", { grant_type: "refresh_token", refresh_token: rotated.refresh_token! }, anonymous), "FAILED_PRECONDITION");
  });

  it("oauth_revoke of a refresh token ends its grant; revoke (user op) drops one refresh token", async () => {
    const h = createHarness();
    const { accessToken, refreshToken } = await signUp(h, "alice@example.com");
    const other = await h.call("login", { email: "alice@example.com", password: "correct-horse-1" });
    await h.call("revoke", { refresh_token: other.refresh_token! }, { bearer: accessToken });
    expect((await h.call("validateJWTToken", { token_type: "refresh_token", token: other.refresh_token! })).is_valid).toBe(false);
    await expectCode(h.call("revoke", { refresh_token: other.refresh_token! }, { bearer: accessToken }), "NOT_FOUND");

    expect(await h.call("oauthRevoke", { token: refreshToken, token_type_hint: "refresh_token" }, anonymous)).toEqual({});
    expect(await h.service.serverOptions.verifyUserToken(accessToken)).toBeNull();
  });
});

describe("meta and permissions", () => {
  it("meta answers the version and feature flags", async () => {
    const h = createHarness({ features: { is_fga_enabled: false } });
    expect(await h.call("meta", {}, anonymous)).toMatchObject({ version: schema.version, client_id: "reference", is_fga_enabled: false, is_sign_up_enabled: true });
  });

  it("check_permissions answers from the tuples, for the signed-in user or a given subject", async () => {
    const h = createHarness();
    const { userId, accessToken } = await signUp(h, "alice@example.com");
    await h.call("fgaWriteTuples", {
      tuples: [
        { user: `user:${userId}`, relation: "member", object: "group:eng" },
        { user: "group:eng#member", relation: "viewer", object: "doc:roadmap" },
        { user: "user:*", relation: "viewer", object: "doc:handbook" },
      ],
    });
    const checks = [
      { relation: "viewer", object: "doc:roadmap" },
      { relation: "editor", object: "doc:roadmap" },
      { relation: "viewer", object: "doc:handbook" },
    ];
    const mine = await h.call("checkPermissions", { checks }, { bearer: accessToken });
    expect(mine.results.map((r) => r.allowed)).toEqual([true, false, true]);
    const someone = await h.call("checkPermissions", { checks, user: "user:bob" }, { bearer: accessToken });
    expect(someone.results.map((r) => r.allowed)).toEqual([false, false, true]);
    // "" is a subject too (one that holds no relation), not "the signed-in user".
    const nobody = await h.call("checkPermissions", { checks, user: "" }, { bearer: accessToken });
    expect(nobody.results.map((r) => r.allowed)).toEqual([false, false, false]);
  });
});
