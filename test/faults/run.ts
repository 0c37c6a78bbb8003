// `npm run faults [-- --seconds N]`: the load with the fault schedule of schedule.ts, its report on
// stdout; exit 1 when an acknowledged write was lost, applied twice or duplicated, a client saw a
// code the docs do not state or an UNAVAILABLE without Retry-After, an SDK sent nothing, a fault of
// the schedule did not happen, or the service took 10 s or more to answer again after one. .ci/run
// runs 40 s of it after npm test.
import { parseArgs } from "node:util";
import { DOCUMENTED_CODES, formatReport, runFaultSchedule } from "./schedule.js";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "150" }, workers: { type: "string", default: "6" } } });
const report = await runFaultSchedule({ seconds: Number(values.seconds), workers: Number(values.workers), log: (line) => console.log(line) });
console.log(formatReport(report));
const problems = [
  ...Object.keys(report.codes)
    .filter((code) => !DOCUMENTED_CODES.has(code))
    .map((code) => `undocumented code: ${code}`),
  ...(report.lost.length > 0 ? [`${report.lost.length} acknowledged writes lost`] : []),
  ...(report.duplicates.length > 0 ? [`${report.duplicates.length} duplicate accounts`] : []),
  ...(report.appliedTwice.length > 0 ? [`${report.appliedTwice.length} writes applied twice`] : []),
  ...(report.unavailableWithoutRetryAfter > 0 ? [`${report.unavailableWithoutRetryAfter} UNAVAILABLE answered without Retry-After`] : []),
  ...["go", "python", "ts"].filter((sdk) => !report.bySdk[sdk]).map((sdk) => `no call from the ${sdk} SDK`),
  ...(new Set(report.recoveries.map((recovery) => recovery.fault)).size < 4 ? ["not every fault of the schedule happened: give it more --seconds"] : []),
  ...report.recoveries.filter((recovery) => recovery.seconds >= 10).map((recovery) => `${recovery.fault}: answering again took ${recovery.seconds.toFixed(1)} s`),
];
for (const problem of problems) console.log(`FAILED: ${problem}`);
console.log(problems.length === 0 ? "faults: passed" : `faults: ${problems.length} problems`);
process.exit(problems.length > 0 ? 1 : 0);
