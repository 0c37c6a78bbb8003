// Cross-origin calls from browsers (the Fetch standard's CORS protocol): an allow-list of origins
// for the user surface and the token routes, and a separate, explicit one for the admin surface,
// whose credentials a web page must never hold by default. A listed origin may send credentials
// (cookies, Authorization); its preflight is cached. An origin not listed gets no CORS header, so
// its browser keeps the answer from the page, and an admin call from it is refused outright.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError } from "../errors.js";
import type { ApiSchema } from "../schema.js";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "../idempotency.js";

export interface CorsOptions {
  /** Origins (scheme://host[:port]) whose pages may call the user surface and the token routes. */
  origins: readonly string[];
  /** Origins whose pages may call the admin surface too (never implied by `origins`). */
  adminOrigins?: readonly string[];
  /** How long a browser keeps a preflight's answer (default 600 s). */
  maxAgeSeconds?: number;
}

/** Answer headers a page may read beyond the CORS-safelisted ones. */
const EXPOSED = ["retry-after", "x-error-code", IDEMPOTENT_REPLAYED_HEADER, "grpc-status", "grpc-message", "content-length"];

export class CorsPolicy {
  private readonly origins: Set<string>;
  private readonly adminOrigins: Set<string>;
  private readonly maxAge: string;

  /** `schema`: its credential headers, and the headers its routes bind fields to, which pages send and read. */
  constructor(options: CorsOptions, schema: Pick<ApiSchema, "adminSecretHeader" | "apiKeyHeader" | "operations">) {
    const { adminSecretHeader: secretHeader, apiKeyHeader } = schema;
    const routes = Object.values(schema.operations).flatMap((operation) => (operation.rest ? [operation.rest] : []));
    const declared = (key: "headers" | "responseHeaders") => [...new Set(routes.flatMap((rest) => Object.values(rest[key] ?? {})))];
    for (const origin of [...options.origins, ...(options.adminOrigins ?? [])]) {
      if (normalizeOrigin(origin) === undefined) throw new TypeError(`cors: '${origin}' is not an origin (scheme://host[:port], such as https://app.example.com)`);
    }
    this.origins = new Set(options.origins.map((origin) => normalizeOrigin(origin)!));
    this.adminOrigins = new Set((options.adminOrigins ?? []).map((origin) => normalizeOrigin(origin)!));
    this.maxAge = String(options.maxAgeSeconds ?? 600);
    this.allowedHeaders = [
      "content-type",
      "authorization",
      IDEMPOTENCY_KEY_HEADER,
      "x-api-client",
      "traceparent",
      "tracestate",
      "connect-protocol-version",
      "connect-timeout-ms",
      "x-grpc-web",
      "x-user-agent",
      apiKeyHeader,
      ...declared("headers"),
    ]
      .concat(this.adminOrigins.size > 0 ? [secretHeader] : [])
      .join(", ");
    this.exposedHeaders = [...EXPOSED, ...declared("responseHeaders")].join(", ");
  }

  private readonly allowedHeaders: string;
  private readonly exposedHeaders: string;

  /** Whether `origin` may call anything at all (either list). */
  private listed(origin: string): boolean {
    return this.origins.has(origin) || this.adminOrigins.has(origin);
  }

  /**
   * Adds the CORS headers of an answer to a listed origin; answers a preflight (OPTIONS with
   * Access-Control-Request-Method) itself and says so (true). Requests without Origin are not a
   * browser's cross-origin call and are left alone.
   */
  handle(request: IncomingMessage, response: ServerResponse): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    const preflight = request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
    response.appendHeader("vary", "Origin");
    if (!this.listed(normalizeOrigin(origin) ?? "")) {
      if (preflight) response.writeHead(403, { "content-length": "0" }).end();
      return preflight;
    }
    response.setHeader("access-control-allow-origin", origin);
    response.setHeader("access-control-allow-credentials", "true");
    if (!preflight) {
      response.setHeader("access-control-expose-headers", this.exposedHeaders);
      return false;
    }
    response.writeHead(204, {
      "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
      "access-control-allow-headers": this.allowedHeaders,
      "access-control-max-age": this.maxAge,
      "content-length": "0",
    });
    response.end();
    return true;
  }
}

/** An admin call a page of another origin sent, unless `adminOrigins` lists it. */
export function crossOriginAdmin(headers: Readonly<Record<string, string>>, adminOrigins: ReadonlySet<string>): ServiceError | undefined {
  const origin = headers.origin;
  if (origin === undefined || origin === "null" || sameOrigin(origin, headers)) return undefined;
  if (adminOrigins.has(normalizeOrigin(origin) ?? "")) return undefined;
  return new ServiceError("PERMISSION_DENIED", `the admin surface does not answer pages of ${origin}; list the origin in cors.adminOrigins (--cors-admin-origin) to allow it`);
}

/** Whether the page's origin is the service's own (its Host, or the forwarded host of a proxy in front). */
function sameOrigin(origin: string, headers: Readonly<Record<string, string>>): boolean {
  const host = normalizeOrigin(origin)?.replace(/^[a-z]+:\/\//, "");
  return host !== undefined && (host === headers.host || host === headers[":authority"] || host === headers["x-forwarded-host"]);
}

/** `origin` as browsers send it (lower-case scheme and host, no default port, no path), or undefined when it is not one. */
export function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    const bare = (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
    return bare && !/^[a-z]+:\/\/[^/]+\/./i.test(origin) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
