// scim2-tester (PyPI) against the reference service's /scim/v2: discovery, then create, read,
// query, replace, PATCH add/replace/remove and delete of every resource type the server announces,
// with the values it generates. The run must end with no check below SUCCESS (no DEVIATION, ERROR
// or CRITICAL); the pinned tool lives in the test virtualenv (test/python/requirements-dev.txt).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../generated/client/index.js";
import { createServer, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService, type ReferenceService } from "../../reference/service.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";
import { testStorage } from "../helpers/test-storage.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "scim-tester-admin-secret";

interface CheckResult {
  status: "SUCCESS" | "COMPLIANT" | "ACCEPTABLE" | "DEVIATION" | "ERROR" | "CRITICAL" | "SKIPPED";
  title: string;
  resource_type: string | null;
  reason: string | null;
  data: string | null;
}

let python: string;
let service: ReferenceService;
let server: ServiceServer;
let base: string;
const internalErrors: unknown[] = [];

beforeAll(async () => {
  const env = await ensurePythonEnv({ log: (line) => console.log(line) });
  python = join(env.venv, "bin", "python");
  service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST, storage: testStorage(), onInternalError: (_operation, error) => internalErrors.push(error) });
  server = createServer(service.implementation, { adminSecret: SECRET, port: 0, grpcPort: 0, ...service.serverOptions });
  base = (await server.listen()).httpUrl;
  service.setAddresses({ issuer: base });
}, 600_000);

afterAll(async () => {
  await server?.close();
  await service?.state.storage.close();
});

async function runTester(token: string): Promise<{ code: number | null; results: CheckResult[]; stderr: string }> {
  const { code, stdout, stderr } = await runProcess(python, [join(REPO_ROOT, "test", "scim", "run_scim_tester.py"), `${base}/scim/v2`], { env: { ...process.env, SCIM_TOKEN: token } });
  return {
    code,
    stderr,
    results: stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as CheckResult),
  };
}

describe("scim2-tester", () => {
  it("passes every check on Users and Groups", async () => {
    const admin = new AdminClient({ serviceUrl: base, protocol: "rest", adminSecret: SECRET, serverVersion: schema.version, retry: false });
    const org = await admin.createOrganization({ name: "scim-tester", display_name: "scim2-tester" });
    const { token } = await admin.createSCIMEndpoint({ org_id: org.id });
    await admin.close();
    const run = await runTester(token);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const counts = run.results.reduce<Record<string, number>>((tally, result) => ({ ...tally, [result.status]: (tally[result.status] ?? 0) + 1 }), {});
    console.log(`scim2-tester: ${JSON.stringify(counts)}`);
    const failed = run.results.filter((result) => !["SUCCESS", "SKIPPED"].includes(result.status));
    expect(failed.map((result) => `${result.status} ${result.resource_type ?? "-"} ${result.title}: ${result.reason}`)).toEqual([]);
    // The run covered what the ServiceProviderConfig announces: discovery, CRUD and PATCH of both types.
    const titles = new Set(run.results.map((result) => `${result.resource_type ?? "-"} ${result.title}`));
    for (const expected of ["User object_creation", "Group object_creation", "User check_replace_attribute", "Group check_remove_attribute", "User object_deletion", "- query_all_schemas"]) {
      expect(titles).toContain(expected);
    }
    expect(run.results.filter((result) => result.status === "SUCCESS").length).toBeGreaterThanOrEqual(100);
    expect(internalErrors).toEqual([]);
  }, 300_000);
});
