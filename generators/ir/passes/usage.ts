// The usage pass: which shared types an operation's input or output reaches through its fields.
// A type used as an input gets a GraphQL input type and an input name of its own, one used as an
// output its output type: the emitters and the name checks read these flags.
import type { IrMessage } from "../ir.js";
import type { IrContext } from "./context.js";

/** Sets usedAsInput and usedAsOutput on every shared message an operation's input or output reaches. */
export function markMessageUsage(context: IrContext): void {
  const markUsage = (message: IrMessage, as: "usedAsInput" | "usedAsOutput", seen = new Set<string>()) => {
    for (const field of message.fields) {
      if (field.type.kind !== "message" || seen.has(field.type.name)) continue;
      const target = context.sharedByName.get(field.type.name);
      if (!target) continue;
      seen.add(target.name);
      target[as] = true;
      markUsage(target, as, seen);
    }
  };
  for (const op of context.operations) {
    markUsage(op.input, "usedAsInput");
    markUsage(op.output, "usedAsOutput");
  }
}
