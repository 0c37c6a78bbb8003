export declare const TOOLCHAIN_OUT_DIR: string;
export interface PackedToolchain {
  name: string;
  version: string;
  tarball: string;
  files: number;
  bytes: number;
}
export declare function packToolchain(options?: { root?: string; outDir?: string }): Promise<PackedToolchain[]>;
