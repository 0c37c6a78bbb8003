// One reference service behind the generated server on free ports, for a test file that drives a
// single long-lived service (started in beforeAll, stopped in afterAll): over plain HTTP, or over
// HTTPS with a server certificate of a fresh test CA that the answered agent and clients trust.
import { readFileSync } from "node:fs";
import { Agent } from "undici";
import { AdminClient, UserClient } from "../../generated/client/index.js";
import { createServer, type ServerOptions, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService, type ReferenceService, type ReferenceServiceOptions } from "../../reference/service.js";
import { makeCertificates, type CertificateFiles } from "./certs.js";
import { TEST_PASSWORD_HASH_COST } from "./password-hash-cost.js";

export interface ReferenceHarnessOptions {
  adminSecret: string;
  /** The service's options besides the test password hash cost; without `storage`, the service's own default store. */
  service?: ReferenceServiceOptions;
  /** The server's options besides the admin secret, the free ports, the service's hooks and (with `tls`) the certificate. */
  server?: Partial<ServerOptions>;
  /** HTTPS with a server certificate for localhost signed by a fresh test CA (makeCertificates). */
  tls?: boolean;
}

export interface ReferenceHarness {
  service: ReferenceService;
  server: ServiceServer;
  /** The service's base URL, also its issuer. */
  httpUrl: string;
  grpcEndpoint: string;
  /** A REST admin client with the admin secret (trusting the test CA over TLS). */
  adminClient(): AdminClient;
  /** A REST user client of the client "reference" (trusting the test CA over TLS). */
  userClient(): UserClient;
  /** Stops the server, then closes the service's store (and the agent). */
  stop(): Promise<void>;
}

export interface ReferenceHarnessOverTls extends ReferenceHarness {
  certs: CertificateFiles;
  /** Trusts the test CA: the dispatcher of undici's fetch and of FormBrowser. */
  agent: Agent;
}

export function startReferenceHarness(options: ReferenceHarnessOptions & { tls: true }): Promise<ReferenceHarnessOverTls>;
export function startReferenceHarness(options: ReferenceHarnessOptions): Promise<ReferenceHarness>;
export async function startReferenceHarness({ adminSecret, service: serviceOptions = {}, server: serverOptions = {}, tls = false }: ReferenceHarnessOptions): Promise<ReferenceHarness> {
  const certs = tls ? makeCertificates() : undefined;
  const agent = certs && new Agent({ connect: { ca: readFileSync(certs.ca) } });
  const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, ...serviceOptions });
  const server = createServer(service.implementation, {
    adminSecret,
    port: 0,
    grpcPort: 0,
    ...(certs && { tls: { cert: certs.serverCert, key: certs.serverKey } }),
    ...service.serverOptions,
    ...serverOptions,
  });
  const { httpUrl, grpcEndpoint } = await server.listen();
  service.setAddresses({ issuer: httpUrl });
  const clientTls = certs && { tls: { ca: readFileSync(certs.ca, "utf8") } };
  const common = { serviceUrl: httpUrl, protocol: "rest", serverVersion: schema.version, retry: false, ...clientTls } as const;
  return {
    service,
    server,
    httpUrl,
    grpcEndpoint,
    ...(certs && agent && { certs, agent }),
    adminClient: () => new AdminClient({ ...common, adminSecret }),
    userClient: () => new UserClient({ ...common, clientId: "reference" }),
    async stop() {
      await server.close();
      await service.state.storage.close();
      await agent?.close();
    },
  };
}
