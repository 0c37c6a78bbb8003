// The caller's address, which keys the secret lockout and the rate limits. Behind a proxy the
// TCP peer is the proxy, so the address is read from X-Forwarded-For (or Forwarded) - but only
// through the proxies the service trusts: the header is walked from the nearest hop outwards and
// the first address not trusted is the caller. A header from anyone else is ignored, so a caller
// can neither pose as another address (to lock it out) nor change address (to dodge the lockout).
// Each listener has a trust of its own (options trustProxy and grpcTrustProxy): the proxy in front
// of the HTTP port says nothing about who reaches the gRPC port, where by default the metadata a
// caller writes itself is all there is.
import { isIP } from "node:net";
import parseForwarded from "forwarded-parse";
import proxyaddr from "proxy-addr";

/** Which proxies may say who the caller is. */
export type ProxyTrust =
  /** The number of proxies in front of the service (hops from the server); 0 trusts none. */
  | number
  /** Addresses or CIDR ranges of trusted proxies, or the names loopback, linklocal, uniquelocal. */
  | readonly string[];

export interface TrustProxyOptions {
  trust: ProxyTrust;
  /** The header the proxies write (default "x-forwarded-for"); the other one is ignored. */
  header?: "x-forwarded-for" | "forwarded";
}

export type TrustProxy = ProxyTrust | TrustProxyOptions;

/** The caller's address of a call, from its TCP peer and its request headers (gRPC: metadata). */
export type ClientAddressResolver = (peer: string, headers: Readonly<Record<string, string | undefined>>) => string;

/**
 * `::ffff:10.0.0.1` -> `10.0.0.1`; `[2001:db8::1]:443` -> `2001:db8::1`; `10.0.0.1:80` -> `10.0.0.1`;
 * gRPC peers such as `ipv4:10.0.0.1:5000` and `ipv6:[::1]:5000` lose their scheme too.
 */
export function normalizeAddress(text: string): string {
  let address = text.trim().replace(/^ipv[46]:/i, "");
  if (address.startsWith("[")) address = address.slice(1, address.indexOf("]") > 0 ? address.indexOf("]") : undefined);
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.indexOf(":"));
  return address.toLowerCase().startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/** The hops a header lists, nearest last, or undefined when it is absent or unreadable. */
function listedHops(header: "x-forwarded-for" | "forwarded", value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  if (header === "x-forwarded-for")
    return value
      .split(",")
      .map(normalizeAddress)
      .filter((a) => a !== "");
  try {
    return parseForwarded(value)
      .map((element) => element.for)
      .filter((hop): hop is string => hop !== undefined)
      .map(normalizeAddress);
  } catch {
    // A malformed Forwarded header names nobody: the peer stands.
    return undefined;
  }
}

function compileTrust(trust: ProxyTrust, optionName: string): (address: string, hop: number) => boolean {
  if (typeof trust === "number") {
    if (!Number.isInteger(trust) || trust < 0) throw new RangeError(`${optionName}: a hop count must be a whole number >= 0, not ${trust}`);
    return (_address, hop) => hop < trust;
  }
  if (trust.length === 0) return () => false;
  try {
    return proxyaddr.compile([...trust]);
  } catch (error) {
    throw new RangeError(`${optionName}: ${(error as Error).message}`);
  }
}

/** The resolver of one listener; `optionName` (the option the trust came from) prefixes the errors of a bad setting. */
export function clientAddressResolver(option: TrustProxy | undefined, optionName = "trustProxy"): ClientAddressResolver {
  if (option === undefined) {
    // A keep-alive connection sends many calls from one peer: the last answer is kept.
    let lastPeer: string | undefined;
    let lastAddress = "";
    return (peer) => (peer === lastPeer ? lastAddress : ((lastPeer = peer), (lastAddress = normalizeAddress(peer))));
  }
  const { trust, header = "x-forwarded-for" } = typeof option === "number" || Array.isArray(option) ? { trust: option as ProxyTrust } : (option as TrustProxyOptions);
  if (header !== "x-forwarded-for" && header !== "forwarded") throw new RangeError(`${optionName}: header must be x-forwarded-for or forwarded, not ${String(header)}`);
  const trusted = compileTrust(trust, optionName);
  return (peer, headers) => {
    const hops = listedHops(header, headers[header]);
    const address = normalizeAddress(peer);
    if (!hops || hops.length === 0) return address;
    // proxy-addr walks [peer, ...hops nearest first] and stops at the first address not trusted.
    const request = { socket: { remoteAddress: address }, headers: { "x-forwarded-for": hops.join(", ") } };
    const chain = proxyaddr.all(request as never, trusted);
    // A hop that names no address ("unknown", an obfuscated name, garbage) is attributed to the
    // trusted proxy that passed it on, so such callers share that proxy's key rather than one they chose.
    const caller = chain.at(-1)!;
    return chain.length > 1 && isIP(caller) === 0 ? chain.at(-2)! : caller;
  };
}
