import type { ChildProcess, SpawnSyncOptionsWithStringEncoding, SpawnSyncReturns } from "node:child_process";

export interface ProcessOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the program's standard input; without it, standard input is closed. */
  input?: string;
  shell?: boolean;
}
export interface ProcessOutput {
  stdout: string;
  stderr: string;
  /** Both streams, as they came. */
  output: string;
}
export interface ProcessResult extends ProcessOutput {
  /** null when a signal ended it. */
  code: number | null;
}
export interface StartedProcess {
  child: ChildProcess;
  exited: Promise<ProcessResult>;
  written(): ProcessOutput;
}
export declare function startProcess(command: string, args: readonly string[], options?: ProcessOptions): StartedProcess;
export declare function runProcess(command: string, args: readonly string[], options?: ProcessOptions): Promise<ProcessResult>;
export declare function runSync(command: string, args: readonly string[], options?: Partial<SpawnSyncOptionsWithStringEncoding>): SpawnSyncReturns<string>;
