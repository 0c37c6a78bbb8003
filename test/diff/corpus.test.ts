// Runs the diff corpus (test/diff/cases.ts) through the same path as `apigen diff`: both sides
// through the loader and IR builder, manifest rules, buf breaking, graphql-inspector and the
// OpenAPI rules, merged. Each case must report exactly its expected changes.
import { describe, it } from "vitest";
import { diffSides } from "../../generators/diff/command.js";
import { CASES } from "./cases.js";
import { sidesOf } from "./corpus.js";

/** The rules the contract diff must cover, each by at least one case. */
const REQUIRED_RULES = [
  "operation-removed",
  "operation-renamed",
  "protocol-removed",
  "min-version-raised",
  "min-version-not-new",
  "operation-destructive",
  "auth-tightened",
  "auth-scope-added",
  "auth-scope-removed",
  "input-field-required-added",
  "input-field-removed",
  "input-field-type-changed",
  "output-field-removed",
  "output-field-type-changed",
  "enum-value-removed",
  "read-became-write",
  "rest-path-changed",
  "rest-method-changed",
  "proto-field-renumbered",
  "proto-field-renamed",
  "input-rules-narrowed",
  "input-rules-widened",
  "input-rules-changed",
  "output-rules-widened",
  "output-rules-narrowed",
  "format-narrowed",
  "format-widened",
  "api-limit-lowered",
  "api-limit-raised",
  "admin-secret-header-changed",
  "org-admin-role-changed",
  "grpc-port-changed",
  "acronyms-changed",
  "package-renamed",
  "package-metadata-changed",
  "group-title-changed",
  "api-name-changed",
  "api-title-changed",
  "api-description-changed",
  "title-changed",
  "error-code-added",
  "cookie-removed",
];

/** Changes that must never be reported as breaking. */
const SAFE_CASES = ["input field added as optional", "new operation", "description edit", "protocol added", "field description edit", "output field added"];

describe("diff corpus", () => {
  it("has at least 40 cases, some combining several changes", ({ expect }) => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(CASES.filter((c) => c.edits.length > 1).length).toBeGreaterThanOrEqual(3);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it("covers every rule of the contract diff, and has the safe changes", ({ expect }) => {
    const covered = new Set(CASES.flatMap((c) => c.expected.map((e) => e.id.split(":")[0])));
    expect(REQUIRED_RULES.filter((rule) => !covered.has(rule))).toEqual([]);
    expect(SAFE_CASES.filter((name) => !CASES.some((c) => c.name === name))).toEqual([]);
  });

  describe.concurrent("each case reports exactly its expected changes", () => {
    for (const diffCase of CASES) {
      it(diffCase.name, async ({ expect }) => {
        const { oldSide, newSide } = sidesOf(diffCase);
        const report = await diffSides(newSide, oldSide);
        const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
        const got = report.changes.map((c) => ({ id: c.id, severity: c.severity, protocols: c.protocols })).sort(byId);
        const expected = diffCase.expected.map((e) => ({ id: e.id, severity: e.severity, protocols: e.protocols })).sort(byId);
        expect(got).toEqual(expected);
        for (const e of diffCase.expected.filter((x) => x.sources)) {
          expect(report.changes.find((c) => c.id === e.id)!.sources, e.id).toEqual(expect.arrayContaining(e.sources!));
        }
        for (const e of diffCase.expected.filter((x) => x.sdks)) {
          expect(report.changes.find((c) => c.id === e.id)!.sdks, e.id).toEqual(e.sdks);
        }
        const breaking = diffCase.expected.some((e) => e.severity === "breaking");
        expect(report.summary.breaking > report.summary.accepted).toBe(breaking);
        // Most cases keep the base's version, so the version check fails on every contract change; it
        // names the bump the changes call for. Cases that add an operation or a protocol raise it, as they must.
        const bump = diffCase.bump ?? (breaking ? "major" : "patch");
        const version = /^ {2}version: (\S+)$/m.exec(newSide.text)![1]!;
        const raisedAsCalledFor = version === "2.5.0" && bump === "minor";
        expect(report.version).toMatchObject({ old: "2.4.0", new: version, bump, ok: bump === "none" || raisedAsCalledFor });
        expect(report.failed).toBe(breaking || (bump !== "none" && !raisedAsCalledFor));
        if (SAFE_CASES.includes(diffCase.name)) expect(report.summary.breaking).toBe(0);
      });
    }
  });

  it("accepts a break listed in the new manifest for its version, and names acknowledgements that match nothing", async ({ expect }) => {
    const removal = CASES.find((c) => c.name === "operation removed")!;
    const { oldSide, newSide } = sidesOf({
      ...removal,
      edits: [
        ...removal.edits,
        ["  version: 2.4.0\n", "  version: 3.0.0\n"],
        [
          "  groups:\n",
          "  breaking_changes_accepted:\n" +
            "    - { change: 'operation-removed:rotate_key', reason: keys rotate on their own now, version: 3.0.0 }\n" +
            "    - { change: 'operation-removed:nothing', reason: stale }\n" +
            "    - { change: 'operation-removed:delete_user', reason: shipped in 2.4, version: 2.4.0 }\n" +
            "  groups:\n",
        ],
      ],
    });
    const report = await diffSides(newSide, oldSide, ["input-field-removed:users.query", "operation-remove:rotate_key"]);
    const change = report.changes.find((c) => c.id === "operation-removed:rotate_key")!;
    expect(change.severity).toBe("breaking");
    expect(change.accepted).toEqual({ reason: "keys rotate on their own now", by: "manifest" });
    expect(report.summary).toMatchObject({ breaking: 1, accepted: 1 });
    // Accepted breaks still call for a major version, which 3.0.0 is.
    expect(report.version).toMatchObject({ bump: "major", minimum: "3.0.0", ok: true });
    expect(report.failed).toBe(false);
    // The 2.4.0 acceptance shipped with 2.4.0: neither applied nor stale. Typos get a hint.
    expect(report.unusedAcceptances).toEqual([
      { id: "input-field-removed:users.query", by: "flag" },
      { id: "operation-remove:rotate_key", by: "flag", didYouMean: "operation-removed:rotate_key" },
      { id: "operation-removed:nothing", by: "manifest" },
    ]);
  });

  it("lists an acceptance that matches nothing in the diff that adds it, not in later ones", async ({ expect }) => {
    const acceptance: [string, string] = ["  groups:\n", "  breaking_changes_accepted:\n    - { change: 'operation-removed:gone', reason: a typo, version: 2.4.1 }\n  groups:\n"];
    const bump: [string, string] = ["  version: 2.4.0\n", "  version: 2.4.1\n"];
    const adding = sidesOf({ name: "adds", edits: [acceptance, bump], expected: [] });
    expect((await diffSides(adding.newSide, adding.oldSide)).unusedAcceptances).toEqual([{ id: "operation-removed:gone", by: "manifest" }]);
    // A later commit of the same version that leaves the contract alone.
    const later = sidesOf({ name: "later", base: [acceptance, bump], edits: [["manifest_version: 1\n", "manifest_version: 1\n# reviewed\n"]], expected: [] });
    const report = await diffSides(later.newSide, later.oldSide);
    expect(report.unusedAcceptances).toEqual([]);
    expect(report.failed).toBe(false);
  });

  it("fails an accepted break whose version was not raised to the next major", async ({ expect }) => {
    const removal = CASES.find((c) => c.name === "operation removed")!;
    const { oldSide, newSide } = sidesOf({ ...removal, edits: [...removal.edits, ["  version: 2.4.0\n", "  version: 2.5.0\n"]] });
    const report = await diffSides(newSide, oldSide, ["operation-removed:rotate_key"]);
    expect(report.summary).toMatchObject({ breaking: 1, accepted: 1 });
    expect(report.version).toMatchObject({ bump: "major", minimum: "3.0.0", ok: false });
    expect(report.version.message).toBe("api.version 2.4.0 -> 2.5.0 is not enough: api.version 2.4.0 -> at least 3.0.0 (major bump for breaking changes)");
    expect(report.failed).toBe(true);
  });
});
