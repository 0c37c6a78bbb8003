export type Registry = "npm" | "pypi" | "go";
export type Verdict = "free" | "ours" | "taken" | "unusable" | "unknown";
export interface NameEntry {
  registry: Registry;
  name: string;
  /** What the name is: "sdk package", "Python distribution", "Go module", "candidate". */
  what: string;
}
export interface Answer {
  /** The HTTP status, or 0 when the registry could not be reached. */
  status: number;
  /** The parsed JSON, or the text where the answer is not JSON. */
  body: unknown;
}
export declare const REGISTRIES: Record<Registry, string>;
export declare function repositoryKey(url: unknown): string | undefined;
export declare function projectNames(root: string): { repository: string | undefined; names: NameEntry[] };
export declare function escapeModulePath(path: string): string;
export declare function questionsOf(registry: Registry, name: string): string[];
export declare function decide(registry: Registry, name: string, answers: readonly Answer[], repository: string | undefined): { verdict: Verdict; detail: string };
export declare function checkNames(
  names: readonly NameEntry[],
  repository: string | undefined,
  options?: { fetch?: (url: string, init?: RequestInit) => Promise<Response> },
): Promise<(NameEntry & { verdict: Verdict; detail: string })[]>;
export declare function report(rows: readonly { registry: string; name: string; verdict: string; detail: string }[]): { text: string; code: number };
