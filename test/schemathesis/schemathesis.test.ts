// schemathesis against the reference service, on the generated OpenAPI document and on GraphQL,
// with every check: the run fails on any finding but the business-rule refusals that
// test/schemathesis/schemathesis.toml lists, each with its reason. schemathesis is pinned in the
// test virtualenv (test/python/requirements-dev.txt); hooks.py signs a user in and checks GraphQL
// errors against the contract's codes.
//
// The service is the reference behind the generated stubs, in a deterministic world (fixed clock,
// counted ids, seeded randomness; webhooks, DNS and JWKS answered in process), seeded with one record
// of each kind so that the ids of schemathesis.toml's dictionary name real records and calls get
// past NOT_FOUND. SCHEMATHESIS_SEED and SCHEMATHESIS_MAX_EXAMPLES change the seed and the bound.
import { generateKeyPairSync } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, UserClient } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { rules } from "../../generated/server/rules.js";
import { selfSignedCertificate } from "../../reference/x509.js";
import { ERROR_WIRE } from "../../runtime/errors.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT, tempDir } from "../helpers/project.js";
import { ADMIN_SECRET, createWorld, EXTERNAL_ISSUER, makeTestKeys, START_MS, startSwappableServer, type SwappableServer, type TestKeys } from "../helpers/reference-server.js";

const HERE = join(REPO_ROOT, "test", "schemathesis");
const CONFIG = join(HERE, "schemathesis.toml");
const SEED = process.env.SCHEMATHESIS_SEED ?? "2030";
/** Test cases per operation and phase: bounded so that both runs take about a minute and a half. */
const MAX_EXAMPLES = { openapi: process.env.SCHEMATHESIS_MAX_EXAMPLES ?? "10", graphql: process.env.SCHEMATHESIS_MAX_EXAMPLES ?? "30" };

let schemathesis: string;
let server: SwappableServer;
let work: string;
let keys: TestKeys;
/** Per protocol, operation and outcome ("OK" or the error code), how many calls the server answered. */
const outcomes = new Map<string, number>();
const tally = (protocol: string) =>
  [...outcomes]
    .filter(([key]) => key.startsWith(`${protocol} `))
    .reduce<Record<string, Record<string, number>>>((byOperation, [key, count]) => {
      const [, operation, outcome] = key.split(" ");
      (byOperation[operation!] ??= {})[outcome!] = count;
      return byOperation;
    }, {});

interface Report {
  running_time: number;
  exit_code: number;
  operations: { selected: number; tested: number };
  phases: Record<string, { status: string }>;
  test_cases: { generated: number; with_failures: number; unique_failures: number };
  failures: { code: string; title: string; count: number; operations: string[] }[];
  errors: unknown[];
  warnings: Record<string, unknown>;
  auth: { reauth_count: number; reauth_broke: boolean };
}

/**
 * Two records of each kind, made over REST on a fresh world before each run (the run deletes some);
 * answers their ids by kind, as schemathesis.toml names its dictionaries.
 */
async function seed(serviceUrl: string): Promise<Record<string, string[]>> {
  const common = { serviceUrl, protocol: "rest" as const, serverVersion: schema.version, retry: false as const };
  const admin = new AdminClient({ ...common, adminSecret: ADMIN_SECRET });
  const user = new UserClient({ ...common, clientId: "reference" });
  const ids: Record<string, string[]> = {};
  const add = (kind: string, id: string) => (ids[kind] ??= []).push(id);
  for (const [index, name] of ["acme", "globex"].entries()) {
    const { user: person } = await user.signup({ email: `owner@${name}.com`, password: "seed-password-1", confirm_password: "seed-password-1" });
    add("user-ids", person!.id);
    const org = await admin.createOrganization({ name, display_name: name.toUpperCase() });
    add("organization-ids", org.id);
    await admin.addOrgMember({ org_id: org.id, user_id: person!.id, roles: [schema.orgAdminRole] });
    const { client } = await admin.createClient({ name: `${name}-billing`, allowed_scopes: ["invoices:read"] });
    add("client-ids", client.id);
    const issuer = await admin.addTrustedIssuer({
      service_account_id: client.id,
      name: `${name}-ci`,
      issuer_url: EXTERNAL_ISSUER,
      key_source_type: "jwks_url",
      jwks_url: `${EXTERNAL_ISSUER}/keys`,
      expected_aud: "identity",
      issuer_type: "kubernetes",
    });
    add("trusted-issuer-ids", issuer.id);
    add("webhook-ids", (await admin.addWebhook({ event_name: "user.login", endpoint: `https://hooks.${name}.com/login`, enabled: true })).id);
    add("email-template-ids", (await admin.addEmailTemplate({ event_name: ["forgot_password", "magic_link_login"][index]!, subject: "Hello", template: "<p>hello</p>" })).id);
    add("saml-ids", (await admin.createSAMLServiceProvider({ org_id: org.id, name: "wiki", entity_id: `https://wiki.${name}.com/saml`, acs_url: `https://wiki.${name}.com/acs` })).id);
    add("saml-ids", (await admin.rotateSAMLIDPCert({ org_id: org.id })).id);
    add("saml-ids", (await admin.rotateSAMLIDPCert({ org_id: org.id })).id);
    add(
      "sso-connection-ids",
      (await admin.createOrgOIDCConnection({ org_id: org.id, name: "okta", issuer_url: `https://${name}.okta.example`, client_id: `${name}-app`, client_secret: "upstream-secret" })).id,
    );
    add(
      "sso-connection-ids",
      (
        await admin.createOrgSAMLConnection({
          org_id: org.id,
          name: "adfs",
          idp_entity_id: `https://adfs.${name}.example/adfs`,
          idp_sso_url: `https://adfs.${name}.example/adfs/ls`,
          idp_certificate: CERTIFICATE,
        })
      ).id,
    );
    await admin.createSCIMEndpoint({ org_id: org.id });
    await admin.addVerifiedOrgDomain({ org_id: org.id, domain: `${name}.com` });
    await admin.requestOrgDomain({ org_id: org.id, domain: `${name}.io` });
    await admin.fgaWriteTuples({ tuples: [{ user: `user:${person!.id}`, relation: "viewer", object: `doc:${name}` }] });
  }
  await admin.fgaWriteModel({ dsl: "model\n  schema 1.1\ntype user\ntype doc\n  relations\n    define viewer: [user]" });
  await admin.inviteMembers({ emails: ["bob@example.com"] });
  await admin.close();
  await user.close();
  return ids;
}

const CERTIFICATE = selfSignedCertificate({
  ...generateKeyPairSync("ec", { namedCurve: "P-256" }),
  commonName: "adfs.example",
  notBefore: new Date(START_MS),
  notAfter: new Date(START_MS + 365 * 86_400_000),
});

beforeAll(async () => {
  const env = await ensurePythonEnv({ log: (line) => console.log(line) });
  schemathesis = join(env.venv, "bin", "schemathesis");
  keys = await makeTestKeys(2);
  // The run sends wrong and missing credentials on purpose (its ignored_auth check); the lockout
  // of wrong admin secrets, which it would trip, is tested elsewhere (test/server/auth.test.ts).
  server = await startSwappableServer(createWorld(keys, "schemathesis").service, {
    lockout: { maxFailures: 1_000_000, windowMs: 60_000 },
    logger: ({ protocol, operation, outcome }) => {
      const key = `${protocol} ${operation} ${outcome}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    },
  });
  work = tempDir("schemathesis-");
  writeFileSync(
    join(work, "contract.json"),
    JSON.stringify({
      adminSecretHeader: schema.adminSecretHeader,
      errorCodes: rules.errorCodes,
      serverFaults: Object.entries(ERROR_WIRE)
        .filter(([, wire]) => wire.http >= 500)
        .map(([code]) => code),
    }),
  );
}, 600_000);

afterAll(async () => {
  await server?.close();
});

/** A fresh, seeded reference service behind the server; answers the seeded ids by kind. */
async function freshWorld(): Promise<Record<string, string[]>> {
  server.use(createWorld(keys, "schemathesis").service);
  return seed(server.httpUrl);
}

/** Runs `schemathesis run <location>` with the committed configuration, on a fresh world; answers its JSON report and output. */
async function run(name: string, location: string, args: string[]): Promise<{ report: Report; output: string; seconds: number }> {
  await freshWorld();
  // What the server answers from here on is the run's alone.
  outcomes.clear();
  const reports = join(work, name);
  const started = performance.now();
  const { output } = await runProcess(schemathesis, ["--config-file", CONFIG, "run", location, "--checks", "all", "--seed", SEED, "--report", "json", "--report-dir", reports, "--no-color", ...args], {
    // hooks.py is found from the working folder.
    cwd: HERE,
    env: { ...process.env, IDENTITY_SERVICE_URL: server.httpUrl, IDENTITY_ADMIN_SECRET: ADMIN_SECRET, IDENTITY_CONTRACT: join(work, "contract.json"), PYTHONDONTWRITEBYTECODE: "1" },
  });
  const file = readdirSync(reports, { withFileTypes: true }).find((entry) => entry.name.endsWith(".json"));
  if (!file) throw new Error(`schemathesis wrote no report:\n${output}`);
  return { report: JSON.parse(readFileSync(join(reports, file.name), "utf8")) as Report, output, seconds: (performance.now() - started) / 1000 };
}

/** Prints each finding with the request that reproduces it (schemathesis's own words), if there are any. */
function printFindings(label: string, { report, output }: { report: Report; output: string }): void {
  if (report.failures.length === 0 && report.errors.length === 0) return;
  const start = output.search(/=+ (FAILURES|ERRORS) =+/);
  const end = output.search(/=+ WARNINGS =+|=+ SUMMARY =+/);
  console.log(`schemathesis ${label}: findings\n${output.slice(Math.max(0, start), end < 0 ? undefined : end)}`);
}

function summary(label: string, { report, seconds }: { report: Report; seconds: number }, calls: Record<string, Record<string, number>>): string {
  const phases = Object.entries(report.phases)
    .map(([phase, { status }]) => `${phase} ${status}`)
    .join(", ");
  const total = Object.values(calls)
    .flatMap((byOutcome) => Object.values(byOutcome))
    .reduce((a, b) => a + b, 0);
  const succeeded = Object.values(calls).filter((byOutcome) => byOutcome.OK).length;
  return (
    `schemathesis ${label}: ${report.operations.tested}/${report.operations.selected} operations, ${report.test_cases.generated} test cases, ` +
    `${report.test_cases.unique_failures} unique findings, ${report.auth.reauth_count} re-authentications, ${seconds.toFixed(1)} s (${phases}); ` +
    `the server answered ${total} calls, ${succeeded} operations succeeded at least once; never: ${
      Object.keys(calls)
        .filter((op) => !calls[op]!.OK)
        .sort()
        .join(" ") || "none"
    }`
  );
}

describe("schemathesis", () => {
  it("lists each business rule it allows with its reason, on operations of the manifest", () => {
    const entries = readFileSync(CONFIG, "utf8")
      .split(/\n\n+/)
      .filter((entry) => entry.includes("[[operations]]") && entry.includes("checks."));
    expect(entries.length).toBeGreaterThan(5);
    for (const entry of entries) {
      expect(entry.split("\n")[0], entry).toMatch(/^# \w+.*: .+/);
      const named = /include-operation-id = (.+)/.exec(entry)![1]!;
      const ids = named.startsWith("[") ? (JSON.parse(named) as string[]) : [JSON.parse(named) as string];
      for (const id of ids) expect(schema.operations, entry).toHaveProperty(id);
    }
  });

  it("seeds the records whose ids the dictionaries of schemathesis.toml name", async () => {
    const seeded = await freshWorld();
    // The ids are counted, so the same seeding gives the same ids; a changed seeding says here what to write there.
    const dictionaries = Object.fromEntries(
      [...readFileSync(CONFIG, "utf8").matchAll(/^\[dictionaries\.([\w-]+)\]\nvalues = (\[.*\])$/gm)].map(([, name, values]) => [name!, JSON.parse(values!) as string[]]),
    );
    expect(dictionaries).toMatchObject(seeded);
  });

  it("finds nothing on the OpenAPI document but the listed business rules", async () => {
    const result = await run("openapi", join(REPO_ROOT, "generated", "openapi", "openapi.yaml"), ["--url", server.httpUrl, "--max-examples", MAX_EXAMPLES.openapi]);
    const calls = tally("rest");
    console.log(summary("openapi", result, calls));
    printFindings("openapi", result);
    expect(result.report.errors, "errors (printed above)").toEqual([]);
    expect(result.report.failures, "findings (printed above)").toEqual([]);
    // Every operation ran, every phase ran, and the signed-in user held.
    expect(result.report.operations.tested).toBe(Object.values(schema.operations).filter((op) => op.rest).length);
    expect(Object.values(result.report.phases).map((p) => p.status)).not.toContain("skip");
    expect(result.report.auth.reauth_broke).toBe(false);
    expect(result.report.exit_code).toBe(0);
  }, 600_000);

  it("finds nothing over GraphQL but refusals the contract declares", async () => {
    const result = await run("graphql", `${server.httpUrl}/graphql`, ["--max-examples", MAX_EXAMPLES.graphql, "--exclude-checks", "not_a_server_error"]);
    const calls = tally("graphql");
    console.log(summary("graphql", result, calls));
    printFindings("graphql", result);
    expect(result.report.errors, "errors (printed above)").toEqual([]);
    expect(result.report.failures, "findings (printed above)").toEqual([]);
    expect(result.report.operations.tested).toBe(Object.values(schema.operations).filter((op) => op.graphql).length);
    expect(result.report.exit_code).toBe(0);
  }, 600_000);
});
