// User sessions: what a successful sign-in opens (a session with its cookie, an access token, an
// ID token and a refresh token), and how sessions end.
import { ServiceError, type CallContext } from "../generated/server/index.js";
import type { AuthResponse } from "../generated/types.js";
import { nowSeconds, type Core } from "./core.js";
import { randomToken, sha256 } from "./secrets.js";
import type { SessionRecord, UserRecord } from "./storage.js";
import type { TokenService } from "./tokens.js";
import { publicUser } from "./views.js";

export const USER_SESSION_COOKIE = "service_session";
export const DEFAULT_USER_SCOPE = ["openid", "email", "profile"];

export interface SessionRequest {
  roles?: readonly string[] | null;
  scope?: readonly string[] | null;
  nonce?: string | null;
  /** The registered client the tokens are for, when not the service's own client. */
  clientId?: string | null;
  /** Sets the session cookie on the answer when given. */
  context?: CallContext;
}

export interface UserTokens {
  access_token: string;
  id_token: string | null;
  refresh_token: string;
  expires_in: number;
  scope: string[];
}

/** Requested roles must be roles of the user; none requested means all of them. */
export function grantedRoles(user: UserRecord, requested: readonly string[] | null | undefined): string[] {
  if (!requested || requested.length === 0) return [...user.roles];
  const missing = requested.filter((role) => !user.roles.includes(role));
  if (missing.length > 0) throw new ServiceError("PERMISSION_DENIED", `roles not granted to this user: ${missing.join(", ")}`, "roles");
  return [...requested];
}

export class Sessions {
  constructor(
    private readonly core: Core,
    private readonly tokens: TokenService,
  ) {}

  /** Opens a session for `user` and answers its tokens, and its cookie's value (set on the answer when the request has a context). */
  async open(user: UserRecord, request: SessionRequest): Promise<{ session: SessionRecord; tokens: UserTokens; cookie: string }> {
    const roles = grantedRoles(user, request.roles);
    const scope = request.scope && request.scope.length > 0 ? [...request.scope] : [...DEFAULT_USER_SCOPE];
    const now = nowSeconds(this.core);
    const cookie = randomToken("ses_", this.core.random);
    const session: SessionRecord = {
      id: this.core.newId(),
      user_id: user.id,
      cookie_hash: sha256(cookie),
      roles,
      scope,
      created_at: now,
      expires_at: now + this.core.config.sessionSeconds,
    };
    await this.core.storage.sessions.put(session);
    request.context?.setCookie(USER_SESSION_COOKIE, cookie, { maxAgeSeconds: this.core.config.sessionSeconds });
    const tokens = await this.tokensFor(user, session, scope, request.clientId ?? null, request.nonce ?? null);
    return { session, tokens, cookie };
  }

  /** New tokens for a live session (sign-in, session refresh and the refresh_token grant). */
  async tokensFor(user: UserRecord, session: SessionRecord, scope: string[], clientId: string | null, nonce: string | null): Promise<UserTokens> {
    const { config } = this.core;
    const access = await this.tokens.sign(
      {
        sub: user.id,
        token_type: "access_token",
        sid: session.id,
        roles: session.roles,
        scope: scope.join(" "),
        aud: clientId ?? config.clientId,
        ...(clientId ? { client_id: clientId } : {}),
      },
      config.accessTokenSeconds,
    );
    const id = scope.includes("openid")
      ? await this.tokens.sign(
          {
            sub: user.id,
            token_type: "id_token",
            sid: session.id,
            aud: clientId ?? config.clientId,
            roles: session.roles,
            email: user.email,
            email_verified: user.email_verified,
            given_name: user.given_name,
            family_name: user.family_name,
            ...(nonce ? { nonce } : {}),
            ...(clientId ? { client_id: clientId } : {}),
          },
          config.accessTokenSeconds,
        )
      : null;
    const refreshToken = randomToken("rt_", this.core.random);
    const now = nowSeconds(this.core);
    await this.core.storage.refreshTokens.put({
      token_hash: sha256(refreshToken),
      session_id: session.id,
      user_id: user.id,
      client_id: clientId,
      scope,
      created_at: now,
      expires_at: Math.min(now + config.refreshTokenSeconds, session.expires_at),
    });
    return { access_token: access.token, id_token: id?.token ?? null, refresh_token: refreshToken, expires_in: access.expiresIn, scope };
  }

  async authResponse(user: UserRecord, request: SessionRequest, message: string): Promise<AuthResponse> {
    const { tokens } = await this.open(user, request);
    return {
      message,
      access_token: tokens.access_token,
      id_token: tokens.id_token,
      refresh_token: tokens.refresh_token,
      expires_in: tokens.expires_in,
      user: publicUser(user),
      should_show_email_otp_screen: false,
      should_show_mobile_otp_screen: false,
      should_show_totp_screen: false,
    };
  }

  /** Ends a session: its access tokens stop verifying and its refresh tokens are dropped. */
  async end(sessionId: string): Promise<void> {
    await this.core.storage.sessions.delete(sessionId);
    await this.core.storage.refreshTokens.deleteWhere({ session_id: sessionId });
  }

  async endAllOf(userId: string): Promise<void> {
    const sessions = await this.core.storage.sessions.list({ user_id: userId });
    for (const session of sessions) await this.end(session.id);
  }

  /** The live session a session cookie names, or undefined. */
  async byCookie(cookie: string): Promise<SessionRecord | undefined> {
    const hash = sha256(cookie);
    const session = await this.core.storage.sessions.find({ cookie_hash: hash });
    return session && session.expires_at > nowSeconds(this.core) ? session : undefined;
  }
}
