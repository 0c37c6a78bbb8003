// A real redis-server (Debian package, installed when missing) on a free port, for the tests of the
// Redis store: no persistence, stoppable and restartable on the same port to show an outage.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, connect } from "node:net";
import { ensureDebianProgramAsync } from "./apt.js";

export const REDIS_SERVER_PATH = "/usr/bin/redis-server";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts TCP connections on `port`. */
async function accepting(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RedisServer {
  url: string;
  port: number;
  /** Process id of the running server (0 while stopped). */
  readonly pid: number;
  /** Stops the server (its data goes with it); clients see the connection drop. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  await ensureDebianProgramAsync("redis-server", REDIS_SERVER_PATH, "the Redis store tests");
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(REDIS_SERVER_PATH, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await accepting(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    running.kill("SIGKILL");
    await once(running, "exit");
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? 0;
    },
    start,
    stop,
  };
}
