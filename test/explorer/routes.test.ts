// The explorer routes of the server stubs without a browser: off by default (the paths answer as
// before), and with `explorer: true` pages, contracts and assets with their content types, caching
// and content-security policy; asset paths name files, never folders to walk out of.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { buildSchema, parse, validate } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, ExplorerSetupError, type ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { createReferenceService } from "../../reference/service.js";
import { EXPLORER_PACKAGES, resolveExplorerPackages } from "../../runtime/server/explorer-packages.js";
import { REPO_ROOT } from "../helpers/project.js";
import { TEST_PASSWORD_HASH_COST } from "../helpers/password-hash-cost.js";

const SECRET = "explorer-admin-secret";
const HTML = { accept: "text/html,application/xhtml+xml" };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with the path sent exactly as written (fetch would normalize `..` away). */
function get(base: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on("error", reject);
    request.end();
  });
}

async function start(explorer?: boolean): Promise<{ server: ServiceServer; base: string }> {
  const service = createReferenceService({ passwordHashCost: TEST_PASSWORD_HASH_COST });
  const server = createServer(service.implementation, { ...service.serverOptions, adminSecret: SECRET, port: 0, grpcPort: 0, ...(explorer === undefined ? {} : { explorer }) });
  const { httpUrl } = await server.listen();
  return { server, base: httpUrl };
}

const PAGE_PATHS = ["/docs", "/openapi.yaml", "/schema.graphql"];

describe("without the explorer option", () => {
  let server: ServiceServer;
  let base: string;
  beforeAll(async () => ({ server, base } = await start()));
  afterAll(() => server.close());

  it("answers its paths as before: 404 JSON, and 405 for GET /graphql even from a browser", async () => {
    for (const path of [...PAGE_PATHS, `/_explorer/react@${"18.3.1"}/umd/react.production.min.js`]) {
      const answer = await get(base, path, HTML);
      expect(answer.status, path).toBe(404);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body.toString())).toEqual({ code: "NOT_FOUND", message: "no such route" });
    }
    const graphql = await get(base, "/graphql", HTML);
    expect(graphql.status).toBe(405);
    expect(graphql.headers.allow).toBe("POST");
    expect(JSON.parse(graphql.body.toString())).toEqual({ code: "METHOD_NOT_ALLOWED", message: "/graphql takes POST" });
  });
});

describe("with explorer: true", () => {
  let server: ServiceServer;
  let base: string;
  beforeAll(async () => ({ server, base } = await start(true)));
  afterAll(() => server.close());

  /** The scripts and style sheets a page links to. */
  const linked = (html: string) => [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => `/${m[1]}`);

  it("opens GraphiQL on GET /graphql for a browser, with the admin-secret header and every operation as examples", async () => {
    const answer = await get(base, "/graphql", HTML);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("no-cache");
    const html = answer.body.toString();
    const settings = JSON.parse(/<script type="application\/json" id="explorer-settings">([^<]*)<\/script>/.exec(html)![1]!) as {
      endpoint: string;
      tabs: { query: string; headers: string }[];
      headers: string;
    };
    expect(settings.endpoint).toBe("graphql");
    expect(JSON.parse(settings.headers)).toEqual({ [schema.adminSecretHeader]: "" });
    expect(settings.tabs[0]!.query).toMatch(/^query admin_meta \{\n {2}admin_meta \{\n {4}version\n/);
    expect(JSON.parse(settings.tabs[0]!.headers)).toEqual({ "x-service-admin-secret": "" });
    // Every operation GraphQL carries is in exactly one tab, and every tab is valid for the SDL.
    const sdl = buildSchema(readFileSync(join(REPO_ROOT, "generated/graphql/schema.graphql"), "utf8"));
    const carried = Object.values(schema.operations).filter((op) => op.graphql);
    const examples = settings.tabs.slice(1).flatMap((tab) => parse(tab.query).definitions.map((d) => ("name" in d ? d.name?.value : undefined)));
    expect(examples.sort()).toEqual(carried.map((op) => op.name).sort());
    for (const tab of settings.tabs) expect(validate(sdl, parse(tab.query))).toEqual([]);
    expect(linked(html)).toHaveLength(6);
  });

  it("keeps GET /graphql without text/html and POST /graphql as they were", async () => {
    expect((await get(base, "/graphql", { accept: "application/json" })).status).toBe(405);
    const response = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { accept: "text/html", "content-type": "application/json", [schema.adminSecretHeader]: SECRET },
      body: JSON.stringify({ query: "{ admin_meta { version } }" }),
    });
    expect(await response.json()).toEqual({ data: { admin_meta: { version: schema.version } } });
  });

  it("serves every page with a strict content-security policy and no inline script", async () => {
    for (const path of ["/graphql", "/docs"]) {
      const answer = await get(base, path, HTML);
      const csp = String(answer.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      // Framed by no page (clickjacking), in the CSP and in the older header; no referrer leaves it.
      expect(csp).toContain("frame-ancestors 'none'");
      expect(answer.headers["x-frame-options"]).toBe("DENY");
      expect(answer.headers["referrer-policy"]).toBe("no-referrer");
      // A script element either loads a file of this server or carries data that is never run.
      for (const tag of answer.body.toString().match(/<script[^>]*>/g)!) expect(tag, path).toMatch(/^<script (src="_explorer\/[^"]+"|type="application\/json" id="explorer-settings")>$/);
    }
  });

  it("serves the contracts: /openapi.yaml as YAML and /schema.graphql as text, the files generate wrote", async () => {
    const openapi = await get(base, "/openapi.yaml");
    expect(openapi.status).toBe(200);
    expect(openapi.headers["content-type"]).toBe("application/yaml; charset=utf-8");
    expect(openapi.body.toString()).toBe(readFileSync(join(REPO_ROOT, "generated/openapi/openapi.yaml"), "utf8").replace(/^# .*\n/, ""));
    const sdl = await get(base, "/schema.graphql");
    expect(sdl.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(sdl.body.toString()).toBe(readFileSync(join(REPO_ROOT, "generated/graphql/schema.graphql"), "utf8").replace(/^# .*\n\n/, ""));
  });

  it("serves every asset the pages link to from node_modules, cached for good, compressed when asked", async () => {
    const assets = new Set([...linked((await get(base, "/graphql", HTML)).body.toString()), ...linked((await get(base, "/docs", HTML)).body.toString())]);
    expect(assets.size).toBe(9);
    for (const path of assets) {
      const plain = await get(base, path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers["content-type"], path).toBe(path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(plain.headers["x-content-type-options"]).toBe("nosniff");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      const packaged = /^\/_explorer\/((?:@[^/]+\/)?[^@/]+)@([^/]+)\/(.+)$/.exec(path);
      if (packaged) {
        const [, name, version, file] = packaged;
        const folder = join(REPO_ROOT, "node_modules", name!);
        expect(version).toBe((JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version: string }).version);
        expect(plain.body.equals(readFileSync(join(folder, file!))), path).toBe(true);
      }
      // Anything larger than a packet travels compressed to a browser that accepts it.
      const gzipped = await get(base, path, { "accept-encoding": "gzip, deflate" });
      if (plain.body.length < 1500) continue;
      expect(gzipped.headers["content-encoding"], path).toBe("gzip");
      expect(gzipped.body.length, path).toBeLessThan(plain.body.length);
      expect(gunzipSync(gzipped.body).equals(plain.body), path).toBe(true);
    }
    const head = await get(base, [...assets][0]!, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(Number(head.headers["content-length"])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
  });

  it("answers 404 for any other path under /_explorer/, so no path walks out of a package", async () => {
    const react = `react@${(JSON.parse(readFileSync(join(REPO_ROOT, "node_modules/react/package.json"), "utf8")) as { version: string }).version}`;
    for (const path of [
      "/_explorer/../../package.json",
      `/_explorer/${react}/../../package.json`,
      `/_explorer/${react}/package.json`,
      `/_explorer/${react}/umd/../package.json`,
      "/_explorer/%2e%2e/%2e%2e/package.json",
      `/_explorer/${react}/umd/react.production.min.js/`,
      "/_explorer/",
    ]) {
      const answer = await get(base, path);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body.toString()).code, path).toBe("NOT_FOUND");
    }
    expect((await fetch(`${base}/docs`, { method: "POST" })).status).toBe(404);
  });
});

describe("the explorer's browser packages", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "explorer-packages-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("are all found in this project", () => {
    const files = resolveExplorerPackages();
    expect([...files.keys()].sort()).toEqual(
      Object.entries(EXPLORER_PACKAGES)
        .flatMap(([name, { files }]) => files.map((file) => `${name}/${file}`))
        .sort(),
    );
  });

  it("are named, with the command that installs them, when missing or of a version without the served files", () => {
    const from = pathToFileURL(join(root, "app", "server.js")).href;
    mkdirSync(join(root, "app"), { recursive: true });
    expect(() => resolveExplorerPackages(from)).toThrow(ExplorerSetupError);
    expect(() => resolveExplorerPackages(from)).toThrow(
      "the explorer (option explorer: true) needs its browser packages; not installed: graphiql, react, react-dom, swagger-ui-dist. Install them with: npm install graphiql@^4.1.2 react@^18.3.1 react-dom@^18.3.1 swagger-ui-dist@^5.35.0",
    );
    mkdirSync(join(root, "node_modules", "react"), { recursive: true });
    writeFileSync(join(root, "node_modules", "react", "package.json"), JSON.stringify({ name: "react", version: "19.0.0" }));
    expect(() => resolveExplorerPackages(from)).toThrow(
      /not installed: graphiql, react-dom, swagger-ui-dist; react 19\.0\.0 has no umd\/react\.production\.min\.js \(the explorer needs react@\^18\.3\.1\)\./,
    );
  });
});
