// What a call needs only now and then is a module of its own, loaded on that need: one that does
// not load (a page gone offline) fails that call alone, with nothing sent, or leaves the call with
// the failure it met; the next call asks for the module again.
import { afterEach, describe, expect, it, vi } from "vitest";
import { schema } from "../../generated/schema.js";
import type { ApiError } from "../../runtime/client/errors.js";
import { clientDefinitionOf } from "../helpers/client-definition.js";

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
  vi.doUnmock("../../runtime/client/observe.js");
  vi.doUnmock("../../runtime/client/retry.js");
  vi.resetModules();
});

describe("a module loaded on a need", () => {
  it("that does not load fails the call as UNAVAILABLE with nothing sent; the next call loads it", async () => {
    vi.doMock("../../runtime/client/observe.js", offline);
    const { ClientCore } = await import("../../runtime/client/core.js");
    const { fetch, sent } = counting(200);
    const seen: number[] = [];
    const core = new ClientCore(
      clientDefinitionOf(schema, ["admin"]),
      { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch, hooks: { onResponse: (event) => seen.push(event.attempt) } },
      () => ({}),
    );
    const failed = (await core.call("admin_meta", {}).catch((error: unknown) => error)) as ApiError;
    expect([failed.name, failed.code, failed.message]).toEqual(["UnavailableError", "UNAVAILABLE", "admin_meta: a module of the SDK did not load"]);
    expect(sent).toEqual([]);
    vi.doUnmock("../../runtime/client/observe.js");
    expect(await core.call("admin_meta", {})).toMatchObject({ version: schema.version });
    expect([sent.length, seen]).toEqual([1, [1]]);
  });

  it("that is the backoff and does not load leaves a transient failure unretried, as it came", async () => {
    vi.doMock("../../runtime/client/retry.js", offline);
    const { ClientCore } = await import("../../runtime/client/core.js");
    const { fetch, sent } = counting(503);
    const core = new ClientCore(clientDefinitionOf(schema, ["admin"]), { serviceUrl: "http://127.0.0.1:9", protocol: "rest", fetch }, () => ({}));
    const failed = (await core.call("admin_meta", {}).catch((error: unknown) => error)) as ApiError;
    expect([failed.code, failed.message, failed.status, sent.length]).toEqual(["UNAVAILABLE", "busy", 503, 1]);
  });
});
