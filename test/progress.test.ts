// A step over a few seconds is never silent: one line when it starts and one every 15 s while it
// runs (scripts/progress.mjs, used by the virtualenv, the Go builds and scaffold); under CI only the
// caller's summary line is printed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { reportProgress, underCi } from "../scripts/progress.mjs";

describe("progress of a long step", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says what runs, then how long it has run every 15 s, until it ends", () => {
    const lines: string[] = [];
    const done = reportProgress((line) => lines.push(line), "python-env: creating the virtualenv", { env: {} });
    expect(lines).toEqual(["python-env: creating the virtualenv..."]);
    vi.advanceTimersByTime(31_000);
    expect(lines.slice(1)).toEqual(["python-env: creating the virtualenv: still running after 15 s", "python-env: creating the virtualenv: still running after 30 s"]);
    done();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
  });

  it("says how far when the step knows (a benchmark's pair and round)", () => {
    const lines: string[] = [];
    let position = "";
    const done = reportProgress((line) => lines.push(line), "server.bench.ts: measuring", { env: {}, detail: () => position });
    vi.advanceTimersByTime(15_000);
    position = "pair 2, round 7 of 15";
    vi.advanceTimersByTime(15_000);
    done();
    expect(lines).toEqual(["server.bench.ts: measuring...", "server.bench.ts: measuring: still running after 15 s", "server.bench.ts: measuring: still running after 30 s (pair 2, round 7 of 15)"]);
  });

  it("is silent under CI, whatever CI's truthy value", () => {
    for (const ci of ["true", "1", "github"]) {
      const lines: string[] = [];
      reportProgress((line) => lines.push(line), "go-env: building runner", { env: { CI: ci } })();
      expect(lines, ci).toEqual([]);
      expect(underCi({ CI: ci })).toBe(true);
    }
    for (const env of [{}, { CI: "" }, { CI: "false" }, { CI: "0" }]) expect(underCi(env), JSON.stringify(env)).toBe(false);
  });
});
