// `npm run go:sum`: refreshes the pinned dependencies of the Go SDK after a pin changed. Generating
// never runs Go, so templates/go/go.mod.hbs and templates/go/go.sum are committed; edit a version
// in go.mod.hbs, run `npm run generate && npm run go:sum && npm run generate`, and commit. This runs
// `go mod tidy` on a copy of generated/go and writes its go.mod (as the template) and go.sum back,
// then tidies test/go, whose programs build against the module.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GO_TEST_MODULE, runGo } from "./go-env.mjs";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const copy = mkdtempSync(join(tmpdir(), "apigen-go-sum-"));
try {
  cpSync(join(PROJECT_ROOT, "generated", "go"), copy, { recursive: true });
  await runGo(["mod", "tidy"], { cwd: copy, env: { GOFLAGS: "-mod=mod" } });
  const tidied = readFileSync(join(copy, "go.mod"), "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("// Code generated"))
    .join("\n")
    .replace(/^\n+/, "")
    .replace(/^module \S+$/m, "module {{modulePath}}");
  const changed = [];
  const write = (path, text) => {
    const target = join(PROJECT_ROOT, path);
    if (readFileSync(target, "utf8") !== text) changed.push(path);
    writeFileSync(target, text);
  };
  write("templates/go/go.mod.hbs", tidied);
  write("templates/go/go.sum", readFileSync(join(copy, "go.sum"), "utf8"));
  const testSum = join(PROJECT_ROOT, GO_TEST_MODULE, "go.sum");
  const before = `${readFileSync(join(PROJECT_ROOT, GO_TEST_MODULE, "go.mod"), "utf8")}${readFileSync(testSum, "utf8")}`;
  await runGo(["mod", "tidy"], { cwd: join(PROJECT_ROOT, GO_TEST_MODULE), env: { GOFLAGS: "-mod=mod" } });
  if (`${readFileSync(join(PROJECT_ROOT, GO_TEST_MODULE, "go.mod"), "utf8")}${readFileSync(testSum, "utf8")}` !== before) changed.push(`${GO_TEST_MODULE}/go.mod, go.sum`);
  process.stdout.write(changed.length === 0 ? "go:sum: the pins and go.sum are up to date\n" : `go:sum: updated ${changed.join(", ")}; run \`npm run generate\` and commit\n`);
} catch (error) {
  process.stderr.write(`go:sum: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(copy, { recursive: true, force: true });
}
