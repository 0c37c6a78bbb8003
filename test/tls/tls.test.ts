// TLS end to end (issue 28): the reference service behind the stubs with a certificate of a test CA
// (openssl), reached by the generated clients of every language over every protocol with one
// option (the CA) or none; the wrong CA, the wrong name and an expired certificate refused with
// one UNAVAILABLE that says why; mutual TLS; a certificate replaced on disk served to the next
// connection; no credentials in clear to another host unless the caller says so; grpcurl and
// buf curl over TLS.
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { connect as http2Connect } from "node:http2";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { connect as tlsConnect, type PeerCertificate } from "node:tls";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError, operations, UserClient, type Protocol, type TlsClientOptions } from "../../generated/client/index.js";
import { createServer, TlsConfigError } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { protocolsOf } from "../../runtime/schema.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { LANGUAGE_RUNNERS, type ClientCall, type ClientColumn, type ClientOutcome, type RunnerProcess, type RunnerTls } from "../conformance/runners.js";
import { scenarios, type OperationName } from "../conformance/scenarios.js";
import { setupContext } from "../conformance/setup.js";
import { makeCertificates, type CertificateFiles } from "../helpers/certs.js";
import { ensureGoTool, GRPCURL } from "../helpers/go-tools.js";
import { REPO_ROOT } from "../helpers/project.js";
import { ADMIN_SECRET, createWorld, makeTestKeys, startSwappableServer, type SwappableServer, type TestKeys } from "../helpers/reference-server.js";

const PROTOCOLS: readonly Protocol[] = ["graphql", "rest", "grpc"];
/** The smoke subset of the conformance matrix: admin reads and writes, sign-up and sign-in, a signed-in read, an anonymous read, the token route. */
const SMOKE: readonly OperationName[] = ["admin_meta", "create_organization", "users", "signup", "login", "profile", "meta", "oauth_token"];

let certs: CertificateFiles;
let keys: TestKeys;
let server: SwappableServer;
const runners: RunnerProcess[] = [];
const columns = new Map<string, ClientColumn>();
const caPem = () => readFileSync(certs.ca);

/** Each client of the run: the TypeScript one here (its `tls` option), the others through their runners (their CA option). */
function typescriptColumn(tls: TlsClientOptions): ClientColumn {
  const admins = new Map<string, AdminClient>();
  const users = new Map<string, UserClient>();
  return {
    name: "ts",
    async call(call) {
      const config = { serviceUrl: call.config.serviceUrl, grpcEndpoint: call.config.grpcEndpoint, serverVersion: call.config.serverVersion, retry: false as const, tls, protocol: call.protocol };
      const key = `${call.config.serviceUrl}/${call.protocol}`;
      const operation = operations[call.operation as OperationName];
      try {
        let answer: unknown;
        if (call.surface === "admin") {
          if (!admins.has(key)) admins.set(key, new AdminClient({ ...config, adminSecret: call.config.adminSecret }));
          answer = await (admins.get(key) as unknown as Record<string, (input: object, options: object) => Promise<unknown>>)[operation.method]!(call.input, { headers: call.headers });
        } else {
          if (!users.has(key)) users.set(key, new UserClient({ ...config, clientId: call.config.clientId }));
          const client = users.get(key)!;
          client.setAccessToken(call.accessToken);
          answer = await (client as unknown as Record<string, (input: object) => Promise<unknown>>)[operation.method]!(call.input);
        }
        return { ok: true, answer: answer as Record<string, unknown> };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return { ok: false, code: error.code, message: error.message, refused: error.refused, operation: error.operation, protocol: error.protocol };
      }
    },
    async close() {
      await Promise.all([...admins.values(), ...users.values()].map((client) => client.close()));
    },
  };
}

function call(operation: OperationName, protocol: Protocol, target: { httpUrl: string; grpcEndpoint: string }, tls: RunnerTls | undefined, input: Record<string, unknown> = {}): ClientCall {
  const spec = operations[operation];
  return {
    surface: spec.surface,
    operation,
    protocol,
    input,
    headers: {},
    accessToken: undefined,
    config: { serviceUrl: target.httpUrl, grpcEndpoint: target.grpcEndpoint, serverVersion: schema.version, adminSecret: ADMIN_SECRET, clientId: "reference", ...(tls ? { tls } : {}) },
  };
}

/** Every column's call of admin_meta over `protocol` to `target`, trusting `tls` (or the system's roots). */
async function adminMetaEverywhere(target: { httpUrl: string; grpcEndpoint: string }, tls: RunnerTls | undefined, protocol: Protocol): Promise<Map<string, ClientOutcome>> {
  const outcomes = new Map<string, ClientOutcome>();
  const ts = typescriptColumn(tls ? { ca: readFileSync(tls.caFile), ...(tls.certFile ? { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile!) } : {}) } : {});
  try {
    outcomes.set("ts", await ts.call(call("admin_meta", protocol, target, tls)));
  } finally {
    await ts.close();
  }
  for (const [name, column] of columns) if (name !== "ts") outcomes.set(name, await column.call(call("admin_meta", protocol, target, tls)));
  return outcomes;
}

beforeAll(async () => {
  certs = makeCertificates();
  keys = await makeTestKeys();
  server = await startSwappableServer(createWorld(keys, "tls").service, { tls: { cert: certs.serverCert, key: certs.serverKey } });
  columns.set("ts", typescriptColumn({ ca: caPem() }));
  for (const language of LANGUAGE_RUNNERS) {
    const runner = await language.start();
    runners.push(runner);
    for (const { name, mode } of language.columns) columns.set(name, runner.column(name, mode));
  }
}, 600_000);

afterAll(async () => {
  for (const column of columns.values()) await column.close().catch(() => undefined);
  await Promise.all(runners.map((runner) => runner.close()));
  await server?.close();
});

describe("the service over TLS", () => {
  it("answers https:// addresses, and nothing in plaintext on either port", async () => {
    expect(server.httpUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const plain = await fetch(server.httpUrl.replace("https:", "http:") + "/healthz").then(
      () => "answered",
      (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
    );
    expect(plain).not.toBe("answered");
  });

  it("sets cookies Secure under __Host- names, and reads no cookie of a plain name (one another host or a plaintext answer could plant)", async () => {
    const post = (path: string, body: object, cookie?: string) =>
      new Promise<{ status: number; setCookie: string[]; body: string }>((resolve, reject) => {
        const request = httpsRequest(`${server.httpUrl}${path}`, { method: "POST", ca: caPem(), headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) } }, (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
          response.on("end", () => resolve({ status: response.statusCode!, setCookie: response.headers["set-cookie"] ?? [], body: text }));
        });
        request.on("error", reject);
        request.end(JSON.stringify(body));
      });
    const login = await post(operations.admin_login.rest!.path, { admin_secret: ADMIN_SECRET });
    expect(login.status).toBe(200);
    expect(login.setCookie).toHaveLength(1);
    const [pair, ...attributes] = login.setCookie[0]!.split("; ");
    expect(pair).toMatch(/^__Host-service_admin_session=.+/);
    expect(attributes).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Strict", "Secure"]));
    expect(attributes.some((attribute) => attribute.startsWith("Domain="))).toBe(false);
    const sessionId = pair!.slice(pair!.indexOf("=") + 1);
    const session = operations.admin_session.rest!.path;
    expect((await post(session, {}, `__Host-service_admin_session=${sessionId}`)).status).toBe(200);
    // The same session under the plain name is not read over TLS.
    expect((await post(session, {}, `service_admin_session=${sessionId}`)).status).toBe(401);
  });

  it("serves HTTP/1.1 and h2 by ALPN on the HTTP port, health and metrics included", async () => {
    const http1 = await new Promise<{ status: number; alpn: string | false | null; hsts: unknown }>((resolve, reject) => {
      const request = httpsRequest(`${server.httpUrl}/healthz`, { ca: caPem() }, (response) => {
        response.resume();
        resolve({ status: response.statusCode!, alpn: (response.socket as unknown as { alpnProtocol: string | false }).alpnProtocol, hsts: response.headers["strict-transport-security"] });
      });
      request.on("error", reject);
      request.end();
    });
    expect(http1.status).toBe(200);
    // Every answer over TLS tells browsers to use HTTPS only (HSTS).
    expect(http1.hsts).toBe("max-age=31536000");
    const session = http2Connect(server.httpUrl, { ca: caPem() });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ":path": "/readyz" });
        stream.on("response", (headers) => {
          expect(headers["strict-transport-security"]).toBe("max-age=31536000");
          resolve(Number(headers[":status"]));
        });
        stream.on("error", reject);
        stream.resume();
        stream.end();
      });
      expect(status).toBe(200);
      expect(session.alpnProtocol).toBe("h2");
    } finally {
      session.close();
    }
  });

  describe("the smoke subset of the conformance matrix, in every language, over every protocol", () => {
    for (const name of SMOKE) {
      const scenario = scenarios[name];
      for (const protocol of protocolsOf(operations[name])) {
        it(`${name} over ${protocol}: ${scenario.about}`, async () => {
          const results: string[] = [];
          for (const [columnName, column] of columns) {
            const world = createWorld(keys, `tls-${name}`);
            server.use(world.service);
            const admin = new AdminClient({ serviceUrl: server.httpUrl, adminSecret: ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false, tls: { ca: caPem() } });
            try {
              const values = scenario.setup ? await scenario.setup(setupContext(world, server.httpUrl, admin, { tls: { ca: caPem() } })) : {};
              const base = call(name, protocol, server, { caFile: certs.ca }, scenario.input(values));
              const caller = scenario.as ?? (operations[name].surface === "admin" ? "admin" : operations[name].auth === "user" ? "user" : "anonymous");
              const outcome = await column.call({ ...base, accessToken: caller === "user" ? values.accessToken : undefined });
              const expected = scenario.expect;
              if ("ok" in expected) {
                expect(outcome, `${columnName}: ${JSON.stringify(outcome)}`).toMatchObject({ ok: true });
                expected.ok((outcome as { answer: Record<string, unknown> }).answer as never, values);
              } else {
                expect(outcome, columnName).toMatchObject({ ok: false, code: expected.error, refused: false });
              }
              results.push(columnName);
            } finally {
              await admin.close();
            }
          }
          expect(results).toEqual([...columns.keys()]);
        });
      }
    }
  });

  for (const protocol of PROTOCOLS) {
    it(`refuses a server whose CA the client does not trust, over ${protocol}, in every language: UNAVAILABLE with the reason`, async () => {
      const outcomes = await adminMetaEverywhere(server, { caFile: certs.otherCa }, protocol);
      for (const [column, outcome] of outcomes) {
        expect(outcome, column).toMatchObject({ ok: false, code: "UNAVAILABLE", refused: false });
        expect((outcome as { message: string }).message, column).toMatch(/certificate|CERTIFICATE_VERIFY_FAILED|unknown authority|self.signed/i);
      }
    });
  }
});

/** A second service whose certificate files the test replaces: the wrong name, an expired one, and a rotation. */
describe("certificates that do not fit, and their rotation", () => {
  let rotating: SwappableServer;
  let dir: string;
  const install = (cert: string, key: string) => {
    // As cert-manager and certbot do: write beside, then rename over (a reader never sees half a file).
    copyFileSync(cert, join(dir, "next.pem.tmp"));
    copyFileSync(key, join(dir, "next.key.tmp"));
    renameSync(join(dir, "next.key.tmp"), join(dir, "tls.key"));
    renameSync(join(dir, "next.pem.tmp"), join(dir, "tls.pem"));
  };
  /** The certificate a fresh TLS connection to host:port is served. */
  const servedCertificate = (port: number, alpn: string) =>
    new Promise<PeerCertificate>((resolve, reject) => {
      const socket = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false, ALPNProtocols: [alpn], servername: "localhost" }, () => {
        resolve(socket.getPeerCertificate());
        socket.destroy();
      });
      socket.on("error", reject);
    });
  /**
   * The CA under a name of this case's own: the runners keep one client per CA file, and a gRPC
   * channel that failed answers with its last failure until its reconnect backoff ends.
   */
  const caFor = (label: string) => {
    const file = join(dir, `ca-${label}.pem`);
    copyFileSync(certs.ca, file);
    return file;
  };
  const fingerprint = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;
  const portOf = (address: string) => Number(address.slice(address.lastIndexOf(":") + 1));

  beforeAll(async () => {
    dir = certs.dir;
    install(certs.wrongHostCert, certs.wrongHostKey);
    rotating = await startSwappableServer(createWorld(keys, "tls-rotating").service, {
      tls: { cert: join(dir, "tls.pem"), key: join(dir, "tls.key"), watchIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await rotating?.close();
  });

  for (const protocol of PROTOCOLS) {
    it(`refuses a certificate for another name over ${protocol}, in every language`, async () => {
      install(certs.wrongHostCert, certs.wrongHostKey);
      rotating.reloadTls();
      const outcomes = await adminMetaEverywhere(rotating, { caFile: caFor(`wrong-host-${protocol}`) }, protocol);
      for (const [column, outcome] of outcomes) {
        expect(outcome, column).toMatchObject({ ok: false, code: "UNAVAILABLE" });
        expect((outcome as { message: string }).message, column).toMatch(
          /altname|not valid for|doesn't match|does not match|hostname|subject alternative|IP address mismatch|certificate is valid for|127\.0\.0\.1/i,
        );
      }
    });

    it(`refuses an expired certificate over ${protocol}, in every language`, async () => {
      install(certs.expiredCert, certs.expiredKey);
      rotating.reloadTls();
      const outcomes = await adminMetaEverywhere(rotating, { caFile: caFor(`expired-${protocol}`) }, protocol);
      for (const [column, outcome] of outcomes) {
        expect(outcome, column).toMatchObject({ ok: false, code: "UNAVAILABLE" });
        expect((outcome as { message: string }).message, column).toMatch(/expired/i);
      }
    });
  }

  it("serves a certificate replaced on disk to the next connection on both ports, without a restart", async () => {
    install(certs.serverCert, certs.serverKey);
    rotating.reloadTls();
    const httpPort = portOf(rotating.httpUrl);
    const grpcPort = portOf(rotating.grpcEndpoint);
    expect((await servedCertificate(httpPort, "http/1.1")).fingerprint256).toBe(fingerprint(certs.serverCert));
    install(certs.nextCert, certs.nextKey);
    // The files are watched (every 100 ms here): no reloadTls() call.
    const deadline = Date.now() + 10_000;
    while ((await servedCertificate(httpPort, "http/1.1")).fingerprint256 !== fingerprint(certs.nextCert)) {
      expect(Date.now(), "the new certificate was not served within 10 s").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await servedCertificate(grpcPort, "h2")).fingerprint256).toBe(fingerprint(certs.nextCert));
    const admin = new AdminClient({
      serviceUrl: rotating.httpUrl,
      grpcEndpoint: rotating.grpcEndpoint,
      adminSecret: ADMIN_SECRET,
      protocol: "grpc",
      serverVersion: schema.version,
      retry: false,
      tls: { ca: caPem() },
    });
    try {
      expect((await admin.adminMeta({})).version).toBe(schema.version);
    } finally {
      await admin.close();
    }
  });

  it("keeps serving the certificate in use when the new files do not fit, and says why", () => {
    install(certs.serverCert, certs.serverKey);
    rotating.reloadTls();
    // A key written before its certificate: the pair does not match yet.
    copyFileSync(certs.nextKey, join(dir, "tls.key"));
    expect(() => rotating.reloadTls()).toThrow(TlsConfigError);
    expect(() => rotating.reloadTls()).toThrow(/tls\.key does not belong to the TLS certificate .*tls\.pem/);
    copyFileSync(certs.serverKey, join(dir, "tls.key"));
    expect(() => rotating.reloadTls()).not.toThrow();
  });
});

describe("mutual TLS", () => {
  let mutual: SwappableServer;
  beforeAll(async () => {
    mutual = await startSwappableServer(createWorld(keys, "tls-mutual").service, { tls: { cert: certs.serverCert, key: certs.serverKey, clientCa: certs.ca } });
  });
  afterAll(async () => {
    await mutual?.close();
  });

  for (const protocol of PROTOCOLS) {
    it(`refuses a client without a certificate and serves one with it, over ${protocol}, in every language`, async () => {
      const without = await adminMetaEverywhere(mutual, { caFile: certs.ca }, protocol);
      for (const [column, outcome] of without) expect(outcome, column).toMatchObject({ ok: false, code: "UNAVAILABLE" });
      const withCertificate = await adminMetaEverywhere(mutual, { caFile: certs.ca, certFile: certs.clientCert, keyFile: certs.clientKey }, protocol);
      for (const [column, outcome] of withCertificate) expect(outcome, `${column}: ${JSON.stringify(outcome)}`).toMatchObject({ ok: true, answer: { version: schema.version } });
    });
  }
});

describe("no credentials in clear by accident", () => {
  // 192.0.2.1 (TEST-NET-1) is not loopback and answers nobody: a call that went out would time out, not be refused.
  const remote = { httpUrl: "http://192.0.2.1:8080", grpcEndpoint: "192.0.2.1:9091" };
  for (const protocol of PROTOCOLS) {
    it(`refuses plaintext to a host that is not loopback over ${protocol}, in every language, naming the option`, async () => {
      const outcomes = await adminMetaEverywhere(remote, undefined, protocol);
      const options: Record<string, RegExp> = { ts: /allowInsecure: true/, "py-sync": /allow_insecure=True/, "py-async": /allow_insecure=True/, go: /WithAdminInsecureTransport\(\)/ };
      for (const [column, outcome] of outcomes) {
        expect(outcome, column).toMatchObject({ ok: false, code: "FAILED_PRECONDITION", refused: true });
        expect((outcome as { message: string }).message, column).toMatch(/^refusing to send credentials in clear to /);
        expect((outcome as { message: string }).message, column).toMatch(options[column]!);
      }
    });
  }

  it("sends them when the caller opts in, and to loopback without a word", async () => {
    const optedIn = new AdminClient({
      serviceUrl: "http://192.0.2.1:8080",
      adminSecret: ADMIN_SECRET,
      protocol: "rest",
      serverVersion: schema.version,
      retry: false,
      allowInsecure: true,
      timeoutMs: 300,
    });
    const error = await optedIn.adminMeta({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    // Sent: no route to the address (UNAVAILABLE) or no answer in time, never refused.
    expect(error).toMatchObject({ code: expect.stringMatching(/^(UNAVAILABLE|DEADLINE_EXCEEDED)$/), refused: false });
    await optedIn.close();
    const local = new AdminClient({ serviceUrl: "http://127.0.0.1:1", adminSecret: ADMIN_SECRET, protocol: "rest", serverVersion: schema.version, retry: false });
    expect(await local.adminMeta({}).catch((e: unknown) => e)).toMatchObject({ code: "UNAVAILABLE", refused: false });
    await local.close();
  });

  it("takes gRPC over TLS from an https:// URL alone, and plaintext gRPC to another host only when told", async () => {
    const fromUrl = new AdminClient({
      serviceUrl: server.httpUrl,
      adminSecret: ADMIN_SECRET,
      protocol: "grpc",
      grpcEndpoint: server.grpcEndpoint,
      serverVersion: schema.version,
      retry: false,
      tls: { ca: caPem() },
    });
    expect((await fromUrl.adminMeta({})).version).toBe(schema.version);
    await fromUrl.close();
    const plain = new AdminClient({ serviceUrl: "https://192.0.2.1", adminSecret: ADMIN_SECRET, protocol: "grpc", grpcTls: false, serverVersion: schema.version, retry: false });
    expect(await plain.adminMeta({}).catch((e: unknown) => e)).toMatchObject({ code: "FAILED_PRECONDITION", refused: true, message: expect.stringMatching(/gRPC 192\.0\.2\.1:9091.*grpcTls/) });
    await plain.close();
  });
});

describe("the server refuses to start with files that do not fit", () => {
  const start = (tls: { cert: string; key: string }) => () => createServer({} as never, { adminSecret: "a-long-admin-secret", partial: true, onWarning: () => {}, tls });
  it("names an unreadable file", () => {
    expect(start({ cert: join(certs.dir, "missing.pem"), key: certs.serverKey })).toThrow(TlsConfigError);
    expect(start({ cert: join(certs.dir, "missing.pem"), key: certs.serverKey })).toThrow(/cannot read the TLS certificate .*missing\.pem: ENOENT/);
  });
  it("names a key that is not the certificate's", () => {
    expect(start({ cert: certs.serverCert, key: certs.nextKey })).toThrow(/the TLS private key .*next\.key does not belong to the TLS certificate .*server\.pem/);
  });
  it("names a file that is not PEM", () => {
    const garbage = join(certs.dir, "garbage.pem");
    writeFileSync(garbage, "not a certificate\n");
    expect(start({ cert: garbage, key: certs.serverKey })).toThrow(/TLS certificate .*garbage\.pem is not a PEM certificate/);
  });
});

describe("tools nobody here wrote, over TLS", () => {
  const run = (command: string, args: string[]) => runProcess(command, args, { cwd: REPO_ROOT });

  it("grpcurl -cacert lists the services and calls one; without the CA it refuses", async () => {
    const { path } = await ensureGoTool(GRPCURL);
    const listed = await run(path, ["-cacert", certs.ca, "-max-time", "20", server.grpcEndpoint, "list"]);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toContain("identity.v1.AdminService");
    const called = await run(path, ["-cacert", certs.ca, "-H", `${schema.adminSecretHeader}: ${ADMIN_SECRET}`, "-max-time", "20", server.grpcEndpoint, "identity.v1.AdminService/AdminMeta"]);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ version: schema.version });
    const untrusted = await run(path, ["-max-time", "20", server.grpcEndpoint, "list"]);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/certificate signed by unknown authority/);
  }, 600_000);

  it("buf curl --cacert lists the methods over reflection and calls one over gRPC", async () => {
    const base = `https://${server.grpcEndpoint}`;
    const listed = await run(join(REPO_ROOT, "node_modules", ".bin", "buf"), ["curl", "--cacert", certs.ca, "--protocol", "grpc", "--list-methods", base]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("identity.v1.AdminService/AdminMeta");
    const called = await run(join(REPO_ROOT, "node_modules", ".bin", "buf"), [
      "curl",
      "--cacert",
      certs.ca,
      "--protocol",
      "grpc",
      "-H",
      `${schema.adminSecretHeader}: ${ADMIN_SECRET}`,
      `${base}/identity.v1.AdminService/AdminMeta`,
    ]);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ version: schema.version });
  }, 120_000);
});
