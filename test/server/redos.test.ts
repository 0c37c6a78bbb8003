// Validation that cannot stall: every regular expression the server runs on a caller's value (the
// built-in formats, the manifest's declared formats) is judged by recheck, a ReDoS checker nobody
// here wrote, and 1 MiB of adversarial input to each format is decided quickly.
import { checkSync } from "recheck";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../generated/schema.js";
import { rules } from "../../generated/server/rules.js";
import { BUILTIN_FORMAT_RULES, URL_CHECK } from "../../runtime/formats.js";
import { formatCheck, validateInput } from "../../runtime/validate.js";
import { startRecordingService, type RecordingService } from "../helpers/recording-service.js";

const SECRET = "s3cret-admin-key";

/** Declared patterns known to backtrack super-linearly, with the reason they are still published: none. */
const KNOWN_UNSAFE = new Set<string>();

const patterns: [name: string, source: string, flags: string][] = [
  ...Object.entries(BUILTIN_FORMAT_RULES).map(([name, rule]) => [`builtin ${name} (published)`, rule.pattern, ""] as [string, string, string]),
  ["builtin url (the server's check)", URL_CHECK.source, URL_CHECK.flags],
  ...Object.entries(rules.formats).flatMap(([name, format]) => (format.pattern ? [[name, format.pattern, "u"] as [string, string, string]] : [])),
];

/** recheck's verdict per pattern name, for the timing tests below. */
const verdicts = new Map<string, string>();

describe("every pattern the server runs on a caller's value", () => {
  it.each(patterns)("%s is judged by recheck", (name, source, flags) => {
    const verdict = checkSync(source, flags, { timeout: 10_000 });
    verdicts.set(name, verdict.status);
    expect(verdict.status, `${name}: /${source}/ (${verdict.status === "vulnerable" ? `${verdict.complexity.type}: ${verdict.attack.pattern}` : ""})`).toBe(
      KNOWN_UNSAFE.has(name) ? "vulnerable" : "safe",
    );
  });
});

const MIB = 1 << 20;
/** Inputs that make backtracking engines work hardest on patterns of these shapes, 1 MiB each. */
const ADVERSARIAL = ["a".repeat(MIB) + "\n", `http://${"a".repeat(MIB)} `, "a:".repeat(MIB / 2) + " ", `${"a".repeat(MIB)}@`, "a.".repeat(MIB / 2) + "-", "-".repeat(MIB), " ".repeat(MIB)];

describe("1 MiB of adversarial input to each format", () => {
  const timings: string[] = [];
  const formats = [...Object.keys(BUILTIN_FORMAT_RULES), ...Object.keys(rules.formats)].filter((format) => !KNOWN_UNSAFE.has(format));
  // The format's own check, with no field's length cap before it: the worst case of any field.
  it.each(formats)("%s is decided in well under a second", (format) => {
    // A pattern recheck found unsafe would stall this test (a regex cannot be interrupted): it failed above already.
    // Formats given as a list of values are a set look-up: no pattern to judge.
    const verdict = rules.formats[format]?.values ? "safe" : verdicts.get(format in BUILTIN_FORMAT_RULES ? `builtin ${format} (published)` : format);
    if (verdict !== "safe" || (format === "url" && verdicts.get("builtin url (the server's check)") !== "safe")) expect.fail(`${format}: not timed, recheck judged its pattern ${verdict}`);
    const check = formatCheck(rules, format);
    let slowest = 0;
    for (const value of ADVERSARIAL) {
      const started = performance.now();
      check.test(value);
      slowest = Math.max(slowest, performance.now() - started);
    }
    timings.push(`${format} ${slowest.toFixed(1)} ms`);
    // Linear checks take a few milliseconds here; a quadratic one takes minutes.
    expect(slowest, `${format}: slowest of ${ADVERSARIAL.length} inputs`).toBeLessThan(500);
  });
  it("prints the timings", () => {
    console.log(`slowest 1 MiB input per format: ${timings.join(", ")}`);
    expect(timings.length).toBeGreaterThan(10);
  });
});

describe("a call with a huge value, over REST", () => {
  let service: RecordingService;
  beforeAll(async () => {
    service = await startRecordingService(SECRET);
  });
  afterAll(() => service.close());

  it("refuses a 900 KB redirect_uri of magic_link_login at once, and the service keeps answering meanwhile", async () => {
    const started = performance.now();
    const [answer, health] = await Promise.all([
      fetch(`${service.httpUrl}/v1/magic_link_login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com", redirect_uri: `https://${"a".repeat(900_000)} ` }),
      }),
      fetch(`${service.httpUrl}/healthz`),
    ]);
    const took = performance.now() - started;
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ code: "INVALID_ARGUMENT", message: "redirect_uri: must be an http or https URL" });
    expect(health.status).toBe(200);
    console.log(`900 KB redirect_uri refused in ${took.toFixed(0)} ms`);
    expect(took).toBeLessThan(2_000);
    expect(service.calls.filter((call) => call.method === "magicLinkLogin")).toEqual([]);
  });
});

describe("length rules count code points without building them", () => {
  const update = schema.operations.update_profile!;
  const password = (value: string) => () => validateInput(schema, rules, update, { old_password: "x", new_password: value, confirm_new_password: value });
  it.each([
    ["256 astral characters (512 UTF-16 units)", "😀".repeat(256), true],
    ["257 astral characters", "😀".repeat(257), false],
    ["255 ASCII and one astral", "a".repeat(255) + "😀", true],
    ["11 astral characters (22 units)", "😀".repeat(11), false],
    ["12 astral characters", "😀".repeat(12), true],
    ["a lone high surrogate counts as one", "\uD83D".repeat(256), true],
    ["1 MiB of ASCII", "a".repeat(MIB), false],
  ])("%s", (_name, value, valid) => {
    if (valid) expect(password(value)).not.toThrow();
    else expect(password(value)).toThrow(/new_password: must be at (least 12|most 256) characters/);
  });
});
