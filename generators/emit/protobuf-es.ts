// Runs protoc-gen-es in-process on descriptors built from the IR, instead of spawning buf and a
// plugin process: same plugin, same output, without compiling text we already hold as data.
import { createHash } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { protocGenEs } from "@bufbuild/protoc-gen-es/dist/cjs/src/protoc-gen-es-plugin.js";
import type { DerivedGroup, GeneratedFile } from "../write/writer.js";

/** Kept equal to the `opt` of proto/buf.gen.yaml, so `buf generate` writes the very same files. */
export const PROTOC_GEN_ES_OPTIONS = "target=ts,import_extension=js";
export const PROTOBUF_ES_OUT = "generated/proto";

/** The module protoc-gen-es writes for a .proto file, as imported from a sibling of generated/proto/. */
export function protobufEsModule(protoFile: string): string {
  return `../proto/${protoFile.replace(/\.proto$/, "_pb.js")}`;
}

/**
 * The TS message files, as a derived group: their content is a pure function of the request
 * (descriptors, options) and the plugin version, so an unchanged request lets the writer keep the
 * files already on disk, once it has checked their hashes, instead of running the plugin again.
 */
export function emitProtobufEs(descriptors: FileDescriptorProto[], filesToGenerate: string[]): DerivedGroup {
  const request = create(CodeGeneratorRequestSchema, {
    fileToGenerate: filesToGenerate,
    parameter: PROTOC_GEN_ES_OPTIONS,
    protoFile: descriptors,
  });
  const inputHash = createHash("sha256").update(`${protocGenEs.name} ${protocGenEs.version}\n`).update(toBinary(CodeGeneratorRequestSchema, request)).digest("hex");
  return {
    name: "protoc-gen-es",
    inputHash,
    produce() {
      const response = protocGenEs.run(request);
      if (response.error) throw new Error(`protoc-gen-es failed: ${response.error}`);
      return response.file.map((file) => ({
        path: `${PROTOBUF_ES_OUT}/${file.name}`,
        content: file.content,
        // protoc-gen-es writes its own "@generated" preamble, after our notice carried on the syntax line.
        header: false,
      }));
    },
  };
}

export function emitBufConfig(): GeneratedFile[] {
  return [
    {
      path: "proto/buf.yaml",
      content: ["version: v2", "lint:", "  use:", "    - STANDARD", "breaking:", "  use:", "    - WIRE_JSON", ""].join("\n"),
    },
    {
      path: "proto/buf.gen.yaml",
      content: ["version: v2", "plugins:", "  - local: protoc-gen-es", `    out: ../${PROTOBUF_ES_OUT}`, `    opt: ${PROTOC_GEN_ES_OPTIONS}`, ""].join("\n"),
    },
  ];
}
