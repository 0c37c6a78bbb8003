// TLS of the clients: a private CA, a client certificate (mutual TLS) and the server name (Node's
// fetch-node.ts and grpc-node.ts apply them); the rule that credentials never go in clear to a host
// that is not this machine unless the caller says so; and what a failed connection looks like.
// Nothing here imports a node: module: every platform's client loads it.

export interface TlsClientOptions {
  /** CA certificates (PEM) to trust instead of the system's roots. */
  ca?: string | Uint8Array;
  /** A client certificate chain (PEM), for servers that ask for one (mutual TLS). */
  cert?: string | Uint8Array;
  /** The private key (PEM) of `cert`. */
  key?: string | Uint8Array;
  /** The name the server's certificate must carry, when it is not the host of the URL. */
  serverName?: string;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** localhost, 127.0.0.0/8 and ::1: traffic that never leaves the machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (IPV4.test(bare)) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
}

/** The host of a gRPC target host:port (an IPv6 address in brackets). */
export function hostOfEndpoint(endpoint: string): string {
  const index = endpoint.lastIndexOf(":");
  return index < 0 ? endpoint : endpoint.slice(0, index);
}

/**
 * Why a call may not go to `target` in clear, or undefined when it may: TLS, loopback, or the
 * caller's `allowInsecure`. `remedy` names what would make it TLS.
 */
export function plaintextRefusal(target: { secure: boolean; host: string; shown: string }, remedy: string, allowInsecure: boolean | undefined): string | undefined {
  if (target.secure || allowInsecure || isLoopback(target.host)) return undefined;
  // REFUSAL_TEXTS.inClear of generators/sdk/sdk-facts.ts, which the other languages' clients say.
  return `refusing to send credentials in clear to ${target.shown}: the connection is not TLS and the host is not loopback; ${remedy}, or set allowInsecure: true to send them anyway`;
}

/** Whether a connection failed because nothing listens on the port. */
export function connectionRefused(error: unknown): boolean {
  return causeCodes(error).includes("ECONNREFUSED");
}

/** The string `code`s of an error and its causes, outermost first (eight deep at most). */
export function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = current.cause;
  }
  return codes;
}

/** The reason of a failed connection, from the innermost cause: "self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)". */
export function connectionFailureReason(error: unknown): string {
  let innermost = error as (Error & { code?: string; cause?: unknown }) | undefined;
  while (innermost?.cause instanceof Error) innermost = innermost.cause as Error & { code?: string; cause?: unknown };
  if (!innermost) return String(error);
  return innermost.code && !innermost.message.includes(innermost.code) ? `${innermost.message} (${innermost.code})` : innermost.message;
}
