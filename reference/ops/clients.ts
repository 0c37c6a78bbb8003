// Admin: machine clients (service accounts). A secret is shown once, on create and on rotate;
// the store keeps only salted hashes. After a rotation the previous secret keeps working for
// `clientSecretGraceSeconds` so callers can roll over without downtime.
import { applyChanges, mustGet, nowSeconds, pageOf, type Core, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import { randomToken, saltedSha256, sameDigest } from "../secrets.js";
import type { ClientRecord, ClientSecretHash } from "../storage.js";
import { publicClient } from "../views.js";

function newSecret(core: Core): { secret: string; hash: ClientSecretHash } {
  const secret = randomToken("cs_", core.random);
  return { secret, hash: { ...saltedSha256(secret), created_at: nowSeconds(core), expires_at: null } };
}

/** Whether `secret` is a live secret of the client: the current one, or a rotated one still in its grace window. */
export function clientSecretMatches(core: Core, client: ClientRecord, secret: string): boolean {
  const now = nowSeconds(core);
  let matched = false;
  // Every live hash is compared, so the time taken does not tell which one matched.
  for (const stored of client.secrets) {
    if (stored.expires_at !== null && stored.expires_at <= now) continue;
    if (sameDigest(saltedSha256(secret, stored.salt).hash, stored.hash)) matched = true;
  }
  return matched;
}

export function clientByClientId(core: Core, clientId: string): Promise<ClientRecord | undefined> {
  return core.storage.clients.find({ client_id: clientId });
}

/** Audiences a token may be issued for, and user operations accept: this service (its issuer URL and own client id) or a registered client. */
export async function isServiceAudience(core: Core, audience: unknown): Promise<boolean> {
  if (audience === core.config.issuer || audience === core.config.clientId) return true;
  return typeof audience === "string" && (await clientByClientId(core, audience)) !== undefined;
}

export function clientOperations({ core }: Deps): Operations<"createClient" | "updateClient" | "deleteClient" | "rotateClientSecret" | "getClient" | "clients"> {
  const { storage } = core;
  return {
    async createClient(input) {
      const now = nowSeconds(core);
      const { secret, hash } = newSecret(core);
      const client: ClientRecord = {
        id: core.newId(),
        client_id: core.newId(),
        name: input.name,
        description: input.description ?? null,
        allowed_scopes: [...new Set(input.allowed_scopes)],
        is_active: true,
        allow_token_exchange: input.allow_token_exchange ?? false,
        redirect_uris: [...new Set(input.redirect_uris ?? [])],
        post_logout_redirect_uris: [...new Set(input.post_logout_redirect_uris ?? [])],
        created_at: now,
        updated_at: now,
        secrets: [hash],
      };
      await storage.clients.put(client);
      return { client: publicClient(client), client_secret: secret };
    },

    async updateClient(input) {
      const client = await mustGet(storage.clients, "client", input.id);
      const next = applyChanges(client, {
        name: input.name,
        description: input.description,
        allowed_scopes: input.allowed_scopes,
        is_active: input.is_active,
        allow_token_exchange: input.allow_token_exchange,
        redirect_uris: input.redirect_uris == null ? undefined : [...new Set(input.redirect_uris)],
        post_logout_redirect_uris: input.post_logout_redirect_uris == null ? undefined : [...new Set(input.post_logout_redirect_uris)],
      });
      next.updated_at = nowSeconds(core);
      await mustUpdate(storage.clients, "client", next);
      return publicClient(next);
    },

    async deleteClient(input) {
      const client = await mustGet(storage.clients, "client", input.id);
      // Access tokens name the client and fail once it is gone; refresh tokens and codes go with it.
      await storage.transaction(async () => {
        await storage.clients.delete(client.id);
        await storage.refreshTokens.deleteWhere({ client_id: client.client_id });
        await storage.authorizationCodes.deleteWhere({ client_id: client.client_id });
      });
      return { message: `client ${client.id} deleted` };
    },

    async rotateClientSecret(input) {
      const client = await mustGet(storage.clients, "client", input.id);
      const now = nowSeconds(core);
      const graceEnds = now + core.config.clientSecretGraceSeconds;
      const { secret, hash } = newSecret(core);
      client.secrets = [...client.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => (s.expires_at === null ? { ...s, expires_at: graceEnds } : s)), hash];
      client.updated_at = now;
      await mustUpdate(storage.clients, "client", client);
      return { client: publicClient(client), client_secret: secret };
    },

    async getClient(input) {
      return publicClient(await mustGet(storage.clients, "client", input.id));
    },

    async clients(input) {
      const page = await pageOf(storage.clients, {}, input.pagination);
      return { pagination: page.pagination, clients: page.items.map(publicClient) };
    },
  };
}
