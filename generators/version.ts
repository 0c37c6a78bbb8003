// The toolchain's own version (package.json), which starters made by `apigen init` ask for. Read at
// build time into the bundled command line.
import toolchain from "../package.json" with { type: "json" };

export const TOOLCHAIN_VERSION: string = toolchain.version;
