// Builds protobuf descriptors straight from the proto plan: what `buf build` would make of the
// printed .proto text, including the comments, without starting a compiler.
import { create, toBinary } from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  MethodOptions_IdempotencyLevel,
  SourceCodeInfo_LocationSchema,
  file_google_protobuf_duration,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  type DescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type SourceCodeInfo_Location,
} from "@bufbuild/protobuf/wkt";
import { GENERATED_NOTICE } from "../write/header.js";
import type { GeneratedFile } from "../write/writer.js";
import type { ProtoFieldPlan, ProtoFilePlan, ProtoScalar } from "./proto-plan.js";
import { SERVER_DIR } from "./typescript.js";

export const DESCRIPTOR_SET_MODULE = `${SERVER_DIR}/descriptor-set.ts`;

// Field numbers of descriptor.proto, used as source-code-info paths.
const FILE_MESSAGE_TYPE = 4;
const FILE_ENUM_TYPE = 5;
const FILE_SERVICE = 6;
const FILE_SYNTAX = 12;
const MESSAGE_FIELD = 2;
const ENUM_VALUE = 2;
const SERVICE_METHOD = 2;

const SCALAR_TYPE: Record<ProtoScalar, FieldDescriptorProto_Type> = {
  string: FieldDescriptorProto_Type.STRING,
  bool: FieldDescriptorProto_Type.BOOL,
  int32: FieldDescriptorProto_Type.INT32,
  int64: FieldDescriptorProto_Type.INT64,
  uint32: FieldDescriptorProto_Type.UINT32,
  uint64: FieldDescriptorProto_Type.UINT64,
  float: FieldDescriptorProto_Type.FLOAT,
  double: FieldDescriptorProto_Type.DOUBLE,
  bytes: FieldDescriptorProto_Type.BYTES,
};

/** The well-known files a plan may import, as protobuf-es ships them. */
const WELL_KNOWN = [file_google_protobuf_struct, file_google_protobuf_timestamp, file_google_protobuf_duration].map((file) => file.proto);

/** The descriptors of every planned file, dependencies first, with the well-known imports they need. */
export function buildDescriptors(files: readonly ProtoFilePlan[]): FileDescriptorProto[] {
  const imported = new Set(files.flatMap((f) => f.imports));
  return [...WELL_KNOWN.filter((file) => imported.has(file.name)), ...files.map(buildFile)];
}

function location(path: number[], text: string): SourceCodeInfo_Location {
  return create(SourceCodeInfo_LocationSchema, { path, leadingComments: commentText(text) });
}

/** protoc keeps a `// text` comment as " text\n" per line. */
function commentText(text: string): string {
  return text
    .split("\n")
    .map((line) => (line ? ` ${line}\n` : "\n"))
    .join("");
}

function buildFile(plan: ProtoFilePlan): FileDescriptorProto {
  const locations: SourceCodeInfo_Location[] = [create(SourceCodeInfo_LocationSchema, { path: [FILE_SYNTAX], leadingDetachedComments: [` ${GENERATED_NOTICE}\n`] })];
  const note = (path: number[], text: string) => {
    if (text) locations.push(location(path, text));
  };

  const enumType = plan.enums.map((e, enumIndex) => {
    note([FILE_ENUM_TYPE, enumIndex], e.comment);
    e.values.forEach((v, valueIndex) => {
      note([FILE_ENUM_TYPE, enumIndex, ENUM_VALUE, valueIndex], v.comment);
    });
    return create(EnumDescriptorProtoSchema, {
      name: e.name,
      value: e.values.map((v) => ({ name: v.name, number: v.number, ...(v.deprecated ? { options: { deprecated: true } } : {}) })),
      reservedRange: e.reserved.map((r) => ({ start: r.number, end: r.number })),
      reservedName: e.reserved.map((r) => r.name),
    });
  });

  const messageType = plan.messages.map((message, messageIndex) => {
    note([FILE_MESSAGE_TYPE, messageIndex], message.comment);
    const descriptor = create(DescriptorProtoSchema, {
      name: message.name,
      reservedRange: message.reserved.map((r) => ({ start: r.number, end: r.number + 1 })),
      reservedName: message.reserved.map((r) => r.name),
    });
    if (message.oneof) descriptor.oneofDecl.push({ $typeName: "google.protobuf.OneofDescriptorProto", name: message.oneof });
    message.fields.forEach((field, fieldIndex) => {
      note([FILE_MESSAGE_TYPE, messageIndex, MESSAGE_FIELD, fieldIndex], field.comment);
      const built = buildField(field, descriptor, plan.package, message.name);
      // A union's variants are members of its oneof (declared first: index 0).
      if (message.oneof) built.oneofIndex = 0;
      descriptor.field.push(built);
    });
    // Synthetic oneofs of proto3 `optional` fields come after the fields, in field order.
    for (const field of descriptor.field) {
      if (field.proto3Optional) {
        field.oneofIndex = descriptor.oneofDecl.length;
        descriptor.oneofDecl.push({ $typeName: "google.protobuf.OneofDescriptorProto", name: `_${field.name}` });
      }
    }
    return descriptor;
  });

  const service = plan.services.map((s, serviceIndex) => {
    note([FILE_SERVICE, serviceIndex], s.comment);
    return {
      $typeName: "google.protobuf.ServiceDescriptorProto" as const,
      name: s.name,
      method: s.methods.map((m, methodIndex) => {
        note([FILE_SERVICE, serviceIndex, SERVICE_METHOD, methodIndex], m.comment);
        const method = {
          $typeName: "google.protobuf.MethodDescriptorProto" as const,
          name: m.name,
          inputType: m.inputType,
          outputType: m.outputType,
        } as Record<string, unknown>;
        if (m.deprecated || m.noSideEffects) {
          const options: Record<string, unknown> = { $typeName: "google.protobuf.MethodOptions", uninterpretedOption: [] };
          if (m.deprecated) options.deprecated = true;
          if (m.noSideEffects) options.idempotencyLevel = MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;
          method.options = options;
        }
        return method;
      }),
    };
  });

  return create(FileDescriptorProtoSchema, {
    name: plan.path,
    package: plan.package,
    dependency: plan.imports,
    messageType,
    enumType,
    service: service as never,
    syntax: "proto3",
    sourceCodeInfo: { location: locations },
  });
}

function buildField(field: ProtoFieldPlan, parent: DescriptorProto, pkg: string, parentName: string): FieldDescriptorProto {
  const descriptor = create(FieldDescriptorProtoSchema, {
    name: field.name,
    number: field.number,
    label: field.repeated || field.type.kind === "map" ? FieldDescriptorProto_Label.REPEATED : FieldDescriptorProto_Label.OPTIONAL,
    jsonName: protoCamelCase(field.name),
  });
  if (field.deprecated) descriptor.options = { $typeName: "google.protobuf.FieldOptions", deprecated: true, uninterpretedOption: [], targets: [], editionDefaults: [] } as never;
  switch (field.type.kind) {
    case "scalar":
      descriptor.type = SCALAR_TYPE[field.type.scalar];
      break;
    case "enum":
      descriptor.type = FieldDescriptorProto_Type.ENUM;
      descriptor.typeName = field.type.typeName;
      break;
    case "message":
      descriptor.type = FieldDescriptorProto_Type.MESSAGE;
      descriptor.typeName = field.type.typeName;
      break;
    case "map": {
      // A map field is a repeated nested *Entry message, as protoc desugars it.
      const entryName = `${protoCamelCase(field.name).replace(/^./, (c) => c.toUpperCase())}Entry`;
      parent.nestedType.push(
        create(DescriptorProtoSchema, {
          name: entryName,
          field: [
            { name: "key", number: 1, label: FieldDescriptorProto_Label.OPTIONAL, type: FieldDescriptorProto_Type.STRING, jsonName: "key" },
            {
              name: "value",
              number: 2,
              label: FieldDescriptorProto_Label.OPTIONAL,
              ...(field.type.value.kind === "scalar"
                ? { type: SCALAR_TYPE[field.type.value.scalar] }
                : { type: field.type.value.kind === "enum" ? FieldDescriptorProto_Type.ENUM : FieldDescriptorProto_Type.MESSAGE, typeName: field.type.value.typeName }),
              jsonName: "value",
            },
          ],
          options: { mapEntry: true },
        }),
      );
      descriptor.type = FieldDescriptorProto_Type.MESSAGE;
      descriptor.typeName = `.${pkg}.${parentName}.${entryName}`;
      break;
    }
  }
  if (field.optional) descriptor.proto3Optional = true;
  return descriptor;
}

/**
 * The descriptors as a module of the server: the FileDescriptorSet (what `buf build -o` writes),
 * base64-encoded, which gRPC server reflection serves. Without source info, as protoc-gen-go embeds
 * descriptors: ours has comments but no spans, and protobuf-go (grpcurl) refuses locations without.
 */
export function emitDescriptorSetModule(descriptors: FileDescriptorProto[]): GeneratedFile {
  const files = descriptors.map((file) => create(FileDescriptorProtoSchema, { ...file, sourceCodeInfo: undefined }));
  const set = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }));
  return {
    path: DESCRIPTOR_SET_MODULE,
    content: `/** The FileDescriptorSet of proto/ (binary, base64, without source info), for gRPC server reflection. */\nexport const descriptorSet = ${JSON.stringify(Buffer.from(set).toString("base64"))};\n`,
  };
}
