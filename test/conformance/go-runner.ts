// The Go column of the conformance matrix: the generated module (generated/go), driven by the
// program test/go/runner, built once per change of its sources by scripts/go-env.mjs.
import { goBinary } from "../../scripts/go-env.mjs";
import { REPO_ROOT } from "../helpers/project.js";
import { RunnerProcess, type LanguageRunner } from "./runners.js";

export const goRunner: LanguageRunner = {
  language: "go",
  columns: [{ name: "go", mode: "sync" }],
  async start() {
    const { binary } = await goBinary("runner");
    return new RunnerProcess("go", binary, [], { cwd: REPO_ROOT });
  },
};
