// Server reflection (v1 and v1alpha, @grpc/reflection) and grpc.health.v1 (grpc-health-check) on
// the gRPC port. Reflection lists and describes what the descriptors it is given declare: the
// generator's FileDescriptorSet, plus the descriptors of health and of reflection itself, so that
// `grpcurl list` shows every service the port answers, as a grpc-go server's does.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { FileDescriptorProtoSchema, type DescriptorProto } from "@bufbuild/protobuf/wkt";
import type { Server, ServiceDefinition } from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import type { HealthImplementation } from "grpc-health-check";

export const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Splits a FileDescriptorSet into its files, still encoded (`repeated FileDescriptorProto file = 1`). */
function descriptorFiles(descriptorSetBase64: string): Buffer[] {
  const reader = new BinaryReader(Buffer.from(descriptorSetBase64, "base64"));
  const files: Buffer[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) files.push(asBuffer(reader.bytes()));
    else reader.skip(wireType);
  }
  return files;
}

/**
 * @grpc/proto-loader (protobufjs) names the entry message of a map field after the field
 * ("Statuses") where protoc names it "StatusesEntry", and protobuf-go clients such as grpcurl
 * refuse the descriptor; this renames them as protoc does.
 */
function withProtocMapEntries(file: Buffer): Buffer {
  const descriptor = fromBinary(FileDescriptorProtoSchema, file);
  let renamed = false;
  const visit = (message: DescriptorProto) => {
    for (const field of message.field) {
      const entry = message.nestedType.find((nested) => nested.options?.mapEntry && field.typeName.split(".").pop() === nested.name);
      const name = `${protoCamelCase(field.name).replace(/^./, (c) => c.toUpperCase())}Entry`;
      if (!entry || entry.name === name) continue;
      field.typeName = field.typeName.slice(0, field.typeName.length - entry.name.length) + name;
      entry.name = name;
      renamed = true;
    }
    message.nestedType.forEach(visit);
  };
  descriptor.messageType.forEach(visit);
  return renamed ? asBuffer(toBinary(FileDescriptorProtoSchema, descriptor)) : file;
}

/** The descriptors behind service definitions that @grpc/proto-loader made (health, reflection). */
function filesOf(definition: ServiceDefinition): Buffer[] {
  const files = Object.values(definition).flatMap((method) => (method as { requestType?: { fileDescriptorProtos?: Buffer[] } }).requestType?.fileDescriptorProtos ?? []);
  return [...new Set(files)].map(withProtocMapEntries);
}

let reflectionFiles: Buffer[] | undefined;
/** The reflection service's own descriptors (it loads them when added to a server), so that it lists itself. */
function reflectionDescriptors(): Buffer[] {
  if (!reflectionFiles) {
    const files: Buffer[] = [];
    new ReflectionService({}).addToServer({ addService: (definition) => files.push(...filesOf(definition)) });
    reflectionFiles = files;
  }
  return reflectionFiles;
}

/** Adds `health` and server reflection of `descriptorSet` (base64) to `server`. */
export function addHealthAndReflection(server: Server, health: HealthImplementation, descriptorSet: string): void {
  const healthFiles: Buffer[] = [];
  health.addToServer({
    addService: (definition, implementation) => {
      healthFiles.push(...filesOf(definition));
      server.addService(definition, implementation);
    },
  });
  // Reflection reads only the `fileDescriptorProtos` of the package definition it is given.
  const files = [...descriptorFiles(descriptorSet), ...healthFiles, ...reflectionDescriptors()];
  new ReflectionService({ descriptors: { format: "Protocol Buffer 3 DescriptorProto", type: {}, fileDescriptorProtos: files } }).addToServer(server);
}
