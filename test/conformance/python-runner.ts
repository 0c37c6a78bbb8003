// The Python columns of the conformance matrix: the generated sync and async clients, driven by
// test/python/conformance_runner.py in the virtualenv of scripts/python-env.mjs.
import { join } from "node:path";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { REPO_ROOT } from "../helpers/project.js";
import { RunnerProcess, type LanguageRunner } from "./runners.js";

export const pythonRunner: LanguageRunner = {
  language: "python",
  columns: [
    { name: "py-sync", mode: "sync" },
    { name: "py-async", mode: "async" },
  ],
  async start() {
    const { python } = await ensurePythonEnv();
    return new RunnerProcess("python", python, [join(REPO_ROOT, "test", "python", "conformance_runner.py")], { cwd: REPO_ROOT });
  },
};
