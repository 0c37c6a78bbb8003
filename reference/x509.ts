// Self-signed X.509 certificates for the SAML IdP signing keys. node:crypto can read certificates
// but not make them, so this writes the few DER structures a self-signed certificate needs.
import { randomBytes, sign, type KeyObject } from "node:crypto";

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const derNull = () => Buffer.from([0x05, 0x00]);
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, "utf8"));
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let rest = arc >>> 7; rest > 0; rest >>>= 7) chunk.unshift((rest & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 §4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z";
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

const commonNameOf = (name: string) => sequence(set(sequence(objectIdentifier("2.5.4.3"), utf8String(name))));

export interface CertificateRequest {
  privateKey: KeyObject;
  publicKey: KeyObject;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  /** Random bytes of the serial number (default node:crypto randomBytes). */
  random?: (size: number) => Buffer;
}

/** A PEM self-signed certificate for an RSA or EC P-256 key pair, signed with SHA-256. */
export function selfSignedCertificate(request: CertificateRequest): string {
  const keyType = request.privateKey.asymmetricKeyType;
  const algorithm =
    keyType === "rsa"
      ? sequence(objectIdentifier("1.2.840.113549.1.1.11"), derNull()) // sha256WithRSAEncryption
      : keyType === "ec"
        ? sequence(objectIdentifier("1.2.840.10045.4.3.2")) // ecdsa-with-SHA256
        : undefined;
  if (!algorithm) throw new Error(`cannot make certificates for ${keyType} keys`);
  const name = commonNameOf(request.commonName);
  const serial = Buffer.from((request.random ?? randomBytes)(16));
  serial[0]! &= 0x7f;
  const tbs = sequence(
    tlv(0xa0, unsignedInteger(Buffer.from([2]))), // version v3
    unsignedInteger(serial),
    algorithm,
    name,
    sequence(time(request.notBefore), time(request.notAfter)),
    name,
    request.publicKey.export({ type: "spki", format: "der" }),
  );
  const signature = sign("sha256", tbs, request.privateKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  const lines = der.toString("base64").match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}
