// scripts/check-package-names.mjs (npm run check:names): the names a generated project publishes
// under, the questions it asks the npm registry, PyPI and the Go module proxy, and its verdict on
// each of their answers, as recorded in test/fixtures/registry-answers.json; the table and the exit
// code; and a project not generated yet, refused with a clear message.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkNames, decide, escapeModulePath, projectNames, questionsOf, repositoryKey, report, type Answer } from "../scripts/check-package-names.mjs";
import { runProcess } from "../scripts/run-process.mjs";
import { REPO_ROOT, tempDir } from "./helpers/project.js";

type Recorded = Answer & { url: string };
const RECORDED = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "registry-answers.json"), "utf8")) as Record<string, Recorded | Recorded[]>;
const answers = (key: string): Recorded[] => {
  const recorded = RECORDED[key];
  if (recorded === undefined) throw new Error(`no recorded answer ${key}`);
  return Array.isArray(recorded) ? recorded : [recorded];
};
const IDENTITY = "github.com/identity-interface/identity-interface";

describe("the names a project publishes under", () => {
  it("are read from its generated packages, with its repository", () => {
    expect(projectNames(REPO_ROOT)).toEqual({
      repository: IDENTITY,
      names: [
        { registry: "npm", name: "@identity-interface/sdk", what: "sdk package" },
        { registry: "npm", name: "@identity-interface/server", what: "server package" },
        { registry: "npm", name: "@identity-interface/mcp", what: "mcp package" },
        { registry: "pypi", name: "identity-interface-sdk", what: "Python distribution" },
        { registry: "go", name: "github.com/identity-interface/identity-go/v2", what: "Go module" },
      ],
    });
    // The bookstore names no repository: nothing published can be told to be its own.
    expect(projectNames(join(REPO_ROOT, "examples", "bookstore"))).toMatchObject({
      repository: undefined,
      names: expect.arrayContaining([{ registry: "go", name: "example.com/bookstore-go", what: "Go module" }]),
    });
  });

  it("are asked of each registry at the URL it answers on", () => {
    expect(questionsOf("npm", "@identity-interface/sdk")).toEqual(["https://registry.npmjs.org/@identity-interface%2Fsdk"]);
    expect(questionsOf("npm", "apigen")).toEqual(["https://registry.npmjs.org/apigen"]);
    expect(questionsOf("pypi", "identity-interface-sdk")).toEqual(["https://pypi.org/pypi/identity-interface-sdk/json"]);
    expect(questionsOf("go", "github.com/Azure/azure-sdk-for-go")).toEqual([
      "https://proxy.golang.org/github.com/!azure/azure-sdk-for-go/@v/list",
      "https://proxy.golang.org/github.com/!azure/azure-sdk-for-go/@latest",
    ]);
    expect(escapeModulePath("github.com/BurntSushi/toml")).toBe("github.com/!burnt!sushi/toml");
    // Each recorded answer was asked at the URL the script asks.
    expect(answers("npm @identity-interface/sdk")[0]!.url.toLowerCase()).toBe(questionsOf("npm", "@identity-interface/sdk")[0]!.toLowerCase());
    expect(answers("go github.com/identity-interface/identity-go/v2").map((a) => a.url)).toEqual(questionsOf("go", "github.com/identity-interface/identity-go/v2"));
  });

  it("compare with the repository however a registry spells its URL", () => {
    for (const url of [
      "git+https://github.com/Identity-Interface/identity-interface.git",
      "https://github.com/identity-interface/identity-interface#readme",
      "git@github.com:identity-interface/identity-interface.git",
      "github:identity-interface/identity-interface",
      "https://github.com/identity-interface/identity-interface/",
    ]) {
      expect(repositoryKey(url), url).toBe(IDENTITY);
    }
    expect(repositoryKey(undefined)).toBeUndefined();
    expect(repositoryKey("")).toBeUndefined();
  });
});

describe("the verdict on a registry's recorded answer", () => {
  it("npm: unpublished is free (a scoped name needs its scope), published from the repository is ours, else taken", () => {
    expect(decide("npm", "@identity-interface/sdk", answers("npm @identity-interface/sdk"), IDENTITY)).toEqual({
      verdict: "free",
      detail: "unpublished; publishing it needs the npm scope @identity-interface",
    });
    expect(decide("npm", "undici", answers("npm undici"), "github.com/nodejs/undici")).toEqual({ verdict: "ours", detail: "8.13.1 from github.com/nodejs/undici" });
    expect(decide("npm", "undici", answers("npm undici"), IDENTITY)).toEqual({ verdict: "taken", detail: "8.13.1, from github.com/nodejs/undici" });
    // The toolchain's own command-line name: an unrelated package that names no repository.
    expect(decide("npm", "apigen", answers("npm apigen"), IDENTITY)).toEqual({ verdict: "taken", detail: "0.6.5, from no repository it names" });
    expect(decide("npm", "apigen", answers("npm apigen"), undefined)).toEqual({ verdict: "taken", detail: "0.6.5, from no repository it names" });
  });

  it("PyPI: unpublished is free, a project URL of the repository is ours, else taken", () => {
    expect(decide("pypi", "identity-interface-sdk", answers("pypi identity-interface-sdk"), IDENTITY)).toEqual({ verdict: "free", detail: "unpublished" });
    expect(decide("pypi", "httpx", answers("pypi httpx"), "github.com/encode/httpx")).toEqual({ verdict: "ours", detail: "0.28.1 from github.com/encode/httpx" });
    expect(decide("pypi", "httpx", answers("pypi httpx"), IDENTITY)).toEqual({ verdict: "taken", detail: "0.28.1, from github.com/encode/httpx" });
  });

  it("Go: versions under the repository's owner are ours, under another taken; not found is free; a placeholder domain is unusable", () => {
    expect(decide("go", "golang.org/x/mod", answers("go golang.org/x/mod"), IDENTITY)).toEqual({
      verdict: "taken",
      detail: "versions v0.41.0, v0.42.0, v0.43.0; not under github.com/identity-interface",
    });
    expect(decide("go", "golang.org/x/mod", answers("go golang.org/x/mod"), "golang.org/x/mod")).toEqual({
      verdict: "ours",
      detail: "versions v0.41.0, v0.42.0, v0.43.0, under golang.org like the repository",
    });
    expect(decide("go", "github.com/identity-interface/identity-go/v2", answers("go github.com/identity-interface/identity-go/v2 (documented)"), IDENTITY)).toEqual({
      verdict: "free",
      detail: "the module proxy knows no such module",
    });
    expect(decide("go", "example.com/bookstore-go", answers("go example.com/bookstore-go"), undefined)).toEqual({
      verdict: "unusable",
      detail: "example.com is a placeholder domain: nobody can fetch a module from it; choose a path on a host you control",
    });
    for (const path of ["shop.test/sdk", "api.example/go", "localhost/x"]) expect(decide("go", path, [], undefined).verdict, path).toBe("unusable");
  });

  it("an answer that says neither (a refusal, a server error, no answer) is unknown, never free", () => {
    expect(decide("go", "github.com/identity-interface/identity-go/v2", answers("go github.com/identity-interface/identity-go/v2"), IDENTITY)).toEqual({
      verdict: "unknown",
      detail: "answered 403: This module version is not available.",
    });
    expect(decide("npm", "apigen", [{ status: 503, body: "<html>busy</html>" }], IDENTITY)).toEqual({ verdict: "unknown", detail: "answered 503: <html>busy</html>" });
    expect(decide("pypi", "httpx", [{ status: 0, body: "getaddrinfo ENOTFOUND pypi.org" }], IDENTITY)).toEqual({ verdict: "unknown", detail: "no answer: getaddrinfo ENOTFOUND pypi.org" });
    expect(decide("pypi", "httpx", [{ status: 200, body: "not json" }], IDENTITY).verdict).toBe("unknown");
  });

  it("asks the proxy for the latest version only when the list holds none", async () => {
    const asked: string[] = [];
    const replay = (recorded: Recorded[]) => async (url: string) => {
      asked.push(url);
      const answer = recorded.find((a) => a.url === url)!;
      return new Response(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body), { status: answer.status });
    };
    const listed = await checkNames([{ registry: "go", name: "golang.org/x/mod", what: "Go module" }], IDENTITY, { fetch: replay(answers("go golang.org/x/mod")) });
    expect(listed.map((row) => row.verdict)).toEqual(["taken"]);
    expect(asked).toEqual(["https://proxy.golang.org/golang.org/x/mod/@v/list"]);
    asked.length = 0;
    const missing = await checkNames([{ registry: "go", name: "github.com/identity-interface/identity-go/v2", what: "Go module" }], IDENTITY, {
      fetch: replay(answers("go github.com/identity-interface/identity-go/v2 (documented)")),
    });
    expect(missing.map((row) => row.verdict)).toEqual(["free"]);
    expect(asked).toEqual(questionsOf("go", "github.com/identity-interface/identity-go/v2"));
  });
});

describe("the table and the exit code", () => {
  const row = (registry: string, name: string, verdict: string, detail = "") => ({ registry, name, verdict, detail });

  it("prints one aligned row per name, and exits 1 on a taken or unusable name, 2 on an unknown one, else 0", () => {
    const free = [row("npm", "@shop/sdk", "free", "unpublished"), row("pypi", "shop-sdk", "ours", "1.0.0 from github.com/shop/shop")];
    expect(report(free)).toEqual({
      text: "registry  name       verdict  detail\nnpm       @shop/sdk  free     unpublished\npypi      shop-sdk   ours     1.0.0 from github.com/shop/shop\n",
      code: 0,
    });
    expect(report([...free, row("go", "example.com/shop-go", "unknown", "answered 403")]).code).toBe(2);
    expect(report([...free, row("npm", "apigen", "taken"), row("go", "x", "unknown")]).code).toBe(1);
    expect(report([...free, row("go", "example.com/shop-go", "unusable")]).code).toBe(1);
  });

  it("refuses a project not generated yet, naming what to run, exit 2", async () => {
    const empty = tempDir("check-names-");
    const ran = await runProcess(process.execPath, [join(REPO_ROOT, "scripts", "check-package-names.mjs"), "--root", empty]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`check-package-names: ${join(empty, "generated", "packages", "sdk", "package.json")} is missing: generate the project first (apigen generate --root ${empty})\n`);
    expect(ran.stdout).toBe("");
  });
});
