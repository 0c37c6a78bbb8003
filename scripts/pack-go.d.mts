export declare const GO_MODULE_DIR: string;
export declare function goModule(root?: string): { path: string; version: string; zipName: string };
export declare function packGo(options?: {
  root?: string;
  outDir?: string;
  modzipBinary?: string;
}): Promise<{ path: string; version: string; zipName: string; zip: string; files: number; bytes: number }>;
