// User operations and user tokens: sign-up and sign-in with hashed passwords, sessions, profile,
// revoke_access / enable_access (§3), email and OTP flows, token validation, the refresh_token and
// authorization_code grants (PKCE required of public clients), token exchange of a user token,
// revocation, and the cap on codes re-sent.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import type { Principal } from "../../runtime/server/context.js";
import { GRANT_TOKEN_EXCHANGE, TOKEN_TYPE_ACCESS } from "../../reference/ops/oauth.js";
import { USER_SESSION_COOKIE } from "../../reference/sessions.js";
import { createServer } from "../../generated/server/index.js";
import { createReferenceService, DEFAULT_CODE_SEND_LIMIT, DEFAULT_CODE_SEND_WINDOW_SECONDS } from "../../reference/service.js";
import { DEFAULT_PASSWORD_HASH_COST } from "../../reference/secrets.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";
import { testStorage } from "../helpers/test-storage.js";
import { ADMIN_SECRET, createHarness, expectCode, signUp, type Harness } from "./context.js";

const anonymous: { principal: Principal } = { principal: { kind: "anonymous" } };
const lastSecret = (h: Harness, purpose?: string) => [...h.service.state.outbox].reverse().find((m) => !purpose || m.purpose === purpose)!.secret;

describe("sign-up and sign-in", () => {
  it("hashes at OWASP's scrypt cost by default, and again at the configured cost at the first sign-in that proves the password", async () => {
    expect(DEFAULT_PASSWORD_HASH_COST).toEqual({ N: 16384, r: 8, p: 5 });
    expect(createReferenceService({ storage: testStorage() }).state.config.passwordHashCost).toEqual(DEFAULT_PASSWORD_HASH_COST);
    const storage = testStorage();
    const older = createHarness({ storage, passwordHashCost: { N: 512, r: 8, p: 1 } });
    const user = (await older.call("signup", { email: "alice@example.com", password: "correct-horse-1", confirm_password: "correct-horse-1" }, anonymous)).user!;
    const storedHash = async () => (await storage.users.get(user.id))!.password_hash;
    expect(await storedHash()).toMatch(/^scrypt\$512\$8\$1\$/);

    const current = createHarness({ storage });
    await expectCode(current.call("login", { email: "alice@example.com", password: "wrong-horse-12" }, anonymous), "UNAUTHENTICATED");
    expect(await storedHash()).toMatch(/^scrypt\$512\$8\$1\$/);
    await current.call("login", { email: "alice@example.com", password: "correct-horse-1" }, anonymous);
    expect(await storedHash()).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect((await current.call("login", { email: "alice@example.com", password: "correct-horse-1" }, anonymous)).user?.id).toBe(user.id);
  });

  it("refuses a scrypt cost it cannot use, naming the option", () => {
    expect(() => createReferenceService({ passwordHashCost: { N: 1000, r: 8, p: 1 } })).toThrow("passwordHashCost: N must be a power of two of at least 2, not 1000");
    expect(() => createReferenceService({ passwordHashCost: { N: 1024, r: 0, p: 1 } })).toThrow("passwordHashCost: r and p must be whole numbers of at least 1, not r=0, p=1");
  });

  it("signs up with a hashed password and answers tokens, a session cookie and the user", async () => {
    const h = createHarness();
    const answer = await h.call("signup", { email: "Alice@Example.com", given_name: "Alice", password: "correct-horse-1", confirm_password: "correct-horse-1" }, anonymous);
    expect(answer.user).toMatchObject({ email: "alice@example.com", given_name: "Alice", email_verified: false, roles: ["user"], signup_methods: "basic_auth" });
    expect(answer.access_token).toBeTruthy();
    expect(answer.refresh_token).toMatch(/^rt_/);
    expect(answer.id_token).toBeTruthy();
    expect(h.cookiesSet.at(-1)?.name).toBe(USER_SESSION_COOKIE);

    const stored = (await h.service.state.storage.users.get(answer.user!.id))!;
    expect(stored.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain("correct-horse-1");
    expect(JSON.stringify(answer)).not.toContain("correct-horse-1");
    expect(await h.service.serverOptions.verifyUserToken(answer.access_token!)).toEqual({ userId: answer.user!.id, roles: ["user"] });
  });

  it("refuses duplicates, mismatched or short passwords, and roles not allowed at sign-up", async () => {
    const h = createHarness();
    await signUp(h, "alice@example.com");
    await expectCode(h.call("signup", { email: "ALICE@example.com", password: "another-pass", confirm_password: "another-pass" }), "ALREADY_EXISTS");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abcdefg-12345", confirm_password: "abcdefX-12345" }), "INVALID_ARGUMENT")).field).toBe("confirm_password");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abc", confirm_password: "abc" }), "INVALID_ARGUMENT")).field).toBe("password");
    expect((await expectCode(h.call("signup", { email: "b@example.com", password: "abcdefg-12345", confirm_password: "abcdefg-12345", roles: ["admin"] }), "INVALID_ARGUMENT")).field).toBe("roles");
    expect((await expectCode(h.call("signup", { password: "abcdefg-12345", confirm_password: "abcdefg-12345" }), "INVALID_ARGUMENT")).field).toBe("email");
    const closed = createHarness({ features: { is_sign_up_enabled: false } });
    await expectCode(closed.call("signup", { email: "b@example.com", password: "abcdefg-12345", confirm_password: "abcdefg-12345" }), "FAILED_PRECONDITION");
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
    const answer = await h.call("signup", { email: "alice@example.com", password: "abcdefg-12345", confirm_password: "abcdefg-12345" });
    expect(answer.access_token).toBeNull();
    expect(answer.user?.email_verified).toBe(false);
    await expectCode(h.call("login", { email: "alice@example.com", password: "abcdefg-12345" }), "FAILED_PRECONDITION");
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
    expect(
      (await expectCode(h.call("updateProfile", { old_password: "nope", new_password: "next-pass-12345", confirm_new_password: "next-pass-12345" }, { bearer: first.accessToken }), "INVALID_ARGUMENT"))
        .field,
    ).toBe("old_password");
    await h.call("updateProfile", { old_password: first.password, new_password: "next-pass-12345", confirm_new_password: "next-pass-12345", nickname: "ally" }, { bearer: first.accessToken });
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
    expect((await expectCode(h.call("oauthToken", { grant_type: "refresh_token", refresh_token: second.refresh_token!, scope: "admin" }, anonymous), "INVALID_ARGUMENT")).oauthError).toBe(
      "invalid_scope",
    );
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
    const { client, client_secret } = await h.call("createClient", { name: "api", allowed_scopes: ["read"], allow_token_exchange: true });
    expect(client.allow_token_exchange).toBe(true);
    const verifier = "a-verifier-of-at-least-43-characters-0123456789";
    const codeChallenge = createHash("sha256").update(verifier).digest("base64url");
    const code = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, scope: ["openid", "read"], codeChallenge });
    const issued = await h.call("oauthToken", { grant_type: "authorization_code", code, client_id: client.client_id, client_secret, code_verifier: verifier }, anonymous);
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
    // Allowed to exchange tokens: still only those issued to it.
    const { client, client_secret } = await h.call("createClient", { name: "api", allowed_scopes: ["read"], allow_token_exchange: true });
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

  it("token exchange is off for a client until an admin allows it (allow_token_exchange), and off again when taken back", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const { client, client_secret } = await h.call("createClient", { name: "api", allowed_scopes: ["read"] });
    expect(client.allow_token_exchange).toBe(false);
    const verifier = "a-verifier-of-at-least-43-characters-0123456789";
    const codeChallenge = createHash("sha256").update(verifier).digest("base64url");
    const code = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, scope: ["openid", "read"], codeChallenge });
    const issued = await h.call("oauthToken", { grant_type: "authorization_code", code, client_id: client.client_id, client_secret, code_verifier: verifier }, anonymous);
    const exchange = () =>
      h.call("oauthToken", { grant_type: GRANT_TOKEN_EXCHANGE, subject_token: issued.access_token, subject_token_type: TOKEN_TYPE_ACCESS, client_id: client.client_id, client_secret }, anonymous);
    const refused = await expectCode(exchange(), "PERMISSION_DENIED");
    expect([refused.oauthError, refused.message]).toEqual(["unauthorized_client", "this client may not exchange tokens; an admin can allow it (allow_token_exchange)"]);
    expect((await h.call("updateClient", { id: client.id, allow_token_exchange: true })).allow_token_exchange).toBe(true);
    expect((await exchange()).access_token).toBeTruthy();
    await h.call("updateClient", { id: client.id, allow_token_exchange: false });
    await expectCode(exchange(), "PERMISSION_DENIED");
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

describe("PKCE: required of every client (OAuth 2.1), public or registered", () => {
  const verifier = "a-long-random-code-verifier-of-the-client-0123456789";
  const challenge = createHash("sha256").update(verifier).digest("base64url");

  it("refuses an authorization request without an S256 code challenge (invalid_request), of a public or a registered client", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const { client } = await h.call("createClient", { name: "web-app", allowed_scopes: ["read"] });
    // The service's own client id and any client id nobody registered are public clients; a registered one needs PKCE too (OAuth 2.1).
    for (const clientId of [undefined, "spa-without-secret", client.client_id]) {
      const missing = await expectCode(h.service.state.issueAuthorizationCode({ userId, clientId }), "INVALID_ARGUMENT");
      expect([missing.oauthError, missing.field, missing.message]).toEqual(["invalid_request", "code_challenge", "code_challenge is required (PKCE with S256)"]);
    }
    const plain = await expectCode(h.service.state.issueAuthorizationCode({ userId, codeChallenge: verifier, codeChallengeMethod: "plain" }), "INVALID_ARGUMENT");
    expect([plain.oauthError, plain.field]).toEqual(["invalid_request", "code_challenge_method"]);
    // A verifier sent as the challenge (plain with the method left out) is not an S256 challenge.
    const notS256 = await expectCode(h.service.state.issueAuthorizationCode({ userId, codeChallenge: verifier }), "INVALID_ARGUMENT");
    expect([notS256.oauthError, notS256.field]).toEqual(["invalid_request", "code_challenge"]);
    expect(await h.service.state.storage.authorizationCodes.count()).toBe(0);
  });

  it("a public client's code exchanges with the verifier only: a wrong one is invalid_grant, none is invalid_request", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const issue = () => h.service.state.issueAuthorizationCode({ userId, clientId: "spa-without-secret", codeChallenge: challenge, codeChallengeMethod: "S256" });
    const exchange = (code: string, input: Record<string, string> = {}) => h.call("oauthToken", { grant_type: "authorization_code", code, client_id: "spa-without-secret", ...input }, anonymous);

    const wrong = await expectCode(exchange(await issue(), { code_verifier: "another-verifier-of-someone-who-stole-the-code-0123" }), "FAILED_PRECONDITION");
    expect([wrong.oauthError, wrong.message]).toEqual(["invalid_grant", "code_verifier does not match the code challenge"]);
    const none = await expectCode(exchange(await issue()), "INVALID_ARGUMENT");
    // The contract's rule (required_if), checked before the code is looked at; over HTTP it reads as invalid_request.
    expect(none.field).toBe("code_verifier");
    const tokens = await exchange(await issue(), { code_verifier: verifier });
    expect(await h.service.serverOptions.verifyUserToken(tokens.access_token)).toMatchObject({ userId });
  });

  it("refuses a stored code that has no challenge (issued before PKCE was required): invalid_grant", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const code = "ac_stored-before-pkce-was-required";
    await h.service.state.storage.authorizationCodes.put({
      code_hash: createHash("sha256").update(code).digest("hex"),
      user_id: userId,
      client_id: "reference",
      redirect_uri: null,
      scope: ["openid"],
      code_challenge: null,
      nonce: null,
      expires_at: Math.floor(h.now() / 1000) + 600,
    });
    expect(await h.service.state.storage.authorizationCodes.count()).toBe(1);
    const refused = await expectCode(h.call("oauthToken", { grant_type: "authorization_code", code, code_verifier: verifier }, anonymous), "FAILED_PRECONDITION");
    expect([refused.oauthError, refused.message]).toEqual(["invalid_grant", "the code was issued without a code challenge (PKCE)"]);
    // Used up all the same: a code is good for one try.
    expect(await h.service.state.storage.authorizationCodes.count()).toBe(0);
  });

  it("a registered client exchanges a code with its secret and the verifier; its secret alone does not stand in for the verifier", async () => {
    const h = createHarness();
    const { userId } = await signUp(h, "alice@example.com");
    const { client, client_secret } = await h.call("createClient", { name: "web-app", allowed_scopes: ["read"] });
    const code = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, scope: ["openid", "read"], codeChallenge: challenge });
    const tokens = await h.call("oauthToken", { grant_type: "authorization_code", code, client_id: client.client_id, client_secret, code_verifier: verifier }, anonymous);
    expect(await h.service.state.verifyAccessToken(tokens.access_token)).toMatchObject({ sub: userId, aud: client.client_id, scope: "openid read" });
    // The contract asks for the verifier with this grant: without it, invalid_request before any code is used up.
    const kept = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, codeChallenge: challenge });
    const none = await expectCode(h.call("oauthToken", { grant_type: "authorization_code", code: kept, client_id: client.client_id, client_secret }, anonymous), "INVALID_ARGUMENT");
    // The contract's rule (required_if), checked before the code is looked at; over HTTP it reads as invalid_request.
    expect(none.field).toBe("code_verifier");
    const withPkce = await h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, codeChallenge: challenge });
    const wrong = await expectCode(
      h.call(
        "oauthToken",
        { grant_type: "authorization_code", code: withPkce, client_id: client.client_id, client_secret, code_verifier: "wrong-verifier-0123456789-0123456789-0123456789" },
        anonymous,
      ),
      "FAILED_PRECONDITION",
    );
    expect(wrong.oauthError).toBe("invalid_grant");
    // plain is refused for registered clients too.
    await expectCode(h.service.state.issueAuthorizationCode({ userId, clientId: client.client_id, codeChallenge: verifier, codeChallengeMethod: "plain" }), "INVALID_ARGUMENT");
  });

  it("end to end over HTTP: a public client signs a user in with S256 at /oauth/token (a form), and a wrong verifier is invalid_grant", async () => {
    const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage: testStorage() });
    const server = createServer(service.implementation, { adminSecret: ADMIN_SECRET, port: 0, grpcPort: 0, ...service.serverOptions });
    try {
      const base = (await server.listen()).httpUrl;
      service.setAddresses({ issuer: base });
      const signup = await fetch(`${base}/v1/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "alice@example.com", password: "correct-horse-1", confirm_password: "correct-horse-1" }),
      });
      const userId = ((await signup.json()) as { user: { id: string } }).user.id;
      const redirectUri = "https://app.example.com/callback";
      const token = (code: string, codeVerifier: string) =>
        fetch(`${base}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: "reference", code_verifier: codeVerifier }),
        });

      await expect(service.state.issueAuthorizationCode({ userId, redirectUri })).rejects.toMatchObject({ oauthError: "invalid_request" });
      const wrong = await token(await service.state.issueAuthorizationCode({ userId, redirectUri, codeChallenge: challenge }), "not-the-verifier-0123456789-0123456789-0123456789");
      expect([wrong.status, await wrong.json()]).toEqual([400, { error: "invalid_grant", error_description: "code_verifier does not match the code challenge" }]);
      const right = await token(await service.state.issueAuthorizationCode({ userId, redirectUri, codeChallenge: challenge }), verifier);
      expect(right.status).toBe(200);
      const tokens = (await right.json()) as { access_token: string; refresh_token: string; token_type: string };
      expect(tokens).toMatchObject({ token_type: "Bearer", refresh_token: expect.stringMatching(/^rt_/) });
      const profile = await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(((await profile.json()) as { id: string }).id).toBe(userId);
    } finally {
      await server.close();
      await service.state.storage.close();
    }
  });
});

describe("code re-sends are capped per account and phone number", () => {
  const sent = (h: Harness, purpose: string) => h.service.state.outbox.filter((m) => m.purpose === purpose).length;

  it("forgot_password sends at most 5 codes an hour to an account, answering over the cap as for an unknown account", async () => {
    const h = createHarness();
    await signUp(h, "alice@example.com");
    const unknown = await h.call("forgotPassword", { email: "nobody@example.com" });
    for (let send = 0; send < 5; send++) expect(await h.call("forgotPassword", { email: "alice@example.com" })).toEqual(unknown);
    expect(sent(h, "forgot_password")).toBe(5);
    const lastSent = lastSecret(h, "forgot_password");

    h.advance(3599);
    expect(await h.call("forgotPassword", { email: "ALICE@example.com" })).toEqual(unknown);
    expect(sent(h, "forgot_password")).toBe(5);
    // Nothing was replaced either: the last link sent still works.
    await h.call("resetPassword", { token: lastSent, password: "new-password-1", confirm_password: "new-password-1" });

    h.advance(1);
    expect(await h.call("forgotPassword", { email: "alice@example.com" })).toEqual(unknown);
    expect(sent(h, "forgot_password")).toBe(6);
  });

  it("forgot_password and resend_otp by phone share one budget, of the account and of the phone number", async () => {
    const h = createHarness();
    const phone = "+15550100";
    await h.call("signup", { phone_number: phone, password: "correct-horse-1", confirm_password: "correct-horse-1" });
    const unknown = await h.call("forgotPassword", { phone_number: "+15550199" });
    for (let send = 0; send < 3; send++) expect(await h.call("forgotPassword", { phone_number: phone })).toEqual(unknown);
    const resent = await h.call("resendOTP", { phone_number: phone });
    await h.call("resendOTP", { phone_number: phone });
    expect(sent(h, "verify_otp")).toBe(5);
    expect(await h.call("forgotPassword", { phone_number: phone })).toEqual(unknown);
    expect(await h.call("resendOTP", { phone_number: phone })).toEqual(resent);
    expect(sent(h, "verify_otp")).toBe(5);
    // The last code sent still resets the password.
    await h.call("resetPassword", { phone_number: phone, otp: lastSecret(h, "verify_otp"), password: "new-password-1", confirm_password: "new-password-1" });

    // The number moves to another account (signed in again: the reset ended the sessions); its budget stays with the number.
    const { access_token } = await h.call("login", { phone_number: phone, password: "new-password-1" });
    await h.call("updateProfile", { phone_number: "+15550111" }, { bearer: access_token! });
    await h.call("signup", { phone_number: phone, password: "other-horse-1", confirm_password: "other-horse-1" });
    expect(await h.call("forgotPassword", { phone_number: phone })).toEqual(unknown);
    expect(sent(h, "verify_otp")).toBe(5);
    h.advance(3600);
    await h.call("forgotPassword", { phone_number: phone });
    expect(h.service.state.outbox.at(-1)).toMatchObject({ channel: "sms", to: phone, purpose: "verify_otp" });
    expect(sent(h, "verify_otp")).toBe(6);
  });

  it("resend_otp: over the cap the answer is unchanged, nothing is sent and the pending code stays; sending resumes after the window", async () => {
    const h = createHarness();
    const { accessToken, password } = await signUp(h, "alice@example.com");
    await h.call("updateProfile", { is_multi_factor_auth_enabled: true }, { bearer: accessToken });
    await h.call("login", { email: "alice@example.com", password });
    // The login's own code is not a re-send.
    expect(sent(h, "verify_otp")).toBe(1);
    const noneSent = await h.call("resendOTP", { email: "nobody@example.com" });
    for (let send = 0; send < 5; send++) expect(await h.call("resendOTP", { email: "alice@example.com" })).toEqual(noneSent);
    expect(sent(h, "verify_otp")).toBe(6);
    const lastSent = lastSecret(h, "verify_otp");
    expect(await h.call("resendOTP", { email: "alice@example.com" })).toEqual(noneSent);
    expect(sent(h, "verify_otp")).toBe(6);
    expect((await h.call("verifyOTP", { email: "alice@example.com", otp: lastSent })).access_token).toBeTruthy();

    h.advance(3600);
    await h.call("login", { email: "alice@example.com", password });
    await h.call("resendOTP", { email: "alice@example.com" });
    expect(sent(h, "verify_otp")).toBe(8);
    expect((await h.call("verifyOTP", { email: "alice@example.com", otp: lastSecret(h, "verify_otp") })).access_token).toBeTruthy();
  });

  it("resend_verify_email shares the account's budget with forgot_password, keeping the neutral answer; the cap and window are configurable", async () => {
    const h = createHarness({ features: { is_email_verification_enabled: true }, codeSendLimit: 3, codeSendWindowSeconds: 600 });
    expect(h.service.state.config).toMatchObject({ codeSendLimit: 3, codeSendWindowSeconds: 600 });
    await h.call("signup", { email: "alice@example.com", password: "abcdefg-12345", confirm_password: "abcdefg-12345" });
    expect(sent(h, "basic_auth_signup")).toBe(1);
    const resend = { email: "alice@example.com", identifier: "basic_auth_signup" } as const;
    const neutral = await h.call("resendVerifyEmail", { ...resend, email: "nobody@example.com" });
    await h.call("forgotPassword", { email: "alice@example.com" });
    for (let send = 0; send < 2; send++) expect(await h.call("resendVerifyEmail", resend)).toEqual(neutral);
    expect(sent(h, "basic_auth_signup")).toBe(3);
    expect(await h.call("resendVerifyEmail", resend)).toEqual(neutral);
    await h.call("forgotPassword", { email: "alice@example.com" });
    expect([sent(h, "basic_auth_signup"), sent(h, "forgot_password")]).toEqual([3, 1]);
    expect((await h.call("verifyEmail", { token: lastSecret(h, "basic_auth_signup") })).user?.email_verified).toBe(true);

    h.advance(600);
    await h.call("forgotPassword", { email: "alice@example.com" });
    expect(sent(h, "forgot_password")).toBe(2);
  });

  it("defaults to 5 codes per hour", () => {
    expect(createHarness().service.state.config).toMatchObject({ codeSendLimit: DEFAULT_CODE_SEND_LIMIT, codeSendWindowSeconds: DEFAULT_CODE_SEND_WINDOW_SECONDS });
    expect([DEFAULT_CODE_SEND_LIMIT, DEFAULT_CODE_SEND_WINDOW_SECONDS]).toEqual([5, 3600]);
  });
});

describe("meta and permissions", () => {
  it("meta answers the version and feature flags", async () => {
    const h = createHarness({ features: { is_fga_enabled: false } });
    expect(await h.call("meta", {}, anonymous)).toMatchObject({ version: schema.version, client_id: "reference", is_fga_enabled: false, is_sign_up_enabled: true });
  });

  it("check_permissions answers from the tuples, for the signed-in user, and for another subject to an admin only", async () => {
    const h = createHarness({ allowedRoles: ["user", "admin"] });
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
    expect((await h.call("checkPermissions", { checks, user: `user:${userId}` }, { bearer: accessToken })).results).toEqual(mine.results);
    // What another user may do is not every user's to learn.
    for (const user of ["user:bob", ""]) {
      const refused = await expectCode(h.call("checkPermissions", { checks, user }, { bearer: accessToken }), "PERMISSION_DENIED");
      expect([refused.field, refused.message]).toEqual(["user", "checking another user's permissions needs the admin role"]);
    }
    const answer = await h.call("signup", { email: "root@example.com", password: "correct-horse-1", confirm_password: "correct-horse-1", roles: ["admin"] });
    const admin = { bearer: answer.access_token! };
    const someone = await h.call("checkPermissions", { checks, user: "user:bob" }, admin);
    expect(someone.results.map((r) => r.allowed)).toEqual([false, false, true]);
    // "" is a subject too (one that holds no relation), not "the signed-in user".
    const nobody = await h.call("checkPermissions", { checks, user: "" }, admin);
    expect(nobody.results.map((r) => r.allowed)).toEqual([false, false, false]);
  });
});
