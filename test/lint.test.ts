// The hand-written code (generators, runtime, scripts, reference service, benchmarks, tests) passes
// Biome's recommended lint rules, as configured in biome.jsonc with the reason for each rule turned
// off, warnings included (`npm run lint`), and is formatted as Prettier formats it with
// .prettierrc.json (`npm run format:check`; `npm run format` rewrites it): both checked with the suite.
import { join } from "node:path";
import { expect, it } from "vitest";
import { runProcess } from "../scripts/run-process.mjs";
import { REPO_ROOT } from "./helpers/project.js";

it("passes biome lint with no error and no warning", async () => {
  const result = await runProcess(join(REPO_ROOT, "node_modules", ".bin", "biome"), ["lint", "--error-on-warnings", "--max-diagnostics=50", "--colors=off"], { cwd: REPO_ROOT });
  expect(result.code, result.output).toBe(0);
  expect(result.output).toMatch(/Checked \d+ files/);
});

it("is formatted as prettier formats it", async () => {
  const result = await runProcess("npm", ["run", "--silent", "format:check"], { cwd: REPO_ROOT });
  expect(result.code, result.output).toBe(0);
  expect(result.output).toContain("All matched files use Prettier code style!");
});
