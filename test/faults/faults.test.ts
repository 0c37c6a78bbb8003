// The fault schedule, short: about 40 s of load from the TypeScript, Python and Go SDKs on two
// replicas of one PostgreSQL and one Redis while each fault happens once (schedule.ts); `npm run
// faults` runs it longer.
import { describe, expect, it } from "vitest";
import { DOCUMENTED_CODES, formatReport, runFaultSchedule } from "./schedule.js";

describe("two replicas under load while a replica is killed, PostgreSQL and Redis restarted and Redis paused", () => {
  it("lose no acknowledged write, make no duplicate account, apply no write twice, and answer only the documented codes", async () => {
    const report = await runFaultSchedule({ seconds: 40, workers: 4 });
    console.log(formatReport(report));
    expect(report.lost).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.appliedTwice).toEqual([]);
    expect(Object.keys(report.codes).filter((code) => !DOCUMENTED_CODES.has(code))).toEqual([]);
    expect(report.unavailableWithoutRetryAfter).toBe(0);
    expect(report.acknowledged.signups).toBeGreaterThan(50);
    // The load came from the three SDKs.
    expect(Object.keys(report.bySdk).sort()).toEqual(["go", "python", "ts"]);
    expect(report.acknowledged.updates + report.acknowledged.deletes + report.acknowledged.refreshes).toBeGreaterThan(50);
    expect(new Set(report.recoveries.map((recovery) => recovery.fault)).size).toBe(4);
    for (const recovery of report.recoveries) expect(recovery.seconds, recovery.fault).toBeLessThan(10);
  }, 240_000);
});
