// The bad-manifest corpus: every test/bad-manifests/*.yaml is a copy of test/fixtures/minimal.yaml
// with one defect (a few with two). Its leading `# expect:` lines are the diagnostics a user must
// see, in order. Each case runs the real CLI in a project that already holds a valid generation
// and checks the failure contract: exit 1, exactly those errors by place and stable code
// (`operations.yaml:61:3: error duplicate-key`) plus the summary line, no stack trace, nothing on
// stdout, and not one generated file written, changed or deleted. The messages' wording is held
// to the corpus in one test of its own, so rewording a message fails that test alone.
import { copyFileSync, cpSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DIAGNOSTIC_CODES } from "../generators/load/diagnostics.js";
import { runProcess } from "../scripts/run-process.mjs";
import { APIGEN, REPO_ROOT, apigen, projectWithManifest, readFixture, tempDir, type RunResult } from "./helpers/project.js";

const CORPUS = join(REPO_ROOT, "test", "bad-manifests");
const MANIFEST = "operations.yaml";

interface Case {
  name: string;
  text: string;
  expected: string[];
}

function loadCase(name: string): Case {
  const text = readFileSync(join(CORPUS, name), "utf8");
  const expected: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^# expect: (.*)$/.exec(line);
    if (!match) break;
    expected.push(match[1]!);
  }
  return { name, text, expected };
}

const names = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".yaml"))
  .sort();
const cases = new Map(names.map((name) => [name, loadCase(name)]));

function summaryLine(errors: number): string {
  return `${errors} error${errors === 1 ? "" : "s"} in ${MANIFEST}; nothing was written.`;
}

function expectedStderr(c: Case): string {
  return `${[...c.expected, summaryLine(c.expected.length)].join("\n")}\n`;
}

/** A diagnostic line's place and code (`operations.yaml:61:3: error duplicate-key`), and whether a message follows. */
const DIAGNOSTIC = /^(operations\.yaml:\d+:\d+: error ([a-z-]+)): \S/;
function placesAndCodes(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter(Boolean)
    .map((line) => DIAGNOSTIC.exec(line)?.[1] ?? line);
}

/** What each case printed, for the wording test below. */
const printed = new Map<string, string>();

/** Clips very long lines (a crash can print a whole minified bundle line) so a failure stays readable. */
const CLIP = 500;
function readable(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.length > CLIP ? `${line.slice(0, CLIP)}… [${line.length - CLIP} more characters]` : line))
    .join("\n");
}

function stackFrames(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("    at "));
}

/** `apigen <args> --root <root>` like the helper, but without blocking, so cases can run concurrently. */
async function apigenAsync(root: string, ...args: string[]): Promise<RunResult> {
  const { code, stdout, stderr } = await runProcess(process.execPath, [APIGEN, ...args, "--root", root]);
  return { code: code ?? -1, stdout, stderr };
}

interface FileState {
  bytes: Buffer;
  mtimeMs: number;
}

/** Every file below `root` except the manifest, as bytes plus modification time. */
function fileStates(root: string): Map<string, FileState> {
  const files = new Map<string, FileState>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const rel = relative(root, path).split("\\").join("/");
        if (rel !== MANIFEST) files.set(rel, { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs });
      }
    }
  };
  walk(root);
  return files;
}

/** What a run did to the files: against the baseline content and against the state just before the run. */
function changes(baseline: Map<string, FileState>, before: Map<string, FileState>, after: Map<string, FileState>) {
  return {
    added: [...after.keys()].filter((path) => !baseline.has(path)).sort(),
    removed: [...baseline.keys()].filter((path) => !after.has(path)).sort(),
    changed: [...after]
      .filter(([path, state]) => baseline.has(path) && !baseline.get(path)!.bytes.equals(state.bytes))
      .map(([path]) => path)
      .sort(),
    rewritten: [...after]
      .filter(([path, state]) => before.has(path) && before.get(path)!.mtimeMs !== state.mtimeMs)
      .map(([path]) => path)
      .sort(),
  };
}
const NOTHING_CHANGED = { added: [], removed: [], changed: [], rewritten: [] };

let baselineDir = "";
let baseline = new Map<string, FileState>();
const projects: string[] = [];

/** A new project holding a copy of the valid baseline generation, with `c` as its manifest. */
function projectFor(c: Case): { root: string; before: Map<string, FileState> } {
  const root = tempDir("apigen-bad-");
  projects.push(root);
  cpSync(baselineDir, root, { recursive: true });
  copyFileSync(join(CORPUS, c.name), join(root, MANIFEST));
  return { root, before: fileStates(root) };
}

beforeAll(() => {
  // Generated once; every case copies it. This first run also rebuilds the CLI bundle if a generator
  // source changed, before the concurrent runs start.
  baselineDir = projectWithManifest(readFixture("minimal.yaml"));
  const result = apigen(baselineDir, "generate");
  if (result.code !== 0) throw new Error(`the minimal fixture does not generate:\n${result.stderr}${result.stdout}`);
  baseline = fileStates(baselineDir);
  if (baseline.size === 0) throw new Error("the baseline generation wrote no files");
});

afterAll(() => {
  for (const dir of [baselineDir, ...projects]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the bad-manifest corpus", () => {
  test("holds at least 30 manifests, each opening with its expected errors", () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
    for (const c of cases.values()) {
      expect(c.expected.length, `${c.name} opens with no '# expect:' line`).toBeGreaterThan(0);
      for (const line of c.expected) {
        expect(line, `${c.name}: every expected error names the manifest, a place and a code`).toMatch(DIAGNOSTIC);
        expect(Object.keys(DIAGNOSTIC_CODES), `${c.name}: a documented code`).toContain(DIAGNOSTIC.exec(line)?.[2]);
        expect(line.length, `${c.name}: expected lines stay short enough to compare unclipped`).toBeLessThan(CLIP);
      }
    }
  });
});

/** The codes a corpus case expects. */
const expectedCodes = (c: Case) => c.expected.map((line) => DIAGNOSTIC.exec(line)?.[2]);

const DIAGNOSTICS_MODULE = join(REPO_ROOT, "generators", "load", "diagnostics.ts");

/** The text of every module of generators/ but the one declaring the codes. */
function generatorSources(dir = join(REPO_ROOT, "generators")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return generatorSources(path);
    return entry.name.endsWith(".ts") && path !== DIAGNOSTICS_MODULE ? [readFileSync(path, "utf8")] : [];
  });
}

describe("the diagnostic codes", () => {
  // A code no case expects is a promise of an error nobody has seen printed; a code no generator
  // source names is one no manifest can get (remove it from diagnostics.ts instead).
  test("are each expected by a case of the corpus", () => {
    const expected = new Set([...cases.values()].flatMap(expectedCodes));
    expect(
      Object.keys(DIAGNOSTIC_CODES).filter((code) => !expected.has(code)),
      "codes of generators/load/diagnostics.ts no test/bad-manifests/*.yaml expects",
    ).toEqual([]);
  });

  test("are each reported by the generators", () => {
    const sources = generatorSources();
    expect(
      Object.keys(DIAGNOSTIC_CODES).filter((code) => !sources.some((text) => text.includes(`"${code}"`))),
      "codes of generators/load/diagnostics.ts that no other module of generators/ names",
    ).toEqual([]);
  });
});

describe("apigen generate on a bad manifest", () => {
  test.concurrent.for(names)("%s", async (name, { expect }) => {
    const c = cases.get(name)!;
    const { root, before } = projectFor(c);

    const result = await apigenAsync(root, "generate");
    printed.set(name, result.stderr);

    expect.soft(placesAndCodes(readable(result.stderr)), "places and codes of the errors").toEqual(placesAndCodes(expectedStderr(c)));
    expect.soft(result.code, "exit code").toBe(1);
    expect.soft(stackFrames(result.stderr), "stack frames in stderr").toEqual([]);
    expect.soft(readable(result.stdout), "stdout").toBe("");
    expect.soft(changes(baseline, before, fileStates(root)), "files written or deleted").toEqual(NOTHING_CHANGED);
  });
});

describe("the messages of the bad-manifest corpus", () => {
  test("read as the corpus prints them", () => {
    const differing = names.filter((name) => printed.has(name) && readable(printed.get(name)!) !== expectedStderr(cases.get(name)!));
    expect(
      differing.map((name) => `${name}:\n${readable(printed.get(name)!)}`),
      "cases whose messages differ from their # expect: lines",
    ).toEqual([]);
    expect(printed.size).toBe(names.length);
  });
});

describe("apigen generate --check on a bad manifest", () => {
  test("reports the manifest errors, exits 1 and writes nothing", async () => {
    const c = cases.get("19-unknown-field-type-usr.yaml") ?? [...cases.values()][0]!;
    const { root, before } = projectFor(c);

    const result = await apigenAsync(root, "generate", "--check");

    expect.soft(result.code, "exit code").toBe(1);
    expect.soft(readable(result.stderr), "stderr").toBe(expectedStderr(c));
    expect.soft(stackFrames(result.stderr), "stack frames in stderr").toEqual([]);
    expect.soft(result.stdout, "stdout").toBe("");
    expect.soft(changes(baseline, before, fileStates(root)), "files written or deleted").toEqual(NOTHING_CHANGED);
  });
});
