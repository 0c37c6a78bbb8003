// The context every pass of buildIr reads and fills: the manifest, the diagnostics found so far,
// the lock as this build leaves it, the names fixed by api alone, and the IR pieces the passes
// before have built. A pass reads what earlier passes set and adds its own part.
import { ManifestError, type Diagnostic, type DiagnosticCode, type SourcePosition } from "../../load/diagnostics.js";
import type { LoadedManifest, RawManifest } from "../../load/load.js";
import type { FieldNumberLock } from "../../load/lock.js";
import type { ClientRole, Ir, IrAuthScheme, IrEnum, IrFormat, IrMessage, IrOperation, Protocol } from "../ir.js";
import { clientName, serviceName } from "./names.js";
import type { PackageNames } from "./packages.js";
import type { Report } from "./report.js";

const DEFAULT_ACRONYMS = ["OIDC", "SAML", "SCIM", "JWT", "FGA"];

/** How buildIr reads a manifest. */
export interface BuildOptions {
  /** A client that needs a version read and declares none takes the first read that answers one (the rule before api.version_operation), instead of an error: for manifests of earlier releases. */
  readonly inferVersionOperations?: boolean;
}

export interface IrContext {
  readonly loaded: LoadedManifest;
  readonly options: BuildOptions;
  readonly raw: RawManifest;
  /** Every manifest error found so far, in the order users see them; buildIr throws them all at once. */
  readonly diagnostics: Diagnostic[];
  /** Reports an error at a manifest path. */
  readonly report: Report;
  /** Reports an error at a position already resolved (of an IR message, enum or operation). */
  readonly reportAt: (code: DiagnosticCode, position: SourcePosition, subject: string, message: string) => void;
  /** The field-number lock as this build leaves it: resolving an enum or a message adds its new numbers. */
  readonly nextLock: FieldNumberLock;
  readonly acronyms: ReadonlySet<string>;
  /** The names declared under `enums:` and `types:`, which field types and outputs may name. */
  readonly enumNames: ReadonlySet<string>;
  readonly typeNames: ReadonlySet<string>;
  readonly proto: Omit<Ir["proto"], "services">;
  /** The gRPC service of each surface: api.surfaces.<surface>.service, else derived. */
  readonly serviceNames: Readonly<Record<ClientRole, string>>;
  /** The client class of each surface: api.surfaces.<surface>.client, else derived. */
  readonly clientNames: Readonly<Record<ClientRole, string>>;

  /** Set by resolveEnums. */
  enums: IrEnum[];
  /** Set by resolveFormats: the built-in formats, then the declared ones. */
  formats: Record<string, IrFormat>;
  /** Set by resolveSharedMessages: the messages of `types:`, by name too. */
  sharedMessages: IrMessage[];
  sharedByName: Map<string, IrMessage>;
  /** Set by buildIr from resolveAuthSchemes (auth.ts). */
  authSchemes: IrAuthScheme[];
  /** Set by resolveOperations: the operations, and their inline input and output messages. */
  operations: IrOperation[];
  inlineMessages: IrMessage[];
  /** Set by resolvePackageNames; assembleIr reads it. */
  packages?: PackageNames;
  /** Set by resolveVersionOperations: per client, the read it asks for the server's version (api.version_operation). */
  versionOperations: Partial<Record<ClientRole, string>>;
  /** Set by resolveVersionOperations: the read an org-admin's admin client asks (Ir.tokenVersionOperation). */
  tokenVersionOperation: string | null;
  /** Set by resolveVersionOperations: per protocol, the lowest minimum version of any operation on it (Ir.lowestSince). */
  lowestSince: Partial<Record<Protocol, string>>;
}

export function createContext(loaded: LoadedManifest, lock: FieldNumberLock, options: BuildOptions = {}): IrContext {
  const { raw, file } = loaded;
  const diagnostics: Diagnostic[] = [];
  const acronyms = new Set(raw.api.acronyms ?? DEFAULT_ACRONYMS);
  const declaredSurfaces = raw.api.surfaces ?? {};
  const protoPackage = raw.api.proto_package;
  const protoDirectory = protoPackage.replace(/\./g, "/");
  const reportAt: IrContext["reportAt"] = (code, position, subject, message) => {
    diagnostics.push({ code, file, position, subject, message });
  };
  return {
    options,
    loaded,
    raw,
    diagnostics,
    report: (code, path, subject, message, which = "value") => reportAt(code, loaded.locate(path, which), subject, message),
    reportAt,
    nextLock: structuredClone(lock),
    acronyms,
    enumNames: new Set(Object.keys(raw.enums ?? {})),
    typeNames: new Set(Object.keys(raw.types ?? {})),
    proto: { package: protoPackage, directory: protoDirectory, typesFile: `${protoDirectory}/types.proto` },
    serviceNames: {
      admin: declaredSurfaces.admin?.service ?? serviceName("admin", acronyms),
      user: declaredSurfaces.user?.service ?? serviceName("user", acronyms),
    },
    clientNames: {
      admin: declaredSurfaces.admin?.client ?? clientName("admin", acronyms),
      user: declaredSurfaces.user?.client ?? clientName("user", acronyms),
    },
    enums: [],
    formats: {},
    sharedMessages: [],
    sharedByName: new Map(),
    authSchemes: [],
    operations: [],
    inlineMessages: [],
    versionOperations: {},
    tokenVersionOperation: null,
    lowestSince: {},
  };
}

/** Every message: the shared ones, then the inline ones in operation order (the IR's order). */
export function allMessages(context: IrContext): IrMessage[] {
  return [...context.sharedMessages, ...context.inlineMessages];
}

/** Throws every error reported so far at once: no IR is built from a manifest that has one. */
export function throwReported(context: IrContext): void {
  if (context.diagnostics.length > 0) throw new ManifestError(context.diagnostics);
}
