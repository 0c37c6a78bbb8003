// What the relying party of the OpenID tests does first: an authorization request with PKCE S256,
// a state and a nonce, built by openid-client from the provider's discovered configuration.
import * as oidc from "openid-client";

/** An authorization request and the secrets its answer is checked with. */
export interface AuthorizationRequest {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

/** An authorization request of `config`'s client for `redirectUri` (scopes openid email profile), with `extra` parameters. */
export async function authorizationRequest(config: oidc.Configuration, redirectUri: string, extra: Record<string, string> = {}): Promise<AuthorizationRequest> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...extra,
  });
  return { url, verifier, state, nonce };
}
