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
