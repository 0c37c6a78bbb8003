// The public shape of each stored record: fields are picked one by one, so nothing the service
// keeps to itself (hashes, private keys, write-only secrets) can reach an answer.
import type { Client, OrgDomain, OrgOIDCConnection, OrgSAMLConnection, SAMLIDPKey, ScimEndpoint, User, VerificationRequest } from "../generated/types.js";
import type { ClientRecord, OrgDomainRecord, OrgOIDCConnectionRecord, OrgSAMLConnectionRecord, SAMLIDPKeyRecord, ScimEndpointRecord, UserRecord, VerificationRecord } from "./storage.js";

export function publicUser(user: UserRecord): User {
  return {
    id: user.id,
    email: user.email,
    email_verified: user.email_verified,
    signup_methods: user.signup_methods,
    given_name: user.given_name,
    family_name: user.family_name,
    middle_name: user.middle_name,
    nickname: user.nickname,
    preferred_username: user.preferred_username,
    gender: user.gender,
    birthdate: user.birthdate,
    phone_number: user.phone_number,
    phone_number_verified: user.phone_number_verified,
    picture: user.picture,
    roles: [...user.roles],
    created_at: user.created_at,
    updated_at: user.updated_at,
    revoked_timestamp: user.revoked_timestamp,
    is_multi_factor_auth_enabled: user.is_multi_factor_auth_enabled,
    app_data: user.app_data,
  };
}

export function publicClient(client: ClientRecord): Client {
  return {
    id: client.id,
    client_id: client.client_id,
    name: client.name,
    description: client.description,
    allowed_scopes: [...client.allowed_scopes],
    is_active: client.is_active,
    // Records stored before the setting existed have none: off.
    allow_token_exchange: client.allow_token_exchange === true,
    // Records stored before the flow existed have no redirect URIs: none.
    redirect_uris: [...(client.redirect_uris ?? [])],
    post_logout_redirect_uris: [...(client.post_logout_redirect_uris ?? [])],
    created_at: client.created_at,
    updated_at: client.updated_at,
  };
}

/** Pending requests are listed without their token: only its hash is kept. */
export function publicVerificationRequest(request: VerificationRecord): VerificationRequest {
  return {
    id: request.id,
    identifier: request.identifier,
    token: null,
    email: request.email,
    expires: request.expires,
    created_at: request.created_at,
    updated_at: request.updated_at,
    nonce: request.nonce,
    redirect_uri: request.redirect_uri,
  };
}

export function publicIdpKey(key: SAMLIDPKeyRecord): SAMLIDPKey {
  return { id: key.id, org_id: key.org_id, status: key.status, certificate_pem: key.certificate_pem, created_at: key.created_at, retired_at: key.retired_at };
}

export function publicDomain(domain: OrgDomainRecord): OrgDomain {
  return {
    domain: domain.domain,
    org_id: domain.org_id,
    status: domain.status,
    verified_at: domain.verified_at,
    created_at: domain.created_at,
    updated_at: domain.updated_at,
  };
}

export function publicOidcConnection(connection: OrgOIDCConnectionRecord): OrgOIDCConnection {
  return {
    id: connection.id,
    org_id: connection.org_id,
    name: connection.name,
    issuer_url: connection.issuer_url,
    client_id: connection.client_id,
    scopes: [...connection.scopes],
    redirect_uri: connection.redirect_uri,
    created_at: connection.created_at,
    updated_at: connection.updated_at,
  };
}

export function publicSamlConnection(connection: OrgSAMLConnectionRecord): OrgSAMLConnection {
  return {
    id: connection.id,
    org_id: connection.org_id,
    name: connection.name,
    idp_entity_id: connection.idp_entity_id,
    idp_sso_url: connection.idp_sso_url,
    sp_entity_id: connection.sp_entity_id,
    acs_url: connection.acs_url,
    attribute_mapping: { ...connection.attribute_mapping },
    allow_idp_initiated: connection.allow_idp_initiated,
    created_at: connection.created_at,
    updated_at: connection.updated_at,
  };
}

export function publicScimEndpoint(endpoint: ScimEndpointRecord): ScimEndpoint {
  return { id: endpoint.id, org_id: endpoint.org_id, enabled: endpoint.enabled, created_at: endpoint.created_at, updated_at: endpoint.updated_at };
}
