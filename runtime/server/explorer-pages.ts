// The explorer's two pages and the scripts that start them. The pages hold no inline script: their
// settings travel as a JSON data block that the start script reads, so the content-security policy
// can forbid inline scripts altogether.
import { escapeMarkup } from "../markup.js";

/**
 * Scripts and style sheets from this server only, requests to this server only; no inline script
 * or style, plugins, frames, forms or base URL. (GraphiQL and Swagger UI set styles through the
 * DOM, which the policy does not restrict.) Icons are data: URLs.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** A GraphiQL tab: its document, variables and headers (JSON text). */
export interface GraphiqlTab {
  query: string;
  variables?: string;
  headers?: string;
}

export interface GraphiqlSettings {
  /** Where GraphiQL posts, relative to the page. */
  endpoint: string;
  tabs: GraphiqlTab[];
  /** The headers of a tab the user opens. */
  headers: string;
}

export interface DocsSettings {
  /** The OpenAPI document, relative to the page. */
  openapi: string;
}

/** Starts GraphiQL (the standalone build: globals React, ReactDOM, GraphiQL) with the page's settings. */
export const GRAPHIQL_START_SCRIPT = `"use strict";
(function () {
  var settings = JSON.parse(document.getElementById("explorer-settings").textContent);
  var fetcher = GraphiQL.createFetcher({ url: new URL(settings.endpoint, location.href).href });
  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultTabs: settings.tabs,
      defaultHeaders: settings.headers,
      defaultEditorToolsVisibility: "headers",
      shouldPersistHeaders: false,
    }),
  );
})();
`;

/**
 * Starts Swagger UI on the page's OpenAPI document, every operation listed with its operationId.
 * A server URL that is one variable ("{base_url}") is set to this page's origin, so "Try it out"
 * calls the service that serves the page (the only one connect-src allows).
 */
export const DOCS_START_SCRIPT = `"use strict";
(function () {
  var settings = JSON.parse(document.getElementById("explorer-settings").textContent);
  var ui = SwaggerUIBundle({
    url: new URL(settings.openapi, location.href).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    filter: true,
    validatorUrl: null,
    onComplete: function () {
      var servers = ui.specSelectors.servers();
      var url = servers && servers.size > 0 ? servers.first().get("url") : "";
      var variable = /^\\{(\\w+)\\}$/.exec(url);
      if (variable) ui.oas3Actions.setServerVariableValue({ server: url, key: variable[1], val: location.origin });
    },
  });
})();
`;

export const EXPLORER_STYLE = `html, body { height: 100%; margin: 0; }
body { font-family: system-ui, sans-serif; }
#graphiql { height: 100vh; }
.explorer-bar { display: flex; gap: 1.5em; align-items: baseline; padding: 0.6em 1.2em; border-bottom: 1px solid #d8dde3; background: #f6f8fa; font-size: 14px; }
.explorer-bar strong { margin-right: auto; }
.explorer-bar a { color: #0b5cad; text-decoration: none; }
.explorer-bar a:hover { text-decoration: underline; }
`;

/** JSON that cannot end the data block it sits in. */
const dataBlock = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export interface PageParts {
  title: string;
  /** Asset URL paths relative to the page. */
  styles: string[];
  scripts: string[];
  settings: unknown;
  body: string;
}

export function page({ title, styles, scripts, settings, body }: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(title)}</title>
<link rel="icon" href="data:,">
${styles.map((href) => `<link rel="stylesheet" href="${escapeMarkup(href)}">`).join("\n")}
</head>
<body>
${body}
<script type="application/json" id="explorer-settings">${dataBlock(settings)}</script>
${scripts.map((src) => `<script src="${escapeMarkup(src)}"></script>`).join("\n")}
</body>
</html>
`;
}

/** The links every explorer page shows at the top (GraphiQL has its own chrome, so not there). */
export function explorerBar(title: string, links: readonly { href: string; text: string }[]): string {
  return `<nav class="explorer-bar"><strong>${escapeMarkup(title)}</strong>${links.map((l) => `<a href="${escapeMarkup(l.href)}">${escapeMarkup(l.text)}</a>`).join("")}</nav>`;
}
