// The API reference as a static site (generated/docs/site/): an index, one page per group with the
// GraphQL, REST and gRPC forms of every call side by side, a page of the shared types and enums,
// one style sheet and a search over every operation. Built from the same IR and the same call
// forms, marks and prose as the Markdown reference (docs.ts, operation-text.ts). Plain files that
// work from file:// as well as from a web server: no CDN, no inline script, no fetch.
import { PROTOCOLS, type Ir, type IrField, type IrGroup, type IrMessage, type IrOperation } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { DOCS_DIR, indexProse } from "./docs.js";
import { authSchemesOf, authWords, PROTOCOL_LABEL, bindingSummary, callForms, clientCall, fieldType } from "./operation-text.js";
import { escapeMarkup } from "../../runtime/markup.js";
import { unionSentence } from "./rules.js";

export const DOCS_SITE_DIR = `${DOCS_DIR}/site`;
const INDEX_PAGE = "index.html";
const TYPES_PAGE = "types.html";
const STYLE_SHEET = "site.css";
const SEARCH_SCRIPT = "search.js";
/** The search index is a script, not a .json file: pages opened from file:// may not fetch. */
const SEARCH_INDEX = "search-index.js";
const SEARCH_INDEX_GLOBAL = "API_SEARCH_INDEX";

const pageOf = (group: string) => `${group}.html`;

/** Inline Markdown of descriptions and shared prose (code spans, bold, links) as HTML. */
function inline(markdown: string): string {
  return escapeMarkup(markdown)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
}

const mark = (kind: "destructive" | "deprecated" | "since" | "read" | "write", text: string, title?: string) =>
  `<span class="mark ${kind}"${title ? ` title="${escapeMarkup(title)}"` : ""}>${escapeMarkup(text)}</span>`;

const destructiveMark = (op: IrOperation) => (op.destructive ? mark("destructive", "destructive", "Removes or overwrites data; clients in read-only mode refuse it") : "");
const deprecatedMark = (op: IrOperation) => (op.deprecated ? mark("deprecated", "deprecated", op.deprecated) : "");

function page(ir: Ir, options: { title: string; current?: string; main: string }): string {
  const groups = ir.groups
    .map((g) => `<li><a href="${pageOf(g.name)}"${options.current === g.name ? ' aria-current="page"' : ""}>${escapeMarkup(g.title)}</a> <span class="count">${g.operations.length}</span></li>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(options.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLE_SHEET}">
<script src="${SEARCH_INDEX}" defer></script>
<script src="${SEARCH_SCRIPT}" defer></script>
</head>
<body>
<header class="top">
<a class="brand" href="${INDEX_PAGE}">${escapeMarkup(ir.api.title)} API reference ${mark("since", ir.api.version, "API version")}</a>
<div class="search">
<input id="search" type="search" placeholder="Search operations, routes, RPCs (press /)" aria-label="Search operations" autocomplete="off">
<ol id="search-results" hidden></ol>
</div>
</header>
<div class="layout">
<nav class="groups" aria-label="Groups">
<h2><a href="${INDEX_PAGE}"${options.current === undefined ? ' aria-current="page"' : ""}>Overview</a></h2>
<ul>
${groups}
</ul>
<p><a href="${TYPES_PAGE}"${options.current === TYPES_PAGE ? ' aria-current="page"' : ""}>Types and enums</a></p>
</nav>
<main>
${options.main}
</main>
</div>
</body>
</html>
`;
}

// ---------------------------------------------------------------- tables

function table(head: readonly string[], rows: readonly string[][], attributes: (index: number) => string = () => ""): string {
  const headCells = head.map((h) => `<th>${escapeMarkup(h)}</th>`).join("");
  const bodyRows = rows.map((cells, index) => `<tr${attributes(index)}>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("\n");
  return `<table>\n<thead><tr>${headCells}</tr></thead>\n<tbody>\n${bodyRows}\n</tbody>\n</table>`;
}

/** The table of operations: protocols with minimum versions, marks and auth; rows the search filters. */
function operationTable(ops: readonly IrOperation[], link: (op: IrOperation) => string): string {
  const rows = ops.map((op) => [
    `<a href="${link(op)}"><code>${escapeMarkup(op.name)}</code></a>`,
    op.kind === "read" ? mark("read", "read") : mark("write", "write"),
    ...PROTOCOLS.map((p) => (op[p] ? mark("since", op[p]!.since, `${PROTOCOL_LABEL[p]} since ${op[p]!.since}`) : '<span class="absent" title="not available">—</span>')),
    `${destructiveMark(op)}${deprecatedMark(op)}`,
    op.authAnyOf.map((r) => `<code>${escapeMarkup(r.scheme)}</code>`).join(" or "),
  ]);
  const head = ["operation", "kind", ...PROTOCOLS.map((p) => `${PROTOCOL_LABEL[p]} since`), "marks", "auth"];
  return table(head, rows, (index) => ` data-operation="${escapeMarkup(ops[index]!.name)}"`);
}

function typeCell(field: IrField, fromPage: "group" | "types"): string {
  const { label, typeName } = fieldType(field);
  const base = typeName ? `<a href="${fromPage === "types" ? "" : TYPES_PAGE}#${escapeMarkup(typeName)}"><code>${escapeMarkup(label)}</code></a>` : `<code>${escapeMarkup(label)}</code>`;
  return field.list ? `list of ${base}` : base;
}

function notes(field: IrField): string {
  return [inline(field.description), field.secret ? "<strong>secret</strong>" : "", field.deprecated ? `${mark("deprecated", "deprecated")} ${inline(field.deprecated)}` : ""]
    .filter(Boolean)
    .join(" ");
}

function inputTable(message: IrMessage, fromPage: "group" | "types"): string {
  if (message.fields.length === 0) return '<p class="muted">No input.</p>';
  return table(
    ["field", "type", "required", "description"],
    message.fields.map((f) => [`<code>${escapeMarkup(f.name)}</code>`, typeCell(f, fromPage), f.required ? "yes" : "", notes(f)]),
  );
}

function outputTable(message: IrMessage, fromPage: "group" | "types"): string {
  if (message.fields.length === 0) return '<p class="muted">Empty answer.</p>';
  return table(
    ["field", "type", "set", "description"],
    message.fields.map((f) => [`<code>${escapeMarkup(f.name)}</code>`, typeCell(f, fromPage), f.alwaysInAnswer ? "always" : "or null", notes(f)]),
  );
}

// ---------------------------------------------------------------- pages

const codeBlock = (language: string, code: string) => `<pre><code class="language-${language}">${escapeMarkup(code)}</code></pre>`;

/** The three protocols side by side: the version that carries the call, and the call itself. */
function protocolColumns(ir: Ir, op: IrOperation): string {
  const forms = new Map(callForms(ir, op).map((form) => [form.protocol, form]));
  const columns = PROTOCOLS.map((protocol) => {
    const binding = op[protocol];
    const form = forms.get(protocol);
    if (!binding || !form) {
      return `<div class="protocol absent" data-protocol="${protocol}">\n<h3>${PROTOCOL_LABEL[protocol]}</h3>\n<p class="muted">Not available over ${PROTOCOL_LABEL[protocol]}.</p>\n</div>`;
    }
    return [
      `<div class="protocol" data-protocol="${protocol}">`,
      `<h3>${PROTOCOL_LABEL[protocol]} ${mark("since", `since ${binding.since}`, `first server version that carries ${op.name} over ${PROTOCOL_LABEL[protocol]}`)}</h3>`,
      `<p class="binding"><code>${escapeMarkup(bindingSummary(op, protocol))}</code>${form.endpoint ? ` at <code>${escapeMarkup(form.endpoint)}</code>` : ""}${form.header ? ` with header <code>${escapeMarkup(`${form.header.name}: ${form.header.value}`)}</code>` : ""}</p>`,
      codeBlock(form.language, form.code),
      ...(form.variables ? ['<p class="label">variables</p>', codeBlock("json", JSON.stringify(form.variables, null, 2))] : []),
      "</div>",
    ].join("\n");
  });
  return `<div class="protocols">\n${columns.join("\n")}\n</div>`;
}

function operationSection(ir: Ir, op: IrOperation): string {
  const output = op.output.shared
    ? `<a href="${TYPES_PAGE}#${escapeMarkup(op.output.name)}"><code>${escapeMarkup(op.output.graphqlName)}</code></a>`
    : `<code>${escapeMarkup(op.output.graphqlName)}</code>`;
  return `<section class="operation" id="${escapeMarkup(op.name)}">
<h2><a class="anchor" href="#${escapeMarkup(op.name)}">${escapeMarkup(op.name)}</a> ${destructiveMark(op)}${deprecatedMark(op)}</h2>
<p>${inline(op.description)}</p>
${op.deprecated ? `<p class="note deprecated-note"><strong>Deprecated:</strong> ${inline(op.deprecated)}.</p>\n` : ""}<p class="facts">${op.kind === "read" ? mark("read", "read") : mark("write", "write")} Auth ${op.authAnyOf.map((r) => `<code>${escapeMarkup(r.scheme)}</code>`).join(" or ")}: ${escapeMarkup(authWords(ir, op))}. Client: <code>${escapeMarkup(clientCall(ir, op))}</code>.</p>
${protocolColumns(ir, op)}
<div class="fields">
<div>
<h3>Input <code>${escapeMarkup(op.input.graphqlInputName)}</code> <span class="muted">(proto <code>${escapeMarkup(op.input.name)}</code>)</span></h3>
${inputTable(op.input, "group")}
${op.exactlyOneOf.length > 0 ? `<p>Give exactly one of ${op.exactlyOneOf.map((f) => `<code>${escapeMarkup(f)}</code>`).join(", ")}.</p>` : ""}
</div>
<div>
<h3>Output ${output}</h3>
${outputTable(op.output, "group")}
</div>
</div>
</section>`;
}

function operationsOf(ir: Ir, group: IrGroup): IrOperation[] {
  return group.operations.map((name) => ir.operations.find((op) => op.name === name)!);
}

function groupPage(ir: Ir, group: IrGroup): GeneratedFile {
  const ops = operationsOf(ir, group);
  const main = [
    `<h1>${escapeMarkup(group.title)}</h1>`,
    `<p class="muted">group <code>${escapeMarkup(group.name)}</code> · ${ops.length} operation${ops.length === 1 ? "" : "s"} · ${ops.filter((op) => op.destructive).length} destructive</p>`,
    operationTable(ops, (op) => `#${op.name}`),
    ...ops.map((op) => operationSection(ir, op)),
  ].join("\n");
  return { path: `${DOCS_SITE_DIR}/${pageOf(group.name)}`, content: page(ir, { title: `${group.title} · ${ir.api.title} API reference`, current: group.name, main }) };
}

function indexPage(ir: Ir): GeneratedFile {
  const groupOf = new Map(ir.groups.flatMap((g) => g.operations.map((name) => [name, g.name] as const)));
  const prose = indexProse(ir);
  const main = [
    `<h1>${escapeMarkup(ir.api.title)} API reference ${mark("since", ir.api.version, "API version")}</h1>`,
    `<p>${inline(ir.api.description)}</p>`,
    `<p>${inline(prose.sameCall)}</p>`,
    table(
      ["protocol", "endpoint"],
      prose.endpoints.map((e) => [PROTOCOL_LABEL[e.protocol], inline(e.text)]),
    ),
    `<p>${inline(prose.examples)}</p>`,
    "<h2>Auth levels</h2>",
    table(
      ["auth", "who may call"],
      authSchemesOf(ir).map((scheme) => [`<code>${escapeMarkup(scheme.name)}</code>`, escapeMarkup(scheme.description)]),
    ),
    "<h2>Groups</h2>",
    `<ul class="group-cards">\n${ir.groups
      .map((g) => {
        const destructive = operationsOf(ir, g).filter((op) => op.destructive).length;
        return `<li><a href="${pageOf(g.name)}"><strong>${escapeMarkup(g.title)}</strong><span>${g.operations.length} operation${g.operations.length === 1 ? "" : "s"}${destructive ? `, ${destructive} destructive` : ""}</span></a></li>`;
      })
      .join("\n")}\n</ul>`,
    `<h2>Operations <span class="muted" id="operation-count">${ir.operations.length}</span></h2>`,
    operationTable(ir.operations, (op) => `${pageOf(groupOf.get(op.name)!)}#${op.name}`),
  ].join("\n");
  return { path: `${DOCS_SITE_DIR}/${INDEX_PAGE}`, content: page(ir, { title: `${ir.api.title} API reference ${ir.api.version}`, main }) };
}

function typesPage(ir: Ir): GeneratedFile {
  const sections: string[] = [`<h1>Types and enums of ${escapeMarkup(ir.api.title)}</h1>`, "<h2>Types</h2>"];
  for (const message of ir.messages.filter((m) => m.shared)) {
    const fields = message.usedAsInput && !message.usedAsOutput ? inputTable(message, "types") : outputTable(message, "types");
    sections.push(
      `<section class="type" id="${escapeMarkup(message.name)}">\n<h3><a class="anchor" href="#${escapeMarkup(message.name)}">${escapeMarkup(message.name)}</a></h3>\n${message.description ? `<p>${inline(message.description)}</p>\n` : ""}${message.oneOf ? `<p>${inline(unionSentence(message))}</p>\n` : ""}${fields}\n</section>`,
    );
  }
  sections.push("<h2>Enums</h2>");
  for (const irEnum of ir.enums) {
    const values = table(
      ["value", "proto name", "description"],
      irEnum.values.map((v) => [`<code>${escapeMarkup(v.name)}</code>`, `<code>${escapeMarkup(v.protoName)}</code>`, inline(v.description)]),
    );
    sections.push(
      `<section class="type" id="${escapeMarkup(irEnum.name)}">\n<h3><a class="anchor" href="#${escapeMarkup(irEnum.name)}">${escapeMarkup(irEnum.name)}</a></h3>\n${irEnum.description ? `<p>${inline(irEnum.description)}</p>\n` : ""}${values}\n</section>`,
    );
  }
  return { path: `${DOCS_SITE_DIR}/${TYPES_PAGE}`, content: page(ir, { title: `Types · ${ir.api.title} API reference`, current: TYPES_PAGE, main: sections.join("\n") }) };
}

// ---------------------------------------------------------------- search

/** What the search looks through: one entry per operation, with the page that describes it. */
export interface SearchEntry {
  name: string;
  title: string;
  description: string;
  group: string;
  page: string;
  kind: IrOperation["kind"];
  auth: IrOperation["auth"];
  destructive: boolean;
  deprecated: boolean;
  /** Per protocol that carries it: the minimum version and the call (root field, route or RPC). */
  protocols: { protocol: string; since: string; call: string }[];
}

export function searchEntries(ir: Ir): SearchEntry[] {
  return ir.groups.flatMap((group) =>
    operationsOf(ir, group).map((op) => ({
      name: op.name,
      title: op.title,
      description: op.description,
      group: group.title,
      page: pageOf(group.name),
      kind: op.kind,
      auth: op.authAnyOf.map((r) => r.scheme).join(" "),
      destructive: op.destructive,
      deprecated: op.deprecated !== undefined,
      protocols: op.protocols.map((p) => ({ protocol: PROTOCOL_LABEL[p], since: op[p]!.since, call: bindingSummary(op, p) })),
    })),
  );
}

/**
 * Every word typed must occur in an operation's name, title, description, group, auth, kind, marks
 * or calls. Shows the matches under the search box and, on pages with an operation table, hides the
 * rows that do not match. "/" focuses the box, Escape clears it.
 */
const SEARCH_SCRIPT_TEXT = `"use strict";
(function () {
  var index = window.${SEARCH_INDEX_GLOBAL} || [];
  var input = document.getElementById("search");
  var results = document.getElementById("search-results");
  if (!input || !results) return;
  var texts = index.map(function (op) {
    var calls = op.protocols.map(function (p) { return p.protocol + " " + p.call; });
    return [op.name, op.title, op.description, op.group, op.auth, op.kind, op.destructive ? "destructive" : "", op.deprecated ? "deprecated" : ""].concat(calls).join(" ").toLowerCase();
  });
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-operation]"));
  var LIMIT = 30;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function render() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var matching = {};
    var found = [];
    index.forEach(function (op, i) {
      if (words.every(function (word) { return texts[i].indexOf(word) >= 0; })) {
        matching[op.name] = true;
        found.push(op);
      }
    });
    rows.forEach(function (row) { row.hidden = words.length > 0 && !matching[row.getAttribute("data-operation")]; });
    results.textContent = "";
    results.hidden = words.length === 0;
    if (words.length === 0) return;
    results.appendChild(element("li", "result-count", found.length === 0 ? "No operation matches." : found.length + " of " + index.length + " operations" + (found.length > LIMIT ? ", first " + LIMIT + " shown" : "")));
    found.slice(0, LIMIT).forEach(function (op) {
      var link = element("a");
      link.href = op.page + "#" + op.name;
      link.appendChild(element("code", "", op.name));
      if (op.destructive) link.appendChild(element("span", "mark destructive", "destructive"));
      if (op.deprecated) link.appendChild(element("span", "mark deprecated", "deprecated"));
      link.appendChild(element("span", "result-meta", op.group + " · " + op.protocols.map(function (p) { return p.protocol + " " + p.since; }).join(", ")));
      link.appendChild(element("span", "result-description", op.description));
      var item = element("li");
      item.appendChild(link);
      results.appendChild(item);
    });
  }

  input.addEventListener("input", render);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      input.value = "";
      render();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== input) {
      event.preventDefault();
      input.focus();
    }
  });
  if (input.value) render();
})();
`;

const STYLE_SHEET_TEXT = `:root { --text: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --link: #0969da; --code: #eff2f5; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; color: var(--text); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.85em; }
code { background: var(--code); border-radius: 4px; padding: 0.1em 0.3em; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 0.7em; overflow-x: auto; margin: 0.4em 0; }
pre code { background: none; padding: 0; }
.top { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 2em; padding: 0.6em 1.5em; background: #24292f; }
.top .brand { color: #fff; font-weight: 600; white-space: nowrap; }
.search { position: relative; flex: 1; max-width: 40em; }
.search input { width: 100%; padding: 0.45em 0.7em; border: 1px solid #57606a; border-radius: 6px; font: inherit; }
#search-results { position: absolute; top: 2.6em; left: 0; right: 0; max-height: 70vh; overflow-y: auto; margin: 0; padding: 0.3em 0; list-style: none; background: #fff; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 8px 24px rgba(0, 0, 0, 0.2); }
#search-results li { padding: 0 0.3em; }
#search-results a { display: block; padding: 0.35em 0.6em; border-radius: 4px; color: var(--text); }
#search-results a:hover { background: var(--soft); text-decoration: none; }
.result-count { padding: 0.3em 0.9em !important; color: var(--muted); font-size: 0.85em; }
.result-meta, .result-description { display: block; color: var(--muted); font-size: 0.85em; }
.layout { display: grid; grid-template-columns: 15em minmax(0, 1fr); }
.groups { position: sticky; top: 3.2em; align-self: start; max-height: calc(100vh - 3.2em); overflow-y: auto; padding: 1em 1.2em; border-right: 1px solid var(--line); font-size: 0.9em; }
.groups h2 { font-size: 1em; margin: 0 0 0.5em; }
.groups ul { list-style: none; margin: 0; padding: 0; }
.groups li { display: flex; justify-content: space-between; padding: 0.15em 0; }
.groups [aria-current="page"] { font-weight: 700; color: var(--text); }
.count { color: var(--muted); }
main { padding: 1em 2em 4em; min-width: 0; }
h1 { font-size: 1.8em; margin: 0.3em 0; }
h2 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; width: 100%; }
th, td { border: 1px solid var(--line); padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: var(--soft); }
.muted, .absent { color: var(--muted); }
.mark { display: inline-block; margin: 0 0.25em; padding: 0 0.45em; border-radius: 999px; font-size: 0.75em; font-weight: 600; line-height: 1.7; vertical-align: middle; border: 1px solid transparent; white-space: nowrap; }
.mark.destructive { background: #ffebe9; color: #a40e26; border-color: #ffb3b8; }
.mark.deprecated { background: #fff8c5; color: #7d4e00; border-color: #e7d27c; }
.mark.since { background: #ddf4ff; color: #0550ae; border-color: #a6d8ff; }
.mark.read { background: #dafbe1; color: #116329; }
.mark.write { background: #fbefff; color: #6e40c9; }
.top .mark.since { background: #0550ae; color: #fff; border-color: #0550ae; }
.operation, .type { scroll-margin-top: 3.5em; }
.operation { margin-top: 2.5em; padding-top: 1em; border-top: 2px solid var(--line); }
.operation h2 { margin: 0 0 0.3em; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 1.35em; }
.anchor { color: inherit; }
.note { padding: 0.4em 0.8em; border-radius: 6px; }
.deprecated-note { background: #fff8c5; }
.protocols { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0.8em; margin: 0.8em 0; }
.protocol { border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.8em; min-width: 0; }
.protocol.absent { background: var(--soft); }
.protocol h3 { margin: 0 0 0.3em; font-size: 1em; }
.protocol pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.binding { margin: 0.2em 0; font-size: 0.9em; }
.label { margin: 0.4em 0 0; font-size: 0.8em; color: var(--muted); }
.fields { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1.2em; }
.fields h3 { font-size: 1em; margin: 0.6em 0 0.2em; }
.group-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(14em, 1fr)); gap: 0.6em; list-style: none; padding: 0; }
.group-cards a { display: block; padding: 0.6em 0.8em; border: 1px solid var(--line); border-radius: 8px; color: var(--text); }
.group-cards a:hover { border-color: var(--link); text-decoration: none; }
.group-cards span { display: block; color: var(--muted); font-size: 0.85em; }
@media (max-width: 1100px) { .protocols, .fields { grid-template-columns: minmax(0, 1fr); } }
@media (max-width: 800px) { .layout { grid-template-columns: minmax(0, 1fr); } .groups { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } }
`;

export function emitDocsSite(ir: Ir): GeneratedFile[] {
  return [
    indexPage(ir),
    ...ir.groups.map((group) => groupPage(ir, group)),
    typesPage(ir),
    { path: `${DOCS_SITE_DIR}/${STYLE_SHEET}`, content: STYLE_SHEET_TEXT },
    { path: `${DOCS_SITE_DIR}/${SEARCH_SCRIPT}`, content: SEARCH_SCRIPT_TEXT },
    { path: `${DOCS_SITE_DIR}/${SEARCH_INDEX}`, content: `var ${SEARCH_INDEX_GLOBAL} = ${JSON.stringify(searchEntries(ir))};\n` },
  ];
}
