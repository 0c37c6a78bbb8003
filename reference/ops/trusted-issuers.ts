// Admin: trusted external token issuers. Each maps assertions of one issuer (and audience) to one
// service account; the token endpoint reads them from the store on every assertion.
import type { TrustedIssuer } from "../../generated/types.js";
import { serviceAccount } from "../assertions.js";
import { alreadyExists, applyChanges, type Core, invalid, mustGet, notFound, nowSeconds, pageOf, removeRecord, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";

function checkKeySource(issuer: Pick<TrustedIssuer, "key_source_type" | "jwks_url">): void {
  if (issuer.key_source_type === "jwks_url" && !issuer.jwks_url) throw invalid("jwks_url", "is required when key_source_type is jwks_url");
}

async function assertUnique(core: Core, issuer: TrustedIssuer): Promise<void> {
  const twin = await core.storage.trustedIssuers.find({
    id: { ne: issuer.id },
    issuer_url: issuer.issuer_url,
    expected_aud: issuer.expected_aud,
    service_account_id: issuer.service_account_id,
  });
  if (twin) throw alreadyExists("a trusted issuer already maps this issuer and audience to this service account");
}

export function trustedIssuerOperations({ core }: Deps): Operations<"addTrustedIssuer" | "updateTrustedIssuer" | "deleteTrustedIssuer" | "getTrustedIssuer" | "trustedIssuers"> {
  const { storage } = core;
  return {
    async addTrustedIssuer(input) {
      checkKeySource({ key_source_type: input.key_source_type, jwks_url: input.jwks_url ?? null });
      if (!(await serviceAccount(core, input.service_account_id))) throw notFound("service account (client)");
      const now = nowSeconds(core);
      const issuer: TrustedIssuer = {
        id: core.newId(),
        service_account_id: input.service_account_id,
        name: input.name,
        issuer_url: input.issuer_url,
        key_source_type: input.key_source_type,
        jwks_url: input.jwks_url ?? null,
        expected_aud: input.expected_aud,
        subject_claim: input.subject_claim ?? null,
        allowed_subjects: input.allowed_subjects ?? [],
        issuer_type: input.issuer_type,
        is_active: true,
        created_at: now,
        updated_at: now,
      };
      await assertUnique(core, issuer);
      await storage.trustedIssuers.put(issuer);
      return issuer;
    },

    async updateTrustedIssuer(input) {
      const issuer = await mustGet(storage.trustedIssuers, "trusted issuer", input.id);
      const { id: _id, ...changes } = input;
      const next = applyChanges(issuer, changes);
      checkKeySource(next);
      await assertUnique(core, next);
      next.updated_at = nowSeconds(core);
      await mustUpdate(storage.trustedIssuers, "trusted issuer", next);
      return next;
    },

    async deleteTrustedIssuer(input) {
      return removeRecord(storage.trustedIssuers, "trusted issuer", input.id);
    },

    async getTrustedIssuer(input) {
      return mustGet(storage.trustedIssuers, "trusted issuer", input.id);
    },

    async trustedIssuers(input) {
      const page = await pageOf(storage.trustedIssuers, input.service_account_id == null ? {} : { service_account_id: input.service_account_id }, input.pagination);
      return { pagination: page.pagination, trusted_issuers: page.items };
    },
  };
}
