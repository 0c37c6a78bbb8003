export declare const RELEASE_BASE_ENV: string;
export declare const RELEASE_RECORD: string;
export declare const FIRST_RELEASE_FLAG: string;
export interface ReleaseRecord {
  version: string;
  commit: string;
}
export declare function recordedRelease(root: string): ReleaseRecord | undefined;
export declare function releaseBase(root: string, env?: NodeJS.ProcessEnv): { ref: string; label: string } | undefined;
export declare function releaseGate(options: {
  root: string;
  env?: NodeJS.ProcessEnv;
  firstRelease?: boolean;
  /** The command that checks and diffs (program and first arguments); this repository's bin/apigen.js by default. */
  apigen?: string[];
  /** How messages name pack: "npm run pack --" by default. */
  packCommand?: string;
}): { problems: string[]; notes: string[] };
export declare function releaseToRecord(root: string): ReleaseRecord;
export declare function writeReleaseRecord(root: string, record: ReleaseRecord): void;
