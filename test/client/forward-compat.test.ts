// An SDK older than the service loses nothing: fields it does not know are kept on the answer at
// every level, an enum number it does not know arrives as UNKNOWN_<n>, and extraBody sends input
// fields it does not know yet (REST, GraphQL; refused over gRPC, which cannot carry them). The
// SDK's types say so (checked by tsc): answers take unknown fields and enum values, inputs do not.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreClient } from "../../examples/bookstore/generated/client/index.js";
import { AdminClient, type ApiError } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import { SDK_TYPES_MODULE } from "../../generators/emit/typescript.js";
import { normalizeMessage } from "../../runtime/shape.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";

const answered = (body: unknown) => {
  const sent: { url: string; body: unknown }[] = [];
  const fetch = (async (url: string, init?: RequestInit) => {
    sent.push({ url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
};

describe("forward compatibility", () => {
  it("keeps the fields an answer has that this SDK does not know, at every level", async () => {
    const organization = { id: "o1", name: "acme", display_name: null, enabled: true, created_at: 1, updated_at: 2, region: "eu-west", billing: { plan: "pro" } };
    const { fetch } = answered({ organizations: [organization], pagination: { limit: 10, page: 1, offset: 0, total: 1, cursor_kind: "page" }, took_ms: 3 });
    const client = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch, serverVersion: schema.version });
    const answer = (await client.organizations()) as unknown as Record<string, unknown> & { organizations: Record<string, unknown>[]; pagination: Record<string, unknown> };
    expect(answer.took_ms).toBe(3);
    expect(answer.pagination.cursor_kind).toBe("page");
    expect(answer.organizations[0]).toEqual(organization);
  });

  it("keeps a field whose JSON type is not its own as it came, with a warning, rather than failing the read", async () => {
    const { fetch } = answered({ id: "o1", name: "acme", display_name: null, enabled: "yes", created_at: 1, updated_at: 2 });
    const warnings: string[] = [];
    const client = new AdminClient({
      serviceUrl: "http://127.0.0.1:9",
      adminSecret: "s",
      protocol: "rest",
      fetch,
      serverVersion: schema.version,
      logger: { debug: () => {}, warn: (line) => warnings.push(line) },
    });
    const organization = (await client.getOrganization({ id: "o1" })) as unknown as Record<string, unknown>;
    expect([organization.name, organization.enabled]).toEqual(["acme", "yes"]);
    expect(warnings).toContain("get_organization: the answer does not fit Organization (enabled: not a boolean); the value is kept as it came (HTTP 200)");
  });

  it("reads the values of text kinds in any form a peer sends and answers their canonical form, through the grammar loaded with the operation", async () => {
    // A service that writes an offset, URL-safe base64 without padding and an integer for a uint64.
    const book = {
      id: "b1",
      title: "Moby-Dick",
      author: { name: "Herman Melville", born: 1819 },
      genre: "fiction",
      in_stock: true,
      added_at: "2026-01-31T10:30:00.500+01:00",
      published_on: "1851-10-18",
      isbn: 9780142437247,
      loan_period: "90.000s",
      cover: "iVBORw0KGgo_-w",
      copies_sold: "-9223372036854775808",
    };
    const { fetch } = answered(book);
    const store = new StoreClient({ serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch });
    expect(await store.getBook({ id: "b1" })).toMatchObject({
      added_at: "2026-01-31T09:30:00.500Z",
      published_on: "1851-10-18",
      isbn: "9780142437247",
      loan_period: "90s",
      cover: "iVBORw0KGgo/+w==",
      copies_sold: "-9223372036854775808",
    });
    await store.close();
  });

  it("gives an enum number it does not know over gRPC as UNKNOWN_<n>; 0 (unset) stays null", () => {
    const fromGrpc = { id: "i1", keySourceType: 7, issuerType: 0, allowedSubjects: [] };
    const answer = normalizeMessage(schema, "TrustedIssuer", fromGrpc, "protoName");
    expect([answer.key_source_type, answer.issuer_type]).toEqual(["UNKNOWN_7", null]);
    expect(normalizeMessage(schema, "TrustedIssuer", { keySourceType: 2 }, "protoName").key_source_type).toBe("oidc_discovery");
  });

  it("sends extraBody beside the typed input over REST and GraphQL, and refuses it over gRPC before sending", async () => {
    const rest = answered({ id: "o1", name: "acme", display_name: null, enabled: true, created_at: 1, updated_at: 2 });
    const overRest = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "rest", fetch: rest.fetch, serverVersion: schema.version });
    await overRest.createOrganization({ name: "acme" }, { extraBody: { region: "eu-west" } });
    expect(rest.sent[0]!.body).toEqual({ name: "acme", region: "eu-west" });
    const graphql = answered({ data: { create_organization: { id: "o1", name: "acme", display_name: null, enabled: true, created_at: 1, updated_at: 2 } } });
    const overGraphql = new AdminClient({ serviceUrl: "http://127.0.0.1:9", adminSecret: "s", protocol: "graphql", fetch: graphql.fetch, serverVersion: schema.version });
    await overGraphql.createOrganization({ name: "acme" }, { extraBody: { region: "eu-west" } });
    expect((graphql.sent[0]!.body as { variables: unknown }).variables).toEqual({ params: { name: "acme", region: "eu-west" } });
    const overGrpc = new AdminClient({ serviceUrl: "http://127.0.0.1:1", adminSecret: "s", protocol: "grpc", serverVersion: schema.version });
    const refused = await overGrpc.createOrganization({ name: "acme" }, { extraBody: { region: "eu-west" } }).then(
      () => expect.fail("refused"),
      (error: unknown) => error as ApiError,
    );
    expect(refused).toMatchObject({ code: "INVALID_ARGUMENT", refused: true });
    expect(refused.message).toBe("create_organization: extraBody cannot travel over grpc, whose messages carry only the fields this SDK knows; use rest or graphql");
    await overGrpc.close();
  });

  it("are typed as they come: an unknown field is unknown and an unknown enum value a string on an answer, a declared field keeps its type, an input takes known enum values alone (tsc)", async () => {
    const sdk = JSON.stringify(join(REPO_ROOT, SDK_TYPES_MODULE).replace(/types\.ts$/, "index.js"));
    // Each line marked "error:" must fail to compile, every other line must compile.
    const source = `import type { AdminClient, KeySourceType, KeySourceTypeOrUnknown, TrustedIssuer, WireProtocolOrUnknown } from ${sdk};

export async function reads(admin: AdminClient): Promise<unknown[]> {
  const issuer = await admin.getTrustedIssuer({ id: "i1" });
  const name: string = issuer.name;
  const region: unknown = issuer["region"];
  const billing = issuer.billing;
  const source: KeySourceTypeOrUnknown = issuer.key_source_type;
  const fromNewerService: TrustedIssuer["key_source_type"] = "UNKNOWN_7";
  const known: TrustedIssuer["key_source_type"] = "jwks_url";
  const protocols: WireProtocolOrUnknown[] = (await admin.adminMeta()).enabled_protocols;
  const listed: WireProtocolOrUnknown[] = ["graphql", "soap"];
  const page = await admin.trustedIssuers();
  const nested: unknown = page.trusted_issuers[0]?.["rotation"];
  for await (const each of admin.iterateTrustedIssuers()) void each["rotation"];
  const count: number = issuer.name; // error: a declared field keeps its type
  const regionName: string = issuer["region"]; // error: a field this SDK does not know is unknown
  const closed: KeySourceType = issuer.key_source_type; // error: an answer may hold a value this SDK does not know
  await admin.addTrustedIssuer({ service_account_id: "s", name: "n", issuer_url: "https://issuer.test", key_source_type: "jwks_ur1", expected_aud: "a", issuer_type: "oidc" }); // error: a misspelled enum value
  await admin.updateTrustedIssuer({ id: "i1", key_source_type: "UNKNOWN_7" }); // error: an input takes the values this SDK knows
  await admin.addTrustedIssuer({ service_account_id: "s", name: "n", issuer_url: "https://issuer.test", key_source_type: "oidc_discovery", expected_aud: "a", issuer_type: "oidc" });
  return [name, region, billing, source, fromNewerService, known, protocols, listed, nested, count, regionName, closed];
}
`;
    const dir = mkdtempSync(join(tmpdir(), "sdk-types-"));
    try {
      symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "junction");
      writeFileSync(join(dir, "check.ts"), source);
      const compilerOptions = { strict: true, noEmit: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", skipLibCheck: true, noUncheckedIndexedAccess: true, types: ["node"] };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.ts"] }));
      const tsc = await runProcess(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", dir, "--pretty", "false"], { cwd: dir });
      const errors = [...tsc.output.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}:${m[2]} ${m[3]}`);
      const expected = source
        .split("\n")
        .flatMap((line, index) => (line.includes("// error:") ? [`check.ts:${index + 1}`] : []))
        .map((at) => expect.stringMatching(new RegExp(`^${at} TS(2322|2820)$`)));
      expect(errors, tsc.output).toEqual(expected);
    } finally {
      if (!process.env.KEEP_SDK_TYPES) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
