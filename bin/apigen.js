#!/usr/bin/env node
// Entry point of the apigen command. Runs the bundled CLI (dist/apigen.mjs), rebuilding it first
// when any generator source, runtime module, SDK template or script it bundles is newer, so that a run starts fast and never runs stale code.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(projectRoot, "dist", "apigen.mjs");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// runtime/ too: the generators import parts of it (formats, errors, limits), which the bundle holds;
// scripts/ for `apigen pack`, with the texts of the tools it builds (scripts/pack-tools.mjs).
const sources = [
  join(projectRoot, "generators"),
  join(projectRoot, "runtime"),
  join(projectRoot, "templates"),
  join(projectRoot, "scripts"),
  join(projectRoot, "test", "go", "modzip"),
  join(projectRoot, "test", "go", "go.mod"),
  join(projectRoot, "test", "go", "go.sum"),
  join(projectRoot, "test", "python", "requirements-dev.txt"),
];
const stale = !existsSync(bundle) || Math.max(...sources.map((s) => (statSync(s).isDirectory() ? newestSource(s) : statSync(s).mtimeMs))) > statSync(bundle).mtimeMs;
if (stale) {
  const { buildCli } = await import(pathToFileURL(join(projectRoot, "scripts", "build-cli.mjs")).href);
  await buildCli(projectRoot);
}
await import(pathToFileURL(bundle).href);
