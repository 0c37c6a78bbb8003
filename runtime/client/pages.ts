// Every item of a paginated list, page after page. A module of its own, loaded by the first
// iteration: an app that never iterates never loads it.
import type { OperationSpec } from "../schema.js";
import type { Plain } from "./transport.js";

/** Page size of iterators when the caller names none. */
export const ITERATE_PAGE_LIMIT = 100;

/** The items of `operation`'s pages from `input` on, each exactly once, asking each page with `page`. */
export async function* items(operation: OperationSpec, input: object | undefined, page: (input: Plain) => Promise<Plain>): AsyncGenerator<unknown> {
  const pagination = operation.pagination;
  if (!pagination) throw new TypeError(`${operation.name} is not paginated`);
  const base: Plain = { ...input };
  if (pagination.style === "page") {
    const requested = (base.pagination ?? {}) as { limit?: number; page?: number };
    const limit = requested.limit ?? pagination.pageSize ?? ITERATE_PAGE_LIMIT;
    let number = requested.page ?? 1;
    for (;;) {
      const answer = await page({ ...base, pagination: { limit, page: number } });
      const items = answer[pagination.itemsField] as unknown[];
      yield* items;
      const info = answer.pagination as { offset: number; total: number } | null;
      if (items.length === 0 || !info || info.offset + items.length >= info.total) return;
      number++;
    }
  }
  const cursorField = pagination.cursorField!;
  let token = base[cursorField] as string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const answer = await page(token ? { ...base, [cursorField]: token } : base);
    yield* answer[pagination.itemsField] as unknown[];
    token = answer[pagination.nextCursorField!] as string | undefined;
    // A token handed out twice would loop for ever; the list ends there.
    if (!token || seen.has(token)) return;
    seen.add(token);
  }
}
