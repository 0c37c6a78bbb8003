// What of the auth machinery an API uses decides what its outputs carry (ir.api.features): an API
// whose operations need no admin secret and have no token routes gets a server that takes no
// secret, clients that ask for none and no client id, and SDKs, READMEs and contracts that never
// mention the admin secret, admin sessions, OAuth errors or client ids. The identity API, which has
// them all, keeps them.
import { afterAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { descriptorSet } from "../../generated/server/descriptor-set.js";
import { graphqlSchemaText } from "../../generated/server/graphql-schema.js";
import { rules } from "../../generated/server/rules.js";
import { buildIr } from "../../generators/ir/build-ir.js";
import { emitAll } from "../../generators/generate.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { UserClient } from "../../generated/client/index.js";
import { AdminClientBase, UserClientBase } from "../../runtime/client/clients.js";
import type { ClientDefinition } from "../../runtime/client/core.js";
import type { ApiSchema } from "../../runtime/schema.js";
import { createServiceServer, type ServiceServer } from "../../runtime/server/index.js";
import { clientDefinitionOf, operationModulesOf } from "../helpers/client-definition.js";
import { readFixture, REPO_ROOT } from "../helpers/project.js";
import { sampleMessage } from "../helpers/recording-service.js";
import { loadIr } from "../../generators/generate.js";

const NONE = { adminSecret: false, adminSession: false, tokenRoutes: false, clientId: false, apiKey: false, orgAdmin: false } as const;
/** The identity schema as if none of its operations needed the admin secret or a client id. */
const publicOnly: ApiSchema = { ...schema, features: NONE };
const definition = (apiSchema: ApiSchema): ClientDefinition => clientDefinitionOf(apiSchema);
const servers: ServiceServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

const serve = (apiSchema: ApiSchema, options: { adminSecret?: string }) =>
  createServiceServer(
    { schema: apiSchema, rules, graphqlSchemaText, grpcServices: [], descriptorSet, explorer: { openapiDocument: async () => "", firstOperation: "meta" } },
    { meta: async () => ({ ...(sampleMessage(apiSchema, apiSchema.operations.meta!.output) as object), version: "9.9.9" }) },
    { ...options, port: 0, grpcPort: 0, rateLimit: false, partial: true, onWarning: () => {} },
  );

describe("an API without the admin secret", () => {
  it("is served without one, and its clients need neither a secret nor a client id", async () => {
    const server = serve(publicOnly, {});
    servers.push(server);
    const { httpUrl } = await server.listen();
    const sent: Headers[] = [];
    const fetchRecording: typeof fetch = (input, init) => (sent.push(new Headers(init?.headers)), fetch(input, init));
    const admin = new (class extends AdminClientBase {
      meta() {
        return this.core.call(operationModulesOf(publicOnly).meta!, {});
      }
    })(definition(publicOnly), { serviceUrl: httpUrl, protocol: "rest", fetch: fetchRecording, serverVersion: schema.version });
    const user = new UserClientBase(definition(publicOnly), { serviceUrl: httpUrl });
    expect(await admin.meta()).toMatchObject({ version: "9.9.9" });
    expect([...sent[0]!.keys()]).not.toContain(schema.adminSecretHeader);
    await Promise.all([admin.close(), user.close()]);
  });

  it("where an operation needs the secret, is refused without one, by the server and by the clients", () => {
    expect(() => serve(schema, {})).toThrow("a secret is required");
    expect(() => new AdminClientBase(definition(schema), { serviceUrl: "http://localhost:1" })).toThrow("adminSecret is required");
    expect(() => new UserClient({ serviceUrl: "http://localhost:1" } as never)).toThrow("clientId is required");
  });
});

describe("the outputs", () => {
  /** Words of machinery an API may not have, as any output would spell them. */
  const MACHINERY = /admin[ _-]?secret|admin[ _-]?session|oauth|client[ _]?id/i;
  /** The schema value, whose keys runtime/schema.ts names (ServiceFacts, ApiFeatures) whatever the API. */
  const RUNTIME_COPIES = /^generated\/(schema|client\/service)\.ts$/;

  it("of an API with public operations only name none of the machinery it does not use", () => {
    const ir = buildIr(loadManifestText(readFixture("python-keywords.yaml")), emptyLock());
    expect(ir.api.features).toEqual(NONE);
    const files = emitAll(ir).files.filter((f) => !RUNTIME_COPIES.test(f.path));
    expect(files.length).toBeGreaterThan(40);
    const mentions = files.flatMap((f) =>
      f.content
        .split("\n")
        .filter((line) => MACHINERY.test(line))
        .map((line) => `${f.path}: ${line.trim().slice(0, 120)}`),
    );
    expect(mentions).toEqual([]);
  });

  it("of the identity API keep all of it", () => {
    expect(loadIr(REPO_ROOT).api.features).toEqual({ adminSecret: true, adminSession: true, tokenRoutes: true, clientId: true, apiKey: false, orgAdmin: true });
  });
});
