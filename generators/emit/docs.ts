// The API reference in Markdown: an index, one page per group with every operation (fields,
// protocols and versions, marks, and the same call over GraphQL, REST and gRPC), and a page of
// the shared types and enums.
import { describedField, idempotencySentences, operationRuleSentences, unionSentence } from "./rules.js";
import { PROTOCOLS, type Ir, type IrField, type IrGroup, type IrMessage, type IrOperation, type Protocol } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { authNames, authSchemesOf, authWords, PROTOCOL_LABEL, SHELL_VARIABLES, bindingSummary, callForms, cell, clientCall, fence, fieldType, operationTable } from "./operation-text.js";

export const DOCS_DIR = "generated/docs";
const INDEX_PAGE = "README.md";
const TYPES_PAGE = "types.md";

const pageOf = (group: string) => `${group}.md`;
/** GitHub's heading anchor of a name made of letters, digits and underscores. */
const anchor = (name: string) => name.toLowerCase();

function typeText(field: IrField, fromPage: "group" | "types"): string {
  const { label, typeName } = fieldType(field);
  const base = typeName ? `[${label}](${fromPage === "types" ? "" : TYPES_PAGE}#${anchor(typeName)})` : label;
  return field.list ? `list of ${base}` : base;
}

function notes(ir: Ir, field: IrField, asInput: boolean): string {
  return [describedField(ir, field, asInput), field.secret ? "**secret**" : "", field.deprecated ? `**deprecated**: ${field.deprecated}` : ""].filter(Boolean).map(cell).join(" ");
}

/** Input fields: required or not. */
function inputTable(ir: Ir, message: IrMessage, fromPage: "group" | "types"): string {
  if (message.fields.length === 0) return "_No input._";
  const rows = message.fields.map((f) => `| \`${f.name}\` | ${typeText(f, fromPage)} | ${f.required ? "yes" : ""} | ${notes(ir, f, true)} |`);
  return ["| field | type | required | description |", "|---|---|---|---|", ...rows].join("\n");
}

/** Answer fields: always present; null when unset unless required (lists and maps are empty instead). */
function outputTable(ir: Ir, message: IrMessage, fromPage: "group" | "types"): string {
  if (message.fields.length === 0) return "_Empty answer._";
  const rows = message.fields.map((f) => {
    const alwaysSet = f.alwaysInAnswer;
    return `| \`${f.name}\` | ${typeText(f, fromPage)} | ${alwaysSet ? "always" : "or null"} | ${notes(ir, f, false)} |`;
  });
  return ["| field | type | set | description |", "|---|---|---|---|", ...rows].join("\n");
}

function protocolTable(op: IrOperation): string {
  const rows = PROTOCOLS.map((p) => {
    const binding = op[p];
    return binding ? `| ${PROTOCOL_LABEL[p]} | ${binding.since} | \`${bindingSummary(op, p)}\` |` : `| ${PROTOCOL_LABEL[p]} | — | not available |`;
  });
  return ["| protocol | since | call |", "|---|---|---|", ...rows].join("\n");
}

function callSection(ir: Ir, op: IrOperation): string {
  return callForms(ir, op)
    .flatMap((form) => [
      `**${PROTOCOL_LABEL[form.protocol]}**${form.endpoint ? ` (\`${form.endpoint}\`${form.header ? ` with header \`${form.header.name}: ${form.header.value}\`` : ""})` : ""}`,
      fence(form.language, form.code),
      ...(form.variables ? ["variables:", fence("json", JSON.stringify(form.variables, null, 2))] : []),
    ])
    .join("\n\n");
}

function operationSection(ir: Ir, op: IrOperation): string {
  const marks = [
    op.destructive ? "**Destructive.**" : "",
    op.deprecated ? `**Deprecated:** ${op.deprecated}.` : "",
    `${op.kind === "read" ? "Read" : "Write"}.`,
    `Auth ${authNames(op)}: ${authWords(ir, op)}.`,
    `Client: \`${clientCall(ir, op)}\`.`,
  ]
    .filter(Boolean)
    .join(" ");
  return [
    `## ${op.name}`,
    op.description,
    marks,
    protocolTable(op),
    `**Input** \`${op.input.graphqlInputName}\` (proto \`${op.input.name}\`)`,
    inputTable(ir, op.input, "group"),
    ...operationRuleSentences(op),
    ...idempotencySentences(op),
    `**Errors** ${op.errorCodes.map((code) => `\`${code}\``).join(", ")} (any call may also fail with \`INTERNAL\`, \`UNIMPLEMENTED\` or \`UNAVAILABLE\`).`,
    `**Output** ${op.output.shared ? `[\`${op.output.graphqlName}\`](${TYPES_PAGE}#${anchor(op.output.name)})` : `\`${op.output.graphqlName}\``}`,
    outputTable(ir, op.output, "group"),
    "### The same call over each protocol",
    callSection(ir, op),
  ].join("\n\n");
}

function groupPage(ir: Ir, group: IrGroup): GeneratedFile {
  const ops = group.operations.map((name) => ir.operations.find((op) => op.name === name)!);
  const content = [
    `# ${group.title}`,
    `[${ir.api.title} API reference](${INDEX_PAGE}) · group \`${group.name}\` · ${ops.length} operation${ops.length === 1 ? "" : "s"}`,
    operationTable(ops, { link: (op) => `#${anchor(op.name)}` }),
    ...ops.map((op) => operationSection(ir, op)),
  ].join("\n\n");
  return { path: `${DOCS_DIR}/${pageOf(group.name)}`, content: `${content}\n` };
}

/** The prose of the index page, in Markdown; the HTML site shows the same. */
export function indexProse(ir: Ir): { sameCall: string; endpoints: { protocol: Protocol; text: string }[]; examples: string } {
  const services = ir.proto.services.map((s) => `\`${s.typeName}\` (\`proto/${s.protoFile}\`)`).join(" and ");
  return {
    sameCall: "Every operation is described once and reached over up to three protocols; each carries the same input and answers with the same fields.",
    endpoints: [
      { protocol: "graphql", text: `\`POST ${SHELL_VARIABLES.serviceUrl}/graphql\`: reads are \`Query\` fields, writes \`Mutation\` fields, input in one \`params\` argument` },
      { protocol: "rest", text: `\`${SHELL_VARIABLES.serviceUrl}${ir.api.restPrefix}/...\` with a JSON body (query string for GET); errors as \`{code, message}\`` },
      { protocol: "grpc", text: `port ${ir.api.grpcPort}: ${services}` },
    ],
    examples: `The examples use \`${SHELL_VARIABLES.serviceUrl}\` (such as http://localhost:${ir.api.httpPort}), ${ir.api.features.adminSecret ? `\`${SHELL_VARIABLES.adminSecret}\` (sent in header \`${ir.api.adminSecretHeader}\`) and ` : ""}\`${SHELL_VARIABLES.accessToken}\` (a user's access token). "since" is the first server version that carries the operation over that protocol.`,
  };
}

function indexPage(ir: Ir): GeneratedFile {
  const groupOf = new Map(ir.groups.flatMap((g) => g.operations.map((name) => [name, g.name] as const)));
  const authRows = authSchemesOf(ir).map((scheme) => `| \`${scheme.name}\` | ${scheme.description} |`);
  const prose = indexProse(ir);
  const content = [
    `# ${ir.api.title} API reference (${ir.api.version})`,
    ir.api.description,
    prose.sameCall,
    ["| protocol | endpoint |", "|---|---|", ...prose.endpoints.map((e) => `| ${PROTOCOL_LABEL[e.protocol]} | ${e.text} |`)].join("\n"),
    prose.examples,
    "## Auth levels",
    ["| auth | who may call |", "|---|---|", ...authRows].join("\n"),
    "## Groups",
    ["| group | operations |", "|---|---|", ...ir.groups.map((g) => `| [${g.title}](${pageOf(g.name)}) | ${g.operations.length} |`)].join("\n"),
    `Shared types and enums: [${TYPES_PAGE}](${TYPES_PAGE}).`,
    "## Operations",
    operationTable(ir.operations, { link: (op) => `${pageOf(groupOf.get(op.name)!)}#${anchor(op.name)}` }),
  ].join("\n\n");
  return { path: `${DOCS_DIR}/${INDEX_PAGE}`, content: `${content}\n` };
}

function typesPage(ir: Ir): GeneratedFile {
  const sections: string[] = [`# Types of ${ir.api.title}`, `[API reference](${INDEX_PAGE})`, "## Messages"];
  for (const message of ir.messages.filter((m) => m.shared)) {
    sections.push(
      `### ${message.name}`,
      message.description || "",
      unionSentence(message),
      message.usedAsInput && !message.usedAsOutput ? inputTable(ir, message, "types") : outputTable(ir, message, "types"),
    );
  }
  sections.push("## Enums");
  for (const irEnum of ir.enums) {
    const rows = irEnum.values.map((v) => `| \`${v.name}\` | \`${v.protoName}\` | ${cell(v.description)} |`);
    sections.push(`### ${irEnum.name}`, irEnum.description, ["| value | proto name | description |", "|---|---|---|", ...rows].join("\n"));
  }
  return { path: `${DOCS_DIR}/${TYPES_PAGE}`, content: `${sections.filter(Boolean).join("\n\n")}\n` };
}

export function emitDocs(ir: Ir): GeneratedFile[] {
  return [indexPage(ir), ...ir.groups.map((group) => groupPage(ir, group)), typesPage(ir)];
}
