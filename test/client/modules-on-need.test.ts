// What a call needs only now and then is a module of its own, loaded on that need: one that does
// not load (a page gone offline) fails that call alone, with nothing sent, or leaves the call with
// the failure it met; the next call asks for the module again.
import { afterEach, describe, expect, it, vi } from "vitest";
import { schema } from "../../generated/schema.js";
import type { OperationModule } from "../../runtime/client/core.js";
import type { ApiError } from "../../runtime/client/errors.js";
import { clientDefinitionOf, operationModulesOf } from "../helpers/client-definition.js";

const offline = () => {
  throw new TypeError("Failed to fetch dynamically imported module");
};

/** A fetch that counts its requests and answers each with `status` (a JSON body). */
function counting(status: number) {
  const sent: string[] = [];
  const fetch = (async (url: string) => {
    sent.push(url);
    return new Response(JSON.stringify(status === 200 ? { version: schema.version } : { code: "UNAVAILABLE", message: "busy" }), { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

afterEach(() => {
  vi.doUnmock("../../runtime/client/oauth-errors.js");
  vi.doUnmock("../../runtime/client/observe.js");
  vi.doUnmock("../../runtime/client/retry.js");
  vi.resetModules();
});

const { admin_meta: adminMeta } = operationModulesOf(schema) as { admin_meta: OperationModule };

describe("a module loaded on a need", () => {
  it("that does not load fails the call as UNAVAILABLE with nothing sent; the next call loads it", async () => {
    vi.doMock("../../runtime/client/observe.js", offline);
    const { ClientCore } = await import("../../runtime/client/core.js");
    const { fetch, sent } = counting(200);
    const seen: number[] = [];
    const core = new ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch, hooks: { onResponse: (event) => seen.push(event.attempt) } }, () => ({}));
    const failed = (await core.call(adminMeta, {}).catch((error: unknown) => error)) as ApiError;
    expect([failed.name, failed.code, failed.message]).toEqual(["UnavailableError", "UNAVAILABLE", "admin_meta: a module of the SDK did not load"]);
    expect(sent).toEqual([]);
    vi.doUnmock("../../runtime/client/observe.js");
    expect(await core.call(adminMeta, {})).toMatchObject({ version: schema.version });
    expect([sent.length, seen]).toEqual([1, [1]]);
  });

  it("that is the backoff and does not load leaves a transient failure unretried, as it came", async () => {
    vi.doMock("../../runtime/client/retry.js", offline);
    const { ClientCore } = await import("../../runtime/client/core.js");
    const { fetch, sent } = counting(503);
    const core = new ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch }, () => ({}));
    const failed = (await core.call(adminMeta, {}).catch((error: unknown) => error)) as ApiError;
    expect([failed.code, failed.message, failed.status, sent.length]).toEqual(["UNAVAILABLE", "busy", 503, 1]);
  });

  it("that maps RFC 6749 errors is loaded by the first answer naming one; one that does not load leaves the code of the status", async () => {
    const { ClientCore } = await import("../../runtime/client/core.js");
    const { oauth_token: oauthToken } = operationModulesOf(schema) as { oauth_token: OperationModule };
    const answering = (status: number, error: string) =>
      (async () => new Response(JSON.stringify({ error, error_description: `${error}!` }), { status, headers: { "content-type": "application/json" } })) as typeof globalThis.fetch;
    const failure = async (status: number, error: string) => {
      const core = new ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "graphql", fetch: answering(status, error), retry: false }, () => ({}));
      const failed = (await core.call(oauthToken, { grant_type: "client_credentials" }).catch((e: unknown) => e)) as ApiError;
      return [failed.code, failed.oauthError, failed.message, failed.protocol];
    };
    // Token routes are REST whatever the client's protocol.
    expect(await failure(400, "invalid_grant")).toEqual(["FAILED_PRECONDITION", "invalid_grant", "invalid_grant!", "rest"]);
    expect(await failure(401, "invalid_client")).toEqual(["UNAUTHENTICATED", "invalid_client", "invalid_client!", "rest"]);
    // A status that says more than "bad request" keeps its code; an error the table lacks (none of its object's own) has the status's.
    expect((await failure(503, "invalid_request"))[0]).toBe("UNAVAILABLE");
    expect((await failure(400, "constructor"))[0]).toBe("INVALID_ARGUMENT");
    expect((await failure(403, "__proto__"))[0]).toBe("PERMISSION_DENIED");
    vi.doMock("../../runtime/client/oauth-errors.js", offline);
    vi.resetModules();
    const again = await import("../../runtime/client/core.js");
    const core = new again.ClientCore(clientDefinitionOf(schema), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch: answering(400, "invalid_grant"), retry: false }, () => ({}));
    const failed = (await core.call(oauthToken, { grant_type: "client_credentials" }).catch((e: unknown) => e)) as ApiError;
    expect([failed.code, failed.oauthError, failed.status]).toEqual(["INVALID_ARGUMENT", "invalid_grant", 400]);
  });
});
