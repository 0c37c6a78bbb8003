// The reference service's own browser pages (the hosted sign-in page, the SAML routes): one look,
// one set of headers, cookies written and read as the stubs do theirs, and one answer to a failure.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { ServiceError } from "../generated/server/index.js";
import { escapeMarkup } from "../runtime/markup.js";
import type { CookieOptions } from "../runtime/server/context.js";
import { parseCookies, serializeCookie } from "../runtime/server/index.js";

/** Whether the request came over TLS (then cookies are `__Host-` and Secure). */
export const isSecure = (request: IncomingMessage) => (request.socket as TLSSocket).encrypted === true;

/** A cookie of a page, as the stubs write theirs: HttpOnly, and Secure under a `__Host-` name over TLS. */
export const pageCookie = (request: IncomingMessage, name: string, value: string, options: CookieOptions) => serializeCookie(name, value, options, isSecure(request));

/** A cookie a page set, read as the stubs read theirs (over TLS only its `__Host-` form counts). */
export const readPageCookie = (request: IncomingMessage, name: string): string | undefined => parseCookies(request.headers.cookie, isSecure(request))[name];

export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // same-origin, not no-referrer: under no-referrer a browser posts the form with Origin: null, which the origin check must refuse.
  "referrer-policy": "same-origin",
  // No form-action: browsers apply it to the redirects after the post too, and the last one goes to the client's redirect_uri.
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeMarkup(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00}</style>
</head><body><h1>${escapeMarkup(title)}</h1>${body}</body></html>`;
}

/** Answers a page: the shared headers, `headers` over them. */
export function sendPage(response: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}): void {
  response.writeHead(status, { ...PAGE_HEADERS, ...headers });
  response.end(html);
}

/** Sends the browser on with 303 See Other (a GET of `location`), setting `cookies`. */
export function seeOther(response: ServerResponse, location: string, cookies: string[] = []): void {
  response.writeHead(303, { location, "cache-control": "no-store", "content-length": "0", ...(cookies.length > 0 ? { "set-cookie": cookies } : {}) });
  response.end();
}

/**
 * The page of a failure no route answered itself: the rate limit (429) and a body too large (413)
 * as such, anything else reported to `onInternalError` and answered 503 (a store away) or 500.
 */
export function sendFailurePage(response: ServerResponse, error: unknown, what: { operation: string; title: string }, onInternalError?: (operation: string, error: unknown) => void): void {
  const code = error instanceof ServiceError ? error.code : undefined;
  if (code === "TOO_MANY_REQUESTS") sendPage(response, 429, page("Too many requests", "<p>Try again in a moment.</p>"));
  else if (code === "PAYLOAD_TOO_LARGE") sendPage(response, 413, page("Refused", "<p>The request is too large.</p>"));
  else {
    onInternalError?.(what.operation, error);
    if (!response.headersSent) sendPage(response, code === "UNAVAILABLE" ? 503 : 500, page(what.title, "<p>Something went wrong; try again.</p>"));
  }
}
