// Group commit for writes whose callers need not wait on one another: the audit rows.
/**
 * Group commit: the rows of calls that finish in the same turn of the event loop are written
 * together, in one commit (on SQLite a commit was most of the cost of an admin write's audit row),
 * and each call still answers only once its own row is stored. A batch that fails is retried row
 * by row, so that one row's failure is its call's alone.
 */
export function groupCommit<R>(writeAll: (rows: readonly R[]) => Promise<void>): (row: R) => Promise<void> {
  let waiting: { row: R; settle: (error?: unknown) => void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    try {
      await writeAll(batch.map((entry) => entry.row));
      for (const entry of batch) entry.settle();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.settle(error ?? new Error("the write failed"));
      for (const entry of batch)
        await writeAll([entry.row]).then(
          () => entry.settle(),
          (rowError: unknown) => entry.settle(rowError ?? new Error("the write failed")),
        );
    }
  };
  return (row) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ row, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (waiting.length === 1) setImmediate(() => void flush());
    });
}
