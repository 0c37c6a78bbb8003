// Prints the proto plan as .proto source, in buf format style.
import type { GeneratedFile } from "../write/writer.js";
import type { ProtoFieldPlan, ProtoFilePlan } from "./proto-plan.js";

export function emitProtoText(files: readonly ProtoFilePlan[]): GeneratedFile[] {
  return files.map((file) => ({ path: `proto/${file.path}`, content: printFile(file) }));
}

function comment(text: string, indent: string): string[] {
  if (!text) return [];
  return text.split("\n").map((line) => (line ? `${indent}// ${line}` : `${indent}//`));
}

function typeSpelling(field: ProtoFieldPlan, pkg: string): string {
  const local = (typeName: string) => (typeName.startsWith(`.${pkg}.`) ? typeName.slice(pkg.length + 2) : typeName.slice(1));
  switch (field.type.kind) {
    case "scalar":
      return field.type.scalar;
    case "map":
      return `map<${field.type.key}, ${field.type.value.kind === "scalar" ? field.type.value.scalar : local(field.type.value.typeName)}>`;
    default:
      return local(field.type.typeName);
  }
}

function reservedLines(reserved: readonly { name: string; number: number }[], indent: string): string[] {
  if (reserved.length === 0) return [];
  return [`${indent}reserved ${reserved.map((r) => r.number).join(", ")};`, `${indent}reserved ${reserved.map((r) => `"${r.name}"`).join(", ")};`];
}

function printFile(file: ProtoFilePlan): string {
  const lines: string[] = ['syntax = "proto3";', "", `package ${file.package};`, ""];
  if (file.imports.length > 0) {
    lines.push(...file.imports.map((path) => `import "${path}";`), "");
  }
  for (const e of file.enums) {
    lines.push(...comment(e.comment, ""), `enum ${e.name} {`);
    for (const value of e.values) {
      lines.push(...comment(value.comment, "  "), `  ${value.name} = ${value.number}${value.deprecated ? " [deprecated = true]" : ""};`);
    }
    lines.push(...reservedLines(e.reserved, "  "), "}", "");
  }
  for (const message of file.messages) {
    lines.push(...comment(message.comment, ""));
    const body: string[] = [];
    // A union's variants are the members of its oneof.
    const indent = message.oneof ? "    " : "  ";
    if (message.oneof) body.push(`  oneof ${message.oneof} {`);
    for (const field of message.fields) {
      const label = field.repeated ? "repeated " : field.optional ? "optional " : "";
      const options = field.deprecated ? " [deprecated = true]" : "";
      body.push(...comment(field.comment, indent), `${indent}${label}${typeSpelling(field, file.package)} ${field.name} = ${field.number}${options};`);
    }
    if (message.oneof) body.push("  }");
    body.push(...reservedLines(message.reserved, "  "));
    lines.push(body.length === 0 ? `message ${message.name} {}` : `message ${message.name} {`, ...body);
    if (body.length > 0) lines.push("}");
    lines.push("");
  }
  for (const service of file.services) {
    lines.push(...comment(service.comment, ""), `service ${service.name} {`);
    for (const method of service.methods) {
      const options = [...(method.deprecated ? ["option deprecated = true;"] : []), ...(method.noSideEffects ? ["option idempotency_level = NO_SIDE_EFFECTS;"] : [])];
      const signature = `  rpc ${method.name}(${method.inputType.slice(file.package.length + 2)}) returns (${method.outputType.slice(file.package.length + 2)})`;
      lines.push(...comment(method.comment, "  "));
      if (options.length === 0) lines.push(`${signature};`);
      else lines.push(`${signature} {`, ...options.map((o) => `    ${o}`), "  }");
    }
    lines.push("}", "");
  }
  return lines.join("\n").replace(/\n+$/, "\n");
}
