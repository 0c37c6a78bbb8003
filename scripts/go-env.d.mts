export declare const GO_TEST_MODULE: string;
export interface GoToolchain {
  /** The go command. */
  go: string;
  /** Such as 1.26.8. */
  version: string;
  /** The environment to run it with. */
  env: NodeJS.ProcessEnv;
}
export declare function goToolchain(options?: { root?: string }): GoToolchain;
export declare function runGo(args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): string;
export declare function goBinary(name: string, options?: { root?: string; log?: (line: string) => void }): Promise<{ binary: string; built: boolean; seconds: number }>;
export declare function goToolFromSource(
  name: string,
  files: Record<string, string>,
  options: { cache: string; root: string; log?: (line: string) => void },
): Promise<{ binary: string; built: boolean; seconds: number }>;
