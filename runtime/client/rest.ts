// REST transport: the operation's route with its {field} segments filled in, JSON bodies (query
// strings for GET and DELETE), the error body {code, message}, and the RFC 6749 error body of the
// token routes.
import { codeOfHttpStatus, isErrorCode, statusSaysMore, type ErrorCode } from "../error-codes.js";
import { ApiError, waitAsked } from "./errors.js";
import { bareStatus, fetchFailure, jsonObject, malformedAnswer, readAnswer, readText, redirected, type Plain, type Transport, type TransportCall, type TransportSettings } from "./transport.js";

/**
 * The code of an RFC 6749 error of the token routes: its own, unless the status says more than
 * "bad request" (a server fault, an overload, a size or type refused), as the server's oauthStatus
 * keeps those: a 503 invalid_request is UNAVAILABLE, not INVALID_ARGUMENT. The table of the codes
 * is loaded on this need; one that does not load leaves the code of the status.
 */
export async function codeOfOAuthError(oauthError: string, status: number): Promise<ErrorCode> {
  if (statusSaysMore(status)) return codeOfHttpStatus(status);
  const codes = await import("./oauth-errors.js").then(
    ({ OAUTH_CODES }) => OAUTH_CODES,
    () => undefined,
  );
  return codes && Object.hasOwn(codes, oauthError) ? codes[oauthError]! : codeOfHttpStatus(status);
}

/**
 * The route's path with each `{field}` segment replaced by the input's value (percent-encoded), and
 * the input without those fields. A missing value is refused by the input check before this.
 */
export function fillPath(path: string, pathParams: readonly string[], input: Plain): { path: string; rest: Plain } {
  if (pathParams.length === 0) return { path, rest: input };
  const rest = { ...input };
  for (const param of pathParams) {
    path = path.replace(`{${param}}`, encodeURIComponent(String(input[param] ?? "")));
    delete rest[param];
  }
  return { path, rest };
}

/** The input fields a route binds to headers, as those headers, and the input without them. */
export function fillHeaders(bindings: Readonly<Record<string, string>> | undefined, input: Plain): { headers: Record<string, string>; rest: Plain } {
  if (bindings === undefined) return { headers: {}, rest: input };
  const headers: Record<string, string> = {};
  const rest = { ...input };
  for (const [field, header] of Object.entries(bindings)) {
    const value = rest[field];
    delete rest[field];
    if (value !== undefined && value !== null) headers[header] = String(value);
  }
  return { headers, rest };
}

/** `input` as a query string; `sorted`: parameters in name order (a redirect route's URL is the same from every SDK). */
function queryString(input: Plain, sorted = false): string {
  const params = new URLSearchParams();
  const entries = Object.entries(input);
  if (sorted) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of entries) {
    // A list goes as the parameter repeated (tag=a&tag=b), as OpenAPI's form style says.
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A body with each tagged union's tag beside its variant, as a REST request carries it; the caller's objects stay as given. */
async function tagged(call: TransportCall, body: Plain): Promise<Plain> {
  const { withUnionTags } = await import("../union-tags.js");
  return withUnionTags(call.schema, call.operation.input, structuredClone(body));
}

export function createRestTransport(settings: TransportSettings): Transport {
  return {
    protocol: "rest",
    async call(call: TransportCall): Promise<Plain> {
      const { operation } = call;
      const rest = operation.rest!;
      const inQuery = rest.inQuery;
      const filled = fillPath(rest.path, rest.pathParams, call.input);
      const bound = fillHeaders(rest.headers, filled.rest);
      const url = `${settings.serviceUrl}${filled.path}${inQuery ? queryString(bound.rest, rest.answer === "redirect") : ""}`;
      // A browser's route (authorization, logout): its URL is the answer, for the caller to send a browser to.
      if (rest.answer === "redirect") return readAnswer(call, 200, { location: url }, settings.warn);
      let response: Response;
      let text: string;
      try {
        // The module that writes union tags is loaded only by an operation whose input can hold one.
        const sent = inQuery ? undefined : JSON.stringify(operation.taggedInput ? await tagged(call, bound.rest) : bound.rest);
        response = await settings.fetch(url, {
          method: rest.method,
          headers: inQuery ? (rest.headers ? { ...call.headers, ...bound.headers } : call.headers) : { ...call.headers, ...bound.headers, "content-type": "application/json" },
          body: sent,
          signal: call.signal,
          // Never followed: fetch would send the secret's header to whatever address a redirect names.
          redirect: "manual",
        });
        call.onResponse?.(response.status, response.headers);
        if (response.status >= 300 && response.status < 400) throw redirected(response, operation.name, "rest");
        text = await readText(response, settings.maxResponseBytes, operation, "rest");
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw fetchFailure(error, call, "rest");
      }
      const body = text === "" ? {} : jsonObject(text);
      if (!response.ok) {
        // A proxy's HTML page, or any body that is not the error model: the code of the status.
        if (!body) throw bareStatus(operation, "rest", response);
        const status = response.status;
        const wait = waitAsked((name) => response.headers.get(name));
        if (typeof body.error === "string") {
          const oauthError = body.error;
          const message = typeof body.error_description === "string" ? body.error_description : oauthError;
          throw new ApiError(await codeOfOAuthError(oauthError, status), message, operation.name, "rest", { status, oauthError, retryAfterSeconds: wait });
        }
        const code = isErrorCode(body.code) ? body.code : codeOfHttpStatus(status);
        throw new ApiError(code, typeof body.message === "string" ? body.message : `HTTP ${status}`, operation.name, "rest", { status, retryAfterSeconds: wait });
      }
      if (!body) throw malformedAnswer(operation, "rest", response.status);
      return readAnswer(call, response.status, body, settings.warn);
    },
    async close() {},
  };
}
