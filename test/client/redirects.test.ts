// A client never follows a redirect: fetch (and Go's http.Client) would send the admin secret
// header to whatever address the redirect names. The redirect is an error naming why.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiError } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

let elsewhere: Server;
let redirecting: Server;
let elsewhereUrl: string;
let redirectingUrl: string;
const reached: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    reached.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  elsewhereUrl = await listen(elsewhere);
  redirecting = createServer((request, response) => response.writeHead(307, { location: `${elsewhereUrl}${request.url}` }).end());
  redirectingUrl = await listen(redirecting);
});
afterAll(() => Promise.all([elsewhere, redirecting].map((server) => new Promise((resolve) => server.close(resolve)))));

describe("a redirect from the service", () => {
  it.each(["rest", "graphql"] as const)("over %s is an error, and the other address hears nothing", async (protocol) => {
    const client = new AdminClient({ serviceUrl: redirectingUrl, adminSecret: "redirect-test-secret", protocol, serverVersion: schema.version, retry: false });
    const error = await client.adminMeta().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("FAILED_PRECONDITION");
    expect((error as ApiError).message).toBe("the service answered a redirect (HTTP 307); the client does not follow redirects, so that credentials never go to another address");
    expect(reached).toEqual([]);
  });
});
