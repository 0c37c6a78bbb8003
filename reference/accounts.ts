// User records and the verification requests (emailed tokens) the account flows share.
import type { JsonObject } from "../generated/types.js";
import { alreadyExists, invalid, nowSeconds, type Core } from "./core.js";
import { notify } from "./events.js";
import { randomToken, sha256 } from "./secrets.js";
import type { UserRecord, VerificationPurpose, VerificationRecord } from "./storage.js";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function userByEmail(core: Core, email: string): Promise<UserRecord | undefined> {
  const wanted = normalizeEmail(email);
  return core.storage.users.find({ email: wanted });
}

export async function userByPhone(core: Core, phone: string): Promise<UserRecord | undefined> {
  return core.storage.users.find({ phone_number: phone });
}

export async function assertEmailFree(core: Core, email: string, exceptUserId?: string): Promise<void> {
  const owner = await userByEmail(core, email);
  if (owner && owner.id !== exceptUserId) throw alreadyExists("a user with this email already exists");
}

export async function assertPhoneFree(core: Core, phone: string, exceptUserId?: string): Promise<void> {
  const owner = await userByPhone(core, phone);
  if (owner && owner.id !== exceptUserId) throw alreadyExists("a user with this phone number already exists");
}

export interface NewUser {
  email?: string | null;
  phone_number?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  gender?: string | null;
  birthdate?: string | null;
  picture?: string | null;
  app_data?: JsonObject | null;
  roles: string[];
  signup_method: string;
  password_hash: string | null;
  email_verified: boolean;
}

export function newUserRecord(core: Core, fields: NewUser): UserRecord {
  const now = nowSeconds(core);
  return {
    id: core.newId(),
    email: fields.email ? normalizeEmail(fields.email) : null,
    email_verified: fields.email_verified,
    signup_methods: fields.signup_method,
    given_name: fields.given_name ?? null,
    family_name: fields.family_name ?? null,
    middle_name: fields.middle_name ?? null,
    nickname: fields.nickname ?? null,
    preferred_username: fields.email ? normalizeEmail(fields.email) : (fields.phone_number ?? null),
    gender: fields.gender ?? null,
    birthdate: fields.birthdate ?? null,
    phone_number: fields.phone_number ?? null,
    phone_number_verified: false,
    picture: fields.picture ?? null,
    roles: fields.roles,
    created_at: now,
    updated_at: now,
    revoked_timestamp: null,
    is_multi_factor_auth_enabled: false,
    app_data: fields.app_data ?? null,
    password_hash: fields.password_hash,
  };
}

/** Adds a sign-up method to the comma-separated list a user carries. */
export function withSignupMethod(user: UserRecord, method: string): string {
  const methods = user.signup_methods.split(",").filter(Boolean);
  return methods.includes(method) ? user.signup_methods : [...methods, method].join(",");
}

/**
 * The strong-password rule, which applies only while the feature is on (a business rule: lengths
 * and the confirmation are the manifest's, checked before any handler runs).
 */
export function checkPasswordStrength(core: Core, password: string, field = "password"): void {
  if (core.config.features.is_strong_password_enabled && !(/[a-z]/.test(password) && /[A-Z]/.test(password) && /\d/.test(password) && /[^A-Za-z0-9]/.test(password))) {
    throw invalid(field, "must hold a lower-case letter, an upper-case letter, a digit and a symbol");
  }
}

const SUBJECTS: Record<VerificationPurpose, string> = {
  basic_auth_signup: "Verify your email address",
  magic_link_login: "Your sign-in link",
  forgot_password: "Reset your password",
  invite_member: "You are invited",
  update_email: "Verify your new email address",
};

/**
 * Replaces any pending request of the same purpose for the user with a new one and emails its
 * token. Only the token's hash is stored.
 */
export async function sendVerification(
  core: Core,
  user: UserRecord,
  purpose: VerificationPurpose,
  options: { email?: string; redirectUri?: string | null; nonce?: string | null } = {},
): Promise<void> {
  const email = options.email ?? user.email;
  if (!email) return;
  await core.storage.verificationRequests.deleteWhere({ user_id: user.id, purpose });
  const token = randomToken("vt_", core.random);
  const now = nowSeconds(core);
  const request: VerificationRecord = {
    id: core.newId(),
    identifier: purpose,
    email,
    expires: now + core.config.verificationSeconds,
    created_at: now,
    updated_at: now,
    nonce: options.nonce ?? null,
    redirect_uri: options.redirectUri ?? null,
    token_hash: sha256(token),
    purpose,
    user_id: user.id,
  };
  await core.storage.verificationRequests.put(request);
  await notify(core, { channel: "email", to: email, purpose, secret: token, subject: SUBJECTS[purpose] });
}

/** The pending, unexpired request a token belongs to, if its purpose is one of `purposes`. */
export async function pendingVerification(core: Core, token: string, purposes: readonly VerificationPurpose[]): Promise<VerificationRecord | undefined> {
  const hash = sha256(token);
  const request = await core.storage.verificationRequests.find({ token_hash: hash });
  if (!request || !purposes.includes(request.purpose)) return undefined;
  if (request.expires <= nowSeconds(core)) {
    await core.storage.verificationRequests.delete(request.id);
    return undefined;
  }
  return request;
}
