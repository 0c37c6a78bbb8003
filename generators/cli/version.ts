// The toolchain's own version (package.json), which starters made by `apigen init` ask for, and the
// Node lines that what it publishes supports. Read at build time into the bundled command line.
import toolchain from "../../package.json" with { type: "json" };
import nodeLines from "./node-lines.json" with { type: "json" };

export const TOOLCHAIN_VERSION: string = toolchain.version;

/** The range of every package the toolchain installs (package.json), by name: what starters pin. */
export const TOOLCHAIN_RANGES: Readonly<Record<string, string>> = { ...toolchain.devDependencies, ...toolchain.dependencies };

/**
 * The `engines.node` range of every package the toolchain makes (the SDK, server stubs and MCP
 * server of an API, a starter of `apigen init`, the toolchain's own packages): Node 22.19 and later,
 * the oldest Node that the SDK's undici 8 runs on. CI runs the packed packages on the newest 22
 * (`olderLineTested`) and on the project's own Node 24; Node 20 is out of support.
 */
export const PUBLISHED_NODE_MINIMUM: string = nodeLines.minimum;
export const PUBLISHED_NODE_RANGE = `>=${PUBLISHED_NODE_MINIMUM}`;
