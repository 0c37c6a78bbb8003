// What a scenario's setup runs with (scenarios.ts): REST clients and shortcuts on a world's fresh
// service. Shared by the conformance matrix and the test of the API reference's examples.
import { expect } from "vitest";
import { UserClient, type AdminClient, type UserClientConfig } from "../../generated/client/index.js";
import { schema } from "../../generated/schema.js";
import type { World } from "../helpers/reference-server.js";
import { PASSWORD, type SetupContext } from "./scenarios.js";

/**
 * The setup context on `world`'s service, reached at `serviceUrl`; `admin` is an admin client over
 * REST of that address; `userConfig` adds to the configuration of its user clients (a CA to trust).
 */
export function setupContext(world: World, serviceUrl: string, admin: AdminClient, userConfig: Partial<UserClientConfig> = {}): SetupContext {
  const user = (accessToken?: string) =>
    new UserClient({ serviceUrl, clientId: "reference", protocol: "rest", serverVersion: schema.version, retry: false, ...userConfig, ...(accessToken ? { accessToken } : {}) });
  return {
    admin,
    user,
    state: world.service.state,
    advance: (seconds) => world.advance(seconds),
    async signUp(email, password = PASSWORD) {
      const answer = await user().signup({ email, password, confirm_password: password });
      return { userId: answer.user!.id, accessToken: answer.access_token!, refreshToken: answer.refresh_token! };
    },
    async invite(email) {
      await admin.inviteMembers({ emails: [email] });
      return (await admin.user({ email })).id;
    },
    async createOrg(name) {
      return (await admin.createOrganization({ name })).id;
    },
    lastSecretSentTo(to) {
      const message = world.service.state.outbox.filter((m) => m.to === to).at(-1);
      if (!message) throw new Error(`no message was sent to ${to}`);
      return message.secret;
    },
    async sessionCookie(email, password) {
      const response = await fetch(`${serviceUrl}${schema.operations.login!.rest!.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(response.status).toBe(200);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith("service_session="));
      if (!cookie) throw new Error("login set no session cookie");
      return decodeURIComponent(cookie.slice("service_session=".length, cookie.indexOf(";")));
    },
    publishTxt(name, value) {
      world.dns.set(name, [...(world.dns.get(name) ?? []), [value]]);
    },
  };
}
