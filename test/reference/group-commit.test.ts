// Group commit (reference/group-commit.ts), which writes the audit rows: the rows of one turn of the
// event loop in one write, each caller answered once its own row is stored, and a failed batch
// retried row by row so that a row's failure is its caller's alone.
import { describe, expect, it } from "vitest";
import { groupCommit } from "../../reference/group-commit.js";

describe("group commit", () => {
  it("writes the rows of one turn together, in order, and the next turn's apart", async () => {
    const writes: number[][] = [];
    const write = groupCommit<number>(async (rows) => void writes.push([...rows]));
    await Promise.all([write(1), write(2), write(3)]);
    await write(4);
    expect(writes).toEqual([[1, 2, 3], [4]]);
  });

  it("answers each caller only once its row is stored", async () => {
    let stored = false;
    const write = groupCommit<string>(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = true;
    });
    await write("row");
    expect(stored).toBe(true);
  });

  it("retries a failed batch row by row: the row that cannot be written fails its caller, the others are stored", async () => {
    const stored: string[] = [];
    const write = groupCommit<string>(async (rows) => {
      if (rows.includes("bad")) throw new Error(`cannot write ${rows.length} rows`);
      stored.push(...rows);
    });
    const outcomes = await Promise.allSettled([write("a"), write("bad"), write("c")]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe("cannot write 1 rows");
    expect(stored).toEqual(["a", "c"]);
  });
});
