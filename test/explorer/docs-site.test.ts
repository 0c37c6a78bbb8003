// The static API reference (generated/docs/site/): every operation once, on its group's page, with
// its marks, versions and the same call forms as the Markdown reference; local files only.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadIr } from "../../generators/generate.js";
import { DOCS_SITE_DIR, searchEntries } from "../../generators/emit/docs-site.js";
import { callForms } from "../../generators/emit/operation-text.js";
import { PROTOCOLS } from "../../generators/ir/ir.js";
import { REPO_ROOT } from "../helpers/project.js";

const ir = loadIr(REPO_ROOT);
const siteDir = join(REPO_ROOT, DOCS_SITE_DIR);
const read = (file: string) => readFileSync(join(siteDir, file), "utf8");
const unescapeHtml = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The HTML of an operation's section on a page, or undefined. */
function section(html: string, name: string): string | undefined {
  const start = html.indexOf(`<section class="operation" id="${name}">`);
  return start < 0 ? undefined : html.slice(start, html.indexOf("</section>", start));
}

describe("the static API reference", () => {
  it("has an index, one page per group, a types page, a style sheet and the search files", () => {
    expect(readdirSync(siteDir).sort()).toEqual(["index.html", "types.html", "site.css", "search.js", "search-index.js", ...ir.groups.map((g) => `${g.name}.html`)].sort());
  });

  it("describes every operation once, on its group's page, with marks, versions and each protocol's call", () => {
    for (const group of ir.groups) {
      const html = read(`${group.name}.html`);
      expect(html.split('<section class="operation"').length - 1, group.name).toBe(group.operations.length);
      for (const name of group.operations) {
        const op = ir.operations.find((o) => o.name === name)!;
        const text = section(html, name)!;
        expect(text, name).toBeDefined();
        expect(text.includes('<span class="mark destructive"'), name).toBe(op.destructive);
        for (const protocol of PROTOCOLS) {
          const column = text.slice(text.indexOf(`data-protocol="${protocol}"`));
          if (op[protocol]) expect(column, `${name} ${protocol}`).toMatch(new RegExp(`^[^>]*>\\n<h3>[^<]+ <span class="mark since"[^>]*>since ${op[protocol]!.since.replace(/\./g, "\\.")}</span>`));
          else expect(column, `${name} ${protocol}`).toContain("Not available over");
        }
        for (const form of callForms(ir, op)) expect(unescapeHtml(text), `${name} ${form.protocol}`).toContain(form.code);
      }
    }
  });

  it("lists every operation in the index table with its marks, linking to its section", () => {
    const index = read("index.html");
    for (const group of ir.groups) {
      for (const name of group.operations) {
        const op = ir.operations.find((o) => o.name === name)!;
        const row = index.split("\n").find((line) => line.startsWith(`<tr data-operation="${name}">`))!;
        expect(row, name).toContain(`href="${group.name}.html#${name}"`);
        expect(row.includes("mark destructive"), name).toBe(op.destructive);
        expect(row.match(/class="mark since"/g)!.length, name).toBe(op.protocols.length);
      }
    }
  });

  it("searches one entry per operation, pointing at its page", () => {
    const script = read("search-index.js");
    const entries = JSON.parse(script.slice(script.indexOf("= ") + 2, script.lastIndexOf(";"))) as ReturnType<typeof searchEntries>;
    expect(entries).toEqual(searchEntries(ir));
    expect(entries.map((e) => e.name).sort()).toEqual(ir.operations.map((op) => op.name).sort());
    expect(entries.filter((e) => e.destructive)).toHaveLength(ir.operations.filter((op) => op.destructive).length);
  });

  it("loads nothing from another site and runs no inline script", () => {
    for (const file of readdirSync(siteDir).filter((f) => f.endsWith(".html"))) {
      const html = read(file);
      for (const [, url] of html.matchAll(/<(?:script|link)[^>]* (?:src|href)="([^"]+)"/g)) expect(url, file).toMatch(/^(?:[\w-]+\.(?:js|css)|data:,)$/);
      expect(
        html.match(/<script[^>]*>/g)!.every((tag) => / src="/.test(tag)),
        file,
      ).toBe(true);
    }
  });
});
