export function underCi(env?: NodeJS.ProcessEnv): boolean;
export function reportProgress(log: (line: string) => void, what: string, options?: { everyMs?: number; env?: NodeJS.ProcessEnv; detail?: () => string }): () => void;
