// The Python wheel used from outside this repository: built as `npm run pack` builds it, installed
// into fresh virtualenvs under the system temp folder (once without and once with the grpc extra),
// and the snippet of docs/python.md run there against the reference service over every protocol it has.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceServer } from "../../generated/server/index.js";
import { loadIr } from "../../generators/generate.js";
import { packPython } from "../../scripts/pack-python.mjs";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { REPO_ROOT, timed } from "../helpers/project.js";
import { startReferenceServer } from "../helpers/reference-server.js";

const run = promisify(execFile);
const ADMIN_SECRET = "wheel-secret";
const { distribution, module } = loadIr(REPO_ROOT).api.python;
const version = loadIr(REPO_ROOT).api.version;

/** The snippet, over the protocols named on the command line, printing what it saw as JSON. */
const SNIPPET = `import asyncio, json, os, sys
import ${module}
from ${module} import AdminClient, AsyncAdminClient, ApiError

url, grpc_endpoint, secret = os.environ["SERVICE_URL"], os.environ["GRPC_ENDPOINT"], os.environ["ADMIN_SECRET"]
results = {}
for protocol in sys.argv[1].split(","):
    with AdminClient(service_url=url, admin_secret=secret, protocol=protocol, grpc_endpoint=grpc_endpoint) as admin:
        admin.invite_members(emails=[f"{protocol}@example.com"])
        page = admin.users(pagination={"limit": 20, "page": 1})
        emails = [user.email for user in admin.iter_users()]
        try:
            admin.get_organization(id="missing")
        except ApiError as error:
            missing = [error.code, error.protocol]

    async def main():
        async with AsyncAdminClient(service_url=url, admin_secret=secret, protocol=protocol, grpc_endpoint=grpc_endpoint) as admin:
            meta = await admin.admin_meta()
            return meta.version, [user.email async for user in admin.iter_users()]

    version, async_emails = asyncio.run(main())
    results[protocol] = {"version": version, "page": len(page.users) == page.pagination.total, "emails": emails == async_emails and f"{protocol}@example.com" in emails, "missing": missing}

try:
    AdminClient(service_url=url, admin_secret=secret, protocol="grpc")
    grpc_error = None
except ImportError as error:
    grpc_error = str(error)
print(json.dumps({"results": results, "grpc_error": grpc_error, "file": ${module}.__file__}))
`;

let workDir: string;
let wheel: string;
let server: ServiceServer;
let addresses: { httpUrl: string; grpcEndpoint: string };
let python: string;
const timings: Record<string, number> = {};

/** A fresh virtualenv with the wheel installed (`extra`: with [grpc]); answers its interpreter. */
async function installed(name: string, extra: boolean): Promise<string> {
  const venv = join(workDir, name);
  // No pip of its own: the test environment's pip installs into it (pip --python), from its cache.
  await run(process.env.PYTHON ?? "python3", ["-m", "venv", "--without-pip", venv]);
  const target = join(venv, "bin", "python");
  await run(python, ["-m", "pip", "--python", target, "install", "--disable-pip-version-check", "--quiet", extra ? `${wheel}[grpc]` : wheel]);
  return target;
}

async function snippet(interpreter: string, protocols: string[]): Promise<{ results: Record<string, unknown>; grpc_error: string | null; file: string }> {
  const script = join(workDir, "snippet.py");
  writeFileSync(script, SNIPPET);
  const { stdout } = await run(interpreter, [script, protocols.join(",")], {
    cwd: workDir,
    env: { PATH: process.env.PATH, SERVICE_URL: addresses.httpUrl, GRPC_ENDPOINT: addresses.grpcEndpoint, ADMIN_SECRET },
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "apigen-wheel-"));
  python = (await ensurePythonEnv()).python;
  const built = await timed(timings, "pack", () => packPython({ outDir: join(workDir, "dist") }));
  wheel = built.find((artifact) => artifact.kind === "wheel")!.path;
  ({ server, addresses } = await startReferenceServer(ADMIN_SECRET));
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  console.log(`wheel test steps (ms): ${JSON.stringify(timings)}`);
});

describe("the Python wheel, installed outside the repository", () => {
  it("is named after the manifest's distribution and version", () => {
    expect(wheel.slice(wheel.lastIndexOf("/") + 1)).toBe(`${distribution.replace(/-/g, "_")}-${version}-py3-none-any.whl`);
  });

  it("runs the snippet over GraphQL and REST without the grpc extra, and names the install command for gRPC", async () => {
    const interpreter = await timed(timings, "install", () => installed("plain", false));
    const seen = await timed(timings, "snippet", () => snippet(interpreter, ["graphql", "rest"]));
    expect(seen.file).toContain(join(workDir, "plain"));
    for (const protocol of ["graphql", "rest"]) {
      expect(seen.results[protocol], protocol).toEqual({ version, page: true, emails: true, missing: ["NOT_FOUND", protocol] });
    }
    expect(seen.grpc_error).toContain(`pip install "${distribution}[grpc]"`);
  }, 120_000);

  it("runs the snippet over all three protocols with [grpc]", async () => {
    const interpreter = await timed(timings, "install [grpc]", () => installed("grpc", true));
    const seen = await timed(timings, "snippet [grpc]", () => snippet(interpreter, ["graphql", "rest", "grpc"]));
    expect(seen.file).toContain(join(workDir, "grpc"));
    for (const protocol of ["graphql", "rest", "grpc"]) {
      expect(seen.results[protocol], protocol).toEqual({ version, page: true, emails: true, missing: ["NOT_FOUND", protocol] });
    }
    expect(seen.grpc_error).toBeNull();
  }, 120_000);
});
