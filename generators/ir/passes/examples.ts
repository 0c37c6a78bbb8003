// The examples pass: which of the manifest's own operations the SDK docs show (a first call, an
// iterator, a NOT_FOUND, a refusal), so no template names an operation of one API. Each language's
// emitter turns these operation names into its own method and type names.
import { PROTOCOLS, type DocExamples, type IrOperation, type Protocol } from "../ir.js";

export function pickDocExamples(operations: readonly IrOperation[], versionOperations: Partial<Record<"admin" | "user", string>>): DocExamples {
  // The examples call the admin client where the API has admin operations, else the user client.
  const surface = operations.some((op) => op.surface === "admin") ? "admin" : "user";
  const versionOperation = versionOperations[surface];
  const admin = operations.filter((op) => op.surface === surface);
  const reads = admin.filter((op) => op.kind === "read");
  const read = versionOperation ?? reads.find((op) => op.pagination.style === "none" && !op.input.fields.some((f) => f.required))?.name;
  const list = reads.find((op) => op.pagination.style !== "none")?.name;
  const lookup = reads
    .map((op) => ({ op, required: op.input.fields.filter((f) => f.required) }))
    .find(({ op, required }) => op.errorCodes.includes("NOT_FOUND") && required.length === 1 && required[0]!.type.kind === "scalar" && required[0]!.type.scalar === "string" && !required[0]!.list);
  const partial = admin.find((op) => op.protocols.length < PROTOCOLS.length);
  const notCarried = partial && { operation: partial.name, protocol: PROTOCOLS.find((p) => !partial.protocols.includes(p)) as Protocol, protocols: partial.protocols };
  return {
    surface,
    ...(read ? { read } : {}),
    ...(list ? { list } : {}),
    ...(lookup ? { lookup: { operation: lookup.op.name, field: lookup.required[0]!.name } } : {}),
    ...(notCarried ? { notCarried } : {}),
  };
}
