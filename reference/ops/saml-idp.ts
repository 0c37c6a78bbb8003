// Admin: the SAML identity provider of each organization: downstream service providers and the
// IdP signing keys. Key lifecycle: rotate makes a new current key and demotes the previous current
// key to published (verifies, no longer signs); retire moves a published key to retired (out of
// the metadata); the current key cannot be retired.
import { generateKeyPair, type KeyObject } from "node:crypto";
import type { SAMLServiceProvider } from "../../generated/types.js";
import { alreadyExists, type Core, mustGet, nowSeconds, pageOf, refused, removeRecord, saveChanges, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { parseSpMetadata } from "../saml-metadata.js";
import type { SAMLIDPKeyRecord } from "../storage.js";
import { publicIdpKey } from "../views.js";
import { selfSignedCertificate } from "../x509.js";

const CERTIFICATE_YEARS = 5;

/** The default source of SAML IdP key pairs: a new RSA-2048 key pair each time. */
export const newRsaKeyPair = () =>
  new Promise<{ privateKey: KeyObject; publicKey: KeyObject }>((resolve, reject) =>
    generateKeyPair("rsa", { modulusLength: 2048 }, (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey }))),
  );

async function assertEntityIdFree(core: Core, orgId: string, entityId: string, exceptId?: string): Promise<void> {
  const twin = await core.storage.samlServiceProviders.find(exceptId === undefined ? { org_id: orgId, entity_id: entityId } : { org_id: orgId, entity_id: entityId, id: { ne: exceptId } });
  if (twin) throw alreadyExists("a service provider of the organization already has this entity_id");
}

/** Runs tasks of one key one at a time (rotations of an org, so there is never more than one current key). */
function serialQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const next = (tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(run);
    tails.set(key, next);
    void next.then(
      () => tails.get(key) === next && tails.delete(key),
      () => tails.get(key) === next && tails.delete(key),
    );
    return next;
  };
}

export function samlIdpOperations({
  core,
}: Deps): Operations<
  | "createSAMLServiceProvider"
  | "updateSAMLServiceProvider"
  | "deleteSAMLServiceProvider"
  | "getSAMLServiceProvider"
  | "listSAMLServiceProviders"
  | "rotateSAMLIDPCert"
  | "retireSAMLIDPKey"
  | "listSAMLIDPKeys"
  | "importSAMLSPMetadata"
> {
  const { storage } = core;
  const mustGetOrg = (id: string) => mustGet(storage.organizations, "organization", id);
  const oneRotationAtATime = serialQueue();

  return {
    async createSAMLServiceProvider(input) {
      await mustGetOrg(input.org_id);
      await assertEntityIdFree(core, input.org_id, input.entity_id);
      const now = nowSeconds(core);
      const sp: SAMLServiceProvider = {
        id: core.newId(),
        org_id: input.org_id,
        name: input.name,
        entity_id: input.entity_id,
        acs_url: input.acs_url,
        sp_cert_pem: input.sp_cert_pem ?? null,
        name_id_format: input.name_id_format ?? null,
        mapped_attributes: input.mapped_attributes ?? {},
        allow_idp_initiated: input.allow_idp_initiated ?? false,
        is_active: true,
        created_at: now,
        updated_at: now,
      };
      await storage.samlServiceProviders.put(sp);
      return sp;
    },

    async updateSAMLServiceProvider(input) {
      const sp = await mustGet(storage.samlServiceProviders, "SAML service provider", input.id);
      if (input.entity_id) await assertEntityIdFree(core, sp.org_id, input.entity_id, sp.id);
      const { id: _id, ...changes } = input;
      return await saveChanges(core, storage.samlServiceProviders, "SAML service provider", sp, changes);
    },

    async deleteSAMLServiceProvider(input) {
      return removeRecord(storage.samlServiceProviders, "SAML service provider", input.id);
    },

    async getSAMLServiceProvider(input) {
      return mustGet(storage.samlServiceProviders, "SAML service provider", input.id);
    },

    async listSAMLServiceProviders(input) {
      await mustGetOrg(input.org_id);
      const page = await pageOf(storage.samlServiceProviders, { org_id: input.org_id }, input.pagination);
      return { pagination: page.pagination, saml_service_providers: page.items };
    },

    async rotateSAMLIDPCert(input) {
      const org = await mustGetOrg(input.org_id);
      const { privateKey, publicKey } = await core.newRsaKeyPair();
      return oneRotationAtATime(org.id, async () => {
        const now = nowSeconds(core);
        const notBefore = new Date(now * 1000);
        const notAfter = new Date(notBefore);
        notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_YEARS);
        const key: SAMLIDPKeyRecord = {
          id: core.newId(),
          org_id: org.id,
          status: "current",
          certificate_pem: selfSignedCertificate({ privateKey, publicKey, commonName: `${org.name} SAML IdP`, notBefore, notAfter, random: core.random }),
          created_at: now,
          retired_at: null,
          private_key_pem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
        };
        // Demoting the current key and adding the new one happen together or not at all; the
        // database holds one current key per organization (a rotation racing on another replica fails).
        await storage.transaction(async () => {
          for (const previous of await storage.samlIdpKeys.list({ org_id: org.id, status: "current" })) {
            await storage.samlIdpKeys.update({ ...previous, status: "published" });
          }
          await storage.samlIdpKeys.insert(key);
        });
        return publicIdpKey(key);
      });
    },

    async retireSAMLIDPKey(input) {
      const key = await mustGet(storage.samlIdpKeys, "SAML IdP key", input.id);
      if (key.status === "current") throw refused(`SAML IdP key ${key.id} is the current signing key and cannot be retired; rotate first`);
      if (key.status === "retired") throw refused(`SAML IdP key ${key.id} is already retired`);
      const retired: SAMLIDPKeyRecord = { ...key, status: "retired", retired_at: nowSeconds(core) };
      await mustUpdate(storage.samlIdpKeys, "SAML IdP key", retired);
      return publicIdpKey(retired);
    },

    async listSAMLIDPKeys(input) {
      await mustGetOrg(input.org_id);
      return { keys: (await storage.samlIdpKeys.list({ org_id: input.org_id })).map(publicIdpKey) };
    },

    async importSAMLSPMetadata(input) {
      return parseSpMetadata(input.metadata_xml);
    },
  };
}
