// The browser packages behind the explorer pages (GraphiQL on /graphql, Swagger UI on /docs). The
// server never imports them: with the explorer on it finds them in node_modules at start-up and
// serves their prebuilt browser files as they are, so a service without the explorer needs none.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * Each package, the range it is needed in, the files served from it, and whether the server package
 * declares it as an optional peer dependency. GraphiQL 4 is the last major that ships a standalone
 * build; that build expects React's UMD builds, which React 19 no longer has, hence React 18.
 * React is not declared: npm resolves an optional peer's own peers (GraphiQL's React) to their
 * newest version even when it installs nothing, then fails every install of the server package on
 * the clash with a declared ^18 (npm/cli#8416). The range is checked here at start-up instead.
 */
export const EXPLORER_PACKAGES = {
  graphiql: { range: "^4.1.2", files: ["graphiql.min.js", "graphiql.min.css"], optionalPeer: true },
  react: { range: "^18.3.1", files: ["umd/react.production.min.js"], optionalPeer: false },
  "react-dom": { range: "^18.3.1", files: ["umd/react-dom.production.min.js"], optionalPeer: false },
  "swagger-ui-dist": { range: "^5.35.0", files: ["swagger-ui-bundle.js", "swagger-ui.css"], optionalPeer: true },
} as const;

export type ExplorerPackage = keyof typeof EXPLORER_PACKAGES;

/** A file of an installed package, by the URL path it is served at. */
export interface PackageFile {
  /** `<package>@<version>/<file>`: the version in the path lets browsers cache it for good. */
  urlPath: string;
  file: string;
}

/** The explorer cannot start; the message says what to install. Never a bug of the caller's code. */
export class ExplorerSetupError extends Error {
  override name = "ExplorerSetupError";
}

/** The command that installs the explorer's packages. */
export const EXPLORER_INSTALL_COMMAND = `npm install ${Object.entries(EXPLORER_PACKAGES)
  .map(([name, { range }]) => `${name}@${range}`)
  .join(" ")}`;

/** The folder of an installed package, found the way Node looks up a bare import from here. */
function packageFolder(name: string, from: string): string | undefined {
  for (const nodeModules of createRequire(from).resolve.paths(name) ?? []) {
    const folder = join(nodeModules, name);
    if (existsSync(join(folder, "package.json"))) return folder;
  }
  return undefined;
}

/**
 * Every file the explorer serves from node_modules, keyed by package and file name. Throws an
 * ExplorerSetupError naming what is missing and the command that installs it.
 */
export function resolveExplorerPackages(from: string = import.meta.url): Map<string, PackageFile> {
  const files = new Map<string, PackageFile>();
  const missing: string[] = [];
  const incomplete: string[] = [];
  for (const [name, { range, files: wanted }] of Object.entries(EXPLORER_PACKAGES)) {
    const folder = packageFolder(name, from);
    if (!folder) {
      missing.push(name);
      continue;
    }
    const { version } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version: string };
    for (const file of wanted) {
      const path = join(folder, file);
      if (existsSync(path)) files.set(`${name}/${file}`, { urlPath: `${name}@${version}/${file}`, file: path });
      else incomplete.push(`${name} ${version} has no ${file} (the explorer needs ${name}@${range})`);
    }
  }
  if (missing.length > 0 || incomplete.length > 0) {
    const problems = [...(missing.length > 0 ? [`not installed: ${missing.join(", ")}`] : []), ...incomplete];
    throw new ExplorerSetupError(`the explorer (option explorer: true) needs its browser packages; ${problems.join("; ")}. Install them with: ${EXPLORER_INSTALL_COMMAND}`);
  }
  return files;
}
