// The pipeline: load the manifest, build the IR, run every emitter. Pure up to the writer.
import { join } from "node:path";
import { buildIr } from "./ir/build-ir.js";
import type { Ir } from "./ir/ir.js";
import { loadManifestFile } from "./load/load.js";
import { LOCK_PATH, readLock, serializeLock } from "./load/lock.js";
import { emitGraphql, printGraphql } from "./emit/graphql.js";
import { emitGraphqlSchemaModule, emitOpenapiDocumentModule, emitTypescript } from "./emit/typescript.js";
import { emitClients } from "./sdk/client.js";
import { emitDocs } from "./emit/docs.js";
import { emitDocsSite } from "./emit/docs-site.js";
import { emitMcpTools } from "./emit/mcp.js";
import { emitPackages } from "./emit/packages.js";
import { emitGo, emitGoDescriptors } from "./sdk/go.js";
import { buildOpenapi, emitOpenapi } from "./emit/openapi.js";
import { emitOpenapiPythonClientConfig } from "./emit/openapi-python-client.js";
import { toYaml } from "./emit/yaml-text.js";
import { emitPython, emitPythonDescriptors } from "./sdk/python.js";
import { buildDescriptors, emitDescriptorSetModule } from "./emit/proto-descriptors.js";
import { planProto } from "./emit/proto-plan.js";
import { emitProtoText } from "./emit/proto-text.js";
import { emitBufConfig, emitProtobufEs } from "./emit/protobuf-es.js";
import type { DerivedGroup, GeneratedFile } from "./write/writer.js";

export const DEFAULT_MANIFEST = "operations.yaml";

/** Loads and validates the manifest at `root/manifestPath` into the IR (throws ManifestError). */
export function loadIr(root: string, manifestPath = DEFAULT_MANIFEST): Ir {
  const loaded = loadManifestFile(join(root, manifestPath), manifestPath);
  return buildIr(loaded, readLock(root));
}

export interface Emitted {
  files: GeneratedFile[];
  groups: DerivedGroup[];
}

/** Every file the IR produces. */
export function emitAll(ir: Ir): Emitted {
  const protoPlan = planProto(ir);
  const descriptors = buildDescriptors(protoPlan);
  const protobufEs = emitProtobufEs(
    descriptors,
    protoPlan.map((file) => file.path),
  );
  const sdl = printGraphql(ir);
  const openapi = buildOpenapi(ir);
  const openapiYaml = toYaml(openapi);
  return {
    files: [
      ...emitProtoText(protoPlan),
      ...emitBufConfig(),
      { path: LOCK_PATH, content: serializeLock(ir.lock), header: false },
      ...emitGraphql(sdl, ir),
      ...emitOpenapi(openapiYaml),
      emitOpenapiPythonClientConfig(openapi as { components: { schemas: Record<string, unknown> } }),
      ...emitTypescript(ir),
      emitGraphqlSchemaModule(sdl),
      emitOpenapiDocumentModule(openapiYaml),
      emitDescriptorSetModule(descriptors),
      ...emitClients(ir),
      ...emitPackages(
        ir,
        protoPlan.map((file) => file.path),
      ),
      ...emitDocs(ir),
      ...emitDocsSite(ir),
      ...emitMcpTools(ir),
      ...emitPython(ir),
      ...emitGo(ir),
    ],
    groups: [protobufEs, emitPythonDescriptors(ir, descriptors, protobufEs.inputHash), emitGoDescriptors(descriptors, protobufEs.inputHash)],
  };
}
