export declare const RELEASE_BASE_ENV: string;
export declare function releaseBase(root: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare function releaseGate(options: { root: string; env?: NodeJS.ProcessEnv }): { problems: string[]; notes: string[] };
