#!/usr/bin/env node
// `npm run setup`: installs the dependencies with npm running on the project's Node (the exact
// version of the devDependency "node"), then regenerates everything from the manifest
// (`--install-only`: not that, for CI, which checks the committed files instead). Written
// for any Node from 18 on, because the Node that runs it may be the machine's own, older one.
//
// Why npm must run on that Node: npm checks each package's `engines` against the Node it runs on,
// and dependencies of the Node 24 line ask for Node 22 or later. Once installed, every npm script
// runs on node_modules/.bin/node (the devDependency), which npm puts first on a script's PATH.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { reportProgress, underCi } from "./progress.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies?.node;
if (!/^\d+\.\d+\.\d+$/.test(pinned ?? "")) {
  process.stderr.write(`setup: package.json must pin the devDependency "node" to an exact version (found ${JSON.stringify(pinned)})\n`);
  process.exit(2);
}
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs npm with `args`, saying what runs and, every 15 s, how long it has (npm ci takes minutes on an empty cache). */
async function step(title, args) {
  // Under CI the step's title alone, as a log reads best; elsewhere the title and its progress.
  if (underCi()) process.stdout.write(`setup: ${title}\n`);
  const done = reportProgress((line) => process.stdout.write(`${line}\n`), `setup: ${title}`);
  const status = await new Promise((resolve) => {
    const child = spawn(npm, args, { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
    child.on("error", (error) => resolve(error.message));
    child.on("close", (code) => resolve(code));
  }).finally(done);
  if (status !== 0) {
    process.stderr.write(`setup: \`npm ${args.join(" ")}\` failed (${typeof status === "string" ? status : `exit ${status}`}); nothing after it ran\n`);
    process.exit(typeof status === "number" && status !== 0 ? status : 1);
  }
}

// npm exec puts the package's bin folder first on the PATH of the command it runs, so the npm
// below (a script that asks `env` for node) runs on Node ${pinned}; npm caches the package.
const ci = ["ci", "--no-audit", "--no-fund"];
if (process.version === `v${pinned}`) await step(`npm ci on Node ${process.version}`, ci);
else await step(`npm ci on Node v${pinned} (this machine's is ${process.version})`, ["exec", "--yes", `--package=node@${pinned}`, "--", npm, ...ci]);
if (!process.argv.includes("--install-only")) await step("regenerate everything from operations.yaml", ["run", "--silent", "generate"]);
