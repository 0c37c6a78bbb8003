// Random tokens and the hashes the service keeps instead of secrets. Passwords are low-entropy, so
// they get scrypt; generated secrets and tokens carry 256 random bits, so a salted (or, where the
// hash is the lookup key, plain) SHA-256 is enough and keeps every token check cheap.
import { createHash, randomBytes, randomInt, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from "node:crypto";

/** Where generated secrets get their random bytes (node:crypto randomBytes unless a test seeds one). */
export type RandomSource = (size: number) => Buffer;

/** A URL-safe random token with 256 bits of entropy, with an optional readable prefix. */
export function randomToken(prefix = "", random: RandomSource = randomBytes): string {
  return prefix + random(32).toString("base64url");
}

/** A numeric one-time password. */
export function randomOtp(digits = 6, random?: RandomSource): string {
  // 48 random bits reduced modulo 10^digits: the bias is below 2^-28 for six digits.
  const value = random ? random(6).readUIntBE(0, 6) % 10 ** digits : randomInt(0, 10 ** digits);
  return String(value).padStart(digits, "0");
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function saltedSha256(secret: string, salt = randomBytes(16).toString("hex")): { salt: string; hash: string } {
  return { salt, hash: sha256(`${salt}:${secret}`) };
}

/** Constant-time equality of two hex digests (or any equal-length strings). */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const scryptAsync = (password: BinaryLike, salt: BinaryLike, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

/** scrypt's cost parameters: N (CPU and memory, a power of two), r (block size), p (parallelism). */
export interface PasswordHashCost {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's Password Storage Cheat Sheet scrypt setting with the least memory (N=2^14, r=8, p=5:
 * 16 MiB, about 180 ms a hash on one core here); its equivalents with more memory cost more time.
 */
export const DEFAULT_PASSWORD_HASH_COST: PasswordHashCost = Object.freeze({ N: 2 ** 14, r: 8, p: 5 });
const SCRYPT_KEY_LENGTH = 32;

/** Why a cost cannot be used, or undefined when it can. */
export function passwordHashCostProblem({ N, r, p }: PasswordHashCost): string | undefined {
  if (!Number.isInteger(N) || N < 2 || (N & (N - 1)) !== 0) return `N must be a power of two of at least 2, not ${N}`;
  if (!Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1) return `r and p must be whole numbers of at least 1, not r=${r}, p=${p}`;
  if (128 * N * r > 2 ** 30) return `128 * N * r must stay within 1 GiB, not ${128 * N * r} bytes`;
  return undefined;
}

// Node refuses scrypt above 32 MiB unless told more: room for the N*r table and the p blocks.
const scryptOptions = ({ N, r, p }: PasswordHashCost): ScryptOptions => ({ N, r, p, maxmem: 129 * N * r + 128 * r * p + 2 ** 20 });

/** `scrypt$N$r$p$salt$hash`, so the cost can change without breaking stored hashes. */
export async function hashPassword(password: string, cost: PasswordHashCost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT_KEY_LENGTH, scryptOptions(cost));
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(password, Buffer.from(salt, "base64url"), expected.length, scryptOptions({ N: Number(n), r: Number(r), p: Number(p) }));
  return timingSafeEqual(key, expected);
}

/** A stored hash made at another cost than `cost`: made again at the next sign-in that proves the password. */
export function hashCostDiffers(stored: string, cost: PasswordHashCost): boolean {
  const [, n, r, p] = stored.split("$");
  return Number(n) !== cost.N || Number(r) !== cost.r || Number(p) !== cost.p;
}

/** A URL (a database's, Redis's) as it may be printed: without its password, even when it does not parse. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    // libpq (and so pg) takes a password as a parameter too: ?password=, ?sslpassword=.
    for (const name of [...parsed.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, "***");
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@").replace(/([?&][^=&]*(?:pass|secret|token)[^=&]*=)[^&#]*/gi, "$1***");
  }
}
/** A URL parameter that carries a secret: password, sslpassword, and anything named like a secret or token. */
const SECRET_PARAMETER = /pass|secret|token/i;
