// The messages pass: a message from the fields the manifest lists, numbered by the lock, for the
// shared types of `types:` here and for each operation's inline input and output (operations.ts).
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import type { PathSegment, RawFields } from "../../load/load.js";
import { assignNumbers } from "../../load/lock.js";
import type { IrMessage } from "../ir.js";
import { pascalCase } from "../naming.js";
import type { IrContext } from "./context.js";
import { checkFieldReferences, resolveField } from "./fields.js";

/** What a message's place in the manifest decides: its description, GraphQL names and proto file. */
export type MessageOptions = Pick<IrMessage, "description" | "shared" | "graphqlName" | "graphqlInputName" | "protoFile">;

/**
 * The message `name` (also its key in the lock) of the fields at `path`, adding new fields'
 * numbers to the lock; it is not yet known to be an input or an output (usage.ts marks that).
 */
export function buildMessage(context: IrContext, name: string, path: PathSegment[], subject: string, rawFields: RawFields, options: MessageOptions): IrMessage {
  const fieldNames = Object.keys(rawFields);
  const { numbers, reserved } = assignNumbers((context.nextLock.messages[name] ??= {}), fieldNames);
  const jsonNames = new Map<string, string>();
  for (const fieldName of fieldNames) {
    const jsonName = protoCamelCase(fieldName);
    const clash = jsonNames.get(jsonName);
    if (clash !== undefined) {
      context.report("json-name-clash", [...path, fieldName], subject, `fields '${clash}' and '${fieldName}' both become ${jsonName} in proto JSON; rename one`, "key");
    }
    jsonNames.set(jsonName, fieldName);
  }
  const fields = fieldNames.map((fieldName) => resolveField(context, [...path, fieldName], subject, fieldName, rawFields[fieldName]!, numbers.get(fieldName)!));
  checkFieldReferences(context, fields, path, subject);
  return {
    name,
    description: options.description,
    fields,
    reserved,
    shared: options.shared,
    usedAsInput: false,
    usedAsOutput: false,
    graphqlName: options.graphqlName,
    graphqlInputName: options.graphqlInputName,
    protoFile: options.protoFile,
    position: context.loaded.locate(path.slice(0, -1), "key"),
  };
}

/** Sets context.sharedMessages and context.sharedByName: the messages of `types:`, in declaration order. */
export function resolveSharedMessages(context: IrContext): void {
  context.sharedMessages = Object.entries(context.raw.types ?? {}).map(([name, rawType]) =>
    buildMessage(context, name, ["types", name, "fields"], `type '${name}'`, rawType.fields, {
      description: rawType.description ?? "",
      shared: true,
      graphqlName: name,
      graphqlInputName: name.endsWith("Input") ? name : `${name}Input`,
      protoFile: context.proto.typesFile,
    }),
  );
  for (const message of context.sharedMessages) {
    const raw = context.raw.types?.[message.name];
    if (raw?.discriminator !== undefined) {
      const at = ["types", message.name, "discriminator"];
      if (raw.one_of !== true) context.report("invalid-one-of", at, `type '${message.name}'`, "a discriminator tags a union's variants: declare one_of: true, or remove it");
      else if (message.fields.some((field) => field.name === raw.discriminator))
        context.report("invalid-one-of", at, `type '${message.name}'`, `discriminator '${raw.discriminator}' is also a variant; name the tag apart from the variants`);
      else {
        const graphqlEnum = `${message.name}${pascalCase(raw.discriminator, context.acronyms)}`;
        if (context.raw.types?.[graphqlEnum] !== undefined || context.raw.enums?.[graphqlEnum] !== undefined)
          context.report("invalid-one-of", at, `type '${message.name}'`, `its tag's GraphQL enum would be ${graphqlEnum}, the name of a declared type or enum; rename one`);
        message.discriminator = { property: raw.discriminator, branchSchemas: Object.fromEntries(message.fields.map((field) => [field.name, `${message.name}.${field.name}`])), graphqlEnum };
      }
    }
    if (raw?.one_of !== true) continue;
    message.oneOf = true;
    const at = ["types", message.name, "one_of"];
    if (message.fields.length < 2) context.report("invalid-one-of", at, `type '${message.name}'`, "a union has two variants or more: declare its fields");
    for (const field of message.fields) {
      if (field.required || field.list)
        context.report(
          "invalid-one-of",
          ["types", message.name, "fields", field.name],
          `type '${message.name}'`,
          `variant '${field.name}' is ${field.list ? "a list" : "required"}; each variant of a union is one optional value (exactly one is set)`,
        );
    }
  }
  context.sharedByName = new Map(context.sharedMessages.map((m) => [m.name, m]));
}
