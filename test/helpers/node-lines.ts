// The Node lines the published packages are run on: the project's own Node (the one running the
// tests, the devDependency "node") and the newest of the older supported line
// (generators/cli/node-lines.json), which npm brings from the registry's package "node" the first time.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./project.js";

const execFileAsync = promisify(execFile);

export interface NodeLine {
  /** "22", "24": the major version. */
  line: string;
  /** The node executable. */
  path: string;
  version: string;
}

/** The Node that runs this test. */
export const CURRENT_NODE: NodeLine = { line: process.versions.node.split(".")[0]!, path: process.execPath, version: process.version };

/** The version of the older line that the packages are tested on. */
export const OLDER_NODE_VERSION: string = (JSON.parse(readFileSync(join(REPO_ROOT, "generators", "cli", "node-lines.json"), "utf8")) as { olderLineTested: string }).olderLineTested;

/**
 * The older line's node executable: npm exec installs the package "node" at that version into
 * npm's cache (about 15 s the first time, nothing after) and the node it runs prints its own path.
 */
export async function olderNode(): Promise<NodeLine> {
  const { stdout } = await execFileAsync("npm", ["exec", "--yes", `--package=node@${OLDER_NODE_VERSION}`, "--", "node", "-p", "process.execPath + ' ' + process.version"], {
    encoding: "utf8",
    // Outside the repository, whose own node_modules/.bin/node (24) npm exec would put first.
    cwd: tmpdir(),
  }).catch((error: Error & { stderr?: string }) => {
    throw new Error(`could not install Node ${OLDER_NODE_VERSION} with npm exec: ${error.message}\n${error.stderr ?? ""}`);
  });
  const [path, version] = stdout.trim().split(" ");
  if (version !== `v${OLDER_NODE_VERSION}`) throw new Error(`npm exec ran Node ${version}, not v${OLDER_NODE_VERSION} (${path})`);
  return { line: OLDER_NODE_VERSION.split(".")[0]!, path: path!, version };
}
