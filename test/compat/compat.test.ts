// The compatibility run catches what no contract diff can see: behaviour changes behind unchanged
// contracts. The release is this commit (HEAD, packed from a checkout beside the repository); today's
// service runs as it is, and once more for each planted change (test/compat/service.ts). The true
// service passes every scenario on every protocol, both ways; each planted one fails the scenario
// that shows it, named in the result and in the report with both answers.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { protocolsOf } from "../../runtime/schema.js";
import { COMPAT_SCENARIOS } from "./scenarios.js";
import { acceptanceOf, judge, runCompat, shapeDifferences, shapeOf, type CompatResult, type Outcome } from "./run.js";
import { PLANTS, type Plant } from "./plants.js";

/** The SDKs of each tree the run drives. */
const SDKS = ["TypeScript", "Python sync", "Python async", "Go"];
const REPORT_DIR = mkdtempSync(join(tmpdir(), "compat-report-"));
const REPORT = join(REPORT_DIR, "compat-report.md");
let result: CompatResult;
const lines: string[] = [];

beforeAll(async () => {
  result = await runCompat({ bases: [{ ref: "HEAD", label: "HEAD" }], plants: Object.keys(PLANTS) as Plant[], report: REPORT, out: (line) => lines.push(line) });
  console.log(lines.join("\n"));
}, 600_000);
afterAll(() => rmSync(REPORT_DIR, { recursive: true, force: true }));

/** Which scenario each planted change must break, and the difference it must show. */
const CAUGHT: Record<Plant, { scenario: string; difference: RegExp }> = {
  "page-size": { scenario: "members invited are listed a full page at a time", difference: /^users: 10 items → 5$/ },
  "error-code": { scenario: "an unknown organization is not found", difference: /^NOT_FOUND → INVALID_ARGUMENT$/ },
  "field-emptied": { scenario: "an organization made is read back whole", difference: /^display_name: "<text>" → null$/ },
  "refusal-success": { scenario: "deleting an unknown organization is refused", difference: /^NOT_FOUND → ok$/ },
};

describe("the compatibility run", () => {
  it("passes the release's SDK against today's true service, and today's SDK against the release's service, on every protocol", () => {
    const honest = result.rows.filter((row) => !row.service.includes("planted"));
    // TypeScript, Python sync and async, Go: each release SDK against today's service, each of today's against the release's, on three protocols.
    expect(new Set(honest.map((row) => row.sdk.replace(/ [\d.]+ \(.*\)$/, "")))).toEqual(new Set(SDKS));
    const compatRows = honest.filter((row) => row.suite === "compat scenarios");
    expect(compatRows).toHaveLength(SDKS.length * 2 * 3);
    for (const row of compatRows) expect(row, `${row.sdk} → ${row.service} over ${row.protocol}`).toMatchObject({ passed: COMPAT_SCENARIOS.length, failed: 0, skipped: 0 });
    expect(result.failures.filter((failure) => !failure.service.includes("planted"))).toEqual([]);
  });

  it("replays the release's conformance matrix: every operation each SDK carries on each protocol, none skipped but those it does not carry", () => {
    const matrixRows = result.rows.filter((row) => row.suite === "conformance matrix");
    // The true service only: planted changes are the compat scenarios' to show.
    expect(matrixRows).toHaveLength(SDKS.length * 2 * 3);
    expect(matrixRows.filter((row) => row.service.includes("planted"))).toEqual([]);
    const operations = Object.values(schema.operations);
    for (const row of matrixRows) {
      const carried = operations.filter((operation) => protocolsOf(operation).includes(row.protocol)).length;
      expect(row, `${row.sdk} → ${row.service} over ${row.protocol}`).toMatchObject({ passed: carried, failed: 0, skipped: operations.length - carried, accepted: 0 });
    }
    expect(result.notPassedAtRelease).toEqual([]);
    expect([...result.changedScenarios]).toEqual([]);
  });

  it.each(Object.keys(PLANTS) as Plant[])("fails when %s is planted, naming the scenario, the SDK, the protocol and both answers", (plant) => {
    const failures = result.failures.filter((failure) => failure.service.includes(`${plant} planted`));
    const { scenario, difference } = CAUGHT[plant];
    // Caught by the release's SDK of every language on every protocol, in that scenario alone.
    expect(failures.map((failure) => `${failure.sdk.replace(/ [\d.]+ \(HEAD\)$/, "")} ${failure.protocol}`).sort()).toEqual(
      SDKS.flatMap((sdk) => ["graphql", "grpc", "rest"].map((protocol) => `${sdk} ${protocol}`)).sort(),
    );
    for (const failure of failures) {
      expect(failure.scenario).toBe(scenario);
      expect(failure.differences.join("; ")).toMatch(difference);
    }
    const report = readFileSync(REPORT, "utf8");
    expect(report).toContain(`today with ${plant} planted`);
    expect(report).toContain(`: ${scenario}`);
    expect(lines.some((line) => line.startsWith("compat: FAILED") && line.includes(`"${scenario}"`))).toBe(true);
  });

  it("reports a table of SDK × service × protocol", () => {
    const report = readFileSync(REPORT, "utf8");
    expect(report).toMatch(/^\| SDK \| service \| protocol \| scenarios \| passed \| failed \| skipped \| accepted \|$/m);
    expect(report).toMatch(/^\| TypeScript [\d.]+ \(today\) \| HEAD \([\d.]+\) \| grpc \| compat scenarios \| \d+ \| 0 \| 0 \| 0 \|$/m);
    expect(report).toMatch(/^\| Go [\d.]+ \(HEAD\) \| today \([\d.]+\) \| rest \| conformance matrix \| \d+ \| 0 \| \d+ \| 0 \|$/m);
  });
});

describe("answers reduced to what may not change", () => {
  it("keeps presence, kind, emptiness and lengths, not values", () => {
    expect(shapeOf({ id: "a1", name: "", count: 3, on: true, tags: ["x", "y"], gone: null })).toEqual({ id: "<text>", name: "", count: "<number>", on: true, tags: ["<text>", "<text>"], gone: null });
    expect(shapeDifferences(shapeOf({ users: [1, 2, 3] }), shapeOf({ users: [1] }))).toEqual(["users: 3 items → 1"]);
    expect(shapeDifferences(shapeOf({ a: { b: "x" } }), shapeOf({ a: { b: "" } }))).toEqual(['a.b: "<text>" → ""']);
    expect(shapeDifferences(shapeOf({ id: "x" }), shapeOf({ id: "y" }))).toEqual([]);
  });
});

describe("a breaking change the manifest accepts", () => {
  const acceptances = [
    { change: "error-code-changed:get_organization", version: "3.0.0" },
    { change: "input-rules-narrowed:oauth_token.code_verifier", version: "2.5.0" },
  ];
  it("explains a difference in its operation when the newer side is the major release it ships in, or later", () => {
    expect(acceptanceOf("get_organization", acceptances, "2.6.0", "3.0.0")).toBe("error-code-changed:get_organization");
    expect(acceptanceOf("get_organization", acceptances, "2.6.0", "3.1.2")).toBe("error-code-changed:get_organization");
    expect(acceptanceOf("oauth_token", acceptances, "2.4.1", "3.0.0")).toBe("input-rules-narrowed:oauth_token.code_verifier");
  });
  it("explains nothing without the major bump, before its version, or in another operation: those stay failures", () => {
    // Accepted for 3.0.0 but shipped as a minor: the bump the change calls for is missing.
    expect(acceptanceOf("get_organization", acceptances, "2.6.0", "2.7.0")).toBeUndefined();
    // Already in the release compared with.
    expect(acceptanceOf("oauth_token", acceptances, "2.5.0", "3.0.0")).toBeUndefined();
    expect(acceptanceOf("delete_organization", acceptances, "2.6.0", "3.0.0")).toBeUndefined();
    // Below 1.0 a minor is the breaking bump.
    expect(acceptanceOf("get_organization", [{ change: "error-code-changed:get_organization", version: "0.4.0" }], "0.3.2", "0.4.0")).toBe("error-code-changed:get_organization");
  });
});

describe("an operation newer than the release's service", () => {
  const scenario = { name: "a newer read", steps: [{ surface: "admin" as const, operation: "admin_meta", input: () => ({}) }] };
  const lacking: Outcome[] = [{ skipped: "this SDK has no admin_meta over grpc" }];
  it("must be refused by today's client before anything is sent, naming the version it needs", () => {
    const refused: Outcome[] = [
      { ok: false, code: "FAILED_PRECONDITION", refused: true, message: "AdminMeta not available over grpc; use rest (needs server 2.7.0 or later on grpc; the server is 2.6.0)" },
    ];
    expect(judge(scenario, lacking, refused, true)).toEqual({ kind: "refused-as-newer", step: "step 1 (admin_meta)" });
  });
  it("fails the run when today's client sends it anyway, and is skipped for the release's own client", () => {
    const sent: Outcome[] = [{ ok: false, code: "UNIMPLEMENTED", refused: false, message: "no such RPC" }];
    expect(judge(scenario, lacking, sent, true)).toMatchObject({ kind: "failed", step: "step 1 (admin_meta)", differences: [expect.stringMatching(/must refuse it before sending/)] });
    expect(judge(scenario, lacking, lacking, false)).toEqual({ kind: "skipped" });
  });
});
