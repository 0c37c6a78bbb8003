// §3: org domains. request -> pending with the TXT record; verify only when the TXT value is found;
// super-admin add skips the challenge; delete stops home-realm discovery.
import { describe, expect, it } from "vitest";
import { createHarness, expectCode, type Harness } from "./context.js";

/** A DNS stand-in: names map to TXT records (each a list of strings). */
function fakeDns() {
  const records = new Map<string, string[][]>();
  const lookups: string[] = [];
  return {
    records,
    lookups,
    resolver: async (name: string) => {
      lookups.push(name);
      const found = records.get(name);
      if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return found;
    },
  };
}

async function setup() {
  const dns = fakeDns();
  const h = createHarness({ dnsResolver: dns.resolver });
  const org = await h.call("createOrganization", { name: "acme" });
  return { h, dns, orgId: org.id };
}

const resolves = (h: Harness, email: string) => h.service.state.orgForEmailDomain(email);

describe("org domains", () => {
  it("request answers the TXT record to publish and stores a pending domain that does not route logins", async () => {
    const { h, orgId } = await setup();
    const answer = await h.call("requestOrgDomain", { org_id: orgId, domain: "Acme.COM" });
    expect(answer.domain).toMatchObject({ domain: "acme.com", org_id: orgId, status: "pending", verified_at: null });
    expect(answer.txt_record.record_type).toBe("TXT");
    expect(answer.txt_record.name).toBe("_service-challenge.acme.com");
    expect(answer.txt_record.value).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await resolves(h, "alice@acme.com")).toBeNull();

    // Asking again while pending keeps the challenge, so a record already published stays good.
    const again = await h.call("requestOrgDomain", { org_id: orgId, domain: "acme.com" });
    expect(again.txt_record.value).toBe(answer.txt_record.value);
    // The list holds verified domains only: a pending one is not in it, nor in its total.
    const listed = await h.call("orgDomains", { org_id: orgId });
    expect(listed.domains).toEqual([]);
    expect(listed.pagination.total).toBe(0);
  });

  it("verify refuses until the TXT value is found, then verifies and logins resolve to the org", async () => {
    const { h, dns, orgId } = await setup();
    const { txt_record } = await h.call("requestOrgDomain", { org_id: orgId, domain: "acme.com" });

    await expectCode(h.call("verifyOrgDomain", { org_id: orgId, domain: "acme.com" }), "FAILED_PRECONDITION");
    expect(dns.lookups).toEqual(["_service-challenge.acme.com"]);

    dns.records.set(txt_record.name, [["v=spf1 -all"], ["some-other-token"]]);
    await expectCode(h.call("verifyOrgDomain", { org_id: orgId, domain: "acme.com" }), "FAILED_PRECONDITION");
    expect(await resolves(h, "alice@acme.com")).toBeNull();

    // Long TXT values arrive split into strings; they are joined.
    const value = txt_record.value;
    dns.records.set(txt_record.name, [["v=spf1 -all"], [value.slice(0, 10), value.slice(10)]]);
    h.advance(5);
    const verified = await h.call("verifyOrgDomain", { org_id: orgId, domain: "acme.com" });
    expect(verified).toMatchObject({ status: "verified", verified_at: Math.floor(h.now() / 1000) });
    expect(await resolves(h, "alice@ACME.com")).toBe(orgId);
    expect(await resolves(h, "acme.com")).toBe(orgId);
    expect((await h.call("orgDomains", { org_id: orgId })).domains.map((d) => [d.domain, d.status])).toEqual([["acme.com", "verified"]]);
  });

  it("verify without a request is refused, and another org's domain is ALREADY_EXISTS", async () => {
    const { h, orgId } = await setup();
    await expectCode(h.call("verifyOrgDomain", { org_id: orgId, domain: "acme.com" }), "FAILED_PRECONDITION");
    const other = await h.call("createOrganization", { name: "other" });
    await h.call("requestOrgDomain", { org_id: orgId, domain: "acme.com" });
    await expectCode(h.call("requestOrgDomain", { org_id: other.id, domain: "acme.com" }), "ALREADY_EXISTS");
    await expectCode(h.call("addVerifiedOrgDomain", { org_id: other.id, domain: "acme.com" }), "ALREADY_EXISTS");
    await expectCode(h.call("requestOrgDomain", { org_id: "nope", domain: "x.com" }), "NOT_FOUND");
  });

  it("a claim left unverified for a week no longer holds the domain: another organization may claim it", async () => {
    const { h, orgId } = await setup();
    const other = await h.call("createOrganization", { name: "other" });
    await h.call("requestOrgDomain", { org_id: orgId, domain: "acme.com" });
    h.advance(7 * 24 * 3600);
    await expectCode(h.call("requestOrgDomain", { org_id: other.id, domain: "acme.com" }), "ALREADY_EXISTS");
    h.advance(1);
    const claimed = await h.call("requestOrgDomain", { org_id: other.id, domain: "acme.com" });
    expect(claimed.domain).toMatchObject({ domain: "acme.com", org_id: other.id, status: "pending" });
    // The squatter's claim is gone; a verified domain is never taken this way.
    await expectCode(h.call("verifyOrgDomain", { org_id: orgId, domain: "acme.com" }), "ALREADY_EXISTS");
    await h.call("addVerifiedOrgDomain", { org_id: orgId, domain: "verified.example" });
    h.advance(30 * 24 * 3600);
    await expectCode(h.call("requestOrgDomain", { org_id: other.id, domain: "verified.example" }), "ALREADY_EXISTS");
  });

  it("add_verified_org_domain skips the DNS challenge", async () => {
    const { h, dns, orgId } = await setup();
    const domain = await h.call("addVerifiedOrgDomain", { org_id: orgId, domain: "acme.io" });
    expect(domain).toMatchObject({ domain: "acme.io", status: "verified" });
    expect(dns.lookups).toEqual([]);
    expect(await resolves(h, "bob@acme.io")).toBe(orgId);
    await expectCode(h.call("requestOrgDomain", { org_id: orgId, domain: "acme.io" }), "ALREADY_EXISTS");
  });

  it("delete removes a verified domain and logins stop resolving to the org", async () => {
    const { h, orgId } = await setup();
    await h.call("addVerifiedOrgDomain", { org_id: orgId, domain: "acme.com" });
    expect(await resolves(h, "alice@acme.com")).toBe(orgId);
    await h.call("deleteOrgDomain", { domain: "acme.com" });
    expect(await resolves(h, "alice@acme.com")).toBeNull();
    expect((await h.call("orgDomains", { org_id: orgId })).domains).toEqual([]);
    await expectCode(h.call("deleteOrgDomain", { domain: "acme.com" }), "NOT_FOUND");
  });

  it("lists page with limit, page, offset and total", async () => {
    const { h, orgId } = await setup();
    for (const name of ["a.com", "b.com", "c.com"]) await h.call("addVerifiedOrgDomain", { org_id: orgId, domain: name });
    await h.call("requestOrgDomain", { org_id: orgId, domain: "pending.com" });
    const page = await h.call("orgDomains", { org_id: orgId, pagination: { limit: 2, page: 2 } });
    expect(page.pagination).toEqual({ limit: 2, page: 2, offset: 2, total: 3 });
    expect(page.domains.map((d) => d.domain)).toEqual(["c.com"]);
    expect(JSON.stringify(page)).not.toContain("challenge");
  });
});
