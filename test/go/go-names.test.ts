// Go's names of manifest words (generators/sdk/go-names.ts): initialisms in capitals, their plurals
// with a lower-case s (TicketIDs beside TicketID), and the manifest's own Go names winning.
import { describe, expect, it } from "vitest";
import { buildIr } from "../../generators/ir/build-ir.js";
import { loadManifestText } from "../../generators/load/load.js";
import { emptyLock } from "../../generators/load/lock.js";
import { GO_INITIALISMS, goFieldName, goInitialisms, goName } from "../../generators/sdk/go-names.js";
import { readFixture } from "../helpers/project.js";

const initialisms = new Set([...GO_INITIALISMS, "SAML", "JWKS"]);

describe("goName", () => {
  it("writes the plural of an initialism as Go does: ticket_ids is TicketIDs beside TicketID", () => {
    expect(["ticket_id", "ticket_ids", "redirect_uris", "callback_urls", "allowed_ips", "api_ids", "apis", "ids", "uuids", "saml_ids"].map((w) => goName(w, initialisms))).toEqual([
      "TicketID",
      "TicketIDs",
      "RedirectURIs",
      "CallbackURLs",
      "AllowedIPs",
      "APIIDs",
      "APIs",
      "IDs",
      "UUIDs",
      "SAMLIDs",
    ]);
  });

  it("leaves words that merely end in s, an initialism written whole, and words of two letters alone", () => {
    expect(["jwks_url", "https_port", "status", "address", "ids_enabled", "is", "us", "samls"].map((w) => goName(w, initialisms))).toEqual([
      "JWKSURL",
      "HTTPSPort",
      "Status",
      "Address",
      "IDsEnabled",
      "Is",
      "Us",
      "SAMLs",
    ]);
  });

  it("gives a struct field of a list of ids its plural name, unless api.packages.go.field_names names it", () => {
    const manifest = readFixture("minimal.yaml").replace("      roles: string[]!\n", "      roles: string[]!\n      group_ids: string[]!\n");
    const ir = buildIr(loadManifestText(manifest), emptyLock());
    expect(goFieldName(ir, "group_ids", goInitialisms(ir))).toBe("GroupIDs");
    const pinned = buildIr(loadManifestText(manifest.replace("  proto_package: mini.v1\n", "  proto_package: mini.v1\n  packages: { go: { field_names: { group_ids: GroupIds } } }\n")), emptyLock());
    expect(goFieldName(pinned, "group_ids", goInitialisms(pinned))).toBe("GroupIds");
  });
});
