export declare const REQUIREMENTS: string;
export declare const BUILD_TOOLS: string[];
export interface PythonEnv {
  /** The virtualenv's interpreter. */
  python: string;
  venv: string;
  /** Whether this call created it (false: reused). */
  created: boolean;
  /** How long creating it took (0 when reused). */
  seconds: number;
}
export declare function buildRequirements(root?: string): string;
export declare function ensurePythonEnv(options?: { root?: string; log?: (line: string) => void }): Promise<PythonEnv>;
export declare function ensurePythonBuildEnv(options: { cache: string; requirements: string; log?: (line: string) => void }): Promise<PythonEnv>;
