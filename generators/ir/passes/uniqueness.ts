// The uniqueness pass: every derived name must be unique within its namespace. GraphQL and proto
// types share one (services, clients, enums, messages and their GraphQL names), and the client
// methods another.
import type { SourcePosition } from "../../load/diagnostics.js";
import type { IrMessage } from "../ir.js";
import { allMessages, type IrContext } from "./context.js";
import { openEnumName } from "./names.js";

/** A name taken by something the manifest declares or derives. */
interface NameEntry {
  name: string;
  owner: string;
  position: SourcePosition;
}

/** Reports each type name taken twice, then each client method name taken twice. */
export function checkUniqueNames(context: IrContext): void {
  const { raw, loaded, operations } = context;
  const declaredSurfaces = raw.api.surfaces ?? {};
  const ownerOf = (m: IrMessage): string => {
    if (m.shared) return `type '${m.name}'`;
    const op = m.name.replace(/(Request|Response)$/, "");
    return `the ${m.name.endsWith("Request") ? "input" : "output"} of operation '${operations.find((o) => o.pascalName === op)?.name ?? op}'`;
  };
  checkUnique(
    context,
    [
      ...(["admin", "user"] as const).map((surface) => ({
        name: context.serviceNames[surface],
        owner: `the ${surface} gRPC service`,
        position: loaded.locate(declaredSurfaces[surface]?.service ? ["api", "surfaces", surface, "service"] : ["operations"], declaredSurfaces[surface]?.service ? "value" : "key"),
      })),
      // The clients are types of every SDK, beside the messages and enums (TypeScript exports both from one index).
      ...(["admin", "user"] as const).map((surface) => ({
        name: context.clientNames[surface],
        owner: `the ${surface} client`,
        position: loaded.locate(["api", "surfaces", surface, "client"]),
      })),
      // Each enum also names its open type in the TypeScript SDK (GenreOrUnknown), which answers use.
      ...context.enums.flatMap((e) => [e.name, openEnumName(e.name)].map((name) => ({ name, owner: `enum '${e.name}'`, position: e.position }))),
      ...allMessages(context).flatMap((m) => [
        { name: m.name, owner: ownerOf(m), position: m.position },
        ...(m.usedAsOutput || m.shared ? [{ name: m.graphqlName, owner: ownerOf(m), position: m.position }] : []),
        ...(m.usedAsInput ? [{ name: m.graphqlInputName, owner: ownerOf(m), position: m.position }] : []),
      ]),
      ...operations.flatMap((op) => (op.grpc && op.output.shared ? [{ name: op.grpc.responseMessage, owner: `the response message of operation '${op.name}'`, position: op.position }] : [])),
    ],
    "type name",
  );
  checkUnique(
    context,
    operations.map((op) => ({ name: op.camelName, owner: `operation '${op.name}'`, position: op.position })),
    "client method name",
  );
}

/** Reports each entry whose name an earlier entry of another owner took, once per owner and name. */
function checkUnique(context: IrContext, entries: NameEntry[], what: string): void {
  const seen = new Map<string, NameEntry>();
  const reported = new Set<string>();
  for (const entry of entries) {
    const first = seen.get(entry.name);
    if (first && first.owner !== entry.owner && !reported.has(`${entry.owner} ${entry.name}`)) {
      reported.add(`${entry.owner} ${entry.name}`);
      context.reportAt("name-clash", entry.position, entry.owner, `its ${what} '${entry.name}' is already taken by ${first.owner} (line ${first.position.line}); rename one`);
    } else if (!first) {
      seen.set(entry.name, entry);
    }
  }
}
