// The parts of AdminClient and UserClient that do not depend on the operations: configuration,
// the headers of each surface, and close(). Generated classes add one method per operation.
import { ClientCore, environmentName, fromEnvironment, type ClientConfig, type ClientDefinition } from "./core.js";

/** A client of an API whose operations take an API key (schema.features.apiKey). */
export interface ApiKeyConfig {
  /** Sent in the API's key header (schema.apiKeyHeader) on every call. */
  apiKey?: string;
}

/** The header of the API key, when the config gives one. */
const apiKeyHeaders = (definition: ClientDefinition, config: ApiKeyConfig): Record<string, string> => (config.apiKey ? { [definition.service.apiKeyHeader]: config.apiKey } : {});

export interface AdminClientConfig extends ClientConfig {
  /** The server's --admin-secret; sent on every admin call. Only where an operation needs it (schema.features.adminSecret). */
  adminSecret?: string;
  /**
   * A user's access token instead of the secret, sent as a bearer token: the calls an org-admin may
   * make (schema.features.orgAdmin), for the organizations that user administers. Never both.
   */
  accessToken?: string;
}

export interface UserClientConfig extends ClientConfig {
  /** Access token of the signed-in user, sent as a bearer token. */
  accessToken?: string;
}

/** A user client of an API whose token calls take a client_id (schema.features.clientId): the generated client fills it in (FilledField). */
export interface ClientIdConfig {
  /** Identifier of the client application; the default client_id of token calls. */
  clientId: string;
}

/** An input field a client fills in with one of its options where a call leaves it out: the option's name, which a client without it is refused by, and its value. */
export interface FilledField {
  readonly option: string;
  readonly value: string | undefined;
}

export class AdminClientBase {
  protected readonly core: ClientCore;
  constructor(definition: ClientDefinition, config: ClientConfig & AdminClientConfig & ApiKeyConfig) {
    if (config.adminSecret && config.accessToken) throw new TypeError("give adminSecret or accessToken, not both: the server judges a call by one of them");
    // What the code gives wins; else the environment's, the secret before a token.
    const given = config.adminSecret || config.accessToken;
    const secret = given ? config.adminSecret : fromEnvironment(definition.service, "ADMIN_SECRET");
    const accessToken = given ? config.accessToken : secret ? undefined : fromEnvironment(definition.service, "ACCESS_TOKEN");
    if (definition.service.features.adminSecret && !secret && !accessToken) {
      const variable = environmentName(definition.service, "ADMIN_SECRET");
      throw new TypeError(
        definition.service.features.orgAdmin
          ? `adminSecret is required (or the environment variable ${variable}), or accessToken: the access token of a user who is an org-admin (for the organizations that user administers)`
          : `adminSecret is required (or the environment variable ${variable})`,
      );
    }
    if (accessToken && !definition.service.features.orgAdmin) throw new TypeError("accessToken: no admin operation of this API takes a user's token; give adminSecret");
    const headers = {
      ...apiKeyHeaders(definition, config),
      ...(secret ? { [definition.service.adminSecretHeader]: secret } : {}),
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    };
    // A role holder's token cannot ask the admin's own version read where that needs the secret: it asks the open one.
    const asked = accessToken && definition.tokenVersionOperation ? { ...definition, versionOperation: definition.tokenVersionOperation } : definition;
    this.core = new ClientCore(asked, config, () => headers);
  }
  /** The gRPC target this client uses when its protocol is grpc. */
  get grpcEndpoint(): string {
    return this.core.grpcEndpoint;
  }
  /** Ends open connections; calls in flight end CANCELLED, and a call after close() is refused (make a new client). */
  close(): Promise<void> {
    return this.core.close();
  }
}

export class UserClientBase {
  protected readonly core: ClientCore;
  private accessToken: string | undefined;
  /** The values of the input fields this client fills in (filled), by field. */
  private readonly fills: Readonly<Record<string, string>>;
  constructor(
    definition: ClientDefinition,
    protected readonly config: ClientConfig & UserClientConfig & ApiKeyConfig,
    /** The input fields the generated client fills in from its options, by field name; each option is required. */
    fills: Readonly<Record<string, FilledField>> = {},
  ) {
    for (const { option, value } of Object.values(fills)) if (!value) throw new TypeError(`${option} is required`);
    this.fills = Object.fromEntries(Object.entries(fills).map(([field, { value }]) => [field, value!]));
    this.accessToken = config.accessToken ?? fromEnvironment(definition.service, "ACCESS_TOKEN");
    const keyHeaders = apiKeyHeaders(definition, config);
    this.core = new ClientCore(definition, config, (): Record<string, string> => (this.accessToken ? { ...keyHeaders, authorization: `Bearer ${this.accessToken}` } : keyHeaders));
  }
  /** Use this access token (from login, signup, ...) on the calls that follow; undefined signs out. */
  setAccessToken(token: string | undefined): void {
    this.accessToken = token;
  }
  get grpcEndpoint(): string {
    return this.core.grpcEndpoint;
  }
  close(): Promise<void> {
    return this.core.close();
  }
  /** The input with the fields this client fills in, where the caller names none. */
  protected filled<T extends object>(input: T): T {
    const given = input as Record<string, unknown>;
    const missing = Object.entries(this.fills).filter(([field]) => !given[field]);
    return missing.length === 0 ? input : { ...input, ...Object.fromEntries(missing) };
  }
}
