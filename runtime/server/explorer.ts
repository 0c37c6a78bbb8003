// The explorer (ServerOptions.explorer): GraphiQL on GET /graphql for browsers, the OpenAPI document
// rendered on /docs, the contracts on /openapi.yaml and /schema.graphql, and the pages' assets
// under /_explorer/. Every asset comes from this server, under a strict content-security policy.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { parse, print } from "graphql";
import { graphqlDocument } from "../graphql-document.js";
import type { ApiSchema, OperationSpec, Surface } from "../schema.js";
import { DOCS_START_SCRIPT, EXPLORER_CSP, EXPLORER_STYLE, GRAPHIQL_START_SCRIPT, explorerBar, page, type DocsSettings, type GraphiqlSettings, type GraphiqlTab } from "./explorer-pages.js";
import { resolveExplorerPackages, type PackageFile } from "./explorer-packages.js";

const gzipAsync = promisify(gzip);

export const EXPLORER_ASSET_PREFIX = "/_explorer/";
export const EXPLORER_PATHS = { graphiql: "/graphql", docs: "/docs", openapi: "/openapi.yaml", graphqlSchema: "/schema.graphql" } as const;

/** What the generated server hands the explorer besides the schema and the SDL. */
export interface ExplorerContracts {
  /** The OpenAPI document (YAML text), loaded the first time it is asked for. */
  openapiDocument(): Promise<string>;
  /** The operation GraphiQL opens with (the admin interface's version operation). */
  firstOperation?: string;
  /** How the tabs name the API's secret, which the admin operations need ("admin secret"; default "secret"). */
  secretWords?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};
const contentTypeOf = (path: string) => CONTENT_TYPES[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream";

interface Asset {
  contentType: string;
  load(): Promise<Buffer>;
}

interface Body {
  raw: Buffer;
  gzipped?: Buffer;
}

/** Text worth compressing: everything the explorer serves is larger than a packet. */
const COMPRESS_FROM_BYTES = 1024;

/** Browsers ask for an HTML page; API clients (curl, fetch, the SDK) do not. */
const wantsHtml = (request: IncomingMessage) => (request.headers.accept ?? "").includes("text/html");

export class Explorer {
  /** URL path under the prefix -> asset. Only these paths exist: nothing is looked up on disk by URL. */
  private readonly assets = new Map<string, Asset>();
  /** Pages, contracts and assets, made or read on first request and kept: none of them changes. */
  private readonly bodies = new Map<string, Promise<Body>>();
  /** Asset paths the pages link to, relative to the pages (which sit at the root). */
  private readonly href: Readonly<Record<"react" | "reactDom" | "graphiql" | "graphiqlStyle" | "swaggerUi" | "swaggerUiStyle" | "style" | "graphiqlStart" | "docsStart", string>>;

  constructor(
    private readonly schema: ApiSchema,
    private readonly graphqlSchemaText: string,
    private readonly contracts: ExplorerContracts,
    packageFiles: Map<string, PackageFile> = resolveExplorerPackages(),
  ) {
    const fromPackage = (key: string) => {
      const { urlPath, file } = packageFiles.get(key)!;
      this.assets.set(urlPath, { contentType: contentTypeOf(file), load: () => readFile(file) });
      return EXPLORER_ASSET_PREFIX.slice(1) + urlPath;
    };
    // The server's own scripts carry a hash of their text in the name, so they are cached for good too.
    const own = (name: string, text: string) => {
      const dot = name.lastIndexOf(".");
      const urlPath = `${name.slice(0, dot)}.${createHash("sha256").update(text).digest("hex").slice(0, 12)}${name.slice(dot)}`;
      this.assets.set(urlPath, { contentType: contentTypeOf(name), load: async () => Buffer.from(text) });
      return EXPLORER_ASSET_PREFIX.slice(1) + urlPath;
    };
    this.href = {
      react: fromPackage("react/umd/react.production.min.js"),
      reactDom: fromPackage("react-dom/umd/react-dom.production.min.js"),
      graphiql: fromPackage("graphiql/graphiql.min.js"),
      graphiqlStyle: fromPackage("graphiql/graphiql.min.css"),
      swaggerUi: fromPackage("swagger-ui-dist/swagger-ui-bundle.js"),
      swaggerUiStyle: fromPackage("swagger-ui-dist/swagger-ui.css"),
      style: own("explorer.css", EXPLORER_STYLE),
      graphiqlStart: own("graphiql-start.js", GRAPHIQL_START_SCRIPT),
      docsStart: own("docs-start.js", DOCS_START_SCRIPT),
    };
  }

  /**
   * Answers a request that is the explorer's (GET or HEAD of its pages, contracts and assets) and
   * says so; anything else, POST /graphql included, is left to the API.
   */
  handle(request: IncomingMessage, response: ServerResponse, pathname: string): boolean {
    if (request.method !== "GET" && request.method !== "HEAD") return false;
    let body: Promise<Body>;
    let contentType = "text/html; charset=utf-8";
    let cacheControl = "no-cache";
    if (pathname === EXPLORER_PATHS.graphiql) {
      if (!wantsHtml(request)) return false;
      body = this.cached(pathname, () => this.graphiqlPage());
    } else if (pathname === EXPLORER_PATHS.docs) {
      body = this.cached(pathname, () => this.docsPage());
    } else if (pathname === EXPLORER_PATHS.openapi) {
      contentType = "application/yaml; charset=utf-8";
      body = this.cached(pathname, () => this.contracts.openapiDocument());
    } else if (pathname === EXPLORER_PATHS.graphqlSchema) {
      contentType = "text/plain; charset=utf-8";
      body = this.cached(pathname, async () => this.graphqlSchemaText);
    } else if (pathname.startsWith(EXPLORER_ASSET_PREFIX)) {
      const urlPath = pathname.slice(EXPLORER_ASSET_PREFIX.length);
      const asset = this.assets.get(urlPath);
      if (!asset) return false;
      contentType = asset.contentType;
      cacheControl = "public, max-age=31536000, immutable";
      body = this.cached(pathname, asset.load);
    } else {
      return false;
    }
    body.then(
      (loaded) => this.send(request, response, loaded, contentType, cacheControl),
      () => {
        if (response.headersSent) return response.destroy();
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("the explorer could not load this file\n");
      },
    );
    return true;
  }

  private send(request: IncomingMessage, response: ServerResponse, body: Body, contentType: string, cacheControl: string): void {
    const gzipped = body.gzipped && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "") ? body.gzipped : undefined;
    const content = gzipped ?? body.raw;
    response.writeHead(200, {
      "content-type": contentType,
      "content-length": String(content.length),
      "cache-control": cacheControl,
      "content-security-policy": EXPLORER_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      // frame-ancestors 'none' of the CSP, for browsers that read only the older header.
      "x-frame-options": "DENY",
      vary: "accept-encoding",
      ...(gzipped ? { "content-encoding": "gzip" } : {}),
    });
    response.end(request.method === "HEAD" ? undefined : content);
  }

  private static async compressed(text: string | Buffer): Promise<Body> {
    const raw = typeof text === "string" ? Buffer.from(text) : text;
    return raw.length < COMPRESS_FROM_BYTES ? { raw } : { raw, gzipped: await gzipAsync(raw) };
  }

  private cached(key: string, make: () => Promise<string | Buffer>): Promise<Body> {
    let body = this.bodies.get(key);
    if (!body) {
      body = make().then(Explorer.compressed);
      // A failure (an unreadable file) is answered once and tried again on the next request.
      body.catch(() => this.bodies.delete(key));
      this.bodies.set(key, body);
    }
    return body;
  }

  /** The document of an operation as a person reads it: one field per line. */
  private document(operation: OperationSpec): string {
    return print(parse(graphqlDocument(this.schema, operation)));
  }

  /** GraphiQL's tabs: the first operation alone, ready to run, then every operation of each interface. */
  private graphiqlSettings(): GraphiqlSettings {
    const { adminSecret } = this.schema.features;
    const adminHeaders = adminSecret ? JSON.stringify({ [this.schema.adminSecretHeader]: "" }, null, 2) : "{}";
    const carried = Object.values(this.schema.operations).filter((op) => op.graphql);
    const everyOperation = (surface: Surface, intro: string, headers: string): GraphiqlTab[] => {
      const operations = carried.filter((op) => op.surface === surface);
      if (operations.length === 0) return [];
      return [{ query: [`# ${intro}`, ...operations.map((op) => this.document(op))].join("\n\n"), variables: "{}", headers }];
    };
    const first = carried.find((op) => op.name === this.contracts.firstOperation);
    const inputs = 'inputs go in the variables as {"params": {...}}';
    const tabs = [
      ...(first ? [{ query: this.document(first), headers: adminHeaders }] : []),
      ...everyOperation(
        "admin",
        `Every operation of the admin interface: put the cursor in one and run it, or pick it from the run button.${adminSecret ? ` They need the ${this.contracts.secretWords ?? "secret"} in header ${this.schema.adminSecretHeader} (below);` : ""} ${inputs}.`,
        adminHeaders,
      ),
      ...everyOperation("user", `Every operation of the user interface. A signed-in user's need the header {"authorization": "Bearer <access token>"}; ${inputs}.`, "{}"),
    ];
    return { endpoint: EXPLORER_PATHS.graphiql.slice(1), tabs, headers: adminHeaders };
  }

  private async graphiqlPage(): Promise<string> {
    return page({
      title: `${this.schema.title} ${this.schema.version} · GraphiQL`,
      styles: [this.href.graphiqlStyle, this.href.style],
      scripts: [this.href.react, this.href.reactDom, this.href.graphiql, this.href.graphiqlStart],
      settings: this.graphiqlSettings(),
      body: '<div id="graphiql">Loading GraphiQL…</div>',
    });
  }

  private async docsPage(): Promise<string> {
    const settings: DocsSettings = { openapi: EXPLORER_PATHS.openapi.slice(1) };
    const links = [
      { href: EXPLORER_PATHS.graphiql.slice(1), text: "GraphiQL" },
      { href: EXPLORER_PATHS.openapi.slice(1), text: "openapi.yaml" },
      { href: EXPLORER_PATHS.graphqlSchema.slice(1), text: "schema.graphql" },
    ];
    return page({
      title: `${this.schema.title} ${this.schema.version} · REST API`,
      styles: [this.href.swaggerUiStyle, this.href.style],
      scripts: [this.href.swaggerUi, this.href.docsStart],
      settings,
      body: `${explorerBar(`${this.schema.title} ${this.schema.version}`, links)}\n<div id="swagger-ui"></div>`,
    });
  }
}
