// Reading request bodies with a size limit, and writing JSON answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError } from "../errors.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > limit) throw new ServiceError("INVALID_ARGUMENT", `request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ServiceError("INVALID_ARGUMENT", `request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
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

/** Node's headers as a flat record of lower-case names to single values. */
export function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
