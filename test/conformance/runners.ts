// The clients of the conformance matrix. The TypeScript client runs in this process; every other
// language's client runs in a long-lived runner process that speaks JSON lines on stdin/stdout:
//
//   request  {"id": 1, "mode": "sync", "surface": "admin", "operation": "admin_meta", "protocol": "grpc",
//             "input": {...}, "headers": {...}, "access_token": null,
//             "config": {"service_url": "...", "grpc_endpoint": "...", "server_version": "2.4.0",
//                        "admin_secret": "..."  |  "client_id": "...",
//                        "tls": {"ca_file": "...", "cert_file": null, "key_file": null}  (optional),
//                        "timeout_ms": 400, "max_response_bytes": 1048576  (optional: the client's defaults otherwise),
//                        "retry_attempts": 3  (optional: retries with a short backoff; otherwise none)}}
//   answer   {"id": 1, "ok": true, "answer": {...flat shape...}}
//         or {"id": 1, "ok": false, "code": "NOT_FOUND", "message": "...", "refused": false,
//             "operation": "user", "protocol": "grpc", "status": 404 | null, "retry_after_seconds": 7 | null}
//         or {"id": 1, "crash": "what went wrong in the runner itself"}
//
// `mode` selects a variant of the language's client (Python: sync or async; Go: sync). `headers`
// are per-call headers (an org-admin sends an empty admin-secret header and a bearer token);
// `access_token` signs the user client in for this call. The runner exits when stdin closes.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import type { Protocol } from "../../runtime/schema.js";
import { goRunner } from "./go-runner.js";
import { pythonRunner } from "./python-runner.js";

export interface ClientCall {
  surface: "admin" | "user" | "oauth";
  operation: string;
  protocol: Protocol;
  input: Record<string, unknown>;
  headers: Record<string, string>;
  accessToken: string | undefined;
  config: {
    serviceUrl: string;
    grpcEndpoint: string;
    serverVersion: string;
    /** The admin client's credential: the secret, or (an org-admin's call) a user's access token instead. */
    adminSecret?: string;
    adminAccessToken?: string;
    clientId: string;
    tls?: RunnerTls;
    /** The client's overall deadline of a call (the fault column's hanging servers). */
    timeoutMs?: number;
    maxResponseBytes?: number;
    /** Attempts of a call on transient failures (the lost-answer column); none by default: one attempt. */
    retryAttempts?: number;
  };
}

/** A private CA to trust and, for mutual TLS, a client certificate: files, as the runners read them. */
export interface RunnerTls {
  caFile: string;
  certFile?: string;
  keyFile?: string;
}

export type ClientOutcome =
  | { ok: true; answer: Record<string, unknown> }
  | {
      ok: false;
      code: string;
      message: string;
      refused: boolean;
      operation: string;
      protocol: string;
      /** HTTP status of the answer, when one came (the fault column compares it). */
      status?: number | null;
      retryAfterSeconds?: number | null;
    };

/** One column of the matrix: a client of one language (and variant) making the cell's call. */
export interface ClientColumn {
  /** Short column label, such as "ts" or "py-async". */
  readonly name: string;
  call(call: ClientCall): Promise<ClientOutcome>;
  close(): Promise<void>;
}

interface Pending {
  resolve(outcome: ClientOutcome): void;
  reject(error: Error): void;
}

/** A runner process shared by the columns of one language. */
export class RunnerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = "";
  private exited: Error | undefined;

  constructor(
    readonly label: string,
    command: string,
    args: readonly string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (chunk: Buffer) => {
      // Keep the tail: enough to explain a crash, never unbounded.
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-8000);
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => this.answer(line));
    this.child.on("error", (error) => this.fail(new Error(`${label} runner could not start: ${error.message}`)));
    this.child.on("exit", (code, signal) => this.fail(new Error(`${label} runner exited (${signal ?? code}): ${this.stderr.trim().split("\n").slice(-15).join("\n")}`)));
  }

  private answer(line: string): void {
    let message: { id?: number; crash?: string } & Record<string, unknown>;
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      this.stderr += `\n(stdout) ${line}`;
      return;
    }
    const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id!);
    if (typeof message.crash === "string") waiting.reject(new Error(`${this.label} runner failed: ${message.crash}`));
    else {
      const { retry_after_seconds: retryAfterSeconds, ...rest } = message;
      waiting.resolve({ ...rest, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) } as unknown as ClientOutcome);
    }
  }

  private fail(error: Error): void {
    this.exited ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  request(mode: string, call: ClientCall): Promise<ClientOutcome> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    const { config } = call;
    const line = JSON.stringify({
      id,
      mode,
      surface: call.surface,
      operation: call.operation,
      protocol: call.protocol,
      input: call.input,
      headers: call.headers,
      access_token: call.accessToken ?? null,
      config: {
        service_url: config.serviceUrl,
        grpc_endpoint: config.grpcEndpoint,
        server_version: config.serverVersion,
        ...(call.surface === "admin" ? (config.adminAccessToken ? { admin_access_token: config.adminAccessToken } : { admin_secret: config.adminSecret }) : { client_id: config.clientId }),
        ...(config.tls ? { tls: { ca_file: config.tls.caFile, cert_file: config.tls.certFile ?? null, key_file: config.tls.keyFile ?? null } } : {}),
        ...(config.timeoutMs === undefined ? {} : { timeout_ms: config.timeoutMs }),
        ...(config.maxResponseBytes === undefined ? {} : { max_response_bytes: config.maxResponseBytes }),
        ...(config.retryAttempts === undefined ? {} : { retry_attempts: config.retryAttempts }),
      },
    });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${line}\n`);
    });
  }

  /** A column of this runner for one mode. */
  column(name: string, mode: string): ClientColumn {
    return { name, call: (call) => this.request(mode, call), close: () => this.close() };
  }

  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.stdin.end();
      setTimeout(() => this.child.kill("SIGKILL"), 5000).unref();
    });
  }
}

/** The client of another language: its runner process and the columns (modes) it answers. */
export interface LanguageRunner {
  language: string;
  columns: readonly { name: string; mode: string }[];
  /** Builds what the runner needs (a virtualenv, a binary) and starts it; throws a clear error when the toolchain is missing. */
  start(): Promise<RunnerProcess>;
}

/** Every other language's client; each adds its entry here. */
export const LANGUAGE_RUNNERS: LanguageRunner[] = [pythonRunner, goRunner];
