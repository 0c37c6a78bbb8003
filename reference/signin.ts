// The hosted sign-in page of the authorization endpoint, at /oauth/signin: a server-rendered form
// (email and password, then the one-time code where the account asks for one), no script, every
// value escaped. It signs in through the login and verify_otp operations themselves (their
// lockout, their checks), opens the browser session (a SameSite=Lax cookie, __Host- over TLS) and
// sends the browser back to /oauth/authorize with the request it came with (or to the SAML SSO
// endpoint that sent it, its return_to). Forms carry a CSRF
// token bound to a cookie, and a POST from another origin is refused.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceError, type CallContext, type HttpMount, type Implementation } from "../generated/server/index.js";
import { schema } from "../generated/schema.js";
import { escapeMarkup } from "../runtime/markup.js";
import { SIGNIN_COOKIE, SIGNIN_PATH } from "./ops/oidc.js";
import { page, pageCookie, readPageCookie, seeOther, sendFailurePage, sendPage } from "./pages.js";
import { USER_SESSION_COOKIE } from "./sessions.js";
import { randomToken, sameDigest, sha256 } from "./secrets.js";
import type { Core } from "./core.js";

const CSRF_COOKIE = "service_signin_csrf";
/** The parameters of an authorization request a sign-in hands back to /oauth/authorize; nothing else is carried. */
const AUTHORIZE_PARAMS = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "scope", "state", "nonce", "login_hint", "domain_hint", "resource", "return_to"];
/** The one other place a sign-in may return to: an organization's SAML SSO endpoint, on this service (a path, never an address). */
const SAML_RETURN = /^\/saml\/[A-Za-z0-9_.~%-]+\/sso\?[^#\\]*$/;

/** Only the authorization request's own parameters, re-encoded: the page never carries anything else back. */
function authorizeRequest(params: URLSearchParams): URLSearchParams {
  const kept = new URLSearchParams();
  for (const name of AUTHORIZE_PARAMS) {
    const value = params.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeMarkup(name)}" value="${escapeMarkup(value)}">`;

function passwordForm(request: string, csrf: string, error?: string, email = ""): string {
  return page(
    "Sign in",
    `${error ? `<p class="error" role="alert">${escapeMarkup(error)}</p>` : ""}<form method="post" action="${SIGNIN_PATH}">${hidden("request", request)}${hidden("csrf", csrf)}${hidden("step", "password")}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeMarkup(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
  );
}

function otpForm(request: string, csrf: string, email: string, error?: string): string {
  return page(
    "Enter your code",
    `${error ? `<p class="error" role="alert">${escapeMarkup(error)}</p>` : "<p>We sent a one-time code to your email address.</p>"}<form method="post" action="${SIGNIN_PATH}">${hidden("request", request)}${hidden("csrf", csrf)}${hidden("step", "otp")}${hidden("email", email)}
<label for="otp">One-time code</label><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Continue</button></form>`,
  );
}

export interface SigninRoutesOptions {
  core: Core;
  /** The operations the page signs in through (login, verify_otp). */
  implementation: () => Pick<Implementation, "login" | "verifyOTP">;
  onInternalError?: (operation: string, error: unknown) => void;
}

export function signinRoutes({ core, implementation, onInternalError }: SigninRoutesOptions): HttpMount {
  const send = (response: ServerResponse, status: number, html: string, cookies: string[] = []): void => sendPage(response, status, html, cookies.length > 0 ? { "set-cookie": cookies } : {});

  /** A context for calling an operation from the page: the cookies it sets are collected. */
  function callContext(request: IncomingMessage, operation: "login" | "verify_otp", clientAddress: string, set: Record<string, string>): CallContext {
    return {
      operation: schema.operations[operation]!,
      protocol: "rest",
      principal: { kind: "anonymous" },
      remoteAddress: clientAddress,
      headers: Object.fromEntries(Object.entries(request.headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : []))),
      cookies: {},
      setCookie: (name, value) => {
        set[name] = value;
      },
      get sessions(): never {
        throw new Error("the sign-in page opens no session");
      },
    };
  }

  return {
    prefix: SIGNIN_PATH,
    async handle(request, response, context) {
      const url = new URL(request.url ?? "/", "http://signin.invalid");
      try {
        if (url.pathname !== SIGNIN_PATH) return send(response, 404, page("Not found", "<p>No such page.</p>"));
        if (request.method === "GET") {
          await context.admit("read");
          if (url.searchParams.get("signed_out") === "1") return send(response, 200, page("Signed out", "<p>You are signed out.</p>"));
          const csrf = randomToken("csrf_", core.random);
          return send(response, 200, passwordForm(authorizeRequest(url.searchParams).toString(), csrf), [pageCookie(request, CSRF_COOKIE, csrf, { sameSite: "Strict", maxAgeSeconds: 3600 })]);
        }
        if (request.method !== "POST") {
          response.writeHead(405, { allow: "GET, POST", "content-length": "0" });
          response.end();
          return;
        }
        await context.admit("write");
        // Another site's page may post a form here with the user's cookies: its origin, and its lack of the CSRF token, refuse it.
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== new URL(core.config.issuer).origin) return send(response, 403, page("Refused", "<p>This form was posted from another site.</p>"));
        if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers["content-type"] ?? "")) return send(response, 415, page("Refused", "<p>Send the form as the page does.</p>"));
        const form = new URLSearchParams(await context.readBody(request));
        const csrf = readPageCookie(request, CSRF_COOKIE);
        const presented = form.get("csrf") ?? "";
        if (!csrf || !sameDigest(sha256(presented), sha256(csrf))) return send(response, 403, page("Refused", "<p>The sign-in form expired; go back to the application and sign in again.</p>"));
        const authorize = authorizeRequest(new URLSearchParams(form.get("request") ?? "")).toString();
        const email = form.get("email") ?? "";
        const set: Record<string, string> = {};
        try {
          if (form.get("step") === "otp") {
            await implementation().verifyOTP({ email, otp: form.get("otp") ?? "" }, callContext(request, "verify_otp", context.clientAddress, set));
          } else {
            const answer = await implementation().login({ email, password: form.get("password") ?? "" }, callContext(request, "login", context.clientAddress, set));
            if ("should_show_email_otp_screen" in answer && (answer.should_show_email_otp_screen || answer.should_show_mobile_otp_screen)) return send(response, 200, otpForm(authorize, csrf, email));
          }
        } catch (error) {
          if (!(error instanceof ServiceError) || error.code === "INTERNAL" || error.code === "UNAVAILABLE") throw error;
          const status = error.code === "TOO_MANY_REQUESTS" ? 429 : error.code === "UNAUTHENTICATED" ? 401 : 400;
          return send(response, status, form.get("step") === "otp" ? otpForm(authorize, csrf, email, error.message) : passwordForm(authorize, csrf, error.message, email));
        }
        const session = set[USER_SESSION_COOKIE];
        if (!session) throw new Error("login answered without opening a session");
        const returnTo = new URLSearchParams(authorize).get("return_to");
        seeOther(response, returnTo && SAML_RETURN.test(returnTo) ? `${core.config.issuer}${returnTo}` : `${core.config.issuer}/oauth/authorize?${authorize}`, [
          pageCookie(request, SIGNIN_COOKIE, session, { sameSite: "Lax", maxAgeSeconds: core.config.sessionSeconds }),
          pageCookie(request, CSRF_COOKIE, "", { sameSite: "Strict", maxAgeSeconds: 0 }),
        ]);
      } catch (error) {
        sendFailurePage(response, error, { operation: "signin", title: "Sign-in failed" }, onInternalError);
      }
    },
  };
}
