export declare function lockDir(path: string, what: string): Promise<() => void>;
