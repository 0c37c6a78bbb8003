// The names pass: every name an operation is known by in the outputs, derived here once from its
// snake_case name and the manifest's acronyms (api.acronyms), so that no emitter derives its own.
import { camelCase, pascalCase, sentenceCase } from "../naming.js";

export interface OperationNames {
  /** AdminMeta: RPCs, messages, refusal texts. */
  pascalName: string;
  /** adminMeta: client methods. */
  camelName: string;
  /** Sentence case with acronyms, for docs and tool catalogues (Delete org OIDC connection). */
  title: string;
}

export function operationNames(name: string, acronyms: ReadonlySet<string>): OperationNames {
  return { pascalName: pascalCase(name, acronyms), camelName: camelCase(name, acronyms), title: sentenceCase(name, acronyms) };
}

/** The class of a group's operations in the SDKs that split clients by group (org_sso -> OrgSSO). */
export function groupName(group: string, acronyms: ReadonlySet<string>): string {
  return pascalCase(group, acronyms);
}

/** The gRPC service of a surface: AdminService, UserService. */
export function serviceName(surface: string, acronyms: ReadonlySet<string>): string {
  return `${pascalCase(surface, acronyms)}Service`;
}

/** The client class of a surface where the manifest names none (api.surfaces): AdminClient, UserClient. */
export function clientName(surface: string, acronyms: ReadonlySet<string>): string {
  return `${pascalCase(surface, acronyms)}Client`;
}

/** The client method that walks every page of a paginated operation. */
export function iteratorName(pascalName: string): string {
  return `iterate${pascalName}`;
}

/**
 * The TypeScript SDK's open type of an enum (GenreOrUnknown: Genre | (string & {})), which its
 * answers use so that a value added to the service since reads as a string.
 */
export function openEnumName(enumName: string): string {
  return `${enumName}OrUnknown`;
}
