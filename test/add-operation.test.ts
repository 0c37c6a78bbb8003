// Adding an operation, as docs/manifest.md walks through it, in a copy of this project: edit the
// manifest, generate, scaffold the reference implementation, add a conformance scenario; the
// typecheck and the tests that cover every operation are green, and the new operation answers
// UNIMPLEMENTED on every protocol until it is implemented.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "./helpers/project.js";

let copy: string;

/**
 * Runs a command in the copy, answering its stdout. Asynchronous: the steps take minutes on a busy
 * machine, and a worker blocked that long cannot answer vitest (which then fails the run).
 */
async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { cwd: copy, encoding: "utf8", timeout: 240_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, FORCE_COLOR: "0", ...env } });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`.slice(-6000));
  }
}
const execFileAsync = promisify(execFile);
const node = (...args: string[]) => run(process.execPath, args);
const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);

const PING = `  ping:
    surface: admin
    group: auth
    description: Answer pong, to check that admin calls get through.
    kind: read
    auth: admin_secret
    protocols: { graphql: 2.3.0-rc.9, rest: 2.3.0-rc.9, grpc: 2.3.0-rc.9 }
    output: Response

`;

const SCENARIO = `  ping: {
    about: "not implemented yet: UNIMPLEMENTED on every protocol",
    input: () => ({}),
    expect: { error: "UNIMPLEMENTED", message: "ping is not implemented yet" },
  },
};
`;

beforeAll(() => {
  copy = tempDir("add-operation-");
  const tracked = execFileSync("git", ["ls-files"], { cwd: REPO_ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
  for (const file of tracked) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(copy, file));
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"), "junction");
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("adding an operation, as docs/manifest.md says", () => {
  it("edit, generate, scaffold, scenario: the typecheck and the suite are green, and the operation answers UNIMPLEMENTED", { timeout: 240_000 }, async () => {
    // 1. The manifest.
    const manifest = readFileSync(join(copy, "operations.yaml"), "utf8");
    writeFileSync(join(copy, "operations.yaml"), manifest.replace("\noperations:\n", `\noperations:\n${PING}`));
    // 2. Generate.
    expect(await node("bin/apigen.js", "generate")).toMatch(/operations: \d+/);
    // 3. Scaffold the implementation.
    expect(await node("bin/apigen.js", "scaffold", "reference/service.ts")).toContain("added 1 stub: ping");
    // 4. A conformance scenario (the record of scenarios is typed by the manifest's operations).
    const scenarios = join(copy, "test", "conformance", "scenarios.ts");
    const text = readFileSync(scenarios, "utf8");
    writeFileSync(scenarios, text.slice(0, text.lastIndexOf("};")) + SCENARIO);
    // The typecheck of everything, the tests that cover every operation, and generate --check.
    await run(bin("tsc"), ["-p", "tsconfig.json"]);
    // The matrix with the TypeScript client only: the other languages' clients have runs of their own.
    const report = await run(bin("vitest"), ["run", "test/conformance", "test/manifest.test.ts", "test/packages/catalogue.test.ts", "test/client/graphql-documents.test.ts"], {
      CONFORMANCE_CLIENTS: "ts",
    });
    expect(report).toMatch(/ping\s+pass\s+\| pass\s+\| pass\s*\n/);
    expect(await node("bin/apigen.js", "generate", "--check")).toContain("are up to date");
  });
});
