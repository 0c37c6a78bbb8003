// User operations: sign-up, sign-in (password, magic link, one-time passwords), sessions, profile,
// password reset, token and session validation, metadata and permission checks.
import { ServiceError, type CallContext } from "../../generated/server/index.js";
import type { AuthResponse } from "../../generated/types.js";
import {
  assertEmailFree,
  assertPhoneFree,
  checkPasswordStrength,
  newUserRecord,
  normalizeEmail,
  pendingVerification,
  sendVerification,
  userByEmail,
  userByPhone,
  withSignupMethod,
} from "../accounts.js";
import { applyChanges, invalid, nowSeconds, refused, type Core, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { notify } from "../events.js";
import { hashCostDiffers, hashPassword, randomOtp, sha256, sameDigest, verifyPassword } from "../secrets.js";
import { grantedRoles, USER_SESSION_COOKIE } from "../sessions.js";
import type { OtpPurpose, UserRecord, VerificationPurpose } from "../storage.js";
import type { ServiceClaims } from "../tokens.js";
import { publicUser } from "../views.js";
import { FgaEngine } from "../fga.js";

/** The user role that may check another user's permissions (check_permissions with `user`). */
export const PERMISSIONS_ADMIN_ROLE = "admin";

const MAX_OTP_ATTEMPTS = 5;
/** How recent a sign-in must be to change the email address of an account without a password. */
const RECENT_SIGN_IN_SECONDS = 10 * 60;
const BAD_CREDENTIALS = "wrong email, phone number or password";

const noTokens = (message: string, user: UserRecord | null, screens: Partial<AuthResponse> = {}): AuthResponse => ({
  message,
  access_token: null,
  id_token: null,
  refresh_token: null,
  expires_in: null,
  user: user ? publicUser(user) : null,
  should_show_email_otp_screen: false,
  should_show_mobile_otp_screen: false,
  should_show_totp_screen: false,
  ...screens,
});

function assertNotRevoked(user: UserRecord): void {
  if (user.revoked_timestamp !== null) throw new ServiceError("PERMISSION_DENIED", "access of this user has been revoked");
}

async function issueOtp(core: Core, user: UserRecord, purpose: OtpPurpose, channel: "email" | "sms"): Promise<void> {
  await core.storage.otps.deleteWhere({ user_id: user.id, purpose });
  const otp = randomOtp(6, core.random);
  const now = nowSeconds(core);
  await core.storage.otps.put({ id: core.newId(), user_id: user.id, purpose, otp_hash: sha256(otp), attempts: 0, created_at: now, expires_at: now + core.config.otpSeconds });
  const to = channel === "email" ? user.email : user.phone_number;
  if (to) await notify(core, { channel, to, purpose: "verify_otp", secret: otp, subject: "Your one-time password" });
}

/** Wrong guesses at one account within GUESS_WINDOW_SECONDS that lock it until the window ends. */
export const MAX_ACCOUNT_GUESSES = 10;
export const GUESS_WINDOW_SECONDS = 15 * 60;

/** Refuses while `key` (an account's name or id) has used up its guesses; the same for a name nobody has. */
async function assertGuessesLeft(core: Core, key: string): Promise<void> {
  const counter = await core.storage.guessCounters.get(key);
  const now = nowSeconds(core);
  if (!counter || counter.failures < MAX_ACCOUNT_GUESSES || now - counter.window_started >= GUESS_WINDOW_SECONDS) return;
  const retryAfter = counter.window_started + GUESS_WINDOW_SECONDS - now;
  throw new ServiceError("TOO_MANY_REQUESTS", `too many wrong guesses for this account; try again in ${retryAfter} s`, undefined, undefined, retryAfter);
}

/** Counts one wrong guess at `key`; a window that has ended starts again. */
async function countWrongGuess(core: Core, key: string): Promise<void> {
  const counter = await core.storage.guessCounters.get(key);
  const now = nowSeconds(core);
  const fresh = !counter || now - counter.window_started >= GUESS_WINDOW_SECONDS;
  await core.storage.guessCounters.put({ key, failures: fresh ? 1 : counter.failures + 1, window_started: fresh ? now : counter.window_started });
}

/** The budgets a code sent to `user` draws on: the account's, and the phone number's when it is sent there. */
const codeSendKeys = (user: UserRecord, phoneNumber?: string | null) => [`sends:account:${user.id}`, ...(phoneNumber ? [`sends:phone:${phoneNumber}`] : [])];

/**
 * Takes one code send from every budget of `keys` (stored with the guess counters, so replicas
 * share them): at most codeSendLimit per codeSendWindowSeconds, since each re-sent code would
 * otherwise bring its own tries. False, with nothing counted, when one of them is used up.
 */
async function takeCodeSend(core: Core, keys: readonly string[]): Promise<boolean> {
  const { codeSendLimit, codeSendWindowSeconds } = core.config;
  const now = nowSeconds(core);
  const counters = await Promise.all(
    keys.map(async (key) => {
      const counter = await core.storage.guessCounters.get(key);
      return { key, counter: counter && now - counter.window_started < codeSendWindowSeconds ? counter : undefined };
    }),
  );
  if (counters.some(({ counter }) => counter && counter.failures >= codeSendLimit)) return false;
  for (const { key, counter } of counters) {
    await core.storage.guessCounters.put({ key, failures: (counter?.failures ?? 0) + 1, window_started: counter?.window_started ?? now });
  }
  return true;
}

/**
 * Uses up a matching one-time password of the user. Wrong guesses count toward a limit per code
 * and per account across every code re-issued (a new code does not bring new guesses).
 */
async function consumeOtp(core: Core, user: UserRecord, purposes: readonly OtpPurpose[], otp: string): Promise<OtpPurpose | null> {
  const accountKey = `codes:${user.id}`;
  await assertGuessesLeft(core, accountKey);
  const record = await core.storage.otps.find({ user_id: user.id, purpose: { in: purposes } });
  if (!record) return null;
  if (record.expires_at <= nowSeconds(core) || record.attempts >= MAX_OTP_ATTEMPTS) {
    await core.storage.otps.delete(record.id);
    return null;
  }
  if (!sameDigest(sha256(otp), record.otp_hash)) {
    await core.storage.otps.update({ ...record, attempts: record.attempts + 1 });
    await countWrongGuess(core, accountKey);
    return null;
  }
  await core.storage.otps.delete(record.id);
  await core.storage.guessCounters.delete(accountKey);
  return record.purpose;
}

export function accountOperations({
  core,
  tokens,
  sessions,
  events,
}: Deps): Operations<
  | "signup"
  | "login"
  | "magicLinkLogin"
  | "logout"
  | "session"
  | "profile"
  | "updateProfile"
  | "verifyEmail"
  | "resendVerifyEmail"
  | "forgotPassword"
  | "resetPassword"
  | "revoke"
  | "verifyOTP"
  | "resendOTP"
  | "meta"
  | "validateJWTToken"
  | "validateSession"
  | "checkPermissions"
> {
  const { storage, config } = core;
  const features = config.features;
  const fga = new FgaEngine(core);
  // Unknown users are checked against this hash too, so timing does not tell which emails exist.
  let decoyHash: Promise<string> | undefined;

  /** A password proven right but stored at another cost is stored again at the configured one. */
  async function rehashIfCostChanged(user: UserRecord, password: string): Promise<void> {
    if (!user.password_hash || !hashCostDiffers(user.password_hash, config.passwordHashCost)) return;
    const passwordHash = await hashPassword(password, config.passwordHashCost);
    const current = await storage.users.get(user.id);
    // Unless the password changed meanwhile: then the newer hash stays.
    if (current && current.password_hash === user.password_hash) await storage.users.update({ ...current, password_hash: passwordHash });
  }

  /** The verified claims of the bearer token the runtime accepted for this call. */
  async function currentClaims(context: CallContext): Promise<ServiceClaims> {
    const header = context.headers["authorization"] ?? "";
    const claims = header.toLowerCase().startsWith("bearer ") ? await tokens.verify(header.slice(7).trim()) : null;
    if (!claims || claims.sid === undefined) throw new ServiceError("UNAUTHENTICATED", "the bearer token is not a valid user access token");
    return claims;
  }

  async function currentUser(context: CallContext): Promise<UserRecord> {
    const principal = context.principal;
    const user = principal.kind === "user" ? await storage.users.get(principal.userId) : undefined;
    if (!user) throw new ServiceError("UNAUTHENTICATED", "no signed-in user");
    return user;
  }

  const signedIn = async (user: UserRecord, context: CallContext, message: string, request: { roles?: string[] | null; scope?: string[] | null; state?: string | null } = {}) => {
    const answer = await sessions.authResponse(user, { roles: request.roles, scope: request.scope, nonce: request.state, context }, message);
    events.emit("user.login", { user: publicUser(user) });
    return answer;
  };

  return {
    async signup(input, context) {
      if (!features.is_sign_up_enabled) throw refused("sign-up is disabled");
      if (input.email && !features.is_basic_authentication_enabled) throw refused("sign-up with email and password is disabled");
      if (!input.email && !features.is_mobile_basic_authentication_enabled) throw refused("sign-up with phone number and password is disabled");
      checkPasswordStrength(core, input.password);
      const roles = input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : [...config.defaultRoles];
      const notAllowed = roles.filter((role) => !config.allowedRoles.includes(role));
      if (notAllowed.length > 0) throw invalid("roles", `not allowed at sign-up: ${notAllowed.join(", ")}`);
      const passwordHash = await hashPassword(input.password, config.passwordHashCost);
      // Checked after the slow hash, right before the write, so two sign-ups cannot both pass.
      if (input.email) await assertEmailFree(core, input.email);
      if (input.phone_number) await assertPhoneFree(core, input.phone_number);

      const verifyEmail = Boolean(input.email) && features.is_email_verification_enabled;
      const user = newUserRecord(core, {
        ...input,
        roles,
        signup_method: input.email ? "basic_auth" : "mobile_basic_auth",
        password_hash: passwordHash,
        // Verified only by proof (a verification link, a magic link); never by saying so.
        email_verified: false,
      });
      await storage.users.put(user);
      events.emit("user.signup", { user: publicUser(user) });

      if (verifyEmail) {
        await sendVerification(core, user, "basic_auth_signup", { redirectUri: input.redirect_uri ?? null, nonce: input.state ?? null });
        return noTokens("signed up; verify the email address to sign in", user);
      }
      if (!input.email && features.is_phone_verification_enabled) {
        await issueOtp(core, user, "verify_phone", "sms");
        return noTokens("signed up; enter the one-time password sent to the phone number", user, { should_show_mobile_otp_screen: true });
      }
      return signedIn(user, context, "signed up", input);
    },

    async login(input, context) {
      if (input.email && !features.is_basic_authentication_enabled) throw refused("sign-in with email and password is disabled");
      if (!input.email && !features.is_mobile_basic_authentication_enabled) throw refused("sign-in with phone number and password is disabled");
      // Counted by the name signed in with, whether an account has it or not: the answers (and the
      // scrypt of a decoy hash) are the same for both.
      const guessKey = `password:${input.email ? normalizeEmail(input.email) : input.phone_number!}`;
      await assertGuessesLeft(core, guessKey);
      const user = input.email ? await userByEmail(core, input.email) : await userByPhone(core, input.phone_number!);
      const passwordOk = user?.password_hash
        ? await verifyPassword(input.password, user.password_hash)
        : await verifyPassword(input.password, await (decoyHash ??= hashPassword("decoy", config.passwordHashCost)));
      if (!user || !passwordOk) {
        await countWrongGuess(core, guessKey);
        throw new ServiceError("UNAUTHENTICATED", BAD_CREDENTIALS);
      }
      await core.storage.guessCounters.delete(guessKey);
      assertNotRevoked(user);
      await rehashIfCostChanged(user, input.password);
      if (input.email && features.is_email_verification_enabled && !user.email_verified) throw refused("the email address is not verified yet");
      grantedRoles(user, input.roles);
      if (features.is_multi_factor_auth_enabled && user.is_multi_factor_auth_enabled) {
        const channel = input.email ? "email" : "sms";
        await issueOtp(core, user, "login", channel);
        return noTokens("enter the one-time password that was sent", null, channel === "email" ? { should_show_email_otp_screen: true } : { should_show_mobile_otp_screen: true });
      }
      return signedIn(user, context, "logged in", input);
    },

    async magicLinkLogin(input) {
      if (!features.is_magic_link_login_enabled) throw refused("magic link login is disabled");
      const answer = { message: "if the address can sign in, a sign-in link was sent to it" };
      let user = await userByEmail(core, input.email);
      if (!user) {
        if (!features.is_sign_up_enabled) return answer;
        user = newUserRecord(core, { email: input.email, roles: [...config.defaultRoles], signup_method: "magic_link_login", password_hash: null, email_verified: false });
        await storage.users.put(user);
        events.emit("user.signup", { user: publicUser(user) });
      }
      if (user.revoked_timestamp !== null) return answer;
      await sendVerification(core, user, "magic_link_login", { redirectUri: input.redirect_uri ?? null, nonce: input.state ?? null });
      return answer;
    },

    async logout(_input, context) {
      const claims = await currentClaims(context);
      await sessions.end(claims.sid!);
      context.setCookie(USER_SESSION_COOKIE, "", { maxAgeSeconds: 0 });
      return { message: "logged out" };
    },

    async session(input, context) {
      const claims = await currentClaims(context);
      const session = await storage.sessions.get(claims.sid!);
      const user = await currentUser(context);
      if (!session) throw new ServiceError("UNAUTHENTICATED", "the session has ended");
      const roles = grantedRoles(user, input.roles);
      const outside = roles.filter((role) => !session.roles.includes(role));
      if (outside.length > 0) throw new ServiceError("PERMISSION_DENIED", `roles not granted to this session: ${outside.join(", ")}`, "roles");
      const scope = input.scope && input.scope.length > 0 ? [...input.scope] : session.scope;
      const fresh = await sessions.tokensFor(user, { ...session, roles }, scope, claims.client_id ?? null, input.state ?? null);
      return { message: "session", access_token: fresh.access_token, id_token: fresh.id_token, refresh_token: fresh.refresh_token, expires_in: fresh.expires_in, user: publicUser(user) };
    },

    async profile(_input, context) {
      return publicUser(await currentUser(context));
    },

    async updateProfile(input, context) {
      const user = await currentUser(context);
      const notes: string[] = [];
      let next: UserRecord = applyChanges(user, {
        given_name: input.given_name,
        family_name: input.family_name,
        middle_name: input.middle_name,
        nickname: input.nickname,
        gender: input.gender,
        birthdate: input.birthdate,
        picture: input.picture,
        app_data: input.app_data,
      });
      if (input.new_password || input.confirm_new_password) {
        if (user.password_hash && !(await verifyPassword(input.old_password ?? "", user.password_hash))) throw invalid("old_password", "does not match the current password");
        checkPasswordStrength(core, input.new_password!, "new_password");
        next.password_hash = await hashPassword(input.new_password!, config.passwordHashCost);
        next.signup_methods = withSignupMethod(next, "basic_auth");
        // Other sessions may have been opened with the old password.
        const current = await currentClaims(context);
        for (const other of await storage.sessions.list(current.sid === undefined ? { user_id: user.id } : { user_id: user.id, id: { ne: current.sid } })) await sessions.end(other.id);
        notes.push("password changed");
      }
      if (input.is_multi_factor_auth_enabled !== undefined && input.is_multi_factor_auth_enabled !== null) {
        if (input.is_multi_factor_auth_enabled && !features.is_multi_factor_auth_enabled) throw refused("multi-factor authentication is disabled");
        next.is_multi_factor_auth_enabled = input.is_multi_factor_auth_enabled;
      }
      if (input.phone_number && input.phone_number !== user.phone_number) {
        await assertPhoneFree(core, input.phone_number, user.id);
        next = { ...next, phone_number: input.phone_number, phone_number_verified: false };
      }
      if (input.email && normalizeEmail(input.email) !== user.email) {
        // A stolen access token alone must not take the account over by its email: the password,
        // or (for an account without one) a sign-in of the last RECENT_SIGN_IN_SECONDS.
        if (user.password_hash) {
          if (!(await verifyPassword(input.old_password ?? "", user.password_hash))) throw invalid("old_password", "is required to change the email address and must match the current password");
        } else {
          const session = await storage.sessions.get((await currentClaims(context)).sid!);
          if (!session || nowSeconds(core) - session.created_at > RECENT_SIGN_IN_SECONDS) {
            throw refused(`changing the email address needs a sign-in within the last ${RECENT_SIGN_IN_SECONDS / 60} minutes; sign in again`);
          }
        }
        await assertEmailFree(core, input.email, user.id);
        if (features.is_email_verification_enabled) {
          // The new address takes effect once it is verified.
          await sendVerification(core, user, "update_email", { email: normalizeEmail(input.email) });
          notes.push("a verification email was sent to the new address");
        } else {
          // Nothing proves the new address yet.
          next = { ...next, email: normalizeEmail(input.email), email_verified: false };
        }
      }
      next.updated_at = nowSeconds(core);
      await mustUpdate(storage.users, "user", next);
      return { message: ["profile updated", ...notes].join("; ") };
    },

    async verifyEmail(input, context) {
      const request = await pendingVerification(core, input.token, ["basic_auth_signup", "magic_link_login", "update_email"]);
      const user = request && (await storage.users.get(request.user_id));
      if (!request || !user) throw invalid("token", "is not valid or has expired");
      assertNotRevoked(user);
      if (request.purpose === "update_email") {
        await assertEmailFree(core, request.email!, user.id);
        user.email = request.email;
      }
      user.email_verified = true;
      if (request.purpose === "magic_link_login") user.signup_methods = withSignupMethod(user, "magic_link_login");
      user.updated_at = nowSeconds(core);
      await mustUpdate(storage.users, "user", user);
      await storage.verificationRequests.delete(request.id);
      return signedIn(user, context, "email verified", { state: input.state ?? request.nonce });
    },

    async resendVerifyEmail(input) {
      const purpose = input.identifier as VerificationPurpose;
      const email = normalizeEmail(input.email);
      const pending = await storage.verificationRequests.find({ purpose, email });
      const user = pending && (await storage.users.get(pending.user_id));
      // Over the cap nothing is sent, and the answer stays the one that does not tell whether anything was pending.
      if (pending && user && (await takeCodeSend(core, codeSendKeys(user)))) {
        await sendVerification(core, user, purpose, { email, redirectUri: pending.redirect_uri, nonce: input.state ?? pending.nonce });
      }
      return { message: "if a verification is pending for this address, it was sent again" };
    },

    async forgotPassword(input) {
      // Over the cap the account is treated as an unknown one: the same answer, nothing sent.
      if (input.email) {
        const user = await userByEmail(core, input.email);
        if (user && user.revoked_timestamp === null && (await takeCodeSend(core, codeSendKeys(user)))) {
          await sendVerification(core, user, "forgot_password", { redirectUri: input.redirect_uri ?? null, nonce: input.state ?? null });
        }
        return { message: "if an account uses this address, a reset link was sent to it", should_show_mobile_otp_screen: false };
      }
      const user = await userByPhone(core, input.phone_number!);
      if (user && user.revoked_timestamp === null && (await takeCodeSend(core, codeSendKeys(user, input.phone_number)))) await issueOtp(core, user, "reset_password", "sms");
      return { message: "if an account uses this phone number, a one-time password was sent to it", should_show_mobile_otp_screen: true };
    },

    async resetPassword(input) {
      checkPasswordStrength(core, input.password);
      let user: UserRecord | undefined;
      if (input.token) {
        const request = await pendingVerification(core, input.token, ["forgot_password", "invite_member"]);
        user = request && (await storage.users.get(request.user_id));
        if (!request || !user) throw invalid("token", "is not valid or has expired");
        await storage.verificationRequests.delete(request.id);
        // The token arrived by email, which proves the address.
        user.email_verified = true;
      } else {
        // The manifest asks for the token or the one-time password, and the phone number with the latter.
        user = await userByPhone(core, input.phone_number!);
        if (!user || !(await consumeOtp(core, user, ["reset_password"], input.otp!))) throw invalid("otp", "is not valid or has expired");
        user.phone_number_verified = true;
      }
      assertNotRevoked(user);
      user.password_hash = await hashPassword(input.password, config.passwordHashCost);
      user.signup_methods = withSignupMethod(user, "basic_auth");
      user.updated_at = nowSeconds(core);
      await mustUpdate(storage.users, "user", user);
      await sessions.endAllOf(user.id);
      return { message: "password updated; sign in with the new password" };
    },

    async revoke(input, context) {
      const user = await currentUser(context);
      const hash = sha256(input.refresh_token);
      const record = await storage.refreshTokens.get(hash);
      if (!record || record.user_id !== user.id) throw new ServiceError("NOT_FOUND", "refresh token not found");
      await storage.refreshTokens.delete(hash);
      return { message: "refresh token revoked" };
    },

    async verifyOTP(input, context) {
      if (input.is_totp) throw refused("authenticator app (TOTP) codes are not supported by this service");
      const user = input.email ? await userByEmail(core, input.email) : await userByPhone(core, input.phone_number!);
      const purpose = user ? await consumeOtp(core, user, ["login", "verify_phone"], input.otp) : null;
      if (!user || !purpose) throw invalid("otp", "is not valid or has expired");
      assertNotRevoked(user);
      if (purpose === "verify_phone") {
        user.phone_number_verified = true;
        user.updated_at = nowSeconds(core);
        await mustUpdate(storage.users, "user", user);
      }
      return signedIn(user, context, "one-time password verified", { state: input.state });
    },

    async resendOTP(input) {
      const user = input.email ? await userByEmail(core, input.email) : await userByPhone(core, input.phone_number!);
      const pending = user && (await storage.otps.find({ user_id: user.id }));
      // Over the cap the pending code stays as it is and the answer does not change.
      if (user && pending && (await takeCodeSend(core, codeSendKeys(user, input.email ? null : input.phone_number)))) {
        await issueOtp(core, user, pending.purpose, input.email ? "email" : "sms");
      }
      return { message: "if a one-time password is pending, a new one was sent" };
    },

    async meta() {
      return { version: config.version, client_id: config.clientId, ...features };
    },

    async validateJWTToken(input) {
      const required = input.roles ?? [];
      if (input.token_type === "refresh_token") {
        const record = await storage.refreshTokens.get(sha256(input.token));
        const session = record && (await storage.sessions.get(record.session_id));
        const valid = Boolean(record && session && record.expires_at > nowSeconds(core) && required.every((role) => session.roles.includes(role)));
        return valid
          ? { is_valid: true, claims: { sub: record!.user_id, sid: record!.session_id, exp: record!.expires_at, scope: record!.scope.join(" "), token_type: "refresh_token" } }
          : { is_valid: false, claims: null };
      }
      const claims = await tokens.verify(input.token);
      const valid = claims !== null && claims.token_type === input.token_type && required.every((role) => claims.roles?.includes(role));
      return valid ? { is_valid: true, claims: JSON.parse(JSON.stringify(claims)) } : { is_valid: false, claims: null };
    },

    async validateSession(input) {
      const session = await sessions.byCookie(input.cookie);
      const user = session && (await storage.users.get(session.user_id));
      const valid = Boolean(session && user && user.revoked_timestamp === null && (input.roles ?? []).every((role) => session.roles.includes(role)));
      return valid ? { is_valid: true, user: publicUser(user!) } : { is_valid: false, user: null };
    },

    async checkPermissions(input, context) {
      const principal = context.principal;
      const own = principal.kind === "user" ? `user:${principal.userId}` : null;
      const subject = input.user ?? own;
      if (subject === null) throw invalid("user", "is required when no user is signed in");
      // What another user may do is an admin's to learn, not every user's (the contract says so).
      if (subject !== own && !(principal.kind === "user" && principal.roles.includes(PERMISSIONS_ADMIN_ROLE))) {
        throw new ServiceError("PERMISSION_DENIED", "checking another user's permissions needs the admin role", "user");
      }
      const results = [];
      for (const check of input.checks) results.push({ relation: check.relation, object: check.object, allowed: await fga.check(subject, check.relation, check.object) });
      return { results };
    },
  };
}
