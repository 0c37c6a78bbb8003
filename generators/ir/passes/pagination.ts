// The pagination pass: what a paginated operation's messages must hold (a page request and answer,
// or a cursor handed back and forth), the list that holds its items, and the largest page the server takes.
import type { RawOperation } from "../../load/load.js";
import type { IrMessage, Pagination } from "../ir.js";

/** The cursor field of both input and answer unless the manifest names them (pagination: { style: token, cursor, next_cursor }). */
export const DEFAULT_CURSOR_FIELD = "continuation_token";

export function resolvePagination(rawOp: RawOperation, input: IrMessage, output: IrMessage, sharedByName: ReadonlyMap<string, IrMessage>, fail: (message: string) => void): Pagination {
  const declared = rawOp.pagination ?? "none";
  const style = typeof declared === "string" ? declared : declared.style;
  if (style === "none") return { style };
  if (rawOp.kind !== "read") {
    fail("pagination applies to read operations only");
    return { style: "none" };
  }
  const lists = output.fields.filter((f) => f.list);
  if (lists.length !== 1) {
    fail(`pagination: ${style} needs exactly one list field in the output to hold the items (found ${lists.length})`);
    return { style: "none" };
  }
  const itemsField = lists[0]!.name;
  const has = (message: IrMessage, field: string) => message.fields.some((f) => f.name === field);
  if (style === "page") {
    if (!has(input, "pagination")) fail("pagination: page needs an input field 'pagination: PaginationInput'");
    else if (!has(output, "pagination")) fail("pagination: page needs an output field 'pagination: Pagination!'");
    // An iterator asks for pages no larger than the server takes.
    const request = input.fields.find((f) => f.name === "pagination");
    const requestMessage = request?.type.kind === "message" ? sharedByName.get(request.type.name) : undefined;
    const maxPageSize = requestMessage?.fields.find((f) => f.name === "limit")?.constraints.maximum ?? null;
    return { style, itemsField, maxPageSize };
  }
  const cursorField = (typeof declared === "object" ? declared.cursor : undefined) ?? DEFAULT_CURSOR_FIELD;
  const nextCursorField = (typeof declared === "object" ? declared.next_cursor : undefined) ?? DEFAULT_CURSOR_FIELD;
  const isText = (message: IrMessage, field: string) => message.fields.some((f) => f.name === field && !f.list && f.type.kind === "scalar" && f.type.scalar === "string");
  if (!isText(input, cursorField)) fail(`pagination: token needs a string input field '${cursorField}' (the cursor of the page asked for)`);
  else if (!isText(output, nextCursorField)) fail(`pagination: token needs a string output field '${nextCursorField}' (the cursor of the next page)`);
  return { style, itemsField, cursorField, nextCursorField };
}
