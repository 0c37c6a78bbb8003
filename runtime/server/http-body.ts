// Reading request bodies with a size limit, and writing JSON answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError } from "../errors.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = () => new ServiceError("INVALID_ARGUMENT", `request body is larger than ${limit} bytes`);
  if (Number(request.headers["content-length"] ?? 0) > limit) {
    request.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners("data");
        request.resume();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
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

export function sendJson(response: ServerResponse, status: number, body: unknown, cookies: readonly string[] = []): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
  };
  if (cookies.length > 0) headers["set-cookie"] = [...cookies];
  response.writeHead(status, headers);
  response.end(text);
}

/** Node's headers as a record of lower-case names to single values (only set-cookie may repeat; requests never send it). */
export function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  return headers as Record<string, string>;
}
