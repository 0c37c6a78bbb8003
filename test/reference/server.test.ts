// Smoke test of the real server on free ports, and of the `npm run serve` command line.
import { X509Certificate } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { formatInternalError, parseServeArgs } from "../../reference/cli.js";
import { DEFAULT_DATABASE_URL } from "../../reference/store/open.js";
import { graphqlDocument } from "../../runtime/client/graphql.js";
import { createReferenceService } from "../../reference/service.js";
import type { LogEntry } from "../../runtime/server/index.js";
import { startProcess } from "../../scripts/run-process.mjs";
import { makeCertificates } from "../helpers/certs.js";
import { REPO_ROOT } from "../helpers/project.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "smoke-admin-secret";

describe("the reference service behind the generated stubs", () => {
  let server: ServiceServer;
  let base: string;
  const logs: LogEntry[] = [];

  beforeAll(async () => {
    const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST });
    server = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, logger: (entry) => logs.push(entry), ...service.serverOptions });
    const addresses = await server.listen();
    base = addresses.httpUrl;
    service.setAddresses({ issuer: base });
  });
  afterAll(() => server.close());

  it("answers admin_meta over REST with the admin secret header", async () => {
    const response = await fetch(`${base}${schema.operations.admin_meta.rest!.path}`, { method: "POST", headers: { "x-service-admin-secret": SECRET } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ version: schema.version, enabled_protocols: ["graphql", "rest", "grpc"] });
  });

  it("answers admin_meta over GraphQL with the document a generated client sends", async () => {
    const response = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-admin-secret": SECRET },
      body: JSON.stringify({ query: graphqlDocument(schema, schema.operations.admin_meta!) }),
    });
    const body = (await response.json()) as { data: { admin_meta: Record<string, unknown> } };
    expect(body.data.admin_meta).toMatchObject({ version: schema.version, is_fga_enabled: true });
  });

  it("runs a user through sign-up, a bearer-token call and the token route, logging no secrets", async () => {
    const signup = await fetch(`${base}/v1/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "smoke@example.com", password: "smoke-password-1", confirm_password: "smoke-password-1" }),
    });
    const tokens = (await signup.json()) as { access_token: string; refresh_token: string };
    const profile = await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(((await profile.json()) as { email: string }).email).toBe("smoke@example.com");

    const refreshed = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const reused = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }).toString(),
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });

    const text = JSON.stringify(logs);
    expect(logs.map((l) => `${l.operation} ${l.protocol} ${l.outcome}`)).toContain("oauth_token rest FAILED_PRECONDITION");
    for (const secret of [SECRET, "smoke-password-1", tokens.access_token, tokens.refresh_token]) expect(text).not.toContain(secret);
  });
});

describe("npm run serve", () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    startProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "reference/main.ts"), ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", ...env } });

  it("reads flags before the environment and refuses bad values", () => {
    const defaults = {
      databaseUrl: DEFAULT_DATABASE_URL,
      rateLimit: { read: { perSecond: 30, burst: 20 }, write: { perSecond: 30, burst: 20 }, token: { perSecond: 30, burst: 20 } },
      metrics: false,
      mcp: false,
      shutdownGraceMs: 10_000,
    };
    expect(parseServeArgs(["--admin-secret", "a-long-secret", "--port=81", "--grpc-port", "0"], { PORT: "90", HOST: "0.0.0.0" })).toEqual({
      adminSecret: "a-long-secret",
      port: 81,
      grpcPort: 0,
      host: "0.0.0.0",
      explorer: true,
      ...defaults,
    });
    expect(parseServeArgs([], { SERVICE_ADMIN_SECRET: "b-long-secret", GRPC_PORT: "7000" })).toEqual({
      adminSecret: "b-long-secret",
      port: 8080,
      grpcPort: 7000,
      host: "127.0.0.1",
      explorer: true,
      ...defaults,
    });
    expect(parseServeArgs(["--no-explorer", "--admin-secret", "c-long-secret"], {})).toMatchObject({ adminSecret: "c-long-secret", explorer: false });
    expect(parseServeArgs(["--mcp"], { SERVICE_ADMIN_SECRET: "c-long-secret" })).toMatchObject({ mcp: true });
    expect(() => parseServeArgs(["--admin-secret", "short-12345"], {})).toThrow("--admin-secret must be at least 12 characters: it is all that stands between the network and every admin operation");
    expect(() => parseServeArgs([], { SERVICE_ADMIN_SECRET: "s3cret" })).toThrow(/^SERVICE_ADMIN_SECRET must be at least 12 characters/);
    expect(() => parseServeArgs(["--admin-secret", "a-long-secret", "--port", "http"], {})).toThrow(/--port must be a port number/);
    expect(() => parseServeArgs(["--admin-secret"], {})).toThrow(/needs a value/);
    expect(() => parseServeArgs(["--verbose"], { SERVICE_ADMIN_SECRET: "a-long-secret" })).toThrow(/unknown argument --verbose/);
  });

  it("reads the flags of replicas, proxies, rate limits, metrics and shutdown", () => {
    const env = { SERVICE_ADMIN_SECRET: "a-long-secret" };
    expect(parseServeArgs(["--redis-url", "redis://cache:6379/2", "--redis-key-prefix", "id:", "--trust-proxy", "10.0.0.0/8, loopback", "--forwarded-header", "forwarded"], env)).toMatchObject({
      redisUrl: "redis://cache:6379/2",
      redisKeyPrefix: "id:",
      trustProxy: { trust: ["10.0.0.0/8", "loopback"], header: "forwarded" },
    });
    expect(parseServeArgs([], { ...env, TRUST_PROXY: "2", REDIS_URL: "redis://r" })).toMatchObject({ trustProxy: 2, redisUrl: "redis://r" });
    expect(parseServeArgs(["--rate-limit", "5/0", "--rate-limit-store-down", "closed"], env).rateLimit).toEqual({
      read: { perSecond: 5, burst: 0 },
      write: { perSecond: 5, burst: 0 },
      token: { perSecond: 5, burst: 0 },
      whenStoreDown: "closed",
    });
    expect(parseServeArgs(["--no-rate-limit"], env).rateLimit).toBe(false);
    expect(parseServeArgs([], { ...env, RATE_LIMIT: "off" }).rateLimit).toBe(false);
    expect(parseServeArgs(["--metrics"], env).metrics).toEqual({});
    expect(parseServeArgs(["--metrics-port", "9464"], env).metrics).toEqual({ port: 9464 });
    expect(parseServeArgs(["--shutdown-grace-ms", "2500"], env).shutdownGraceMs).toBe(2500);
    expect(parseServeArgs([], env).maxConnectionsPerAddress).toBeUndefined();
    expect(parseServeArgs(["--max-connections-per-address", "5000"], env).maxConnectionsPerAddress).toBe(5000);
    expect(parseServeArgs([], { ...env, MAX_CONNECTIONS_PER_ADDRESS: "0" }).maxConnectionsPerAddress).toBe(0);
    expect(() => parseServeArgs(["--max-connections-per-address", "many"], env)).toThrow("--max-connections-per-address must be a whole number of connections (0: no cap of its own)");
    expect(() => parseServeArgs(["--redis-url", "localhost:6379"], env)).toThrow("--redis-url must be a redis:// or rediss:// URL");
    expect(() => parseServeArgs(["--forwarded-header", "forwarded"], env)).toThrow("--forwarded-header needs --trust-proxy");
    expect(() => parseServeArgs(["--rate-limit", "fast"], env)).toThrow("--rate-limit must be <calls a second>/<burst> (such as 30/20) or off");
    expect(() => parseServeArgs(["--rate-limit-store-down", "maybe"], env)).toThrow("--rate-limit-store-down must be open or closed");
    expect(() => parseServeArgs(["--shutdown-grace-ms", "soon"], env)).toThrow("--shutdown-grace-ms must be a whole number of milliseconds");
  });

  it("reads the scrypt cost of password hashes, refusing one scrypt cannot use", () => {
    const env = { SERVICE_ADMIN_SECRET: "a-long-secret" };
    expect(parseServeArgs([], env).passwordHashCost).toBeUndefined();
    expect(parseServeArgs(["--password-hash-cost", "32768,8,3"], env).passwordHashCost).toEqual({ N: 32768, r: 8, p: 3 });
    expect(parseServeArgs([], { ...env, PASSWORD_HASH_COST: "131072,8,1" }).passwordHashCost).toEqual({ N: 131072, r: 8, p: 1 });
    expect(() => parseServeArgs(["--password-hash-cost", "high"], env)).toThrow("--password-hash-cost must be scrypt's <N>,<r>,<p> (such as 16384,8,5)");
    expect(() => parseServeArgs([], { ...env, PASSWORD_HASH_COST: "10000,8,1" })).toThrow("PASSWORD_HASH_COST: N must be a power of two of at least 2, not 10000");
  });

  it("reads the TLS files from flags or the environment, a certificate and its key together", () => {
    const env = { SERVICE_ADMIN_SECRET: "a-long-secret" };
    expect(parseServeArgs(["--tls-cert", "c.pem", "--tls-key", "k.pem"], env).tls).toEqual({ cert: "c.pem", key: "k.pem" });
    expect(parseServeArgs([], { ...env, TLS_CERT: "c.pem", TLS_KEY: "k.pem", TLS_CLIENT_CA: "ca.pem" }).tls).toEqual({ cert: "c.pem", key: "k.pem", clientCa: "ca.pem" });
    expect(parseServeArgs([], env).tls).toBeUndefined();
    expect(() => parseServeArgs(["--tls-cert", "c.pem"], env)).toThrow("--tls-cert (TLS_CERT) and --tls-key (TLS_KEY) go together");
    expect(() => parseServeArgs(["--tls-client-ca", "ca.pem"], env)).toThrow("--tls-client-ca (TLS_CLIENT_CA) needs --tls-cert and --tls-key");
  });

  it("reports unexpected failures by kind and place, never by message", async () => {
    const reported: string[] = [];
    const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, onInternalError: (operation, error) => reported.push(formatInternalError(operation, error)) });
    service.state.storage.webhooks.page = async () => {
      throw new TypeError("boom with an input value in it");
    };
    const server = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, ...service.serverOptions });
    const { httpUrl } = await server.listen();
    try {
      const response = await fetch(`${httpUrl}/v1/admin/webhooks`, { method: "POST", headers: { "x-service-admin-secret": SECRET } });
      expect(response.status).toBe(500);
      expect(reported).toHaveLength(1);
      expect(reported[0]).toMatch(/ webhooks internal error: TypeError\n\s+at /);
      expect(reported[0]).not.toContain("boom");
    } finally {
      await server.close();
    }
  });

  it("without an admin secret, starts and warns of the bootstrap window until admin_signup", async () => {
    const { child, exited, written } = run(["--port", "0", "--grpc-port", "0"], { DATABASE_URL: "sqlite::memory:" });
    const deadline = Date.now() + 20_000;
    while (!written().stdout.includes("Ctrl-C") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written().stderr.split("\n").slice(0, 2)).toEqual([
      "warning: no --admin-secret and no admin yet: whoever first calls admin_signup (GraphQL) becomes admin; until then every admin call is refused.",
      "warning: in production pass --admin-secret (or SERVICE_ADMIN_SECRET), or call admin_signup before the port is reachable by others.",
    ]);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("with --tls-cert and --tls-key, serves HTTPS and gRPC over TLS, reloads them on SIGHUP, and refuses a key that is not the certificate's", async () => {
    const certs = makeCertificates();
    const wrong = run(["--port", "0", "--grpc-port", "0", "--tls-cert", certs.serverCert, "--tls-key", certs.nextKey], { SERVICE_ADMIN_SECRET: SECRET, DATABASE_URL: "sqlite::memory:" });
    expect((await wrong.exited).code).toBe(1);
    expect(wrong.written().stderr).toBe(`error: the TLS private key ${certs.nextKey} does not belong to the TLS certificate ${certs.serverCert}\n`);

    const dir = mkdtempSync(join(tmpdir(), "serve-tls-"));
    copyFileSync(certs.serverCert, join(dir, "tls.pem"));
    copyFileSync(certs.serverKey, join(dir, "tls.key"));
    const { child, exited, written } = run(["--port", "0", "--grpc-port", "0"], {
      SERVICE_ADMIN_SECRET: SECRET,
      DATABASE_URL: "sqlite::memory:",
      TLS_CERT: join(dir, "tls.pem"),
      TLS_KEY: join(dir, "tls.key"),
    });
    const deadline = Date.now() + 20_000;
    while (!written().stdout.includes("Ctrl-C stops") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const { stdout } = written();
    const restBase = /REST\s+(https:\/\/[^/\s]+)\/v1/.exec(stdout)?.[1];
    expect(restBase).toBeDefined();
    expect(stdout).toMatch(/gRPC\s+127\.0\.0\.1:\d+\s+\(TLS, with reflection/);
    expect(stdout).toContain(`TLS      ${join(dir, "tls.pem")} on every port (reloaded when the files change, or on SIGHUP)`);
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(restBase!);
        const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: readFileSync(certs.ca), servername: "localhost" }, () => {
          resolve(socket.getPeerCertificate().fingerprint256);
          socket.destroy();
        });
        socket.on("error", reject);
      });
    expect(await served()).toBe(new X509Certificate(readFileSync(certs.serverCert)).fingerprint256);
    // A renewal written in place (no rename, so the watcher may see it late): SIGHUP serves it at once.
    writeFileSync(join(dir, "tls.key"), readFileSync(certs.nextKey));
    writeFileSync(join(dir, "tls.pem"), readFileSync(certs.nextCert));
    child.kill("SIGHUP");
    const reloaded = Date.now() + 10_000;
    while ((await served()) !== new X509Certificate(readFileSync(certs.nextCert)).fingerprint256) {
      expect(Date.now()).toBeLessThan(reloaded);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    expect(written().stderr).not.toMatch(/SIGHUP: .*still serving/);
  });

  it("prints where each protocol listens, logs one line per call and closes on SIGTERM", async () => {
    const { child, exited, written } = run(["--port", "0", "--grpc-port", "0"], { SERVICE_ADMIN_SECRET: SECRET, DATABASE_URL: "sqlite::memory:" });
    const deadline = Date.now() + 20_000;
    while (!written().stdout.includes("Ctrl-C stops") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const { stdout } = written();
    const restBase = /REST\s+(http:\/\/[^/\s]+)\/v1/.exec(stdout)?.[1];
    expect(stdout).toMatch(/GraphQL\s+POST http:\/\/127\.0\.0\.1:\d+\/graphql/);
    expect(stdout).toMatch(/tokens\s+POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token/);
    expect(stdout).toMatch(/gRPC\s+127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/GraphiQL\s+http:\/\/127\.0\.0\.1:\d+\/graphql\n\s+REST docs\s+http:\/\/127\.0\.0\.1:\d+\/docs\n/);
    expect(restBase).toBeDefined();

    const meta = await fetch(`${restBase}/v1/admin/admin_meta`, { method: "POST", headers: { "x-service-admin-secret": SECRET } });
    expect(meta.status).toBe(200);
    await fetch(`${restBase}/v1/admin/admin_meta`, { method: "POST", headers: { "x-service-admin-secret": "wrong-secret" } });

    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    const log = written().stdout;
    expect(log).toMatch(/admin_meta rest OK \d+\.\d+ms/);
    expect(log).toMatch(/admin_meta rest UNAUTHENTICATED/);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain("wrong-secret");
  });
});
