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

const SCRYPT = { N: 16384, r: 8, p: 1 } as const;
const SCRYPT_KEY_LENGTH = 32;

/** `scrypt$N$r$p$salt$hash`, so the parameters can change without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT_KEY_LENGTH, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(password, Buffer.from(salt, "base64url"), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, expected);
}

/** A URL (a database's, Redis's) as it may be printed: without its password, even when it does not parse. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
  }
}
