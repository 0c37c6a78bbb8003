// JSON answers are ended together, once the requests the event loop handed over at once have all
// been handled (endThisTurn in runtime/server/http-body.ts).
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { sendJsonText } from "../../runtime/server/http-body.js";

/** A response that records what happens to it; `failing` throws from end(), as a response in a bad state may. */
function recordingResponse(name: string, log: string[], failing = false): ServerResponse {
  const response = {
    writeHead: () => response,
    end: (text: string) => {
      if (failing) throw new Error("write after end");
      log.push(`${name} ended with ${text}`);
    },
    destroy: () => log.push(`${name} destroyed`),
  };
  return response as unknown as ServerResponse;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("JSON answers", () => {
  it("are ended after the handlers of the same turn have run, in the order they were given", async () => {
    const log: string[] = [];
    sendJsonText(recordingResponse("first", log), 200, '{"n":1}');
    await Promise.resolve();
    sendJsonText(recordingResponse("second", log), 400, '{"n":2}', ["a=b"], { "retry-after": "1" });
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['first ended with {"n":1}', 'second ended with {"n":2}']);
    // The next turn's answers make a burst of their own.
    sendJsonText(recordingResponse("third", log), 200, "{}");
    await nextTurn();
    expect(log.at(-1)).toBe("third ended with {}");
  });

  it("still end the others of a burst when one cannot be ended, which is destroyed", async () => {
    const log: string[] = [];
    sendJsonText(recordingResponse("broken", log, true), 200, "{}");
    sendJsonText(recordingResponse("healthy", log), 200, "{}");
    await nextTurn();
    expect(log).toEqual(["broken destroyed", "healthy ended with {}"]);
  });
});
