export declare const DEFAULT_OUT_DIR: string;
export declare const ARTIFACT_KINDS: string[];
export declare class PackError extends Error {}
export interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
  files: number;
  bytes: number;
}
/** Where packing takes what is not the project's own. */
export interface PackToolchain {
  /** The runtime the packages carry: its sources (.ts), or its compiled .js and .d.ts. */
  runtime: { dir: string; compiled: boolean };
  /** The node_modules the packages compile against. */
  nodeModules: string;
  /** The typescript module. */
  typescript(): typeof import("typescript");
  /** The command that checks and diffs for the release gate (program and first arguments). */
  apigen: string[];
  /** How messages name pack ("npm run pack --", "apigen pack"). */
  packCommand: string;
  /** The interpreter of a virtualenv with hatchling, build and twine. */
  python(): Promise<string>;
  /** The module-zip helper's binary. */
  modzip(): Promise<string>;
}
export declare function repoToolchain(): PackToolchain;
export declare function installedToolchain(root: string, options: { apigen: string[]; packCommand?: string; sources?: () => { modzip: Record<string, string>; pythonBuild: string } }): PackToolchain;
export declare function publishDryRun(packageDir: string): Promise<void>;
export declare function packPackages(options?: { root?: string; outDir?: string; toolchain?: PackToolchain }): Promise<PackedPackage[]>;
export declare function artifactKinds(only: string | undefined): string[];
export declare function packProject(options: {
  root: string;
  outDir?: string;
  only?: string | undefined;
  firstRelease?: boolean;
  release?: boolean;
  toolchain?: PackToolchain;
  out?: (line: string) => void;
}): Promise<string[]>;
export declare const PACK_OPTIONS: {
  root: { type: "string"; default: string };
  out: { type: "string" };
  only: { type: "string" };
  "first-release": { type: "boolean"; default: boolean };
  release: { type: "boolean"; default: boolean };
};
export declare const COMPILER_OPTIONS: Record<string, unknown>;
export declare const packageOf: (specifier: string) => string;
export declare const isBuiltin: (specifier: string) => boolean;
export declare function compile(buildDir: string, ts: typeof import("typescript"), options?: { imports?: PackageImports }): void;
/** Package imports: a specifier ("#client-platform") to a target or to targets by condition. */
export type PackageImports = Record<string, string | Record<string, string>>;
/** The runtime's package imports, from its package.json. */
export declare function runtimeImports(runtimeDir: string): PackageImports;
/** `imports` with targets under `prefix` instead of ./ */
export declare function importsUnder(imports: PackageImports, prefix: string): PackageImports;
export declare function run(command: string, args: string[], cwd: string, options?: { withStderr?: boolean }): Promise<string>;
