// A tagged union's tag on JSON (MessageSpec.discriminator): found at any depth of a plain value,
// written beside its variant as a REST request carries it. A module of its own: a client loads it
// only for an operation whose input can hold one (OperationSpec.taggedInput).
// It imports nothing at run time, so that a bundler keeps the modules everything shares in one chunk.
import type { MessageSchema, MessageSpec } from "./schema.js";

type Plain = Record<string, unknown>;

const isObject = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value);

/** Per message, whether a value of it can hold a tagged union (one with a discriminator), itself or nested. */
const tagReach = new WeakMap<object, boolean>();
export function reachesTaggedUnion(schema: MessageSchema, messageName: string): boolean {
  const message = schema.messages[messageName]!;
  let reach = tagReach.get(message);
  if (reach === undefined) tagReach.set(message, (reach = holdsTaggedUnion(schema, messageName, new Set())));
  return reach;
}

/** `seen`: the messages on the way here (a message that holds itself is settled by its other fields); only a whole walk's answer is kept. */
function holdsTaggedUnion(schema: MessageSchema, messageName: string, seen: Set<string>): boolean {
  if (seen.has(messageName)) return false;
  seen.add(messageName);
  const message = schema.messages[messageName]!;
  return message.discriminator !== undefined || message.fields.some((field) => field.ref !== undefined && schema.messages[field.ref] !== undefined && holdsTaggedUnion(schema, field.ref, seen));
}

/**
 * Calls `visit` with every tagged union in a plain value of message `messageName` and its path,
 * outer ones first; nothing when the message reaches none (most APIs, every call).
 */
export function forEachTaggedUnion(schema: MessageSchema, messageName: string, value: unknown, prefix: string, visit: (message: MessageSpec, union: Plain, path: string) => void): void {
  if (!isObject(value) || !reachesTaggedUnion(schema, messageName)) return;
  const message = schema.messages[messageName]!;
  if (message.discriminator) visit(message, value, prefix);
  for (const field of message.fields) {
    const ref = field.kind === "message" || field.value === "message" ? field.ref! : undefined;
    const item = value[field.name];
    if (ref === undefined || item === undefined || item === null) continue;
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (field.list && Array.isArray(item)) for (let i = 0; i < item.length; i++) forEachTaggedUnion(schema, ref, item[i], `${path}[${i}]`, visit);
    else if (field.kind === "map" && isObject(item)) for (const [key, each] of Object.entries(item)) forEachTaggedUnion(schema, ref, each, `${path}.${key}`, visit);
    else forEachTaggedUnion(schema, ref, item, path, visit);
  }
}

/** A checked request with each tagged union's tag written beside its variant, as REST requests carry it. */
export function withUnionTags(schema: MessageSchema, messageName: string, value: Plain): Plain {
  forEachTaggedUnion(schema, messageName, value, "", (message, union) => {
    const variant = message.fields.find((field) => union[field.name] !== undefined && union[field.name] !== null);
    // A union with no variant given has nothing to name (the server says what is missing).
    if (variant) union[message.discriminator!] = variant.name;
  });
  return value;
}
