// The explorer and the static API reference in a real browser (the system Chromium, driven by
// playwright-core): each page renders without a console error, GraphiQL runs admin_meta against
// the reference service with the admin secret typed into its headers editor, /docs lists every
// REST operation, the static site shows its marks and versions and its search filters.
// Screenshots go to dist/screenshots/.
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { DOCS_SITE_DIR } from "../../generators/emit/docs-site.js";
import { loadIr } from "../../generators/generate.js";
import type { ServiceServer } from "../../generated/server/index.js";
import { schema } from "../../generated/schema.js";
import { serve } from "../../reference/cli.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium } from "../helpers/chromium.js";
import { REPO_ROOT } from "../helpers/project.js";

const SECRET = "browser-admin-secret";
const SCREENSHOTS = join(REPO_ROOT, "dist", "screenshots");
const SITE = pathToFileURL(join(REPO_ROOT, DOCS_SITE_DIR)).href;
const operations = Object.values(schema.operations);

let browser: Browser;
let server: ServiceServer;
let httpUrl: string;
/** Milliseconds from navigation to the page showing its content, per page. */
const loadTimes: Record<string, number> = {};

beforeAll(async () => {
  await ensureChromium();
  const lines: string[] = [];
  const started = await serve(
    ["--admin-secret", SECRET, "--port", "0", "--grpc-port", "0", "--database-url", "sqlite::memory:"],
    {},
    { out: (line) => lines.push(line), err: (line) => lines.push(line) },
  );
  if (typeof started === "number") throw new Error(`the reference service did not start:\n${lines.join("\n")}`);
  server = started;
  // The startup lines name the explorer's addresses; the test goes where they point.
  httpUrl = /GraphiQL\s+(http:\/\/\S+)\/graphql$/m.exec(lines.join("\n"))![1]!;
  expect(lines.join("\n")).toContain(`REST docs  ${httpUrl}/docs`);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  console.log(`explorer page loads (ms): ${JSON.stringify(loadTimes)}`);
});

/** A new page that records console errors, uncaught exceptions and failed or refused requests. */
async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`exception: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return { page, problems };
}

async function timedLoad(page: Page, name: string, url: string, rendered: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await page.goto(url);
  await rendered();
  loadTimes[name] = Math.round(performance.now() - started);
}

describe("the explorer of the reference service", () => {
  it("runs admin_meta in GraphiQL with the admin secret typed into the headers editor", async () => {
    const { page, problems } = await openPage();
    await timedLoad(page, "graphiql", `${httpUrl}/graphql`, () => page.locator(".graphiql-query-editor .CodeMirror").waitFor());
    await expect.poll(() => page.locator(".graphiql-query-editor").innerText()).toContain("admin_meta");
    // The schema arrived by introspection: the documentation explorer lists the root types.
    await page.locator('[aria-label="Show Documentation Explorer"]').click();
    await page.getByText("Mutation", { exact: true }).first().waitFor();

    const headers = page.locator(".graphiql-editor-tool .CodeMirror >> visible=true");
    expect(JSON.parse(await headers.innerText().then((text) => text.replace(/^\d+\s*$/gm, "").replace(/\n/g, "")))).toEqual({ [schema.adminSecretHeader]: "" });
    await headers.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(JSON.stringify({ [schema.adminSecretHeader]: SECRET }));
    await page.locator(".graphiql-execute-button").click();

    const result = page.locator(".result-window");
    await expect.poll(() => result.innerText(), { timeout: 10_000 }).toContain('"version"');
    const answer = await result.innerText();
    expect(answer).toContain(`"version": "${schema.version}"`);
    expect(answer).not.toContain("errors");
    await page.screenshot({ path: join(SCREENSHOTS, "graphiql-admin-meta.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("renders the OpenAPI document on /docs with every REST operation", async () => {
    const { page, problems } = await openPage();
    await timedLoad(page, "docs", `${httpUrl}/docs`, () => page.locator(".opblock").first().waitFor());
    const shown = (await page.locator(".opblock-summary-operation-id").allInnerTexts()).map((text) => text.trim());
    const document = parseYaml(readFileSync(join(REPO_ROOT, "generated/openapi/openapi.yaml"), "utf8")) as { paths: Record<string, Record<string, { operationId: string }>> };
    const operationIds = Object.values(document.paths).flatMap((path) => Object.values(path).map((operation) => operation.operationId));
    expect(shown.sort()).toEqual(operationIds.sort());
    // Every operation REST carries; the others (GraphQL only) are in GraphiQL.
    expect(shown.sort()).toEqual(
      operations
        .filter((op) => op.rest)
        .map((op) => op.name)
        .sort(),
    );
    await expect.poll(() => page.locator(".servers input").inputValue()).toBe(httpUrl);
    await page.screenshot({ path: join(SCREENSHOTS, "docs.png") });
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("the static API reference", () => {
  it("opens its index from file://, in standards mode, and its search filters the operations", async () => {
    const { page, problems } = await openPage();
    await timedLoad(page, "site index", `${SITE}/index.html`, () => page.locator("tr[data-operation]").first().waitFor());
    expect(await page.evaluate(() => document.compatMode)).toBe("CSS1Compat");
    expect(await page.locator("tr[data-operation]").count()).toBe(operations.length);
    await page.screenshot({ path: join(SCREENSHOTS, "site-index.png") });

    await page.locator("#search").fill("org_domain");
    const matching = operations.filter((op) => op.name.includes("org_domain")).map((op) => op.name);
    await expect.poll(() => page.locator("tr[data-operation]:visible").count()).toBe(matching.length);
    const rows = await page.locator("tr[data-operation]:visible").evaluateAll((elements) => elements.map((e) => e.getAttribute("data-operation")));
    expect(rows.sort()).toEqual(matching.sort());
    await expect(page.locator("#search-results .result-count").innerText()).resolves.toBe(`${matching.length} of ${operations.length} operations`);
    expect(await page.locator("#search-results .mark.destructive").count()).toBe(operations.filter((op) => op.destructive && matching.includes(op.name)).length);
    await page.screenshot({ path: join(SCREENSHOTS, "site-search.png") });
    await page.locator("#search").press("Escape");
    await expect.poll(() => page.locator("tr[data-operation]:visible").count()).toBe(operations.length);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("renders every page, each without a console error, and shows every operation once and every type", async () => {
    const { page, problems } = await openPage();
    const dir = join(REPO_ROOT, DOCS_SITE_DIR);
    const pages = readdirSync(dir)
      .filter((file) => file.endsWith(".html") && file !== "index.html")
      .sort();
    const shown: string[] = [];
    let types = 0;
    for (const file of pages) {
      await page.goto(`${SITE}/${file}`);
      await page.locator("main").waitFor();
      shown.push(...(await page.locator("section.operation").evaluateAll((sections) => sections.map((s) => s.id))));
      types += await page.locator("section.type").count();
    }
    expect(shown.sort()).toEqual(operations.map((op) => op.name).sort());
    const ir = loadIr(REPO_ROOT);
    expect(types).toBe(ir.messages.filter((message) => message.shared).length + ir.enums.length);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a group's operations with the destructive mark and each protocol's version side by side", async () => {
    const { page, problems } = await openPage();
    const op = schema.operations.delete_org_domain;
    await timedLoad(page, "site group", `${SITE}/org_domains.html#${op.name}`, () => page.locator(`#${op.name}`).waitFor());
    const section = page.locator(`#${op.name}`);
    await expect(section.locator("h2 .mark.destructive").isVisible()).resolves.toBe(true);
    for (const protocol of ["graphql", "rest", "grpc"] as const) {
      const column = section.locator(`[data-protocol="${protocol}"]`);
      expect(await column.locator(".mark.since").innerText()).toBe(`since ${op[protocol]!.since}`);
    }
    // Side by side: the three columns share one row.
    const tops = await section.locator(".protocol").evaluateAll((columns) => columns.map((c) => Math.round(c.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "site-group.png") });
    expect(problems).toEqual([]);
    await page.close();
  });
});
