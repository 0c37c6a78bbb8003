// Admin: users, pending verification requests, revoking and re-enabling access, invitations.
import { ServiceError } from "../../generated/server/index.js";
import { assertEmailFree, assertPhoneFree, newUserRecord, normalizeEmail, sendVerification, userByEmail } from "../accounts.js";
import { type Core, mustGet, notFound, nowSeconds, pageOf, saveChanges, mustUpdate } from "../core.js";
import type { Deps, Operations } from "../deps.js";
import type { QueryOf, UserRecord, Where } from "../storage.js";
import { publicUser, publicVerificationRequest } from "../views.js";

/** Users whose email, phone number or a name contains `query` (ignoring case). */
function matchingQuery(query: string): Where<QueryOf<"users">> {
  return { anyOf: (["email", "phone_number", "given_name", "family_name", "nickname", "preferred_username"] as const).map((column) => ({ [column]: { contains: query } })) };
}

/** Removes a user and everything that hangs off it. */
export async function deleteUserCascade(core: Core, userId: string): Promise<void> {
  const { storage } = core;
  await storage.transaction(async () => {
    await storage.users.delete(userId);
    await storage.sessions.deleteWhere({ user_id: userId });
    await storage.refreshTokens.deleteWhere({ user_id: userId });
    await storage.authorizationCodes.deleteWhere({ user_id: userId });
    await storage.verificationRequests.deleteWhere({ user_id: userId });
    await storage.otps.deleteWhere({ user_id: userId });
    await storage.orgMembers.deleteWhere({ user_id: userId });
    await storage.scimUsers.deleteWhere({ user_id: userId });
  });
}

/** revoke_access: the user's access tokens fail from now on and every session ends (so do its refresh tokens). */
export async function revokeUserAccess({ core, sessions, events }: Pick<Deps, "core" | "sessions" | "events">, user: UserRecord): Promise<void> {
  if (user.revoked_timestamp === null) {
    user.revoked_timestamp = nowSeconds(core);
    user.updated_at = user.revoked_timestamp;
    await mustUpdate(core.storage.users, "user", user);
    events.emit("user.access_revoked", { user: publicUser(user) });
  }
  await sessions.endAllOf(user.id);
}

/** enable_access: a revoked user may sign in again. */
export async function enableUserAccess({ core, events }: Pick<Deps, "core" | "events">, user: UserRecord): Promise<void> {
  if (user.revoked_timestamp === null) return;
  user.revoked_timestamp = null;
  user.updated_at = nowSeconds(core);
  await mustUpdate(core.storage.users, "user", user);
  events.emit("user.access_enabled", { user: publicUser(user) });
}

export function userOperations(deps: Deps): Operations<"users" | "user" | "updateUser" | "deleteUser" | "verificationRequests" | "revokeAccess" | "enableAccess" | "inviteMembers"> {
  const { core, events } = deps;
  const { storage } = core;
  return {
    async users(input) {
      const page = await pageOf(storage.users, input.query ? matchingQuery(input.query) : {}, input.pagination);
      return { pagination: page.pagination, users: page.items.map(publicUser) };
    },

    async user(input) {
      // An id of "" is a value (that no user has), not "look up by email instead".
      const user = input.id != null ? await storage.users.get(input.id) : await userByEmail(core, input.email!);
      if (!user || (input.id != null && input.email != null && user.email !== normalizeEmail(input.email))) throw notFound("user");
      return publicUser(user);
    },

    async updateUser(input) {
      const user = await mustGet(storage.users, "user", input.id);
      // A value the user already holds is theirs by the unique index: only a new one is looked up.
      if (input.email && normalizeEmail(input.email) !== user.email) await assertEmailFree(core, input.email, user.id);
      if (input.phone_number && input.phone_number !== user.phone_number) await assertPhoneFree(core, input.phone_number, user.id);
      const { id: _id, ...changes } = input;
      return publicUser(await saveChanges(core, storage.users, "user", user, { ...changes, email: input.email ? normalizeEmail(input.email) : undefined }));
    },

    async deleteUser(input) {
      const user = await mustGet(storage.users, "user", input.id);
      await deleteUserCascade(core, user.id);
      events.emit("user.deleted", { user: publicUser(user) });
      return { message: `user ${user.id} deleted` };
    },

    async verificationRequests(input) {
      const now = nowSeconds(core);
      const page = await pageOf(storage.verificationRequests, { expires: { gt: now } }, input.pagination);
      return { pagination: page.pagination, verification_requests: page.items.map(publicVerificationRequest) };
    },

    async revokeAccess(input) {
      const user = await mustGet(storage.users, "user", input.user_id);
      await revokeUserAccess(deps, user);
      return { message: `access of user ${user.id} revoked` };
    },

    async enableAccess(input) {
      await enableUserAccess(deps, await mustGet(storage.users, "user", input.user_id));
      return { message: `access of user ${input.user_id} enabled` };
    },

    async inviteMembers(input) {
      if (!core.config.features.is_basic_authentication_enabled && !core.config.features.is_magic_link_login_enabled) {
        throw new ServiceError("FAILED_PRECONDITION", "invitations need basic authentication or magic link login to be enabled");
      }
      let invited = 0;
      for (const email of new Set(input.emails.map(normalizeEmail))) {
        if (await userByEmail(core, email)) continue;
        const user = newUserRecord(core, { email, roles: [...core.config.defaultRoles], signup_method: "basic_auth", password_hash: null, email_verified: false });
        await storage.users.put(user);
        await sendVerification(core, user, "invite_member", { redirectUri: input.redirect_uri ?? null });
        events.emit("user.created", { user: publicUser(user) });
        invited++;
      }
      const skipped = new Set(input.emails.map(normalizeEmail)).size - invited;
      return { message: `${invited} invited${skipped > 0 ? `; ${skipped} already had an account` : ""}` };
    },
  };
}
