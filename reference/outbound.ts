// Every request the service makes on a caller's behalf (webhook deliveries, test_endpoint, a
// trusted issuer's keys) goes through here: the host is resolved once, refused when any of its
// addresses is loopback, private, link-local (cloud metadata), unique-local, CGNAT, multicast or
// unspecified, and the connection is made to the address that was checked (no second lookup a
// DNS rebinding could answer differently). Redirects are not followed; an answer is read up to a
// cap and no further. `allowPrivate` lifts the address check, for development only.
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

export interface OutboundPolicy {
  /** Let requests reach loopback and private addresses (development only). */
  allowPrivate: boolean;
}

export class OutboundRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "OutboundRefused";
  }
}

const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  FORBIDDEN.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, "ipv6");
}

/** Whether a request may connect to `address`: never to one the service's own network trusts. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // An IPv4-mapped IPv6 address is its IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !FORBIDDEN.check(mapped[1]!, "ipv4");
  return !FORBIDDEN.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The address to connect to for `host`, checked; refused with the reason otherwise. */
async function checkedAddress(host: string, policy: OutboundPolicy): Promise<{ address: string; family: number }> {
  const literal = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(literal) ? [{ address: literal, family: isIP(literal) }] : await lookup(literal, { all: true, verbatim: true });
  if (addresses.length === 0) throw new OutboundRefused(`${host} has no address`);
  if (!policy.allowPrivate) {
    const inside = addresses.find((entry) => !isPublicAddress(entry.address));
    if (inside) throw new OutboundRefused(`${host} resolves to a loopback, private or link-local address`);
  }
  return addresses[0]!;
}

export interface OutboundAnswer {
  status: number;
  /** The body, up to the cap (cut there, never buffered further). */
  body: string;
  truncated: boolean;
}

/** One request; answers the status and at most `maxBytes` of the body. */
export async function outboundRequest(
  url: string,
  init: { method: "GET" | "POST"; headers?: Record<string, string>; body?: string; timeoutMs: number; maxBytes: number },
  policy: OutboundPolicy,
): Promise<OutboundAnswer> {
  const target = new URL(url);
  if (target.protocol !== "https:" && target.protocol !== "http:") throw new OutboundRefused(`only http and https URLs are called, not ${target.protocol}`);
  const pinned = await checkedAddress(target.hostname, policy);
  // Connect to the address checked above, whatever a second lookup would answer.
  const pin: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const request = send(target, { method: init.method, headers: init.headers, lookup: pin, timeout: init.timeoutMs, signal: AbortSignal.timeout(init.timeoutMs) }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      response.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = init.maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          // Enough read: the rest is never buffered.
          response.destroy();
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), truncated });
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), truncated }));
      response.on("error", (error) => (truncated ? undefined : reject(error)));
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", reject);
    request.end(init.body);
  });
}
