// What every group of operations shares: storage, clock, ids, configuration, the outbox of
// messages the service sends, and small helpers for errors and pages.
import type { KeyObject } from "node:crypto";
import type { JSONWebKeySet } from "jose";
import { ServiceError } from "../generated/server/index.js";
import type { Meta, PaginationInput, Pagination, TrustedIssuer } from "../generated/types.js";
import type { PasswordHashCost, RandomSource } from "./secrets.js";
import type { Collection, ListOptions, Storage, Where } from "./storage.js";

/** The feature flags of Meta and AdminMeta. */
export type FeatureFlags = Omit<Meta, "version" | "client_id">;

export const DEFAULT_FEATURES: FeatureFlags = {
  // No mail server stands behind the reference service, so sign-ups are usable at once.
  is_email_verification_enabled: false,
  is_basic_authentication_enabled: true,
  is_magic_link_login_enabled: true,
  is_sign_up_enabled: true,
  is_strong_password_enabled: false,
  is_multi_factor_auth_enabled: true,
  is_mobile_basic_authentication_enabled: true,
  is_phone_verification_enabled: false,
  is_organizations_enabled: true,
  is_org_sso_enabled: true,
  is_fga_enabled: true,
  is_saml_idp_enabled: true,
  is_scim_enabled: true,
};

export interface ReferenceConfig {
  version: string;
  /** The service's own (public) client id, reported by meta and used as the audience of ID tokens. */
  clientId: string;
  /** Base URL of the service: the `iss` of every token it signs. */
  issuer: string;
  grpcPort: number;
  orgAdminRole: string;
  features: FeatureFlags;
  /** How long a rotated-away client secret keeps working. */
  clientSecretGraceSeconds: number;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  sessionSeconds: number;
  verificationSeconds: number;
  otpSeconds: number;
  /**
   * Codes (emailed tokens, one-time passwords) that forgot_password, resend_otp and
   * resend_verify_email send to one account, and to one phone number, within
   * codeSendWindowSeconds; beyond it they send nothing until the window ends.
   */
  codeSendLimit: number;
  codeSendWindowSeconds: number;
  /** scrypt cost of new password hashes (and of older ones, at their next sign-in). */
  passwordHashCost: PasswordHashCost;
  /** Started without --admin-secret: admin_signup stores the first admin's secret. */
  adminBootstrap: boolean;
  /** Roles a user may ask for at sign-up, and those given when none are asked for. */
  allowedRoles: string[];
  defaultRoles: string[];
}

/** A message the service sends to a user (an email or an SMS). */
export interface OutgoingMessage {
  channel: "email" | "sms";
  to: string;
  subject: string;
  purpose: string;
  /** The verification token or one-time password the message carries. */
  secret: string;
  sentAt: number;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookAnswer {
  status: number;
  body: string;
}

export type DnsResolver = (name: string) => Promise<string[][]>;
export type JwksResolver = (issuer: TrustedIssuer) => Promise<JSONWebKeySet>;
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookAnswer>;
export type MessageSender = (message: OutgoingMessage) => Promise<void>;
/** A new RSA key pair (SAML IdP signing keys). */
export type RsaKeyPairSource = () => Promise<{ privateKey: KeyObject; publicKey: KeyObject }>;

export interface Core {
  readonly storage: Storage;
  readonly config: ReferenceConfig;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  readonly newId: () => string;
  /** Random bytes of generated secrets, tokens, challenges, one-time passwords and certificate serials. */
  readonly random: RandomSource;
  readonly newRsaKeyPair: RsaKeyPairSource;
  readonly dnsResolver: DnsResolver;
  readonly jwksResolver: JwksResolver;
  readonly webhookSender: WebhookSender;
  readonly sendMessage: MessageSender;
}

export const nowSeconds = (core: Core) => Math.floor(core.clock() / 1000);

// ---- errors (messages name kinds and fields, never a value the caller sent) ----

export const notFound = (kind: string) => new ServiceError("NOT_FOUND", `${kind} not found`);
export const alreadyExists = (message: string) => new ServiceError("ALREADY_EXISTS", message);
export const refused = (message: string) => new ServiceError("FAILED_PRECONDITION", message);
export const invalid = (field: string, message: string) => new ServiceError("INVALID_ARGUMENT", `${field}: ${message}`, field);

export async function mustGet<T>(collection: { get(key: string): Promise<T | undefined> }, kind: string, id: string): Promise<T> {
  const record = await collection.get(id);
  if (record === undefined) throw notFound(kind);
  return record;
}

/** Stores a changed `record` over the one read before; NOT_FOUND when it was deleted meanwhile (a change never brings it back). */
export async function mustUpdate<T>(collection: { update(record: T, previous?: T): Promise<boolean> }, kind: string, record: T, previous?: T): Promise<void> {
  if (!(await collection.update(record, previous))) throw notFound(kind);
}

/** Deletes record `id` (NOT_FOUND when there is none) and says so. */
export async function removeRecord(collection: { get(key: string): Promise<unknown>; delete(key: string): Promise<boolean> }, kind: string, id: string): Promise<{ message: string }> {
  await mustGet(collection, kind, id);
  await collection.delete(id);
  return { message: `${kind} ${id} deleted` };
}

/** Saves `record` with `changes` applied (applyChanges) and a new updated_at; answers what was saved. */
export async function saveChanges<T extends { updated_at: number }>(
  core: Core,
  collection: { update(record: T, previous?: T): Promise<boolean> },
  kind: string,
  record: T,
  changes: Partial<Record<keyof T, unknown>>,
): Promise<T> {
  const next = applyChanges(record, changes);
  next.updated_at = nowSeconds(core);
  await mustUpdate(collection, kind, next, record);
  return next;
}

// ---- pages ----

export const DEFAULT_LIMIT = 10;

/** One page of `items` computed in code (a handful per user) and the page information of field-facts.md: offset = (page - 1) * limit. */
export function paginate<T>(items: readonly T[], request: PaginationInput | null | undefined): { pagination: Pagination; items: T[] } {
  const limit = request?.limit ?? DEFAULT_LIMIT;
  const page = request?.page ?? 1;
  const offset = (page - 1) * limit;
  return { pagination: { limit, page, offset, total: items.length }, items: items.slice(offset, offset + limit) };
}

/** One page of a collection's matches, paged by the store (offset and limit in SQL, and a count). */
export async function pageOf<T, Q>(
  collection: Collection<T, Q>,
  where: Where<Q>,
  request: PaginationInput | null | undefined,
  options: Pick<ListOptions, "newestFirst"> = {},
): Promise<{ pagination: Pagination; items: T[] }> {
  const limit = request?.limit ?? DEFAULT_LIMIT;
  const page = request?.page ?? 1;
  const offset = (page - 1) * limit;
  const { items, total } = await collection.page(where, { ...options, limit, offset });
  return { pagination: { limit, page, offset, total }, items };
}

/** Applies the fields of `changes` that were given (not undefined or null) onto `record`. */
export function applyChanges<T extends object>(record: T, changes: Partial<Record<keyof T, unknown>>): T {
  const next = { ...record };
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined && value !== null && key in record) (next as Record<string, unknown>)[key] = value;
  }
  return next;
}
