// The bookstore's generated Go and Python READMEs: their examples pass the credential the API
// declares (the staff_key scheme's API key, in x-bookstore-key) and run as printed. The service
// listens where the examples look for it: on a loopback address of its own (127.x.y.z) with gRPC
// on the manifest's port 9191, which a client derives from the service URL; the printed
// http://localhost:<port> becomes that address, and the service takes the printed key. Every call the
// examples make is recorded with the key its request carried.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreClient } from "../../examples/bookstore/generated/client/index.js";
import { schema } from "../../examples/bookstore/generated/schema.js";
import { createServer, type Implementation, type ServiceServer } from "../../examples/bookstore/generated/server/index.js";
import { createBookstore } from "../../examples/bookstore/src/service.js";
import { EXAMPLE_CREDENTIALS } from "../../generators/sdk/sdk-facts.js";
import { goToolchain } from "../../scripts/go-env.mjs";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT } from "../helpers/project.js";

const EXAMPLE = join(REPO_ROOT, "examples", "bookstore");
const KEY = EXAMPLE_CREDENTIALS.apiKey;
const KEY_HEADER = schema.apiKeyHeader;
const workDir = mkdtempSync(join(tmpdir(), "apigen-bookstore-readme-"));

/** Each call the service took: its operation, protocol and the API key its request carried. */
const calls: { operation: string; protocol: string; key: string | undefined }[] = [];
let server: ServiceServer;
let address: string;

/** The bookstore, each method recording the call before it runs. */
function recordingBookstore(): Implementation {
  const store = createBookstore() as unknown as Record<string, (input: unknown, context: { protocol: string; headers: Readonly<Record<string, string>> }) => Promise<unknown>>;
  return Object.fromEntries(
    Object.entries(store).map(([name, method]) => [
      name,
      (input: unknown, context: { protocol: string; headers: Readonly<Record<string, string>> }) => {
        calls.push({ operation: name, protocol: context.protocol, key: context.headers[KEY_HEADER] });
        return method(input, context);
      },
    ]),
  ) as unknown as Implementation;
}

beforeAll(async () => {
  for (let attempt = 0; ; attempt++) {
    const host = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
    server = createServer(recordingBookstore(), { host, port: 0, grpcPort: schema.grpcPort, verifyApiKey: async (key) => (key === KEY ? { keyId: "readme" } : null) });
    try {
      address = new URL((await server.listen()).httpUrl).host;
      break;
    } catch (error) {
      await server.close();
      if (attempt === 4) throw new Error(`could not listen on port ${schema.grpcPort} of a loopback address (is a process listening on 0.0.0.0:${schema.grpcPort}?): ${(error as Error).message}`);
    }
  }
  const staff = new StoreClient({ serviceUrl: `http://${address}`, apiKey: KEY, protocol: "rest" });
  for (const title of ["Middlemarch", "Bleak House", "Persuasion", "Villette"]) await staff.addBook({ title, author: { name: "Anon" }, genre: "fiction" });
  await staff.close();
  calls.length = 0;
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The README's first fenced block of `language` (its Use example), and every block of it. */
const blocks = (path: string, language: string) => [...readFileSync(path, "utf8").matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```", "g"))].map((m) => m[1]!);
/** The printed service URL (http://localhost and the HTTP port) as this test's service. */
const filled = (code: string) => code.replace(/http:\/\/localhost:\d+/g, `http://${address}`);
/** The books the service holds, in the order they were added. */
const TITLES = "Middlemarch\nBleak House\nPersuasion\nVillette";

describe("the bookstore's SDK READMEs", () => {
  it("open every client with the API key the staff_key scheme declares", () => {
    const go = blocks(join(EXAMPLE, "generated", "go", "README.md"), "go").join("\n");
    const constructors = [...go.matchAll(/bookstore\.NewClient\(.*$/gm)].map((m) => m[0]);
    expect(constructors.length).toBeGreaterThan(5);
    expect(constructors.filter((line) => !line.includes(`bookstore.WithAPIKey("${KEY}")`))).toEqual([]);
    const python = blocks(join(EXAMPLE, "generated", "python", "README.md"), "python").join("\n");
    const opened = [...python.matchAll(/\b(?:Async)?StoreClient\(([^)]*)\)/g)].map((m) => m[1]!);
    expect(opened.length).toBeGreaterThan(5);
    expect(opened.filter((args) => !args.includes(`api_key="${KEY}"`))).toEqual([]);
  });

  it("has a Python example that runs as printed, over REST and gRPC, sending the key on every call", async () => {
    const { python } = await ensurePythonEnv();
    const example = join(workDir, "readme_example.py");
    writeFileSync(example, filled(blocks(join(EXAMPLE, "generated", "python", "README.md"), "python")[0]!));
    calls.length = 0;
    const ran = await runProcess(python, [example], { cwd: workDir, env: { ...process.env, PYTHONPATH: join(EXAMPLE, "generated", "python", "src") } });
    expect(ran.code, ran.output).toBe(0);
    // The sync client's titles over REST, then the async client's over gRPC.
    expect(ran.stdout).toBe(`${TITLES}\n${TITLES}\n`);
    expect(new Set(calls.map((c) => c.protocol))).toEqual(new Set(["rest", "grpc"]));
    expect(calls.filter((c) => c.key !== KEY)).toEqual([]);
  }, 120_000);

  it("has a Go example that runs as printed, over gRPC, sending the key on every call", async () => {
    const { go, env } = goToolchain();
    const module = join(EXAMPLE, "generated", "go");
    const path = /^module (\S+)$/m.exec(readFileSync(join(module, "go.mod"), "utf8"))![1]!;
    writeFileSync(join(workDir, "go.mod"), `module example.com/bookstore-readme\n\ngo 1.23.0\n\nrequire ${path} v0.0.0\n\nreplace ${path} => ${module}\n`);
    copyFileSync(join(module, "go.sum"), join(workDir, "go.sum"));
    mkdirSync(join(workDir, "readme"), { recursive: true });
    writeFileSync(join(workDir, "readme", "main.go"), filled(blocks(join(module, "README.md"), "go")[0]!));
    calls.length = 0;
    const ran = await runProcess(go, ["run", "./readme"], { cwd: workDir, env: { ...env, GOFLAGS: "-mod=mod" } });
    expect(ran.code, ran.output).toBe(0);
    // Every book with its id, page after page, then the lookup of a missing one.
    expect(
      ran.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.replace(/^[0-9a-f-]{36} /, "")),
    ).toEqual([...TITLES.split("\n"), "no such book: no book has this id"]);
    expect(new Set(calls.map((c) => `${c.operation} over ${c.protocol}`))).toEqual(new Set(["listBooks over grpc", "getBook over grpc"]));
    expect(calls.filter((c) => c.key !== KEY)).toEqual([]);
  }, 180_000);
});
