// The steps of a call run on at once when they can: a REST call makes no promise of the pipeline's
// own beyond the one that waits for its implementation, however the implementation answers (an
// async function, a plain value, a thenable of its own, a throw), and nothing it does to fail,
// not even a reporter that throws, leaves a call unanswered.
import { createHook } from "node:async_hooks";
import { request } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, ServiceError, type Implementation, type ServerOptions, type ServiceServer } from "../../generated/server/index.js";
import { Pending, whenSettled } from "../../runtime/server/pending.js";
import { sampleMessage } from "../helpers/recording-service.js";
import { schema } from "../../generated/schema.js";

const ADMIN_SECRET = "s3cret-admin-key";
const meta = sampleMessage(schema, "AdminMeta") as never;

describe("Pending", () => {
  it("hands its value or error to the reader once, whether it settles before or after being read, and awaits as a promise", async () => {
    const seen: string[] = [];
    const early = new Pending<number>();
    early.resolve(1);
    early.resolve(2); // a second outcome changes nothing
    early.settle(
      (value) => seen.push(`early ${value}`),
      () => seen.push("early error"),
    );
    const late = new Pending<number>();
    late.settle(
      (value) => seen.push(`late ${value}`),
      (error) => seen.push(`late ${(error as Error).message}`),
    );
    late.reject(new Error("refused"));
    late.resolve(3);
    expect(seen).toEqual(["early 1", "late refused"]);
    const awaited = new Pending<string>();
    setTimeout(() => awaited.resolve("later"), 1);
    await expect(awaited).resolves.toBe("later");
    const refused = new Pending<string>();
    refused.reject(new ServiceError("PAYLOAD_TOO_LARGE", "too large"));
    await expect(refused).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("whenSettled runs the next step at once on a value, later on a promise, a Pending or another thenable, and fails on what a later step throws", async () => {
    const steps: string[] = [];
    whenSettled(
      1,
      (value) => steps.push(`value ${value}`),
      () => steps.push("unexpected"),
    );
    expect(steps).toEqual(["value 1"]);
    const failures: unknown[] = [];
    const settled = new Promise<void>((done) => {
      let left = 3;
      const next = (label: string) => (value: unknown) => {
        steps.push(`${label} ${value}`);
        if (--left === 0) done();
      };
      whenSettled(Promise.resolve(2), next("promise"), (error) => failures.push(error));
      const pending = new Pending<number>();
      whenSettled(pending, next("pending"), (error) => failures.push(error));
      pending.resolve(3);
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise, as an implementation may answer
      whenSettled({ then: ((resolve: (value: number) => void) => resolve(4)) as never } as PromiseLike<number>, next("thenable"), (error) => failures.push(error));
    });
    await settled;
    expect(steps.slice(1).sort()).toEqual(["pending 3", "promise 2", "thenable 4"]);
    const thrown = new Error("a later step threw");
    await new Promise<void>((done) =>
      whenSettled(
        Promise.resolve(5),
        () => {
          throw thrown;
        },
        (error) => (failures.push(error), done()),
      ),
    );
    expect(failures).toEqual([thrown]);
  });
});

describe("a REST call", () => {
  const servers: ServiceServer[] = [];
  afterAll(async () => Promise.all(servers.map((server) => server.close())));
  const serve = async (implementation: Partial<Implementation>, options: Pick<ServerOptions, "onInternalError" | "logger" | "onWarning"> = {}) => {
    const server = createServer(implementation, { adminSecret: ADMIN_SECRET, port: 0, grpcPort: 0, partial: true, onWarning: () => {}, ...options });
    servers.push(server);
    return (await server.listen()).httpUrl;
  };
  /** POSTs `body` to an admin route with node:http (which makes no promise), answering status and body. */
  const post = (url: string, body = "{}") =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const outgoing = request(url, { method: "POST", headers: { "content-type": "application/json", "x-service-admin-secret": ADMIN_SECRET } }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  it("makes one promise of the pipeline's own, to wait for its async implementation, with its body read and its caller checked", async () => {
    const url = `${await serve({ adminMeta: async () => meta })}/v1/admin/admin_meta`;
    await post(url); // warm: what a first call sets up once is not per call
    // Promises made under the server's runtime (their creation's stack passes through it); the
    // test's own machinery makes promises meanwhile too, which are not the call's.
    let made = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === "PROMISE" && new Error().stack!.includes("/runtime/server/")) made++;
      },
    }).enable();
    const calls = 20;
    try {
      for (let i = 0; i < calls; i++) expect(await post(url)).toEqual({ status: 200, body: meta });
    } finally {
      hook.disable();
    }
    // Per call: the implementation's async function's promise, and the one reaction waiting for it.
    expect(made).toBe(2 * calls);
  });

  it("answers the same whether the implementation is async, answers a plain value or a thenable of its own, or throws before answering", async () => {
    const reported: unknown[] = [];
    const url = await serve(
      {
        adminMeta: (() => meta) as never,
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise, as an implementation may answer
        getWebhook: (() => ({ then: (_resolve: unknown, reject: (error: unknown) => void) => reject(new ServiceError("NOT_FOUND", "no such webhook")) })) as never,
        webhooks: (() => {
          throw new Error("a bug that throws before any await");
        }) as never,
        getOrganization: (() => {
          throw new ServiceError("NOT_FOUND", "no such organization");
        }) as never,
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise, as an implementation may answer
        getClient: (() => ({ then: (resolve: (value: unknown) => void) => resolve(sampleMessage(schema, "Client")) })) as never,
      },
      { onInternalError: (_operation, error) => reported.push(error) },
    );
    expect(await post(`${url}/v1/admin/admin_meta`)).toEqual({ status: 200, body: meta });
    expect(await post(`${url}/v1/admin/get_webhook`, JSON.stringify({ id: "w-1" }))).toEqual({ status: 404, body: { code: "NOT_FOUND", message: "no such webhook" } });
    expect(await post(`${url}/v1/admin/webhooks`)).toEqual({ status: 500, body: { code: "INTERNAL", message: "webhooks failed; see the server log" } });
    expect(await post(`${url}/v1/admin/get_organization`, JSON.stringify({ id: "o-1" }))).toEqual({ status: 404, body: { code: "NOT_FOUND", message: "no such organization" } });
    expect(await post(`${url}/v1/admin/get_client`, JSON.stringify({ id: "c-1" }))).toMatchObject({ status: 200, body: { id: sampleMessage(schema, "Client").id } });
    expect(reported).toEqual([new Error("a bug that throws before any await")]);
  });

  it("is answered INTERNAL when the operator's onInternalError throws, the operator is warned, and the server serves on", async () => {
    const warnings: string[] = [];
    const url = await serve(
      {
        adminMeta: async () => {
          throw new Error("a fault");
        },
        getWebhook: async () => sampleMessage(schema, "Webhook") as never,
      },
      {
        onInternalError: () => {
          throw new Error("the reporter is broken too");
        },
        onWarning: (message) => warnings.push(message),
      },
    );
    expect(await post(`${url}/v1/admin/admin_meta`)).toEqual({ status: 500, body: { code: "INTERNAL", message: "admin_meta failed; see the server log" } });
    expect((await post(`${url}/v1/admin/get_webhook`, JSON.stringify({ id: "w-1" }))).status).toBe(200);
    expect(warnings.filter((line) => line.startsWith("onInternalError"))).toEqual(["onInternalError failed on admin_meta: the reporter is broken too"]);
  });
  it("is answered when the operator's logger throws, on success and on failure alike, and the operator is warned", async () => {
    const warnings: string[] = [];
    const url = await serve(
      {
        adminMeta: async () => meta,
        getWebhook: async () => {
          throw new ServiceError("NOT_FOUND", "no such webhook");
        },
      },
      {
        logger: () => {
          throw new Error("the log is broken");
        },
        onWarning: (message) => warnings.push(message),
      },
    );
    expect(await post(`${url}/v1/admin/admin_meta`)).toEqual({ status: 200, body: meta });
    expect(await post(`${url}/v1/admin/get_webhook`, JSON.stringify({ id: "w-1" }))).toEqual({ status: 404, body: { code: "NOT_FOUND", message: "no such webhook" } });
    expect(warnings.filter((line) => line.startsWith("recording"))).toEqual([
      "recording the outcome of admin_meta failed: the log is broken",
      "recording the outcome of get_webhook failed: the log is broken",
    ]);
  });
});
