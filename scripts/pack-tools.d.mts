export declare function packToolSources(root?: string): { modzip: Record<string, string>; pythonBuild: string };
