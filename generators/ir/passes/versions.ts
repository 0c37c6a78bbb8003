// The versions pass: no minimum server version of an operation, and no version a breaking change
// is accepted for, may be newer than api.version.
import semver from "semver";
import type { RawManifest, RawOperation } from "../../load/load.js";
import type { Protocol } from "../ir.js";
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
