// Reading request bodies with a size limit, and writing JSON answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError } from "../errors.js";
import { Pending } from "./pending.js";

/** Whether a request carries a body at all (a POST with none stands for an empty input). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return length !== undefined ? length !== "0" : request.headers["transfer-encoding"] !== undefined;
}

/**
 * Refuses a body that is not JSON (UNSUPPORTED_MEDIA_TYPE, HTTP 415), or not one of `forms` too:
 * a cross-site HTML form can post text/plain or form bodies without a preflight, JSON it cannot.
 */
/** A media type (RFC 9110 type/subtype tokens), which a message may repeat: it names a format, not a value. */
const MEDIA_TYPE = /^[a-z0-9!#$%&'*+.^_`|~-]{1,60}\/[a-z0-9!#$%&'*+.^_`|~-]{1,60}$/;

export function mediaTypeOf(request: IncomingMessage, accepted: readonly string[]): string {
  const header = request.headers["content-type"] ?? "";
  // What clients send almost always: the bare media type, no parameters.
  if (accepted.includes(header)) return header;
  const type = header.split(";")[0]!.trim().toLowerCase();
  if (accepted.includes(type)) return type;
  const wanted = accepted.map((t) => `Content-Type: ${t}`).join(" or ");
  const got = !type ? "; the request has no Content-Type header" : MEDIA_TYPE.test(type) ? `, not ${type}` : "; the request's Content-Type is not one";
  throw new ServiceError("UNSUPPORTED_MEDIA_TYPE", `the body must be sent with ${wanted}${got}`);
}

export function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => readBodyAs(request, limit, (text) => text).settle(resolve, reject));
}

/**
 * The request's body as `decode` makes it of the text (which may throw to refuse it), refused
 * (PAYLOAD_TOO_LARGE) past `limit`: read by the stream's events and handed on without a promise
 * (see Pending).
 */
export function readBodyAs<T>(request: IncomingMessage, limit: number, decode: (text: string) => T): Pending<T> {
  const body = new Pending<T>();
  const tooLarge = () => new ServiceError("PAYLOAD_TOO_LARGE", `the request body is larger than ${limit} bytes`);
  if (Number(request.headers["content-length"] ?? 0) > limit) {
    request.resume();
    body.reject(tooLarge());
    return body;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      request.removeAllListeners("data");
      request.resume();
      body.reject(tooLarge());
    } else chunks.push(chunk);
  });
  request.on("end", () => {
    let value: T;
    try {
      value = decode(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"));
    } catch (error) {
      body.reject(error);
      return;
    }
    body.resolve(value);
  });
  request.on("error", (error) => body.reject(error));
  return body;
}

export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError("INVALID_ARGUMENT", "request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ServiceError("INVALID_ARGUMENT", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, cookies: readonly string[] = [], extraHeaders?: Record<string, string>): void {
  sendJsonText(response, status, JSON.stringify(body), cookies, extraHeaders);
}

/** sendJson of a body already in JSON text. */
export function sendJsonText(response: ServerResponse, status: number, text: string, cookies: readonly string[] = [], extraHeaders?: Record<string, string>): void {
  if (extraHeaders === undefined && cookies.length === 0) {
    // Most answers: the same four headers as below, as the flat name/value list writeHead also
    // takes, which spares building and enumerating an object per answer.
    response.writeHead(status, [
      "content-type",
      "application/json; charset=utf-8",
      "content-length",
      String(Buffer.byteLength(text)),
      "cache-control",
      "no-store",
      "x-content-type-options",
      "nosniff",
    ]);
    endThisTurn(response, text);
    return;
  }
  const headers: Record<string, string | string[]> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    // An answer is data: no browser may sniff it into a page or a script.
    "x-content-type-options": "nosniff",
    ...extraHeaders,
  };
  if (cookies.length > 0) headers["set-cookie"] = [...cookies];
  response.writeHead(status, headers);
  endThisTurn(response, text);
}

/** Answers waiting for the end of this turn of the event loop: a response, its body, and so on. */
let endings: (ServerResponse | string)[] = [];

/**
 * Ends `response` with `text` once the requests that came in together have been handled, all in
 * one burst: setImmediate runs right after the event loop's poll phase, which hands over every
 * connection with data at once. Answers written one by one, each a handler's work apart, wake a
 * load balancer or client that went to sleep between them, each write paying for the wake-up in
 * the kernel; written back to back, the first wakes it and the others find it awake.
 */
function endThisTurn(response: ServerResponse, text: string): void {
  if (endings.push(response, text) === 2) setImmediate(endAll);
}

function endAll(): void {
  const batch = endings;
  endings = [];
  for (let i = 0; i < batch.length; i += 2) {
    const response = batch[i] as ServerResponse;
    try {
      response.end(batch[i + 1] as string);
    } catch {
      // Whatever became of one connection, the others of the burst are still answered.
      response.destroy();
    }
  }
}

/** Node's headers as a record of lower-case names to single values (only set-cookie may repeat; requests never send it). */
export function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  return headers as Record<string, string>;
}
