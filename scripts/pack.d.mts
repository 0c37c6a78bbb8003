export declare const DEFAULT_OUT_DIR: string;
export interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
  files: number;
  bytes: number;
}
export declare function publishDryRun(packageDir: string): Promise<void>;
export declare function packPackages(options?: { root?: string; outDir?: string }): Promise<PackedPackage[]>;
export declare const COMPILER_OPTIONS: Record<string, unknown>;
export declare const packageOf: (specifier: string) => string;
export declare const isBuiltin: (specifier: string) => boolean;
export declare function compile(buildDir: string): void;
export declare function run(command: string, args: string[], cwd: string, options?: { withStderr?: boolean }): Promise<string>;
