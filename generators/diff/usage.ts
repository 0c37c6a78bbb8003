// Which operations reach each message and enum, as input and as output: a change to a shared type
// or enum reaches the clients of exactly those operations.
import type { Ir, IrMessage } from "../ir/ir.js";

export interface Reach {
  input: Set<string>;
  output: Set<string>;
}

export interface Usage {
  messages: Map<string, Reach>;
  enums: Map<string, Reach>;
}

export function usageOf(ir: Ir): Usage {
  const messagesByName = new Map(ir.messages.map((m) => [m.name, m]));
  const usage: Usage = { messages: new Map(), enums: new Map() };
  const reach = (map: Map<string, Reach>, name: string) => {
    let entry = map.get(name);
    if (!entry) map.set(name, (entry = { input: new Set(), output: new Set() }));
    return entry;
  };
  const visit = (message: IrMessage, direction: keyof Reach, operation: string) => {
    const entry = reach(usage.messages, message.name);
    if (entry[direction].has(operation)) return;
    entry[direction].add(operation);
    for (const field of message.fields) {
      if (field.type.kind === "enum") reach(usage.enums, field.type.name)[direction].add(operation);
      if (field.type.kind === "message") {
        const target = messagesByName.get(field.type.name);
        if (target) visit(target, direction, operation);
      }
    }
  };
  for (const op of ir.operations) {
    visit(op.input, "input", op.name);
    visit(op.output, "output", op.name);
  }
  return usage;
}
