// A tool catalogue for AI agents: one Model Context Protocol tool definition per operation, with
// JSON Schema (draft 2020-12) of its input and answer, the behaviour hints of MCP tool annotations,
// and the protocols, minimum versions and auth of the operation as extensions.
import { SCALAR_SPECS } from "../sdk/scalars.js";
import { PROTOCOLS, enumByName, messageByName, type Ir, type IrField, type IrMessage, type IrOperation, type Scalar } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { describedField, fieldKeywords, itemKeywords, messageKeywords, operationRuleSentences, unionTagSchema } from "./rules.js";
import { GENERATED_NOTICE } from "../write/header.js";
import { clientClasses } from "./operation-text.js";
import { RUNTIME_PACKAGE } from "./runtime-package.js";

export const MCP_TOOLS_PATH = "generated/mcp/tools.json";

const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

type JsonSchema = Record<string, unknown>;

/** A scalar's JSON Schema: the type only (tool catalogues state no formats). */
function scalarSchema(scalar: Scalar): JsonSchema {
  const { format: _format, ...schema } = SCALAR_SPECS[scalar].jsonSchema;
  return schema;
}

/**
 * Builds the schema of one top-level message. Nested messages and enums go under $defs, each once.
 * Input fields may be absent unless required; answer fields are always present, and null when unset
 * unless required (lists and maps are empty instead), as every client and protocol answers them.
 */
class SchemaBuilder {
  private readonly defs = new Map<string, JsonSchema>();

  constructor(
    private readonly ir: Ir,
    private readonly direction: "input" | "output",
  ) {}

  build(message: IrMessage, op: IrOperation): JsonSchema {
    const body = this.direction === "input" ? this.withRules(this.object(message, operationRuleSentences(op)), message, op) : this.object(message);
    const defs = Object.fromEntries([...this.defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { $schema: JSON_SCHEMA_DIALECT, ...body, ...(this.defs.size > 0 ? { $defs: defs } : {}) };
  }

  private object(message: IrMessage, rules: string[] = []): JsonSchema {
    // An answer's tagged union carries its tag; a tool's input names the variant by its key alone.
    const tag = this.direction === "output" ? message.discriminator?.property : undefined;
    const properties = Object.fromEntries([...(tag ? [[tag, unionTagSchema(message)]] : []), ...message.fields.map((f) => [f.name, this.field(f)])]);
    const required = this.direction === "output" ? [...(tag ? [tag] : []), ...message.fields.map((f) => f.name)] : message.fields.filter((f) => f.required).map((f) => f.name);
    const description = [message.description, ...rules].filter(Boolean).join(" ");
    return {
      type: "object",
      ...(description ? { description } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      // A union's oneOf of its variants, in answers too (requests get it from withRules).
      ...(message.oneOf && this.direction === "output" ? messageKeywords(message, properties, undefined, tag !== undefined) : {}),
    };
  }

  private withRules(object: JsonSchema, message: IrMessage, op?: IrOperation): JsonSchema {
    return { ...object, ...messageKeywords(message, object.properties as Record<string, JsonSchema>, op) };
  }

  private ref(name: string, define: () => JsonSchema): JsonSchema {
    if (!this.defs.has(name)) {
      this.defs.set(name, {}); // placeholder first: a message that refers to itself stops here
      this.defs.set(name, define());
    }
    return { $ref: `#/$defs/${name}` };
  }

  private field(field: IrField): JsonSchema {
    const type = field.type;
    let item: JsonSchema;
    const enumSchema = (name: string) => {
      const irEnum = enumByName(this.ir, name);
      return this.ref(irEnum.name, () => ({ type: "string", ...(irEnum.description ? { description: irEnum.description } : {}), enum: irEnum.values.map((v) => v.name) }));
    };
    const messageSchema = (name: string) => {
      const message = messageByName(this.ir, name);
      return this.ref(message.name, () => (this.direction === "input" ? this.withRules(this.object(message), message) : this.object(message)));
    };
    const value = field.mapValue;
    if (value) item = { type: "object", additionalProperties: value.kind === "scalar" ? scalarSchema(value.scalar) : value.kind === "enum" ? enumSchema(value.name) : messageSchema(value.name) };
    else if (type.kind === "scalar") item = scalarSchema(type.scalar);
    else if (type.kind === "enum") item = enumSchema(type.name);
    else item = messageSchema(type.name);
    const input = this.direction === "input";
    if (input) item = { ...item, ...itemKeywords(this.ir, field) };
    let schema: JsonSchema = field.list ? { type: "array", items: item } : item;
    if (input) schema = { ...schema, ...fieldKeywords(field) };
    const alwaysSet = field.alwaysInAnswer;
    if (this.direction === "output" && !alwaysSet) {
      schema = typeof schema.type === "string" ? { ...schema, type: [schema.type, "null"] } : { anyOf: [schema, { type: "null" }] };
    }
    const description = [describedField(this.ir, field, input), field.secret ? "Secret." : ""].filter(Boolean).join(" ");
    return {
      ...(description ? { description } : {}),
      ...schema,
      ...(field.secret && this.direction === "input" ? { writeOnly: true } : {}),
      ...(field.deprecated ? { deprecated: true } : {}),
    };
  }
}

function toolOf(ir: Ir, op: IrOperation): JsonSchema {
  const description = [op.description, op.destructive ? "Destructive." : "", op.deprecated ? `Deprecated: ${op.deprecated}.` : ""].filter(Boolean).join(" ");
  return {
    name: op.name,
    title: op.title,
    description,
    inputSchema: new SchemaBuilder(ir, "input").build(op.input, op),
    outputSchema: new SchemaBuilder(ir, "output").build(op.output, op),
    annotations: {
      title: op.title,
      readOnlyHint: op.kind === "read",
      destructiveHint: op.destructive,
      idempotentHint: op.idempotent,
      openWorldHint: false,
    },
    "x-protocols": op.protocols,
    "x-min-versions": Object.fromEntries(PROTOCOLS.flatMap((p) => (op[p] ? [[p, op[p].since]] : []))),
    "x-auth": op.auth,
    ...(op.authAnyOf.length > 1 ? { "x-auth-any-of": op.authAnyOf.map((r) => r.scheme) } : {}),
    "x-surface": op.surface,
    "x-group": op.group,
  };
}

/** The standalone MCP server's entry (`npm run mcp`, the bin of the mcp package): the runtime's CLI over the generated clients. */
const mcpMain = (ir: Ir) => `#!/usr/bin/env node
// ${GENERATED_NOTICE}
// The standalone MCP server: every operation a tool, called through the generated TypeScript client.
import { runMcpCli } from "${RUNTIME_PACKAGE}/mcp/cli.js";
import { ${clientClasses(ir).join(", ")} } from "../client/index.js";
import { schema } from "../schema.js";
import { tools } from "./tools.js";

const code = await runMcpCli(process.argv.slice(2), process.env, {
  schema,
  tools,
  envPrefix: ${JSON.stringify(ir.api.envPrefix)},
${ir.clients.map((client) => `  ${client.role}: (config) => new ${client.name}(config),\n`).join("")}});
if (code !== undefined) process.exitCode = code;
`;

export function emitMcpTools(ir: Ir): GeneratedFile[] {
  const catalogue = { tools: ir.operations.map((op) => toolOf(ir, op)) };
  return [
    { path: MCP_TOOLS_PATH, content: `${JSON.stringify(catalogue, null, 2)}\n`, header: false },
    { path: "generated/mcp/main.ts", content: mcpMain(ir), header: false },
    // The same catalogue as a module, so that the server (option mcp) and the standalone server load it with their code.
    {
      path: "generated/mcp/tools.ts",
      content: `import type { ToolDefinition } from "${RUNTIME_PACKAGE}/mcp/tools.js";\n\n/** The tools of tools.json. */\nexport const tools: readonly ToolDefinition[] = JSON.parse(${JSON.stringify(JSON.stringify(catalogue.tools))});\n`,
    },
  ];
}
