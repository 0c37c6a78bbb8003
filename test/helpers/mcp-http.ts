// A generated standalone MCP server (mcp/main.ts) serving MCP over HTTP, run as a process of its own.
import { spawn } from "node:child_process";
import { REPO_ROOT } from "./project.js";

export interface HttpMcpServer {
  /** Where it serves MCP, as it printed it (its port is a free one). */
  url: string;
  stop(): void;
}

/** Starts `main` against the service at `serviceUrl`; resolves once it says where it listens, rejects with its stderr if it exits first. */
export async function startHttpMcpServer(main: string, serviceUrl: string): Promise<HttpMcpServer> {
  // Only PATH: a credential the test run's environment holds must not reach the server; each request brings its own.
  const child = spawn(process.execPath, ["--import", "tsx", main, "--service-url", serviceUrl, "--transport", "http", "--port", "0"], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "" } });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    child.on("exit", () => reject(new Error(stderr)));
  });
  return { url, stop: () => child.kill() };
}
