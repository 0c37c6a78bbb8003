// apigen generate --watch: regenerates on every save of the manifest with the time it took, shows
// a broken manifest's errors without writing, and picks up again once it is fixed.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { APIGEN, readFixture, tempDir } from "./helpers/project.js";

let child: ChildProcess | undefined;
afterAll(() => child?.kill("SIGINT"));

/** Resolves with everything printed so far once `pattern` shows up in it. */
function waitFor(output: { text: string }, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (pattern.test(output.text)) {
        clearInterval(poll);
        resolve(output.text);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output.text}`));
      }
    }, 50);
  });
}

describe("apigen generate --watch", () => {
  it("regenerates on each change, reports errors without writing, and stops on SIGINT", async () => {
    const root = tempDir("watch-");
    const manifest = readFixture("minimal.yaml");
    writeFileSync(join(root, "operations.yaml"), manifest);
    const output = { text: "" };
    child = spawn(process.execPath, [APIGEN, "generate", "--watch", "--root", root], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (chunk: Buffer) => (output.text += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output.text += chunk.toString()));
    await waitFor(output, /watching operations\.yaml/);
    expect(output.text).toMatch(/generated in \d+ ms: \d+ operations, \d+ files written/);
    const schemaPath = join(root, "generated", "graphql", "schema.graphql");
    expect(readFileSync(schemaPath, "utf8")).not.toContain("Rotate all the keys");

    writeFileSync(join(root, "operations.yaml"), manifest.replace("description: Rotate a key.", "description: Rotate all the keys."));
    await waitFor(output, /generated in \d+ ms[^\n]*\n[\s\S]*generated in \d+ ms/);
    expect(readFileSync(schemaPath, "utf8")).toContain("Rotate all the keys");

    const before = readFileSync(schemaPath, "utf8");
    writeFileSync(join(root, "operations.yaml"), manifest.replace("kind: read", "kind: reed"));
    await waitFor(output, /nothing was written\. Waiting for the next change\./);
    expect(output.text).toContain("'reed' is not a valid kind");
    expect(readFileSync(schemaPath, "utf8")).toBe(before);

    writeFileSync(join(root, "operations.yaml"), manifest);
    await waitFor(output, /Waiting for the next change\.[\s\S]*generated in \d+ ms/);
    expect(readFileSync(schemaPath, "utf8")).not.toContain("Rotate all the keys");

    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(existsSync(schemaPath)).toBe(true);
  });
});
