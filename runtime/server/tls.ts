// TLS on the server's ports: the certificate and key (and, for mutual TLS, the CA of the clients),
// read from PEM text or from files that are read again when they change, so short-lived
// certificates rotate without a restart. Every port's listener takes its secure context from here.
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { createSecureContext, type SecureContextOptions, type Server as TlsServer } from "node:tls";

export interface TlsOptions {
  /**
   * The certificate chain, PEM: a Buffer or a string holding the PEM text, or any other string as
   * the path of a file that is read again whenever it changes (or on reloadTls()).
   */
  cert: string | Buffer;
  /** The private key of the certificate: PEM text or a file path, as `cert`. */
  key: string | Buffer;
  /** CA certificates of the clients: when set, every connection must present a certificate they signed (mutual TLS). */
  clientCa?: string | Buffer;
  /** How often changed files are looked for, in milliseconds (default 1000; 0 turns watching off). */
  watchIntervalMs?: number;
}

/** A certificate, key or CA that cannot be read or does not fit: the server refuses to start. */
export class TlsConfigError extends Error {
  override readonly name = "TlsConfigError";
}

/** A TLS handshake not done in this time is dropped: a peer cannot hold a connection slot by stalling it. */
export const TLS_HANDSHAKE_TIMEOUT_MS = 30_000;

const isPemText = (value: string | Buffer) => typeof value !== "string" || value.includes("-----BEGIN");

const WHAT = {
  cert: "certificate",
  key: "private key",
  clientCa: "client CA",
} as const;

function read(field: keyof typeof WHAT, value: string | Buffer): Buffer {
  if (isPemText(value)) return Buffer.from(value);
  try {
    return readFileSync(value as string);
  } catch (error) {
    throw new TlsConfigError(`cannot read the TLS ${WHAT[field]} ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Which file OpenSSL refused, and why in words: its messages name routines, not the mistake. */
function explain(context: SecureContextOptions, options: TlsOptions): string {
  const named = (field: keyof typeof WHAT) => (isPemText(options[field]!) ? `the TLS ${WHAT[field]}` : `the TLS ${WHAT[field]} ${options[field] as string}`);
  const refusal = (part: SecureContextOptions) => {
    try {
      createSecureContext(part);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const cert = refusal({ cert: context.cert });
  if (cert) return `${named("cert")} is not a PEM certificate (${cert})`;
  const key = refusal({ key: context.key });
  if (key) return `${named("key")} is not a PEM private key, or is encrypted (${key})`;
  if (context.ca !== undefined) {
    const ca = refusal({ ca: context.ca });
    if (ca) return `${named("clientCa")} is not a PEM certificate (${ca})`;
  }
  const pair = refusal({ cert: context.cert, key: context.key }) ?? "";
  if (/key values mismatch/i.test(pair)) return `${named("key")} does not belong to ${named("cert")}`;
  return `the TLS certificate and key were refused: ${pair}`;
}

/** The secure-context options of the files as they are now; throws a TlsConfigError when they do not make one. */
export function loadSecureContext(options: TlsOptions): SecureContextOptions {
  const context: SecureContextOptions = {
    cert: read("cert", options.cert),
    key: read("key", options.key),
  };
  if (options.clientCa !== undefined) context.ca = read("clientCa", options.clientCa);
  try {
    createSecureContext(context);
  } catch {
    throw new TlsConfigError(explain(context, options));
  }
  return context;
}

/**
 * The TLS of one server: its current secure context, the listeners that use it, and the watch on
 * its files. A reload that fails (a key written after its certificate, say) keeps the context in
 * use and is tried again at the next change.
 */
export class TlsCredentials {
  private context: SecureContextOptions;
  private readonly servers = new Set<TlsServer>();
  private readonly watched: string[] = [];

  constructor(
    private readonly options: TlsOptions,
    private readonly onWarning: (message: string) => void,
  ) {
    this.context = loadSecureContext(options);
  }

  /** Options for tls.createServer / https.createServer: the context, client certificates when mutual, and `alpn`. */
  serverOptions(alpn: string[]): SecureContextOptions & {
    ALPNProtocols: string[];
    requestCert: boolean;
    rejectUnauthorized: boolean;
  } {
    const mutual = this.options.clientCa !== undefined;
    return {
      ...this.context,
      ALPNProtocols: alpn,
      requestCert: mutual,
      rejectUnauthorized: mutual,
    };
  }

  /** Gives `server` every new context from now on; answers it. */
  attach<S extends TlsServer>(server: S): S {
    this.servers.add(server);
    return server;
  }

  /** Reads the files again and serves what they hold to the next connections; throws a TlsConfigError and keeps the old context when they do not fit. */
  reload(): void {
    const context = loadSecureContext(this.options);
    this.context = context;
    for (const server of this.servers) server.setSecureContext(context);
  }

  /** Starts watching the files (those given as paths) for changes. */
  watch(): void {
    const interval = this.options.watchIntervalMs ?? 1000;
    if (interval <= 0) return;
    for (const value of [this.options.cert, this.options.key, this.options.clientCa]) {
      if (value === undefined || isPemText(value)) continue;
      const path = value as string;
      this.watched.push(path);
      watchFile(path, { interval, persistent: false }, (current, previous) => {
        if (current.mtimeMs === previous.mtimeMs && current.size === previous.size && current.ino === previous.ino) return;
        try {
          this.reload();
          this.onWarning(`TLS: ${path} changed; new connections get the certificate it now holds`);
        } catch (error) {
          this.onWarning(`TLS: ${path} changed but the files do not make a certificate yet (${(error as Error).message}); still serving the previous one`);
        }
      });
    }
  }

  close(): void {
    for (const path of this.watched.splice(0)) unwatchFile(path);
  }
}
