// The load of the server benchmarks: autocannon against a target for a few seconds, the CPU time
// its processes spent per call (from /proc), interleaved rounds of a baseline and a subject, and
// the lines that print a ratio against the baseline measured in the same run.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { AdminService } from "../generated/proto/identity/v1/admin_service_pb.js";
import { benchPosition } from "./banner.js";
import { BENCH_ADMIN_SECRET as ADMIN_SECRET, type Target } from "./targets.js";

// Many short rounds rather than a few long ones: the machine's speed changes from one second to the
// next, and the median of many rounds moves less than that of a few. Rounds taken in turn (pair())
// still meet different slowdowns; pairAtOnce() loads both sides in the same round
// (docs/benchmarks.md).
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
export const CONNECTIONS = 16;
/** How pair() measures, for the benchmarks' headers. */
export const ROUNDS_TEXT = `medians of ${ROUNDS} interleaved rounds of ${SECONDS} s, each ratio the median of its rounds' own`;
/** How pairAtOnce() measures. */
export const AT_ONCE_TEXT = `medians of ${ROUNDS} rounds of ${SECONDS} s loading both sides at once, each ratio the median of its rounds' own`;

/**
 * One round of load: requests per second, and the CPU time the server processes spent per call.
 * The machine is shared, so req/s move with other jobs; CPU per call moves much less, which makes
 * it the steadier measure of what a feature costs.
 */
export interface Measure {
  rps: number;
  cpuMicrosPerCall: number;
  /** Of a subject measured by pair() or pairAtOnce(): its baseline, and the medians over rounds of its rate over the baseline's in the same round and of the baseline's CPU per call over its own. */
  paired?: { baseline: Measure; rpsRatio: number; cpuRatio: number; roundRatios: number[] };
}
export type Load = () => Promise<Measure>;

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of processes so far, in microseconds (Linux /proc; 0 elsewhere). */
export function cpuMicros(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) return 0;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / CLOCK_TICKS) * 1e6;
}

/** The fields of /proc/<pid>/stat after the command name, or undefined for a process gone. */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined;
  }
}

/**
 * User + system CPU time, in microseconds, of the process `root` and of every process under it:
 * those running now, and those it has reaped (its cutime and cstime): a database server's
 * connection processes, which come and go. 0 when `root` is gone or off Linux.
 */
export function treeCpuMicros(root: number): number {
  const rootFields = statFields(root);
  if (!rootFields) return 0;
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid, depth = 0; at !== undefined && at > 1 && depth < 64; at = parents.get(at), depth++) if (at === root) return true;
    return false;
  };
  let ticks = Number(rootFields[13]) + Number(rootFields[14]);
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    const fields = statFields(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / CLOCK_TICKS) * 1e6;
}

/** Measures `run` (which answers the calls it made) against the CPU of `pids`, and of the process trees under `trees` (treeCpuMicros). */
export function measured(pids: readonly number[], run: () => Promise<number>, trees: readonly number[] = []): Load {
  const cpu = () => cpuMicros(pids) + trees.reduce((sum, root) => sum + treeCpuMicros(root), 0);
  return async () => {
    const cpuBefore = cpu();
    const calls = await run();
    return { rps: calls / SECONDS, cpuMicrosPerCall: (cpu() - cpuBefore) / calls };
  };
}

export const SECRET_HEADER = { "x-service-admin-secret": ADMIN_SECRET };

/** POST `body` to `path` of a target with autocannon; every answer must be a 2xx. */
export function http(target: Target, path: string, body: string, auth: Record<string, string> = SECRET_HEADER, alsoPids: readonly number[] = [], alsoTrees: readonly number[] = []): Load {
  return measured(
    [target.child.pid!, ...alsoPids],
    async () => {
      const result = await autocannon({
        url: `http://127.0.0.1:${target.http}${path}`,
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body,
        connections: CONNECTIONS,
        duration: SECONDS,
      });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      return result.requests.total;
    },
    alsoTrees,
  );
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medianMeasure = (measures: Measure[]): Measure => ({ rps: median(measures.map((m) => m.rps)), cpuMicrosPerCall: median(measures.map((m) => m.cpuMicrosPerCall)) });

/** Pairs measured so far in this process, for the progress line. */
let pairsStarted = 0;

/**
 * Medians of `baseline` and `subject` over interleaved rounds, after one warm-up round each. The
 * machine is shared and its speed drifts over seconds: each round runs the two back to back (in
 * turn first, so that neither always meets the drift first), and the ratio reported is the median
 * of the rounds' own ratios, which a drift between rounds does not move.
 */
export async function pair(baseline: Load, subject: Load): Promise<[Measure, Measure]> {
  const pairNumber = ++pairsStarted;
  benchPosition.text = `pair ${pairNumber}, warming up`;
  await baseline();
  await subject();
  const a: Measure[] = [];
  const b: Measure[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    benchPosition.text = `pair ${pairNumber}, round ${i + 1} of ${ROUNDS}`;
    if (i % 2 === 0) {
      a.push(await baseline());
      b.push(await subject());
    } else {
      b.push(await subject());
      a.push(await baseline());
    }
  }
  return paired(a, b);
}

/** The medians of each side's rounds, and the subject's ratios as the medians of the rounds' own. */
function paired(a: Measure[], b: Measure[]): [Measure, Measure] {
  const baselineMedian = medianMeasure(a);
  const roundRatios = a.map((baselineRound, i) => b[i]!.rps / baselineRound.rps);
  const ratios = {
    baseline: baselineMedian,
    rpsRatio: median(roundRatios),
    roundRatios,
    cpuRatio: median(a.map((baselineRound, i) => (b[i]!.cpuMicrosPerCall > 0 ? baselineRound.cpuMicrosPerCall / b[i]!.cpuMicrosPerCall : 0))),
  };
  return [baselineMedian, { ...medianMeasure(b), paired: ratios }];
}

/**
 * `baseline` and `subject` loaded at the same time, round after round, after one warm-up round.
 * With separateCores() the two servers share the one core the servers run on, the load has the
 * others: whatever else slows that core down (this machine's other tenants slowed one server from
 * 26 to 56 µs of CPU a call between two seconds) slows both at once, and the kernel gives each half
 * of the core, so the ratio of their rates is the ratio of their costs on the same core at the same
 * time. A round's own ratio then varies by 2-3% (one standard deviation) where rounds in turn varied
 * by 13-34%, and two processes of the same code came out within 2.5% of each other in four
 * standalone runs (docs/benchmarks.md). Each ratio is the median of the rounds' own.
 */
export async function pairAtOnce(baseline: Load, subject: Load, rounds = ROUNDS): Promise<[Measure, Measure]> {
  const pairNumber = ++pairsStarted;
  benchPosition.text = `pair ${pairNumber}, warming up`;
  await Promise.all([baseline(), subject()]);
  const a: Measure[] = [];
  const b: Measure[] = [];
  for (let i = 0; i < rounds; i++) {
    benchPosition.text = `pair ${pairNumber}, round ${i + 1} of ${rounds}`;
    const [baselineRound, subjectRound] = await Promise.all([baseline(), subject()]);
    a.push(baselineRound);
    b.push(subjectRound);
  }
  return paired(a, b);
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(0).padStart(3)}%`;

/** Throughput against the baseline, with a target; and the CPU each call cost the server. */
/** The req/s ratio of `subject` to `baseline`: paired with this very baseline, the median of the rounds' ratios; otherwise the medians' ratio. */
export function ratioOf(subject: Measure, baseline: Measure): number {
  const paired = subject.paired?.baseline === baseline ? subject.paired : undefined;
  return paired?.rpsRatio ?? subject.rps / baseline.rps;
}

export function row(name: string, subject: Measure, baseline: Measure, of: string, target?: number): string {
  const paired = subject.paired?.baseline === baseline ? subject.paired : undefined;
  const ratio = ratioOf(subject, baseline);
  const cpuRatio = paired?.cpuRatio ?? baseline.cpuMicrosPerCall / subject.cpuMicrosPerCall;
  const verdict = target === undefined ? "" : `target ${target}%: ${ratio * 100 >= target ? "met" : "MISSED"}`;
  const cpu = subject.cpuMicrosPerCall > 0 ? `cpu ${subject.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call (${percent(cpuRatio).trim()} of it)` : "";
  return `${name.padEnd(14)} ${subject.rps.toFixed(0).padStart(7)} req/s  ${percent(ratio)} of ${of.padEnd(30)} ${verdict.padEnd(18)} ${cpu}`;
}

/** A baseline's own line. */
export function base(name: string, measure: Measure): string {
  return `${name.padEnd(14)} ${measure.rps.toFixed(0).padStart(7)} req/s${measure.cpuMicrosPerCall > 0 ? `  cpu ${measure.cpuMicrosPerCall.toFixed(0).padStart(4)} µs/call` : ""}`;
}

/** update_user with every field of its input set, each valid under the manifest's rules. */
export const UPDATE_USER = {
  id: "user-1",
  email: "ada@example.com",
  email_verified: true,
  given_name: "Ada",
  family_name: "Lovelace",
  middle_name: "King",
  nickname: "ada",
  gender: "female",
  birthdate: "1815-12-10",
  phone_number: "+441234567890",
  phone_number_verified: false,
  picture: "https://example.com/ada.png",
  roles: ["user", "admin"],
  is_multi_factor_auth_enabled: true,
  app_data: { team: "analytics", since: 1843 },
};

/** One ghz run calling AdminMeta on `endpoint` (plaintext, or TLS trusting `ca`): requests a second and latencies in ms; throws on any failed call. */
export function ghzAdminMeta(
  ghzPath: string,
  protoset: string,
  endpoint: string,
  options: { concurrency: number; seconds: number; ca?: string; connections?: number },
): { rps: number; p50: number; p99: number } {
  const { ca, connections } = options;
  const args = [
    ...(ca ? ["--cacert", ca, "--cname", "localhost"] : ["--insecure"]),
    ...["--protoset", protoset, "--call", `${AdminService.typeName}/${AdminService.method.adminMeta.name}`, "--data", "{}", "--metadata", JSON.stringify(SECRET_HEADER)],
    ...["--concurrency", String(options.concurrency), ...(connections ? ["--connections", String(connections)] : []), "--duration", `${options.seconds}s`],
    // Calls in flight when time is up finish, rather than fail as "transport is closing".
    ...["--duration-stop", "wait", "--format", "json", endpoint],
  ];
  const result = spawnSync(ghzPath, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (!result.stdout) throw new Error(`ghz failed (${result.status}): ${result.stderr}`);
  const report = JSON.parse(result.stdout) as {
    rps: number;
    statusCodeDistribution: Record<string, number>;
    errorDistribution?: Record<string, number>;
    latencyDistribution: { percentage: number; latency: number }[];
  };
  const failed = Object.entries(report.statusCodeDistribution).filter(([status]) => status !== "OK");
  if (failed.length > 0) throw new Error(`${endpoint}: calls failed: ${JSON.stringify(report.statusCodeDistribution)} ${JSON.stringify(report.errorDistribution ?? {})}`);
  const latency = (percentage: number) => report.latencyDistribution.find((d) => d.percentage === percentage)!.latency / 1e6;
  return { rps: report.rps, p50: latency(50), p99: latency(99) };
}
