// The Go module used from outside this repository: packed as `npm run pack` packs it (a module
// zip), extracted into a folder under the system temp dir, and required by a new consumer module
// there through a `replace` directive; the consumer runs the snippet of docs/go.md against the reference
// service over GraphQL, REST and gRPC.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceServer } from "../../generated/server/index.js";
import { loadIr } from "../../generators/generate.js";
import { goBinary, goToolchain } from "../../scripts/go-env.mjs";
import { packGo } from "../../scripts/pack-go.mjs";
import { REPO_ROOT, timed } from "../helpers/project.js";
import { startReferenceServer } from "../helpers/reference-server.js";

const exec = promisify(execFile);
const ADMIN_SECRET = "module-secret";
const ir = loadIr(REPO_ROOT);
const { modulePath, package: packageName } = ir.api.go;

/** The snippet of docs/go.md, over the protocols named on the command line, printing what it saw as JSON. */
const CONSUMER = `package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	${packageName} "${modulePath}"
)

type seen struct {
	Version  string   \`json:"version"\`
	Invited  bool     \`json:"invited"\`
	Listed   int      \`json:"listed"\`
	Total    int64    \`json:"total"\`
	Missing  []string \`json:"missing"\`
	Sentinel bool     \`json:"sentinel"\`
	Refusal  string   \`json:"refusal"\`
}

func run(ctx context.Context, protocol ${packageName}.Protocol) (seen, error) {
	var out seen
	admin, err := ${packageName}.NewAdminClient(os.Getenv("SERVICE_URL"), os.Getenv("ADMIN_SECRET"),
		${packageName}.WithAdminProtocol(protocol), ${packageName}.WithAdminGRPCEndpoint(os.Getenv("GRPC_ENDPOINT")))
	if err != nil {
		return out, err
	}
	defer admin.Close()
	meta, err := admin.AdminMeta(ctx, &${packageName}.AdminMetaInput{})
	if err != nil {
		return out, err
	}
	out.Version = meta.Version
	email := string(protocol) + "@example.com"
	if _, err := admin.InviteMembers(ctx, &${packageName}.InviteMembersInput{Emails: []string{email}}); err != nil {
		return out, err
	}
	for user, err := range admin.AllUsers(ctx, &${packageName}.UsersInput{Pagination: &${packageName}.PaginationInput{Limit: ${packageName}.Int64(1)}}) { // every page
		if err != nil {
			return out, err
		}
		out.Listed++
		out.Invited = out.Invited || (user.Email != nil && *user.Email == email)
	}
	page, err := admin.Users(ctx, nil)
	if err != nil {
		return out, err
	}
	out.Total = page.Pagination.Total
	_, err = admin.GetOrganization(ctx, &${packageName}.GetOrganizationInput{ID: "missing"})
	var apiErr *${packageName}.APIError
	if errors.As(err, &apiErr) && apiErr.Code == ${packageName}.CodeNotFound {
		out.Missing = []string{string(apiErr.Code), string(apiErr.Protocol)}
	}
	out.Sentinel = errors.Is(err, ${packageName}.ErrNotFound)
	_, err = admin.AdminSignup(ctx, &${packageName}.AdminSignupInput{AdminSecret: "x"})
	if errors.As(err, &apiErr) && apiErr.Refused {
		out.Refusal = apiErr.Message
	}
	return out, nil
}

func main() {
	results := map[string]seen{}
	for _, name := range strings.Split(os.Args[1], ",") {
		result, err := run(context.Background(), ${packageName}.Protocol(name))
		if err != nil {
			fmt.Fprintln(os.Stderr, name+":", err)
			os.Exit(1)
		}
		results[name] = result
	}
	json.NewEncoder(os.Stdout).Encode(results)
}
`;

let workDir: string;
let packed: Awaited<ReturnType<typeof packGo>>;
let consumer: string;
let server: ServiceServer;
let addresses: { httpUrl: string; grpcEndpoint: string };
const timings: Record<string, number> = {};

async function go(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await exec(goToolchain().go, args, { cwd: consumer, env: { ...goToolchain().env, ...env }, maxBuffer: 32 * 1024 * 1024 });
  return stdout;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "apigen-go-module-"));
  packed = await timed(timings, "pack", () => packGo({ outDir: join(workDir, "dist") }));
  const { binary: modzip } = await goBinary("modzip");
  const module = join(workDir, "module");
  await exec(modzip, ["extract", "-module", packed.path, "-version", packed.version, "-zip", packed.zip, "-dir", module]);
  consumer = join(workDir, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "go.mod"), `module example.com/consumer\n\ngo 1.23.0\n\nrequire ${packed.path} ${packed.version}\n\nreplace ${packed.path} => ../module\n`);
  writeFileSync(join(consumer, "main.go"), CONSUMER);
  ({ server, addresses } = await startReferenceServer(ADMIN_SECRET));
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  console.log(`go module test steps (ms): ${JSON.stringify(timings)}`);
});

describe("the Go module zip, required by a consumer module outside the repository", () => {
  it("is named after the manifest's module, with the major version suffix Go requires, and version", () => {
    expect(packed.path).toBe(modulePath);
    expect(modulePath).toBe(`${ir.api.go.module}/v${ir.api.version.split(".")[0]}`);
    expect(packed.version).toBe(`v${ir.api.version}`);
    expect(packed.zip.slice(packed.zip.lastIndexOf("/") + 1)).toBe(`${ir.api.go.module.split("/").at(-1)}-${ir.api.version}.zip`);
  });

  it("builds and vets in the consumer, its dependencies resolved by the go command", async () => {
    // The consumer's go.sum: what `go mod tidy` fetches for a new module (the module proxy, or the cache).
    await timed(timings, "tidy", () => go(["mod", "tidy"]));
    await timed(timings, "vet", () => go(["vet", "./..."], { GOFLAGS: "-mod=readonly" }));
    await timed(timings, "build", () => go(["build", "-o", "consumer", "."], { GOFLAGS: "-mod=readonly" }));
  }, 300_000);

  it("runs the snippet of docs/go.md against the reference service over all three protocols", async () => {
    const { stdout } = await timed(timings, "run", () =>
      exec(join(consumer, "consumer"), ["graphql,rest,grpc"], {
        cwd: consumer,
        env: { PATH: process.env.PATH, SERVICE_URL: addresses.httpUrl, GRPC_ENDPOINT: addresses.grpcEndpoint, ADMIN_SECRET },
      }),
    );
    const results = JSON.parse(stdout) as Record<string, { listed: number; total: number }>;
    for (const [index, protocol] of ["graphql", "rest", "grpc"].entries()) {
      expect(results[protocol], protocol).toEqual({
        version: ir.api.version,
        invited: true,
        listed: index + 1,
        total: index + 1,
        missing: ["NOT_FOUND", protocol],
        sentinel: true,
        refusal: protocol === "graphql" ? "" : `AdminSignup not available over ${protocol}; use graphql`,
      });
    }
  }, 60_000);
});
