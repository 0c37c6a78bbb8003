// SCIM 2.0 (RFC 7644) at /scim/v2 on the HTTP port: Users, Groups and the discovery resources,
// authenticated by an organization's SCIM endpoint token, which also chooses the organization.
// SCIMMY (npm scimmy) holds the protocol: the core schemas and their validation in and out, the
// filter grammar and matcher, PATCH paths and operations, and the discovery documents; this file
// routes, authenticates, and turns answers and errors into HTTP.
import type { IncomingMessage, ServerResponse } from "node:http";
import SCIMMY from "scimmy";
import { ServiceError, type HttpMount, type MountContext } from "../../generated/server/index.js";
import { checkVersion, scimError, type ScimProvisioning, type ListPage, type ScimResource, type ScimScope } from "./provisioning.js";

export const SCIM_PREFIX = "/scim/v2";
const CONTENT_TYPE = "application/scim+json; charset=utf-8";
const ACCEPTED_TYPES = ["application/scim+json", "application/json"];
/** The most resources one list answers (ServiceProviderConfig filter.maxResults), and the default page. */
export const MAX_RESULTS = 200;
/**
 * The most values a multi-valued attribute of a User holds (emails, addresses, roles, ...), and
 * members of a Group. SCIMMY's reading and PATCH cost about 0.15 ms a value on the event loop, so a
 * record of thousands stalls every caller for each request that touches it: past these, a write is
 * refused (400 invalidValue) before SCIMMY reads it, and so is a PATCH that would grow past them.
 */
export const MAX_MULTI_VALUES = 100;
export const MAX_GROUP_MEMBERS = 1000;
/** The most operations one PATCH request carries. */
export const MAX_PATCH_OPERATIONS = 100;
/**
 * The largest resource kept, as JSON: without it, PATCH requests each under the body limit could
 * grow one record without end (every later read and write of it paying for its size).
 */
export const MAX_RESOURCE_BYTES = 256 * 1024;

// SCIMMY's registry is per process and the same for every service: the two core resource types,
// their location prefix, and what ServiceProviderConfig announces.
SCIMMY.Config.set({
  patch: { supported: true },
  filter: { supported: true, maxResults: MAX_RESULTS },
  etag: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  sort: { supported: false },
  changePassword: { supported: false },
  authenticationSchemes: [
    {
      type: "oauthbearertoken",
      name: "SCIM endpoint token",
      description: "The bearer token create_scim_endpoint and rotate_scim_token answer: Authorization: Bearer <token>",
      specUri: "https://www.rfc-editor.org/info/rfc6750",
      primary: true,
    },
  ],
});
// RFC 7643 defines no canonical values for the `type` of roles, entitlements and x509Certificates
// (any label goes); SCIMMY's schema reads its empty list as "none allowed".
for (const attribute of SCIMMY.Schemas.User.definition.attributes) {
  for (const sub of (attribute as { subAttributes?: { name: string; config: { canonicalValues: unknown } }[] }).subAttributes ?? []) {
    if (Array.isArray(sub.config.canonicalValues) && sub.config.canonicalValues.length === 0) sub.config.canonicalValues = false;
  }
}
SCIMMY.Resources.declare(SCIMMY.Resources.User);
SCIMMY.Resources.declare(SCIMMY.Resources.Group);
for (const resource of [SCIMMY.Resources.User, SCIMMY.Resources.Group, SCIMMY.Resources.Schema, SCIMMY.Resources.ResourceType, SCIMMY.Resources.ServiceProviderConfig]) {
  resource.basepath(SCIM_PREFIX);
}

export interface ScimRoutesOptions {
  provisioning: ScimProvisioning;
  /** The organization of a SCIM endpoint's token, or null (no such token, rotated away, endpoint deleted). */
  verifyToken(token: string): Promise<{ org_id: string } | null>;
  /** The service's base URL (its issuer): locations are absolute under it. */
  baseUrl(): string;
  /** Failures that are not SCIM or service errors (bugs), for the operator's log. */
  onInternalError?: (operation: string, error: unknown) => void;
}

type Plain = Record<string, unknown>;
type Answer = { status: number; body?: unknown; etag?: string; location?: string };

const ERROR_STATUS: Partial<Record<string, [number, string | null]>> = {
  ALREADY_EXISTS: [409, "uniqueness"],
  INVALID_ARGUMENT: [400, "invalidValue"],
  NOT_FOUND: [404, null],
  FAILED_PRECONDITION: [400, "invalidValue"],
  PAYLOAD_TOO_LARGE: [413, null],
  TOO_MANY_REQUESTS: [429, null],
  UNAVAILABLE: [503, null],
};

/** SCIMMY's errors answer as they are; the service's by their code; TypeErrors of its schema coercion are invalid values. */
function scimErrorOf(error: unknown): InstanceType<typeof SCIMMY.Types.Error> | undefined {
  if (error instanceof SCIMMY.Types.Error) return error;
  if (error instanceof ServiceError) {
    const [status, scimType] = ERROR_STATUS[error.code] ?? [500, null];
    return status === 500 ? undefined : scimError(status, scimType, error.message);
  }
  if (error instanceof TypeError) return scimError(400, "invalidValue", error.message);
  return undefined;
}

/**
 * Whether every comparison of a node of SCIMMY's parsed filter has its value (SCIMMY parses
 * `userName eq` without one): objects map attributes to comparisons, or to several of them.
 */
function comparisonsComplete(node: unknown): boolean {
  if (!Array.isArray(node)) return typeof node === "object" && node !== null && Object.values(node).every(comparisonsComplete);
  if (node.every(Array.isArray)) return node.every(comparisonsComplete);
  const [operator, ...values] = node[0] === "not" ? node.slice(1) : node;
  return ["pr", "np"].includes(String(operator).toLowerCase()) || values.length > 0;
}

/** A parsed filter, refused (400 invalidFilter) when it does not parse or a comparison lacks its value. */
function parseFilter(text: string, parameter = "filter"): SCIMMY.Types.Filter {
  let filter: SCIMMY.Types.Filter;
  try {
    filter = new SCIMMY.Types.Filter(text);
  } catch (error) {
    throw scimError(400, "invalidFilter", `${parameter}: ${(error as Error).message}`);
  }
  if (!(filter as unknown as unknown[]).every(comparisonsComplete)) throw scimError(400, "invalidFilter", `${parameter}: a comparison lacks its value`);
  return filter;
}

/**
 * An attribute name of RFC 7643 §2.1 (ALPHA *(ALPHA / DIGIT / "-" / "_")), with its sub-attribute
 * and its schema URN before it: a name outside it (`__proto__`) is refused before SCIMMY reads it.
 */
const ATTRIBUTE_PATH = /^(?:urn:[A-Za-z0-9:._-]+:)?[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)?$/;

/** `attributes` / `excludedAttributes` as SCIMMY's output schemas take them. */
function attributeFilter(query: URLSearchParams): SCIMMY.Types.Filter | undefined {
  const only = query.get("attributes");
  const excluded = query.get("excludedAttributes");
  const list = (text: string, parameter: string) =>
    text
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .map((name) => {
        if (!ATTRIBUTE_PATH.test(name)) throw scimError(400, "invalidValue", `${parameter}: ${JSON.stringify(name.slice(0, 64))} is not an attribute name`);
        return name;
      });
  if (only)
    return parseFilter(
      list(only, "attributes")
        .map((name) => `${name} pr`)
        .join(" and "),
      "attributes",
    );
  if (excluded)
    return parseFilter(
      list(excluded, "excludedAttributes")
        .map((name) => `${name} np`)
        .join(" and "),
      "excludedAttributes",
    );
  return undefined;
}

function integerParameter(query: URLSearchParams, name: string, fallback: number, minimum: number): number {
  const text = query.get(name);
  if (text === null || text === "") return fallback;
  if (!/^-?\d{1,9}$/.test(text)) throw scimError(400, "invalidValue", `${name} must be a whole number`);
  return Math.max(Number(text), minimum);
}

/** The cap of a multi-valued attribute by its name (members of a Group, any other of a User). */
const capOf = (attribute: string) => (attribute.toLowerCase() === "members" ? MAX_GROUP_MEMBERS : MAX_MULTI_VALUES);

/**
 * Refuses a resource (or the value of a PATCH operation) with a multi-valued attribute past its
 * cap, at the top and inside schema extensions (one level down). Linear in the value's keys.
 */
function checkMultiValued(value: unknown, where: string): void {
  if (typeof value !== "object" || value === null) return;
  // Past the body limit a resource sent whole is refused before it is read; this bounds what a PATCH makes.
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > MAX_RESOURCE_BYTES) throw scimError(413, null, `${where}the resource would be ${bytes} bytes as JSON; the most it may be is ${MAX_RESOURCE_BYTES}`);
  for (const [name, attribute] of Object.entries(value)) {
    if (Array.isArray(attribute)) {
      if (attribute.length > capOf(name)) throw scimError(400, "invalidValue", `${where}${name}: at most ${capOf(name)} values, not ${attribute.length}`);
    } else if (name.startsWith("urn:") && typeof attribute === "object" && attribute !== null) {
      for (const [inner, values] of Object.entries(attribute)) {
        if (Array.isArray(values) && values.length > capOf(inner)) throw scimError(400, "invalidValue", `${where}${inner}: at most ${capOf(inner)} values, not ${values.length}`);
      }
    }
  }
}

/** A PATCH message's operations, refused past MAX_PATCH_OPERATIONS and when a value is past its cap, before SCIMMY applies any. */
function checkPatch(message: Plain): void {
  const operations = message.Operations;
  if (!Array.isArray(operations)) return; // SCIMMY says what is wrong with it
  if (operations.length > MAX_PATCH_OPERATIONS) throw scimError(400, "invalidValue", `a PATCH carries at most ${MAX_PATCH_OPERATIONS} operations, not ${operations.length}`);
  for (const [index, operation] of operations.entries()) {
    const { path, value } = (operation ?? {}) as { path?: unknown; value?: unknown };
    const where = `Operations[${index}]: `;
    if (Array.isArray(value)) {
      const attribute = typeof path === "string" ? (path.split(/[.[]/)[0]!.split(":").at(-1) ?? path) : "";
      if (value.length > capOf(attribute)) throw scimError(400, "invalidValue", `${where}${path ?? "value"}: at most ${capOf(attribute)} values, not ${value.length}`);
    } else checkMultiValued(value, where);
  }
}

export function scimRoutes(options: ScimRoutesOptions): HttpMount {
  const { provisioning } = options;

  const listResponse = (resources: unknown[], total: number, page: ListPage) => ({
    schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  });

  /** Locations SCIMMY writes relative to SCIM_PREFIX become absolute under the service's URL. */
  const absoluteLocations = (origin: string) => (key: string, value: unknown) => (key === "location" && typeof value === "string" && value.startsWith("/") ? `${origin}${value}` : value);

  const discovery = async (kind: string, id: string | undefined): Promise<Answer> => {
    const read =
      kind === "ServiceProviderConfig"
        ? id === undefined
          ? new SCIMMY.Resources.ServiceProviderConfig().read()
          : Promise.reject(scimError(404, null, "ServiceProviderConfig has no sub-resources"))
        : kind === "Schemas"
          ? new SCIMMY.Resources.Schema(id).read()
          : new SCIMMY.Resources.ResourceType(id).read();
    return { status: 200, body: await read };
  };

  /** Users and Groups: the same routes, each with its schema class and provisioning calls. */
  const resources = {
    Users: {
      schema: SCIMMY.Schemas.User,
      get: provisioning.getUser.bind(provisioning),
      list: provisioning.listUsers.bind(provisioning),
      create: provisioning.createUser.bind(provisioning),
      replace: provisioning.replaceUser.bind(provisioning),
      remove: provisioning.deleteUser.bind(provisioning),
    },
    Groups: {
      schema: SCIMMY.Schemas.Group,
      get: provisioning.getGroup.bind(provisioning),
      list: provisioning.listGroups.bind(provisioning),
      create: provisioning.createGroup.bind(provisioning),
      replace: provisioning.replaceGroup.bind(provisioning),
      remove: provisioning.deleteGroup.bind(provisioning),
    },
  } as const;

  type Kind = keyof typeof resources;
  // `schemas` goes with every resource, whatever `attributes` asked for (SCIMMY leaves it out then).
  const outSchema = (scope: ScimScope, kind: Kind, found: ScimResource, attributes?: SCIMMY.Types.Filter) => new resources[kind].schema(found, "out", `${scope.base}/${kind}`, attributes);
  const out = (scope: ScimScope, kind: Kind, found: ScimResource, attributes?: SCIMMY.Types.Filter): Plain => ({
    schemas: found.schemas,
    ...(JSON.parse(JSON.stringify(outSchema(scope, kind, found, attributes))) as Plain),
  });

  /** The query of a list: its filter, page and attributes. */
  const queryOf = (parameters: URLSearchParams) => {
    const filterText = parameters.get("filter");
    return {
      filter: filterText === null ? undefined : parseFilter(filterText),
      page: { startIndex: integerParameter(parameters, "startIndex", 1, 1), count: Math.min(integerParameter(parameters, "count", MAX_RESULTS, 0), MAX_RESULTS) },
      attributes: attributeFilter(parameters),
    };
  };

  /** A SearchRequest body (POST …/.search, RFC 7644 §3.4.3) as the query parameters of a GET. */
  const searchParameters = (search: Plain): URLSearchParams => {
    const parameters = new URLSearchParams();
    for (const name of ["filter", "startIndex", "count", "attributes", "excludedAttributes"]) {
      const value = search[name];
      if (value === undefined || value === null) continue;
      if (Array.isArray(value) ? !value.every((item) => typeof item === "string") : !["string", "number"].includes(typeof value)) {
        throw scimError(400, "invalidValue", `${name} of the SearchRequest has the wrong type`);
      }
      parameters.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    return parameters;
  };

  /** One page of a list of `kinds` (both for a search at the root), Users first. */
  const list = async (scope: ScimScope, kinds: readonly Kind[], parameters: URLSearchParams): Promise<Answer> => {
    const { filter, page, attributes } = queryOf(parameters);
    if (kinds.length === 1) {
      const kind = kinds[0]!;
      const listed = await resources[kind].list(scope, filter, page);
      return {
        status: 200,
        body: listResponse(
          listed.resources.map((found) => out(scope, kind, found, attributes)),
          listed.total,
          page,
        ),
      };
    }
    // Across types: each list up to the end of the page, then the page of the two together.
    const upTo = { startIndex: 1, count: page.startIndex - 1 + page.count };
    let total = 0;
    const all: Plain[] = [];
    for (const kind of kinds) {
      const listed = await resources[kind].list(scope, filter, upTo);
      total += listed.total;
      all.push(...listed.resources.map((found) => out(scope, kind, found, attributes)));
    }
    const pageOfAll = all.slice(page.startIndex - 1, page.startIndex - 1 + page.count);
    return { status: 200, body: listResponse(pageOfAll, total, page) };
  };

  const route = async (request: IncomingMessage, context: MountContext, scope: ScimScope, segments: string[], query: URLSearchParams): Promise<Answer> => {
    const method = request.method ?? "GET";
    const [kind, id, extra] = segments;
    const allow = (methods: string) => {
      if (!methods.split(", ").includes(method)) throw Object.assign(scimError(405, null, `${SCIM_PREFIX}/${segments.join("/")} takes ${methods}`), { allow: methods });
    };
    const body = async (): Promise<Plain> => {
      const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (!ACCEPTED_TYPES.includes(type)) throw scimError(415, null, `the body must be sent with Content-Type: application/scim+json (or application/json)`);
      const text = await context.readBody(request);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw scimError(400, "invalidSyntax", "the request body is not valid JSON");
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw scimError(400, "invalidSyntax", "the request body must be a JSON object");
      return value as Plain;
    };
    if (kind === "ServiceProviderConfig" || kind === "Schemas" || kind === "ResourceTypes") {
      allow("GET");
      if (extra !== undefined) throw scimError(404, null, "no such resource");
      return discovery(kind, id);
    }
    if (kind === ".search" && id === undefined) {
      allow("POST");
      return list(scope, ["Users", "Groups"], searchParameters(await body()));
    }
    if (kind === "Bulk" || kind === "Me") throw scimError(501, null, `${kind} is not supported (see ServiceProviderConfig)`);
    if (kind !== "Users" && kind !== "Groups") throw scimError(404, null, `no such resource type; the service has Users and Groups`);
    if (extra !== undefined) throw scimError(404, null, "no such resource");
    const resource = resources[kind];
    /** A resource as SCIMMY's schema reads it in: types checked, read-only attributes dropped (the write-only password is kept apart from its JSON). */
    /** A resource sent whole (POST, PUT), refused past the caps before SCIMMY reads it. */
    const bounded = async () => {
      const value = await body();
      checkMultiValued(value, "");
      return value;
    };
    const inbound = (value: Plain) => {
      const instance = new resource.schema(value, "in") as unknown as Plain;
      const plain = JSON.parse(JSON.stringify(instance)) as Plain;
      return instance.password === undefined ? plain : { ...plain, password: instance.password };
    };
    const ifMatch = request.headers["if-match"];
    const single = (found: ScimResource, status = 200): Answer => ({ status, body: out(scope, kind, found, attributeFilter(query)), etag: found.meta.version });

    if (id === undefined) {
      allow("GET, POST");
      if (method === "GET") return list(scope, [kind], query);
      const created = await resource.create(scope, inbound(await bounded()));
      return { ...single(created, 201), location: `${scope.base}/${kind}/${created.id}` };
    }
    if (id === ".search") {
      allow("POST");
      return list(scope, [kind], searchParameters(await body()));
    }
    allow("GET, PUT, PATCH, DELETE");
    switch (method) {
      case "GET": {
        const found = await resource.get(scope, id);
        const ifNoneMatch = request.headers["if-none-match"];
        if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim() === found.meta.version || tag.trim() === "*")) return { status: 304, etag: found.meta.version };
        return single(found);
      }
      case "PUT":
        return single(await resource.replace(scope, id, inbound(await bounded()), ifMatch));
      case "PATCH": {
        const message = await body();
        checkPatch(message);
        const current = await resource.get(scope, id);
        checkVersion(current.meta.version, ifMatch);
        const patch = new SCIMMY.Messages.PatchOp(message as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]);
        let written: ScimResource | undefined;
        await patch.apply(outSchema(scope, kind, current), async (target: unknown) => {
          // What the operations made, held to the same caps as a resource sent whole.
          checkMultiValued(JSON.parse(JSON.stringify(target)), "");
          // Written only over the version the operations were applied to: a write in between is a 412, not lost.
          written = await resource.replace(scope, id, inbound(target as Plain), current.meta.version);
          return outSchema(scope, kind, written);
        });
        return single(written ?? (await resource.get(scope, id)));
      }
      default:
        await resource.remove(scope, id, ifMatch);
        return { status: 204 };
    }
  };

  const send = (response: ServerResponse, origin: string, answer: Answer & { allow?: string; retryAfter?: number }) => {
    const headers: Record<string, string> = {};
    if (answer.etag) headers.etag = answer.etag;
    if (answer.location) headers.location = answer.location;
    if (answer.allow) headers.allow = answer.allow;
    if (answer.retryAfter !== undefined) headers["retry-after"] = String(answer.retryAfter);
    if (answer.status === 401) headers["www-authenticate"] = 'Bearer realm="SCIM"';
    if (answer.body === undefined) {
      response.writeHead(answer.status, headers).end();
      return;
    }
    const text = JSON.stringify(answer.body, absoluteLocations(origin));
    response.writeHead(answer.status, { ...headers, "content-type": CONTENT_TYPE, "content-length": String(Buffer.byteLength(text)), "x-content-type-options": "nosniff" }).end(text);
  };

  // The error message of RFC 7644 §3.12, written here: SCIMMY's refuses the statuses RFC 7644 does
  // not list, which HTTP still has (405, 415, 429, 503).
  const errorAnswer = (error: InstanceType<typeof SCIMMY.Types.Error>, extra: { allow?: string; retryAfter?: number } = {}) => ({
    status: error.status,
    body: { schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.message },
    ...extra,
  });

  return {
    prefix: SCIM_PREFIX,
    async handle(request, response, context) {
      const target = new URL(request.url ?? "/", "http://scim.invalid");
      const origin = new URL(options.baseUrl()).origin;
      let segments: string[] = [];
      const operation = `scim ${request.method} ${target.pathname.split("/")[3] ?? ""}`;
      try {
        try {
          segments = target.pathname
            .slice(SCIM_PREFIX.length)
            .split("/")
            .filter((segment) => segment !== "")
            .map(decodeURIComponent);
        } catch {
          throw scimError(400, "invalidSyntax", "the path is not valid percent-encoding");
        }
        // Searches are reads, whatever their method.
        await context.admit(request.method === "GET" || target.pathname.endsWith("/.search") ? "read" : "write");
        const authorization = request.headers.authorization ?? "";
        const token = /^bearer\s+/i.test(authorization) ? authorization.replace(/^bearer\s+/i, "").trim() : "";
        const endpoint = token ? await options.verifyToken(token) : null;
        if (!endpoint) {
          request.resume();
          throw scimError(401, null, token ? "the SCIM token is not valid: rotated, deleted, or never issued" : "a SCIM endpoint's token is required: Authorization: Bearer <token>");
        }
        send(response, origin, await route(request, context, { orgId: endpoint.org_id, base: `${origin}${SCIM_PREFIX}` }, segments, target.searchParams));
      } catch (error) {
        request.resume();
        const known = scimErrorOf(error);
        if (!known) {
          options.onInternalError?.(operation, error);
          send(response, origin, errorAnswer(scimError(500, null, "internal error")));
          return;
        }
        send(response, origin, errorAnswer(known, { allow: (error as { allow?: string }).allow, retryAfter: (error as ServiceError).retryAfterSeconds }));
      }
    },
  };
}
