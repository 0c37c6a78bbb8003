// A YAML printer for plain JSON data (objects, arrays, strings, numbers, booleans, null), used for
// large generated documents: the yaml package builds a node tree first and is ~30x slower on them.
// Strings that could read as anything but a string are written as JSON strings, which YAML accepts.

const PLAIN = /^[A-Za-z_$/][A-Za-z0-9_ .,/$(){}'+-]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function scalar(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = String(value);
  return PLAIN.test(text) && !RESERVED.test(text) && !text.endsWith(" ") && !text.includes(" #") ? text : JSON.stringify(text);
}

const isCollection = (value: unknown): value is object => typeof value === "object" && value !== null;
const isEmpty = (value: object) => (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0);

function lines(value: unknown, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isCollection(item) && !isEmpty(item)) {
        const nested: string[] = [];
        lines(item, indent + "  ", nested);
        // The first line of a nested block moves up beside the dash.
        out.push(`${indent}- ${nested[0]!.slice(indent.length + 2)}`, ...nested.slice(1));
      } else {
        out.push(`${indent}- ${isCollection(item) ? (Array.isArray(item) ? "[]" : "{}") : scalar(item)}`);
      }
    }
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const name = scalar(key);
    if (isCollection(item) && !isEmpty(item)) {
      out.push(`${indent}${name}:`);
      lines(item, Array.isArray(item) ? indent : indent + "  ", out);
    } else {
      out.push(`${indent}${name}: ${isCollection(item) ? (Array.isArray(item) ? "[]" : "{}") : scalar(item)}`);
    }
  }
}

export function toYaml(document: Record<string, unknown>): string {
  const out: string[] = [];
  lines(document, "", out);
  return out.join("\n") + "\n";
}
