// Whether a script module is the program node was started with (its `if (isMain(import.meta.url))`
// block runs it as a command). Inside the bundled CLI (scripts/build-cli.mjs) this module is
// replaced by one that answers false: the scripts the CLI bundles never run as commands there.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Whether the module at `url` (its import.meta.url) is the main module of this process. */
export const isMain = (url) => process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(url);
