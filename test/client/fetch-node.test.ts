// The Node clients' own fetch (runtime/client/fetch-node.ts) keeps fetch's contract over undici's
// request(): what a transport reads of an answer, how a failure and an abort reject, and a cancel
// that ends a stalled answer at once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pooledFetch } from "../../runtime/client/fetch-node.js";

let server: Server;
let redirectEnded!: () => void;
const redirectClosed = new Promise<void>((resolve) => (redirectEnded = resolve));
let url: string;
const own = pooledFetch();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const sent = Buffer.concat(chunks).toString();
      switch (request.url) {
        case "/echo":
          response.writeHead(201, [
            ["content-type", "application/json"],
            ["set-cookie", "a=1"],
            ["set-cookie", "b=2"],
            ["x-method", request.method!],
          ] as never);
          response.end(JSON.stringify({ sent, type: request.headers["content-type"] ?? null, secret: request.headers["x-secret"] ?? null }));
          return;
        case "/empty":
          response.writeHead(204, { "x-kept": "yes" }).end();
          return;
        case "/odd-status":
          response.writeHead(799).end("?");
          return;
        case "/stall":
          response.writeHead(200, { "content-type": "application/json" });
          response.write("[1,");
          return; // never ends
        case "/moved-far": {
          // A redirect with a body far larger than any socket buffer: read by nobody, it would hold the connection.
          response.writeHead(307, { location: "/elsewhere", "content-type": "text/plain" });
          const chunk = Buffer.alloc(1024 * 1024, 0x20);
          let sent = 0;
          const pump = () => {
            while (sent < 64 && response.write(chunk)) sent++;
            if (sent >= 64) response.end();
            else response.once("drain", pump);
          };
          response.on("close", () => redirectEnded());
          response.on("error", () => {});
          pump();
          return;
        }
        case "/slow":
          setTimeout(() => response.writeHead(200).end("{}"), 2_000).unref();
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await own.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("the Node clients' fetch", () => {
  it("sends the method, headers and text body, and answers a Response with the status, every header and the body", async () => {
    const response = await own.fetch(`${url}/echo`, { method: "PUT", headers: { "content-type": "application/json", "x-secret": "s" }, body: '{"a":1}' });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-method")).toBe("PUT");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ sent: '{"a":1}', type: "application/json", secret: "s" });
  });

  it("takes headers given as a Headers object, and a body other than text through undici's fetch", async () => {
    const response = await own.fetch(`${url}/echo`, { method: "POST", headers: new Headers({ "x-secret": "h" }), body: new URLSearchParams({ grant_type: "x" }) });
    expect(await response.json()).toEqual({ sent: "grant_type=x", type: "application/x-www-form-urlencoded;charset=UTF-8", secret: "h" });
  });

  it("answers a 204 with no body and its headers", async () => {
    const response = await own.fetch(`${url}/empty`, { method: "POST" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get("x-kept")).toBe("yes");
  });

  it("rejects a status a Response cannot hold as fetch rejects a failure: a TypeError whose cause says why", async () => {
    const error = await own.fetch(`${url}/odd-status`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(((error as TypeError).cause as Error).message).toBe("the service answered with status 799");
  });

  it("rejects a refused connection with a TypeError whose cause has the system's code", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await own.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(((error as TypeError).cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("rejects an aborted call with the signal's reason", async () => {
    const error = await own.fetch(`${url}/slow`, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("TimeoutError");
  });

  it("answers a redirect without its body, and frees its connection however large the body", async () => {
    const response = await own.fetch(`${url}/moved-far`, { redirect: "manual" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/elsewhere");
    expect(response.body).toBeNull();
    // The server's side of the answer ends (the connection is no longer held by an unread body).
    await expect(Promise.race([redirectClosed.then(() => "closed"), new Promise((resolve) => setTimeout(resolve, 2_000, "still held"))])).resolves.toBe("closed");
  });

  it("ends an answer that stalls mid-body at once when its stream is cancelled", async () => {
    const response = await own.fetch(`${url}/stall`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("[1,");
    const waiting = reader.read();
    const started = performance.now();
    await reader.cancel();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
