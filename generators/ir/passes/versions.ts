// The versions pass: no minimum server version of an operation, and no version a breaking change
// is accepted for, may be newer than api.version; and each client that must learn the server's
// version (one of its operations has a minimum above the lowest on a protocol) has the read that
// answers it, declared in api.version_operation.
import semver from "semver";
import type { RawManifest, RawOperation } from "../../load/load.js";
import { clientRoleOf, PROTOCOLS, type ClientRole, type IrOperation, type Protocol } from "../ir.js";
import { didYouMean } from "../naming.js";
import type { IrContext } from "./context.js";
import type { Report } from "./report.js";

/** Reports a protocol's minimum version of an operation that is newer than api.version. */
export function checkMinimumVersions(rawOp: RawOperation, protocols: readonly Protocol[], apiVersion: string, opPath: readonly (string | number)[], subject: string, report: Report): void {
  for (const protocol of protocols) {
    const since = rawOp.protocols[protocol]!;
    if (semver.valid(since) && semver.valid(apiVersion) && semver.gt(since, apiVersion)) {
      report("version-ahead", [...opPath, "protocols", protocol], subject, `minimum version ${since} on ${protocol} is newer than api.version ${apiVersion}; raise api.version or lower the minimum`);
    }
  }
}

/** Reports a breaking change accepted for a version newer than api.version. */
export function checkAcceptedVersions(api: RawManifest["api"], report: Report): void {
  const apiVersion = api.version;
  (api.breaking_changes_accepted ?? []).forEach((entry, index) => {
    if (entry.version !== undefined && semver.valid(entry.version) && semver.valid(apiVersion) && semver.gt(entry.version, apiVersion)) {
      report(
        "version-ahead",
        ["api", "breaking_changes_accepted", index, "version"],
        "api",
        `breaking change '${entry.change}' is accepted for version ${entry.version}, newer than api.version ${apiVersion}; raise api.version or correct the acceptance's version`,
      );
    }
  });
}

/** Why `op` cannot answer the server's version to a client, or undefined when it can. */
function unfitForVersion(op: IrOperation): string | undefined {
  if (op.kind !== "read") return "is a write; the clients call it on their own before other calls, so it must be a read";
  const required = op.input.fields.filter((f) => f.required).map((f) => f.name);
  if (required.length > 0) return `takes required input (${required.join(", ")}); the clients call it with none`;
  const version = op.output.fields.find((f) => f.name === "version");
  if (!version || version.list || version.type.kind !== "scalar" || version.type.scalar !== "string") return "answers no string field version, which the clients read the server's version from";
  return undefined;
}

/**
 * Sets context.versionOperations from api.version_operation: per client, the read it asks for the
 * server's version. Reports a name that is no operation or no such read, two of one client, and a
 * client that must learn the server's version (one of its operations has, on a protocol, a minimum
 * above the lowest minimum of that protocol over every operation, as the SDKs gate calls) without one.
 */
export function resolveVersionOperations(context: IrContext): void {
  const { raw, operations, report } = context;
  const declared = raw.api.version_operation;
  const names = declared === undefined ? [] : typeof declared === "string" ? [declared] : declared;
  const at = (index: number) => (typeof declared === "string" ? ["api", "version_operation"] : ["api", "version_operation", index]);
  const byName = new Map(operations.map((op) => [op.name, op]));
  const chosen: Partial<Record<ClientRole, string>> = {};
  let unknown = false;
  names.forEach((name, index) => {
    const op = byName.get(name);
    if (!op) {
      unknown = true;
      report("invalid-version-operation", at(index), "api", `version_operation names '${name}', which is no operation${didYouMean(name, byName.keys())}`);
      return;
    }
    const unfit = unfitForVersion(op);
    if (unfit) {
      report("invalid-version-operation", at(index), "api", `version_operation '${name}' ${unfit}`);
      return;
    }
    const role = clientRoleOf(op);
    const first = chosen[role];
    if (first) {
      report("invalid-version-operation", at(index), "api", `version_operation names '${first}' and '${name}', both operations of ${context.clientNames[role]}; name one per client`);
      return;
    }
    chosen[role] = name;
  });
  context.versionOperations = chosen;
  // A name that is no operation may have been meant for any client: its error is the one to fix first.
  if (unknown) return;
  resolveTokenVersionOperation(context, names, byName);

  // An operation's minimum on a protocol, where it is a version (a binding another pass refused has none).
  const sinceOf = (op: IrOperation, protocol: Protocol) => {
    const since = op[protocol]?.since;
    return since !== undefined && semver.valid(since) ? since : undefined;
  };
  const lowest = new Map<Protocol, string>();
  for (const op of operations) {
    for (const protocol of op.protocols) {
      const since = sinceOf(op, protocol);
      const known = lowest.get(protocol);
      if (since !== undefined && (known === undefined || semver.lt(since, known))) lowest.set(protocol, since);
    }
  }
  context.lowestSince = Object.fromEntries(PROTOCOLS.filter((p) => lowest.has(p)).map((p) => [p, lowest.get(p)!]));
  const reported = new Set<ClientRole>();
  for (const op of operations) {
    const role = clientRoleOf(op);
    if (chosen[role] || reported.has(role) || names.some((name) => byName.get(name) && clientRoleOf(byName.get(name)!) === role)) continue;
    const protocol = op.protocols.find((p) => {
      const since = sinceOf(op, p);
      return since !== undefined && semver.gt(since, lowest.get(p)!);
    });
    if (!protocol) continue;
    reported.add(role);
    const candidate = operations.find((o) => clientRoleOf(o) === role && unfitForVersion(o) === undefined);
    // A manifest older than api.version_operation (the old side of a contract diff): its clients
    // asked the first read that answers a version, as they did then.
    if (context.options.inferVersionOperations && candidate) {
      chosen[role] = candidate.name;
      continue;
    }
    report(
      "version-operation-missing",
      ["operations", op.name, "protocols", protocol],
      `operation '${op.name}'`,
      `its minimum version ${sinceOf(op, protocol)} on ${protocol} is above the lowest there (${lowest.get(protocol)}), so ${context.clientNames[role]} must ask the server's version before calling it, and api.version_operation names none of its operations; ` +
        (candidate ? `name the read that answers it (such as '${candidate.name}')` : `add a read of ${context.clientNames[role]} without required input answering version: string!, and name it there`),
    );
  }
}

/**
 * Sets context.tokenVersionOperation: an admin client may call with an org-admin's access token
 * instead of the secret (a scheme of an admin operation has an org role), and where the admin's
 * version read takes no such scheme that token cannot ask it; the client then asks a declared
 * version read that anyone may call. Without one it asks the admin's, as the secret's client does
 * (docs/manifest.md says to declare one; an org-admin then gives the server version in the client's
 * configuration).
 */
function resolveTokenVersionOperation(context: IrContext, names: readonly string[], byName: ReadonlyMap<string, IrOperation>): void {
  const { operations, authSchemes, versionOperations } = context;
  const admin = versionOperations.admin;
  if (!admin) return;
  const scheme = (name: string) => authSchemes.find((s) => s.name === name);
  const takesRoleToken = (op: IrOperation) => op.authAnyOf.some((requirement) => scheme(requirement.scheme)?.orgRole !== undefined);
  if (!operations.some((op) => clientRoleOf(op) === "admin" && takesRoleToken(op)) || takesRoleToken(byName.get(admin)!)) return;
  context.tokenVersionOperation = names.find((name) => byName.get(name)?.authAnyOf.some((requirement) => scheme(requirement.scheme)?.kind === "none")) ?? null;
}
