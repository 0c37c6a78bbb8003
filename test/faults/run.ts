// `npm run faults [-- --seconds N]`: the load with the fault schedule of schedule.ts, its report on
// stdout; exit 1 when an acknowledged write was lost, applied twice or duplicated, or a client saw a
// code the docs do not state.
import { parseArgs } from "node:util";
import { DOCUMENTED_CODES, formatReport, runFaultSchedule } from "./schedule.js";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "150" }, workers: { type: "string", default: "6" } } });
const report = await runFaultSchedule({ seconds: Number(values.seconds), workers: Number(values.workers), log: (line) => console.log(line) });
console.log(formatReport(report));
const undocumented = Object.keys(report.codes).filter((code) => !DOCUMENTED_CODES.has(code));
if (undocumented.length > 0) console.log(`undocumented codes: ${undocumented.join(", ")}`);
process.exit(report.lost.length + report.duplicates.length + report.appliedTwice.length + undocumented.length + report.unavailableWithoutRetryAfter > 0 ? 1 : 0);
