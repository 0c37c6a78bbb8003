// apigen scaffold: stubs for the operations an implementation lacks, in the user's own file, on a
// class and on an object literal, keeping the user's code and comments, idempotent, with --check,
// after operations are added to and removed from the manifest, and clear refusals.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scaffold as runScaffold } from "../generators/cli/scaffold.js";
import { apigen, readFixture, REPO_ROOT, tempDir, type RunResult } from "./helpers/project.js";

let root: string;
const manifest = readFixture("minimal.yaml");

const scaffold = (file: string, ...args: string[]): RunResult => apigen(root, "scaffold", join(root, file), ...args);
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** tsc on `files`, asynchronously: a run of many seconds must not block the worker (vitest's RPC deadline). */
async function typecheck(...files: string[]): Promise<void> {
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        skipLibCheck: true,
        noUnusedLocals: true,
        noUnusedParameters: true,
        types: ["node"],
      },
      files,
    }),
  );
  try {
    await promisify(execFile)(join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: root, encoding: "utf8" });
  } catch (error) {
    throw new Error(`tsc: ${(error as { stdout?: string }).stdout ?? ""}`);
  }
}

const CLASS_SOURCE = `// The service of this example. Formatting below is deliberately the user's own.
import { type Implementation } from "./generated/server/index.js";

/** Keeps users. */
export class Service implements Partial<Implementation> {
    // Users first.
    async users() { return { pagination: { limit: 10, page: 1, offset: 0, total: 0 }, users: [] }; } // one line, as written

    /* nothing else yet */
}
`;

const OBJECT_SOURCE = `import { createServer, type Implementation } from "./generated/server/index.js";

// The handlers, one by one.
const handlers: Partial<Implementation> = {
  async meta() {
    return { message: "up" }; // the public ping
  },
};

export const server = createServer(handlers, { adminSecret: "s", partial: true });
`;

beforeAll(() => {
  root = tempDir("scaffold-");
  writeFileSync(join(root, "operations.yaml"), manifest);
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }));
  cpSync(join(REPO_ROOT, "runtime"), join(root, "runtime"), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"), "junction");
  expect(apigen(root, "generate").code).toBe(0);
  writeFileSync(join(root, "class.ts"), CLASS_SOURCE);
  writeFileSync(join(root, "object.ts"), OBJECT_SOURCE);
}, 60_000);

describe("apigen scaffold", () => {
  it("--check lists what is missing, exits 1 and writes nothing", () => {
    const result = scaffold("class.ts", "--check");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("class Service (Partial<Implementation>)");
    expect(result.stdout).toMatch(/: \d+ operations not implemented: deleteUser, /);
    expect(result.stdout).not.toMatch(/\busers\b/);
    expect(read("class.ts")).toBe(CLASS_SOURCE);
  });

  it("fills a class: only new members after the user's, every line of the user's kept, and the result type-checks", async () => {
    const result = scaffold("class.ts");
    expect(result.code, result.stderr).toBe(0);
    const after = read("class.ts");
    // The user's lines are all still there, in order, untouched.
    // (The import line gains ServiceError, which the stubs throw.)
    const kept = CLASS_SOURCE.split("\n").filter((line) => line !== "}" && line !== "" && !line.startsWith("import"));
    let at = 0;
    for (const line of kept) {
      const found = after.indexOf(line, at);
      expect(found, line).toBeGreaterThanOrEqual(0);
      at = found + line.length;
    }
    expect(after).toContain('import { type Implementation, ServiceError } from "./generated/server/index.js";');
    // Typed: its input and answer are the interface's, so the implementer fills in a typed body.
    expect(after).toMatch(
      / {4}async deleteUser\(\s*_input: Parameters<Implementation\["deleteUser"\]>\[0\],?\s*\): Promise<Awaited<ReturnType<Implementation\["deleteUser"\]>>> \{\n {6}\/\/ TODO: implement deleteUser: Delete a user\.\n/,
    );
    const added = Number(/added (\d+) stubs/.exec(result.stdout)![1]);
    expect(after.match(/"UNIMPLEMENTED"/g)).toHaveLength(added);
    expect(after).not.toContain("async users(_input");
    await typecheck("class.ts");
  });

  it("changes nothing when run again", () => {
    const before = read("class.ts");
    const result = scaffold("class.ts");
    expect(result.stdout).toContain("every operation is implemented");
    expect(read("class.ts")).toBe(before);
    expect(scaffold("class.ts", "--check").code).toBe(0);
  });

  it("fills an object literal after its last member (comma and comment kept) and the result type-checks", async () => {
    expect(scaffold("object.ts").code).toBe(0);
    const after = read("object.ts");
    expect(after).toContain('    return { message: "up" }; // the public ping\n  },\n\n  async users(');
    expect(after).toContain('_input: Parameters<Implementation["users"]>[0]');
    expect(after).toContain("// The handlers, one by one.");
    await typecheck("object.ts");
  });

  it("after an operation is added and another removed: adds the new one, reports the removed one and keeps it", () => {
    const changed = manifest
      .replace(/ {2}meta:\n(?: {4}.*\n)+/, "")
      .replace(
        "operations:\n",
        `operations:\n  ping:\n    surface: admin\n    group: users\n    description: Answer pong.\n    kind: read\n    auth: admin_secret\n    protocols: { graphql: 2.3.0-rc.9, rest: 2.4.0, grpc: 2.4.0 }\n    output: Response\n`,
      );
    writeFileSync(join(root, "operations.yaml"), changed);
    expect(apigen(root, "generate").code).toBe(0);
    const before = read("object.ts");
    const result = scaffold("object.ts");
    expect(result.stdout).toContain("added 1 stub: ping");
    expect(result.stdout).toContain("not operations of Partial<Implementation> (left in place; remove them if the operations were removed): meta");
    const after = read("object.ts");
    expect(after.startsWith(before.slice(0, before.lastIndexOf("};")).trimEnd())).toBe(true);
    expect(after).toContain("async meta()");
    expect(after).toContain("async ping(");
    expect(after).toContain('_input: Parameters<Implementation["ping"]>[0]');
    writeFileSync(join(root, "operations.yaml"), manifest);
    expect(apigen(root, "generate").code).toBe(0);
  });

  it("refuses clearly, without a stack trace and without writing, when it finds no implementation or more than one", async () => {
    writeFileSync(join(root, "none.ts"), "export const nothing = 1;\n");
    const none = scaffold("none.ts");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/none\.ts: found no implementation\. scaffold fills a class that implements Implementation/);
    expect(none.stderr).not.toMatch(/^\s+at /m);
    expect(read("none.ts")).toBe("export const nothing = 1;\n");
    const two = `import type { Implementation } from "./generated/server/index.js";\nexport class A implements Partial<Implementation> {}\nexport class B implements Partial<Implementation> {}\n`;
    writeFileSync(join(root, "two.ts"), two);
    // The rest in-process: the same code, without starting the command each time.
    await expect(runScaffold(join(root, "two.ts"), { check: false })).rejects.toThrow("found 2 implementations (class A, class B); keep one per file, or pass --name <class or variable>");
    expect(read("two.ts")).toBe(two);
    expect((await runScaffold(join(root, "two.ts"), { check: false, name: "B" })).written).toBe(true);
    expect(read("two.ts")).toContain("export class A implements Partial<Implementation> {}");
    await expect(runScaffold(join(root, "missing.ts"), { check: false })).rejects.toThrow(/missing\.ts: no such file/);
  });
});
