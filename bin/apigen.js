#!/usr/bin/env node
// Entry point of the apigen command: runs the TypeScript sources through tsx.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../generators/cli.ts");
process.exitCode = main(process.argv.slice(2));
