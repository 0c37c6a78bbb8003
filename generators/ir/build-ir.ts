// Turns a schema-valid manifest into the IR, checking everything a JSON Schema cannot say
// (references, name collisions, protocol and flag consistency). All problems are reported at once.
// buildIr runs the passes of generators/ir/passes/ in order over one context (passes/context.ts):
// each reads what the passes before it built and adds its own part.
import type { LoadedManifest } from "../load/load.js";
import type { FieldNumberLock } from "../load/lock.js";
import type { Ir } from "./ir.js";
import { assembleIr } from "./passes/assemble.js";
import { resolveAuthSchemes } from "./passes/auth.js";
import { createContext, throwReported, type BuildOptions } from "./passes/context.js";
import { resolveEnums } from "./passes/enums.js";
import { resolveFormats } from "./passes/formats.js";
import { checkGraphqlReach, checkGraphqlReservedNames } from "./passes/graphql.js";
import { resolveSharedMessages } from "./passes/messages.js";
import { resolveOperations } from "./passes/operations.js";
import { resolvePackageNames } from "./passes/packages.js";
import { checkUniqueNames } from "./passes/uniqueness.js";
import { markMessageUsage } from "./passes/usage.js";
import { checkAcceptedVersions, resolveVersionOperations } from "./passes/versions.js";

export function buildIr(loaded: LoadedManifest, lock: FieldNumberLock, options: BuildOptions = {}): Ir {
  const context = createContext(loaded, lock, options);
  // context.enums, first: field types, enum defaults and required_if values are resolved against them.
  resolveEnums(context);
  // context.formats, before any field: a string field's format must name one.
  resolveFormats(context);
  // context.sharedMessages (types:), before the operations: their fields and outputs name them.
  resolveSharedMessages(context);
  // context.authSchemes, before the operations: an operation's auth, error codes and session cookie come from its scheme.
  context.authSchemes = resolveAuthSchemes(context.raw, context.report);
  // context.operations and their inline messages, once every type, format and scheme they name is known.
  resolveOperations(context);
  // usedAsInput and usedAsOutput of the shared messages, now that every operation has its input and output.
  markMessageUsage(context);
  // Errors only, once the operations have their GraphQL bindings: a type GraphQL reaches needs a field; reserved names.
  checkGraphqlReach(context);
  checkGraphqlReservedNames(context);
  // Errors only, after the usage: a message takes its GraphQL input or output name only where it is used so.
  checkUniqueNames(context);
  // context.packages, after the messages: api.packages.go.field_names must name fields they hold.
  resolvePackageNames(context);
  // context.versionOperations, once every operation has its protocols, input and output: the reads api.version_operation declares, and a client that needs one.
  resolveVersionOperations(context);
  // Errors only, from api alone: versions a breaking change is accepted for, reported last.
  checkAcceptedVersions(context.raw.api, context.report);
  // Every error at once, before anything is derived from a manifest that has one.
  throwReported(context);
  // Groups, services, clients and API settings that only a valid whole decides, joined with the parts above.
  return assembleIr(context);
}
