// The reference service behind the generated stubs, for tests that drive it through the generated
// clients: ONE server per test file whose implementation and hooks forward to a "current"
// reference instance that tests swap, and deterministic worlds (clock, ids, random bytes, key
// pairs, DNS, JWKS, webhook deliveries) so that the same calls give the same answers.
import { createHash, generateKeyPair, type KeyObject } from "node:crypto";
import { exportJWK, SignJWT, type JSONWebKeySet, type JWTPayload } from "jose";
import { createServer, type Implementation, type Options, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import type { AddTrustedIssuerInput } from "../../generated/types.js";
import type { WebhookRequest } from "../../reference/core.js";
import { createReferenceService, type ReferenceService, type ReferenceServiceOptions } from "../../reference/service.js";
import { testStorage } from "./test-storage.js";
import { TEST_PASSWORD_HASH_COST } from "./password-hash-cost.js";

export const ADMIN_SECRET = "matrix-admin-secret";
/** 2030-01-01T00:00:00Z: every world starts here. */
export const START_MS = Date.UTC(2030, 0, 1);
export const START_S = START_MS / 1000;
/** The external issuer whose assertions trusted issuers accept (its keys come from `World.jwks`). */
export const EXTERNAL_ISSUER = "https://issuer.example.com";
/** A trusted issuer of EXTERNAL_ISSUER (a CI cluster's service accounts, keys from its JWKS URL) for the client `serviceAccountId`. */
export const ciClusterIssuer = (serviceAccountId: string): AddTrustedIssuerInput => ({
  service_account_id: serviceAccountId,
  name: "ci cluster",
  issuer_url: EXTERNAL_ISSUER,
  key_source_type: "jwks_url",
  jwks_url: `${EXTERNAL_ISSUER}/keys`,
  expected_aud: "identity",
  allowed_subjects: ["system:serviceaccount:ci:*"],
  issuer_type: "kubernetes",
});

type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };

const rsaKeyPair = (modulusLength = 2048) =>
  new Promise<KeyPair>((resolve, reject) => generateKeyPair("rsa", { modulusLength }, (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey }))));
const ecKeyPair = () =>
  new Promise<KeyPair>((resolve, reject) => generateKeyPair("ec", { namedCurve: "P-256" }, (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey }))));

/** Keys made once per test file: key generation is the slow part of a fresh service. */
export interface TestKeys {
  /** RS256: PKCS#1 v1.5 signatures are deterministic, so the service's tokens repeat too. */
  signing: KeyObject;
  /** SAML IdP key pairs, handed out in order by each world. */
  saml: KeyPair[];
  /** The external issuer's key (ES256). */
  issuer: KeyPair;
  issuerJwks: JSONWebKeySet;
}

export async function makeTestKeys(samlKeys = 3): Promise<TestKeys> {
  const [signing, issuer, ...saml] = await Promise.all([rsaKeyPair(), ecKeyPair(), ...Array.from({ length: samlKeys }, () => rsaKeyPair())]);
  const jwk = await exportJWK(issuer!.publicKey);
  return { signing: signing!.privateKey, saml: saml as KeyPair[], issuer: issuer!, issuerJwks: { keys: [{ ...jwk, kid: "issuer-key-1", alg: "ES256", use: "sig" }] } };
}

/** Deterministic random bytes: SHA-256 in counter mode over a seed. */
export function seededRandom(seed: string): (size: number) => Buffer {
  let counter = 0;
  return (size) => {
    const blocks: Buffer[] = [];
    for (let length = 0; length < size; length += 32) blocks.push(createHash("sha256").update(`${seed}:${counter++}`).digest());
    return Buffer.concat(blocks).subarray(0, size);
  };
}

/** One fresh reference service and the deterministic surroundings it runs in. */
export interface World {
  service: ReferenceService;
  /** Milliseconds since the epoch, as the service sees them. */
  now(): number;
  advance(seconds: number): void;
  /** TXT records the DNS stand-in answers: name -> records (each a list of strings). */
  dns: Map<string, string[][]>;
  /** Every TXT name the service looked up, in order. */
  dnsLookups: string[];
  /** Webhook deliveries and test_endpoint requests the service sent. */
  webhookRequests: WebhookRequest[];
  /** Failures of the implementation that were not ServiceErrors (bugs). */
  internalErrors: { operation: string; error: unknown }[];
  /** A JWT-bearer assertion of the external issuer, signed with its key. */
  issuerAssertion(claims: JWTPayload & { sub: string; aud: string }): Promise<string>;
}

export function createWorld(keys: TestKeys, seed: string, options: ReferenceServiceOptions = {}): World {
  let now = START_MS;
  let ids = 0;
  let samlKeys = 0;
  const dns = new Map<string, string[][]>();
  const dnsLookups: string[] = [];
  const webhookRequests: WebhookRequest[] = [];
  const internalErrors: World["internalErrors"] = [];
  const service = createReferenceService({
    passwordHashCost: TEST_PASSWORD_HASH_COST,
    clock: () => now,
    ids: () => `id-${++ids}`,
    random: seededRandom(seed),
    rsaKeyPairs: async () => keys.saml[samlKeys++ % keys.saml.length]!,
    signingKey: { privateKey: keys.signing, alg: "RS256", kid: "matrix-signing-key" },
    dnsResolver: async (name) => {
      dnsLookups.push(name);
      const records = dns.get(name);
      if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return records;
    },
    jwksResolver: async (issuer) => {
      if (issuer.issuer_url.replace(/\/+$/, "") !== EXTERNAL_ISSUER) throw new Error(`no keys for ${issuer.issuer_url}`);
      return keys.issuerJwks;
    },
    webhookSender: async (request) => {
      webhookRequests.push(request);
      const { event_name } = JSON.parse(request.body) as { event_name: string };
      return { status: 200, body: `received ${event_name}` };
    },
    onInternalError: (operation, error) => internalErrors.push({ operation, error }),
    storage: testStorage(),
    ...options,
  });
  return {
    service,
    now: () => now,
    advance(seconds) {
      now += seconds * 1000;
    },
    dns,
    dnsLookups,
    webhookRequests,
    internalErrors,
    issuerAssertion: (claims) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "issuer-key-1" })
        .setIssuer(EXTERNAL_ISSUER)
        .setIssuedAt(Math.floor(now / 1000))
        .setExpirationTime(Math.floor(now / 1000) + 600)
        .sign(keys.issuer.privateKey),
  };
}

export interface SwappableServer {
  httpUrl: string;
  grpcEndpoint: string;
  /** Serves `service` from now on (and tells it the addresses it is reached at). */
  use(service: ReferenceService): void;
  close(): Promise<void>;
  /** Reads the TLS files again (started with the option tls). */
  reloadTls(): void;
}

/**
 * One server for a whole test file. Its implementation and hooks forward every call to the
 * current reference service, so a test swaps in a fresh service without starting a server.
 */
export async function startSwappableServer(first: ReferenceService, options: Partial<Options> = {}): Promise<SwappableServer> {
  let current = first;
  const forwarding: Record<string, (input: unknown, context: unknown) => Promise<unknown>> = {};
  for (const operation of Object.values(schema.operations)) {
    forwarding[operation.method] = (input, context) => (current.implementation as unknown as typeof forwarding)[operation.method]!(input, context);
  }
  const server = createServer(forwarding as unknown as Implementation, {
    adminSecret: ADMIN_SECRET,
    port: 0,
    grpcPort: 0,
    now: () => current.serverOptions.now(),
    verifyUserToken: (token) => current.serverOptions.verifyUserToken(token),
    hasRole: (user, operation, input) => current.serverOptions.hasRole(user, operation, input),
    ...options,
  });
  const { httpUrl, grpcEndpoint } = await server.listen();
  const grpcPort = Number(grpcEndpoint.slice(grpcEndpoint.lastIndexOf(":") + 1));
  const use = (service: ReferenceService) => {
    current = service;
    service.setAddresses({ issuer: httpUrl, grpcPort });
  };
  use(first);
  return { httpUrl, grpcEndpoint, use, close: () => server.close(), reloadTls: () => server.reloadTls() };
}

export interface ReferenceServer {
  server: ServiceServer;
  addresses: { httpUrl: string; grpcEndpoint: string };
}

/** A fresh reference service (its default store) behind the generated server on free ports, for clients a test runs elsewhere (a packed SDK, a consumer project). */
export async function startReferenceServer(adminSecret: string, options: Partial<Options> = {}): Promise<ReferenceServer> {
  const reference = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST });
  const server = createServer(reference.implementation, { ...reference.serverOptions, adminSecret, port: 0, grpcPort: 0, ...options });
  return { server, addresses: await server.listen() };
}
