/** protoplugin's names.js source with allNames(file) computed once per file descriptor; throws when the source lacks it. */
export function memoizedAllNames(source: string, path: string): string;
/** Bundles the apigen CLI into dist/apigen.mjs. */
export function buildCli(projectRoot: string): Promise<void>;
