// Admin: organization domains for home-realm discovery. request -> pending (answers the TXT record
// to publish); verify -> verified once the TXT record is found through the DNS resolver; a
// super-admin may add a verified domain directly; delete removes it and logins stop resolving.
// A domain belongs to at most one organization, pending or verified.
import { alreadyExists, mustGet, nowSeconds, pageOf, refused, type Core, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { randomToken } from "../secrets.js";
import type { OrgDomainRecord } from "../storage.js";
import { publicDomain } from "../views.js";

export const CHALLENGE_PREFIX = "_service-challenge.";

const normalizeDomain = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, "");
const challengeName = (domain: string) => `${CHALLENGE_PREFIX}${domain}`;

/** The organization a verified domain (or the domain of an email address) routes logins to. */
export async function orgForEmailDomain(core: Core, domainOrEmail: string): Promise<string | null> {
  const domain = normalizeDomain(domainOrEmail.includes("@") ? domainOrEmail.slice(domainOrEmail.lastIndexOf("@") + 1) : domainOrEmail);
  const record = await core.storage.orgDomains.get(domain);
  return record && record.status === "verified" ? record.org_id : null;
}

/** How long an unverified claim on a domain holds it: after that, another organization may claim it. */
export const PENDING_DOMAIN_SECONDS = 7 * 24 * 3600;

async function domainFor(core: Core, orgId: string, domain: string): Promise<OrgDomainRecord | undefined> {
  const record = await core.storage.orgDomains.get(domain);
  if (record && record.org_id !== orgId) {
    // A claim nobody proved within a week squats on nothing: it goes, and the domain is free.
    if (record.status === "pending" && nowSeconds(core) - record.created_at > PENDING_DOMAIN_SECONDS) {
      await core.storage.orgDomains.delete(domain);
      return undefined;
    }
    throw alreadyExists("the domain already belongs to another organization");
  }
  return record;
}

export function orgDomainOperations({ core }: Deps): Operations<"requestOrgDomain" | "verifyOrgDomain" | "addVerifiedOrgDomain" | "deleteOrgDomain" | "orgDomains"> {
  const { storage } = core;
  const mustGetOrg = (id: string) => mustGet(storage.organizations, "organization", id);

  return {
    async requestOrgDomain(input) {
      await mustGetOrg(input.org_id);
      const domain = normalizeDomain(input.domain);
      let record = await domainFor(core, input.org_id, domain);
      if (record?.status === "verified") throw alreadyExists("the domain is already verified for this organization");
      // Asking again while pending answers the same challenge, so a record already published stays valid.
      if (!record) {
        const now = nowSeconds(core);
        record = { domain, org_id: input.org_id, status: "pending", verified_at: null, created_at: now, updated_at: now, challenge: randomToken("", core.random) };
        await storage.orgDomains.insert(record);
      }
      return { domain: publicDomain(record), txt_record: { record_type: "TXT", name: challengeName(domain), value: record.challenge } };
    },

    async verifyOrgDomain(input) {
      await mustGetOrg(input.org_id);
      const domain = normalizeDomain(input.domain);
      const record = await domainFor(core, input.org_id, domain);
      if (!record) throw refused(`domain ${domain} has no pending verification for organization ${input.org_id}; request it first`);
      if (record.status === "verified") return publicDomain(record);
      let answers: string[][];
      try {
        answers = await core.dnsResolver(challengeName(domain));
      } catch (error) {
        const code = (error as { code?: string }).code ?? "lookup failed";
        throw refused(`no TXT record at ${challengeName(domain)} yet (${code})`);
      }
      // A TXT record may arrive split into several strings; they form one value.
      if (!answers.some((chunks) => chunks.join("") === record.challenge)) {
        throw refused(`the TXT record at ${challengeName(domain)} does not hold the challenge value yet`);
      }
      const now = nowSeconds(core);
      const verified: OrgDomainRecord = { ...record, status: "verified", verified_at: now, updated_at: now };
      await mustUpdate(storage.orgDomains, "domain", verified);
      return publicDomain(verified);
    },

    async addVerifiedOrgDomain(input) {
      await mustGetOrg(input.org_id);
      const domain = normalizeDomain(input.domain);
      const existing = await domainFor(core, input.org_id, domain);
      if (existing?.status === "verified") return publicDomain(existing);
      const now = nowSeconds(core);
      const record: OrgDomainRecord = {
        domain,
        org_id: input.org_id,
        status: "verified",
        verified_at: now,
        created_at: existing?.created_at ?? now,
        updated_at: now,
        challenge: existing?.challenge ?? randomToken("", core.random),
      };
      await (existing ? mustUpdate(storage.orgDomains, "domain", record) : storage.orgDomains.insert(record));
      return publicDomain(record);
    },

    async deleteOrgDomain(input) {
      const domain = normalizeDomain(input.domain);
      await mustGet(storage.orgDomains, "domain", domain);
      await storage.orgDomains.delete(domain);
      return { message: `domain ${domain} deleted` };
    },

    async orgDomains(input) {
      await mustGetOrg(input.org_id);
      // Verified only (spec §4.3): a pending domain is seen through requestOrgDomain's answer and verifyOrgDomain.
      const page = await pageOf(storage.orgDomains, { org_id: input.org_id, status: "verified" }, input.pagination);
      return { pagination: page.pagination, domains: page.items.map(publicDomain) };
    },
  };
}
