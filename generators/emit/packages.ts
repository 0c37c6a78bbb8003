// The publishable packages: the client SDK and the server stubs, each a package.json and a README
// under generated/packages/<name>/, plus the SDK's ./grpc entry module. `npm run pack`
// (scripts/pack.mjs) compiles the modules each package.json exports, with everything they import,
// into ES modules with .d.ts and packs them; the runtime ships inside each package.
import { EXPLORER_INSTALL_COMMAND, EXPLORER_PACKAGES } from "../../runtime/server/explorer-packages.js";
import { OPTIONAL_PACKAGES } from "../../runtime/server/optional-packages.js";
import { protobufEsModule } from "./protobuf-es.js";
import { clientRoleOf, schemesOf, type ClientRole, type Ir, type IrAuthScheme, type IrOperation } from "../ir/ir.js";
import type { GeneratedFile } from "../write/writer.js";
import { CLIENT_DIR } from "../sdk/client.js";
import {
  authSchemesOf,
  clientClasses,
  PROTOCOL_LABEL,
  fence,
  graphqlDocument,
  graphqlVariables,
  grpcCommand,
  jsLiteral,
  operationTable,
  restCommand,
  sampleInput,
  sampleMessage,
} from "./operation-text.js";
import { SERVER_DIR, TYPES_MODULE } from "./typescript.js";
import { RUNTIME_PACKAGE } from "./runtime-package.js";
import { openEnumName } from "../ir/passes/names.js";
import { SCALAR_SPECS } from "../sdk/scalars.js";
import { typescriptOptionsTable } from "../sdk/client-options.js";
import { buildSdkFacts, EXAMPLE_CREDENTIALS, exampleCredentials } from "../sdk/sdk-facts.js";
import { PUBLISHED_NODE_MINIMUM, PUBLISHED_NODE_RANGE } from "../cli/version.js";

export const PACKAGES_DIR = "generated/packages";
/** Each npm package's folder under PACKAGES_DIR is named after its role, whatever its (scoped) name. */
export const SDK_PACKAGE_DIR = `${PACKAGES_DIR}/sdk`;
export const SERVER_PACKAGE_DIR = `${PACKAGES_DIR}/server`;
export const MCP_PACKAGE_DIR = `${PACKAGES_DIR}/mcp`;
const MCP_MAIN = "generated/mcp/main.ts";
/** The standalone MCP server's command: `<api name>-mcp`. */
export const mcpCommand = (ir: Ir) => `${ir.api.name}-mcp`;

function mcpReadme(ir: Ir): string {
  const command = mcpCommand(ir);
  // A signed-in user's token only where a tool of the user surfaces needs one.
  const userTokenTools = ir.operations.some((op) => op.surface !== "admin" && schemesOf(ir, op).some(({ scheme }) => scheme.token === "access"));
  /** The tools of the operations of some schemes, by their auth: "the tools of auth user or member". */
  const toolsOf = (test: (scheme: IrAuthScheme) => boolean) =>
    `the tools of auth ${authSchemesOf(ir)
      .filter(test)
      .map((s) => s.name)
      .join(", ")
      .replace(/, (?=[^,]*$)/, " or ")}`;
  const secretTools = toolsOf((s) => s.kind === "secret");
  const tokenTools = toolsOf((s) => s.kind === "bearer" && s.token === "access");
  // --surface narrows the tools only where the API has more than one client.
  const surfaces = ir.clients.map((client) => client.role);
  const stdioCredentials = [
    ...(ir.api.features.adminSecret ? [`\`${ir.api.envPrefix}_ADMIN_SECRET\` (${secretTools})`] : []),
    ...(userTokenTools ? [`\`${ir.api.envPrefix}_ACCESS_TOKEN\` (${tokenTools})`] : []),
    ...(ir.api.features.apiKey ? [`\`${ir.api.envPrefix}_API_KEY\` (the tools of operations that take an API key; sent in the \`${ir.api.apiKeyHeader}\` header)`] : []),
  ];
  return [
    `# ${ir.api.mcpPackage}`,
    "",
    `An MCP server for ${ir.api.title} ${ir.api.version}: every operation is a tool an AI agent can call, with its input and output JSON Schemas and its hints (read-only, destructive, idempotent). It calls a running service through \`${ir.api.sdkPackage}\`.`,
    "",
    "```sh",
    `${ir.api.features.adminSecret ? `${ir.api.envPrefix}_ADMIN_SECRET=... ` : ""}${ir.api.features.apiKey ? `${ir.api.envPrefix}_API_KEY=... ` : ""}npx ${command} --service-url https://${ir.api.name}.example.com            # stdio`,
    `npx ${command} --service-url https://${ir.api.name}.example.com --transport http --port 8765      # Streamable HTTP on /mcp`,
    `npx ${command} --service-url https://${ir.api.name}.example.com --protocol grpc --grpc-endpoint grpc.${ir.api.name}.example.com:443   # the tools over gRPC`,
    "```",
    "",
    `- stdio: the credentials of every call come from the environment: ${[stdioCredentials.slice(0, -1).join(", "), stdioCredentials.at(-1)].filter(Boolean).join(" and ")}; never from the command line.`,
    `- HTTP: each request carries its own: ${[
      ...(ir.api.features.adminSecret ? [`the \`${ir.api.adminSecretHeader}\` header for ${secretTools}`] : []),
      ...(userTokenTools ? [`\`Authorization: Bearer <token>\` for ${tokenTools}`] : []),
      ...(ir.api.features.apiKey ? [`the \`${ir.api.apiKeyHeader}\` header for the tools of operations that take an API key`] : []),
    ].join(
      ", ",
    )}. A tool call without the credential its operation needs, or with one the service refuses, is answered HTTP 401 and runs nothing${ir.api.features.apiKey ? "; an API key is checked by the service as it takes the call, so a wrong one answers UNAUTHENTICATED as the tool's error, and runs nothing either" : ""}.`,
    `- \`--read-only\` lists no tool that writes; ${surfaces.length > 1 ? `\`--surface ${surfaces.join("|")}\`, ` : ""}\`--group <g,...>\` and \`--operation <name,...>\` narrow the tools; \`--tools dynamic\` serves three (list_operations, describe_operation, invoke_operation) for hosts that cannot take a hundred.`,
    `- \`--protocol rest|graphql|grpc\` (default rest): the tools are the operations that protocol carries. Over gRPC they call \`--grpc-endpoint <host:port>\` (or \`${ir.api.envPrefix}_GRPC_ENDPOINT\`), by default the host of the service URL with port ${ir.api.grpcPort}.`,
    "- A service error is a tool result with `isError: true` and the service's code, message and field.",
    "",
  ].join("\n");
}
/** The module behind the SDK's ./grpc subpath. */
export const GRPC_ENTRY = `${CLIENT_DIR}/grpc.ts`;

/**
 * Third-party packages the runtime and the generated modules import, with the ranges the packages
 * declare. They follow the project's own dependencies (a test checks that they agree).
 */
export const RUNTIME_DEPENDENCIES = {
  "@bufbuild/protobuf": "^2.13.0",
  // Exact, and one version for the three: connect-node and connect-web each take @connectrpc/connect
  // of their own version as a peer, and two copies of it would not know each other's errors.
  "@connectrpc/connect": "2.1.2",
  "@connectrpc/connect-node": "2.1.2",
  "@connectrpc/connect-web": "2.1.2",
  "@grpc/grpc-js": "^1.14.7",
  "@grpc/reflection": "^1.0.4",
  "grpc-health-check": "^2.1.0",
  graphql: "^16.15.0",
  "proxy-addr": "^2.0.8",
  "forwarded-parse": "^2.2.0",
  "rate-limiter-flexible": "^11.4.0",
  protobufjs: "^7.6.6",
  "@modelcontextprotocol/sdk": "^1.32.2",
  undici: "^8.13.1",
} as const;
type Dependency = keyof typeof RUNTIME_DEPENDENCIES;

// undici: REST and GraphQL on Node (a pool per client, ClientConfig.tls); connect-node: gRPC on Node;
// connect-web: RPCs elsewhere (Connect over fetch). Each is loaded only where its platform module
// runs, and the RPC ones on the first gRPC call: an app of REST or GraphQL in a browser loads none.
const SDK_DEPENDENCIES: Dependency[] = ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-node", "@connectrpc/connect-web", "undici"];

/**
 * The clients' platform module by runtime (the package's "#client-platform" import, as
 * runtime/package.json maps it): Node's pooled fetch and gRPC over HTTP/2, or the platform's fetch
 * and Connect over it for browsers, Deno, Bun and edge runtimes (none of which loads a node: module).
 */
const WEB_PLATFORM = "./runtime/client/platform-web.js";
export const CLIENT_PLATFORM_IMPORTS = {
  "#client-platform": {
    browser: WEB_PLATFORM,
    deno: WEB_PLATFORM,
    bun: WEB_PLATFORM,
    worker: WEB_PLATFORM,
    workerd: WEB_PLATFORM,
    "edge-light": WEB_PLATFORM,
    node: "./runtime/client/platform-node.js",
    default: WEB_PLATFORM,
  },
} as const;
const MCP_DEPENDENCIES: Dependency[] = [...SDK_DEPENDENCIES, "@modelcontextprotocol/sdk"];
const SERVER_DEPENDENCIES: Dependency[] = [
  "@bufbuild/protobuf",
  "@connectrpc/connect",
  "@connectrpc/connect-node",
  "@grpc/grpc-js",
  "@grpc/reflection",
  "grpc-health-check",
  "graphql",
  "protobufjs",
  "proxy-addr",
  "forwarded-parse",
  "rate-limiter-flexible",
];

/** `./generated/client/index.js` for `generated/client/index.ts`. */
const compiled = (source: string, extension: ".js" | ".d.ts") => `./${source.replace(/\.ts$/, extension)}`;
const entry = (source: string) => ({ types: compiled(source, ".d.ts"), default: compiled(source, ".js") });

/**
 * Optional peers of the server, so that nobody installs them who does not turn their option on:
 * the explorer's browser packages (option `explorer`), which it serves but never imports, and the
 * packages it imports only when an option asks (Redis store, metrics, tracing).
 */
const optionalPeers = [
  ...Object.entries(EXPLORER_PACKAGES)
    .filter(([, { optionalPeer }]) => optionalPeer)
    .map(([name, { range }]) => [name, range] as const),
  ...Object.entries(OPTIONAL_PACKAGES).map(([name, { range }]) => [name, range] as const),
];
const OPTIONAL_PEERS = {
  peerDependencies: Object.fromEntries(optionalPeers),
  peerDependenciesMeta: Object.fromEntries(optionalPeers.map(([name]) => [name, { optional: true }])),
};
/** The clients' optional peer: the OpenTelemetry API, whose active span's trace context each call carries when it is installed. */
const CLIENT_OPTIONAL_PEERS = {
  peerDependencies: { "@opentelemetry/api": OPTIONAL_PACKAGES["@opentelemetry/api"]!.range },
  peerDependenciesMeta: { "@opentelemetry/api": { optional: true } },
};

function packageJson(
  ir: Ir,
  name: string,
  description: string,
  entries: Record<string, string>,
  dependencies: Dependency[],
  optionalPeers?: typeof OPTIONAL_PEERS,
  bin?: Record<string, string>,
  imports?: typeof CLIENT_PLATFORM_IMPORTS,
): string {
  const { license, repository, homepage, keywords } = ir.api.metadata;
  const manifest = {
    name,
    version: ir.api.version,
    description,
    ...(license ? { license } : {}),
    ...(repository ? { repository: { type: "git", url: `git+${repository}.git` } } : {}),
    ...(homepage ? { homepage } : {}),
    ...(keywords.length > 0 ? { keywords } : {}),
    type: "module",
    exports: { ...Object.fromEntries(Object.entries(entries).map(([subpath, source]) => [subpath, entry(source)])), "./package.json": "./package.json" },
    ...(entries["."] ? { types: compiled(entries["."], ".d.ts") } : {}),
    ...(imports ? { imports } : {}),
    // npm writes bin paths without "./" (and would rewrite one that has it as it publishes).
    ...(bin ? { bin: Object.fromEntries(Object.entries(bin).map(([command, source]) => [command, source.replace(/\.ts$/, ".js")])) } : {}),
    sideEffects: !!bin,
    // The compiled modules keep the layout of the sources: generated/ on top of runtime/.
    files: ["generated", "runtime"],
    engines: { node: PUBLISHED_NODE_RANGE },
    dependencies: Object.fromEntries(dependencies.map((d) => [d, RUNTIME_DEPENDENCIES[d]])),
    ...optionalPeers,
    // A scoped package is private on the npm registry unless published as public.
    ...(name.startsWith("@") ? { publishConfig: { access: "public" } } : {}),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** A read of the examples' client with a required input, carried by every protocol: the REST example's call. */
function exampleWithInput(ir: Ir, role: ClientRole): IrOperation | undefined {
  return ir.operations.find((op) => clientRoleOf(op) === role && op.kind === "read" && op.protocols.length === 3 && op.input.fields.some((f) => f.required));
}

function operationByName(ir: Ir, name: string | undefined): IrOperation | undefined {
  return ir.operations.find((op) => op.name === name);
}

// ---------------------------------------------------------------- SDK

/** The admin secret among a client's or server's options, where an operation needs it (ir.api.features). */
const adminSecretOption = (ir: Ir) => (ir.api.features.adminSecret ? ", adminSecret: process.env.ADMIN_SECRET!" : "");

/** A call of `op` on the client variable `client` as the README shows it: its sample input, its answer printed. */
function exampleCall(ir: Ir, client: string, op: IrOperation): string {
  const input = op.input.fields.length > 0 ? jsLiteral(sampleInput(ir, op)) : "";
  return `const answer = await ${client}.${op.camelName}(${input});\nconsole.log(answer);`;
}

function sdkReadme(ir: Ir): string {
  const name = ir.api.sdkPackage;
  const clients = clientClasses(ir);
  const adminClient = ir.clients.find((c) => c.role === "admin");
  const userClient = ir.clients.find((c) => c.role === "user");
  // The examples use the client of the operations passes/examples.ts picked: the admin client, or the user client of an API without admin operations.
  const onAdmin = ir.docExamples.surface === "admin";
  const client = (onAdmin ? adminClient : userClient)!.name;
  const variable = onAdmin ? "admin" : "client";
  // The credentials the API's declared schemes ask of the client: the admin secret, a client id, an API key, a user's token.
  const taken = exampleCredentials(ir);
  const credentials = [
    onAdmin ? adminSecretOption(ir) : ir.api.features.clientId ? `, clientId: "${EXAMPLE_CREDENTIALS.clientId}"` : "",
    taken.apiKey ? `, apiKey: "${EXAMPLE_CREDENTIALS.apiKey}"` : "",
    taken.accessToken ? `, accessToken: "${EXAMPLE_CREDENTIALS.accessToken}"` : "",
  ].join("");
  const versionRead = operationByName(ir, ir.versionOperations[ir.docExamples.surface]);
  const firstOperation = versionRead ?? operationByName(ir, ir.docExamples.read) ?? operationByName(ir, ir.docExamples.list);
  const firstCall = versionRead ? `const meta = await ${variable}.${versionRead.camelName}();\nconsole.log(meta.version);` : firstOperation ? exampleCall(ir, variable, firstOperation) : "";
  const withInput = exampleWithInput(ir, ir.docExamples.surface);
  const inputCall = withInput ? `const answer = await ${variable}.${withInput.camelName}(${jsLiteral(sampleInput(ir, withInput))});` : firstCall;
  const admin = onAdmin ? versionRead : undefined;
  const grpcService = ir.proto.services.find((s) => s.surface === "admin");
  const clientWords = ir.clients.map((c) => `\`${c.name}\` for ${c.title.replace(/^The/, "the")}`).join(", ");
  const configured = [
    ...(adminClient
      ? [
          `const admin = new ${adminClient.name}({
  serviceUrl: "http://localhost:${ir.api.httpPort}", // GraphQL at /graphql, REST at ${ir.api.restPrefix}/...${
    ir.api.features.adminSecret
      ? `
  adminSecret: process.env.ADMIN_SECRET!, // sent in header ${ir.api.adminSecretHeader}`
      : ""
  }
  protocol: "graphql", // graphql (default), rest or grpc
});`,
        ]
      : []),
    ...(userClient
      ? [`const ${onAdmin ? "user" : "client"} = new ${userClient.name}({ serviceUrl: "http://localhost:${ir.api.httpPort}"${ir.api.features.clientId ? `, clientId: "my-app"` : ""} });`]
      : []),
  ];
  const sections = [
    `# ${name}`,
    `Typed clients of ${ir.api.title} ${ir.api.version} over GraphQL, REST and gRPC: ${clientWords}. Generated from the service's manifest; the client runtime is included, so this package is all an application installs.`,
    "## Install",
    fence("sh", `npm install ${name}`),
    `From a tarball made by \`apigen pack\` (\`npm run pack\` in the toolchain repository): \`npm install ./${ir.api.sdkTarball}\`. Node ${PUBLISHED_NODE_MINIMUM} or later, browsers, Deno, Bun and edge runtimes (see [Browsers, Deno, Bun and edge runtimes](#browsers-deno-bun-and-edge-runtimes)).`,
    "## Configure",
    fence(
      "ts",
      `import { ${clients.join(", ")} } from "${name}";

${configured.join("\n")}`,
    ),
    typescriptOptionsTable(
      buildSdkFacts(ir),
      ir.clients.map((c) => ({ role: c.role, name: `\`${c.name}\`` })),
    ),
    "Every answer is the same plain object whichever protocol carried it: every declared field present, unset fields `null`, int64 as a number. Failures raise `ApiError` with `code`, `operation` and `protocol`; calls a protocol or the server's version cannot carry are refused before anything is sent.",
    `## ${PROTOCOL_LABEL.graphql}`,
    fence("ts", `const ${variable} = new ${client}({ serviceUrl: "http://localhost:${ir.api.httpPort}"${credentials} });\n${firstCall}`),
    `## ${PROTOCOL_LABEL.rest}`,
    fence("ts", `const ${variable} = new ${client}({ serviceUrl: "http://localhost:${ir.api.httpPort}"${credentials}, protocol: "rest" });\n${inputCall}`),
    `## ${PROTOCOL_LABEL.grpc}`,
    fence(
      "ts",
      `const ${variable} = new ${client}({ serviceUrl: "http://localhost:${ir.api.httpPort}"${credentials}, protocol: "grpc" }); // gRPC at localhost:${ir.api.grpcPort}\n${firstCall}\nawait ${variable}.close(); // ends the HTTP/2 session`,
    ),
    "The gRPC transport is loaded on the first gRPC call, so applications that use GraphQL or REST never load it (nor Connect, nor HTTP/2).",
    `\`${name}/grpc\` exports the gRPC side for direct use: the service descriptors and message schemas for [Connect](https://connectrpc.com/docs/node/using-clients), \`grpcServices\`, and \`createGrpcTransport\`, the transport the clients use on the platform the package runs on (gRPC over HTTP/2 on Node, Connect over fetch elsewhere), loaded on its first call.`,
    ...(grpcService && admin
      ? [
          fence(
            "ts",
            `import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ${grpcService.name} } from "${name}/grpc";

const rpc = createClient(${grpcService.name}, createGrpcTransport({ baseUrl: "http://localhost:${ir.api.grpcPort}" }));
const meta = await rpc.${admin.camelName}({}${ir.api.features.adminSecret ? `, { headers: { "${ir.api.adminSecretHeader}": process.env.ADMIN_SECRET! } }` : ""});`,
          ),
        ]
      : []),
    "## Browsers, Deno, Bun and edge runtimes",
    `The package picks its transport by runtime (its \`#client-platform\` import): Node gets a pool of keep-alive connections (undici) that takes the \`tls\` options, and gRPC over HTTP/2 to \`grpcEndpoint\`; browsers, Deno, Bun, workers and edge runtimes get the platform's own \`fetch\` and no \`node:\` module, and their RPCs go as [Connect](https://connectrpc.com/docs/protocol) to \`serviceUrl\` (the service serves Connect and gRPC-Web beside REST and GraphQL). The types need no \`@types/node\`. Bundlers (esbuild, Vite, webpack) choose the browser side by its \`browser\` condition; the \`tls\` options are refused there, since the platform decides what it trusts (Deno: \`--cert\` or \`DENO_CERT\`; Bun: \`NODE_EXTRA_CA_CERTS\`).`,
    "A page can call the service only from an origin the server lists in its `cors` option (`origins`: the pages that may call it; `adminOrigins`: those that may call the admin surface too, never implied). A page of an origin not listed gets no answer it may read: the call fails as `UnavailableError`, and a call its browser must ask about first is never sent.",
    ...everydaySections(ir, { client, variable, credentials }),
    "## Operations",
    "Minimum server version per protocol (— : not carried), destructive flag and auth of every method.",
    ...ir.clients.flatMap((c) => [
      `### ${c.name}`,
      operationTable(
        ir.operations.filter((op) => clientRoleOf(op) === c.role),
        { method: (op) => `${op.camelName}()` },
      ),
    ]),
  ];
  return `${sections.join("\n\n")}\n`;
}

/**
 * The sections of what every call does (errors, retries, timeouts, pagination, logs, raw
 * responses, forward compatibility, the environment), each with an example of this API's own
 * operations; the packages test type-checks every one.
 */
function everydaySections(ir: Ir, { client, variable, credentials }: { client: string; variable: string; credentials: string }): string[] {
  const role = ir.docExamples.surface;
  const make = `const ${variable} = new ${client}({ serviceUrl: "http://localhost:${ir.api.httpPort}"${credentials} });`;
  const lookup = ir.docExamples.lookup ? operationByName(ir, ir.docExamples.lookup.operation) : undefined;
  const list = operationByName(ir, ir.docExamples.list);
  const write = ir.operations.find((op) => clientRoleOf(op) === role && op.idempotencyKey && op.protocols.includes("rest"));
  const read = operationByName(ir, ir.docExamples.read) ?? lookup;
  const call = (op: IrOperation, options = "") => `${variable}.${op.camelName}(${op.input.fields.length > 0 || options ? jsLiteral(sampleInput(ir, op)) : ""}${options ? `, ${options}` : ""})`;
  const env = ir.api.envPrefix;
  const sections: string[] = [];
  if (lookup) {
    sections.push(
      "## Errors",
      "Every failure is an `ApiError` (`code`, `message`, `operation`, `protocol`, and `status`, `retryAfterSeconds`, `response` where they apply) of the class of its code, the same over every protocol: `NotFoundError`, `InvalidArgumentError`, `UnauthenticatedError`, `PermissionDeniedError`, `AlreadyExistsError`, `FailedPreconditionError` (also every refusal before sending), `TooManyRequestsError`, `UnavailableError` (also no answer at all), `DeadlineExceededError`, `CancelledError`, `OutcomeUnknownError` (a write whose answer could not be read), ...",
      fence(
        "ts",
        `import { ${client}, NotFoundError } from "${ir.api.sdkPackage}";

${make}
try {
  await ${variable}.${lookup.camelName}({ ${ir.docExamples.lookup!.field}: "unknown" });
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(error.code, error.message);
}`,
      ),
    );
  }
  if (write) {
    sections.push(
      "## Retries and idempotency keys",
      "Transient failures (no answer, 429, 502-504) are retried with exponential backoff and jitter, waiting what `retry-after-ms` or `Retry-After` asks (up to 60 s): reads, and writes, each of which carries an `Idempotency-Key`, the same on every attempt, so that the service applies it once and answers a repeat with the first answer. Give your own key to make retries of your own safe too; `maxRetries` sets one call's retries, `retry: false` the client's. A write that takes no key (it sets a cookie) goes again only when its connection was refused.",
      fence(
        "ts",
        `${make}
await ${call(write, `{ idempotencyKey: "order-1234", maxRetries: 5 }`)};`,
      ),
    );
  }
  if (read) {
    sections.push(
      "## Timeouts",
      "Every call has one deadline, retries and the server-version lookup included: `timeoutMs` of the client (60 s by default) or of the call; a signal ends it too (`CancelledError`).",
      fence(
        "ts",
        `${make}
await ${call(read, "{ timeoutMs: 5_000, signal: AbortSignal.timeout(10_000) }")};`,
      ),
    );
  }
  if (list?.iteratorName) {
    sections.push(
      "## Pagination",
      `Each paginated list has an iterator that walks every page, each item once: \`${list.iteratorName}\`.`,
      fence(
        "ts",
        `${make}
for await (const item of ${variable}.${list.iteratorName}()) console.log(item);`,
      ),
    );
  }
  if (read) {
    sections.push(
      "## Logging, hooks and tracing",
      `\`${env}_LOG=debug\` prints a line per attempt (operation, protocol, attempt, status, duration, retry), \`${env}_LOG=info\` the failures alone; \`logger\` takes them instead of the console. Credentials never appear: one rule redacts them. \`hooks\` see every attempt on every protocol (\`onRequest\` may add headers), \`grpcInterceptors\` are Connect interceptors of the gRPC calls, and where \`@opentelemetry/api\` is installed each call carries the W3C trace context of the active span.`,
      fence(
        "ts",
        `const ${variable} = new ${client}({
  serviceUrl: "http://localhost:${ir.api.httpPort}"${credentials},
  logger: { debug: (line) => console.debug(line), warn: (line) => console.warn(line) },
  hooks: { onRequest: (event) => void (event.headers["x-request-id"] = crypto.randomUUID()) },
});
await ${call(read)};`,
      ),
      "## Raw responses",
      "`.withResponse()` on any call's promise gives the answer with what came with it: the HTTP status, the headers (over gRPC the metadata), the protocol and the number of attempts. A failed call's error carries the same as `error.response`.",
      fence(
        "ts",
        `${make}
const { data, response } = await ${call(read)}.withResponse();
console.log(response.status, response.headers.get("content-type"), response.attempts, data);`,
      ),
      "## Forward compatibility",
      "An answer keeps the fields this SDK does not know (a newer service's) beside the declared ones, at every level, and its type says so: beside its declared fields, which keep their types, each answer type has an index signature of `unknown`, so that `answer[\"field_added_later\"]` needs no cast. Enums are open in answers: an answer's enum field has the type `<Enum>OrUnknown`, `<Enum> | (string & {})`, so that editors still offer the known values and a value the service added since type-checks (over gRPC, an enum number this SDK does not know arrives as `UNKNOWN_<n>`): code that switches on one handles the others in its `default`. Inputs take the closed `<Enum>`: the service refuses a value it does not know, so a misspelled one fails to compile. `extraBody` (a call option) sends input fields the SDK does not know yet, over REST and GraphQL, to a service that does.",
      fence("ts", forwardCompatibilityExample(ir, read, { client, make, call: call(read) })),
    );
  }
  sections.push(
    "## Configuration from the environment",
    `A client takes what the code does not give from the environment: \`${env}_SERVICE_URL\`${ir.api.features.adminSecret ? `, \`${env}_ADMIN_SECRET\`` : ""}, \`${env}_ACCESS_TOKEN\`, and \`${env}_LOG\` (above). Each request names the SDK: \`User-Agent\` and \`x-api-client: typescript/<version> <runtime>/<version>\`.`,
  );
  return sections;
}

/**
 * The example of the forward-compatibility section: a read's answer, a declared field of it with its
 * type, its enum field as its open type where it has one, and a field the SDK does not know.
 */
function forwardCompatibilityExample(ir: Ir, read: IrOperation, { client, make, call }: { client: string; make: string; call: string }): string {
  const fields = read.output.fields.filter((f) => !f.list);
  const declared = fields.find((f) => f.type.kind === "scalar" && f.type.scalar !== "json");
  const enumField = read.output.fields.find((f) => f.type.kind === "enum");
  const enumType = enumField ? openEnumName((enumField.type as { name: string }).name) : undefined;
  const variable = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
  const lines = [
    `import { ${client}${enumType ? `, type ${enumType}` : ""} } from "${ir.api.sdkPackage}";`,
    "",
    make,
    `const answer = await ${call};`,
    ...(declared && declared.type.kind === "scalar"
      ? [`const ${variable(declared.name)}: ${SCALAR_SPECS[declared.type.scalar].typescript}${declared.alwaysInAnswer ? "" : " | null"} = answer.${declared.name}; // a declared field keeps its type`]
      : []),
    ...(enumField
      ? [`const ${variable(enumField.name)}: ${enumType}${enumField.list ? "[]" : ""}${enumField.alwaysInAnswer ? "" : " | null"} = answer.${enumField.name}; // a known value, or one added since`]
      : []),
    `const added: unknown = answer["field_added_later"]; // undefined until the service adds it`,
    `console.log(${[declared?.name, enumField?.name, "added"]
      .filter((name) => name !== undefined)
      .map(variable)
      .join(", ")});`,
  ];
  return lines.join("\n");
}

function grpcEntry(ir: Ir, protoFiles: readonly string[]): GeneratedFile {
  const content = `/**
 * The ./grpc entry point of ${ir.api.sdkPackage}: the service descriptors and message schemas for use
 * with Connect, and the RPC transport the clients load when their protocol is grpc: gRPC over HTTP/2
 * on Node, Connect over fetch to serviceUrl in browsers, Deno, Bun and edge runtimes.
 */
export { createGrpcTransport } from "${RUNTIME_PACKAGE}/client/rpc-entry.js";
export type { Transport, TransportSettings } from "${RUNTIME_PACKAGE}/client/transport.js";
export { grpcServices } from "./grpc-services.js";
${[...protoFiles]
  .sort()
  .map((file) => `export * from "${protobufEsModule(file)}";`)
  .join("\n")}
`;
  return { path: GRPC_ENTRY, content };
}

// ---------------------------------------------------------------- server stubs

function serverReadme(ir: Ir): string {
  const name = ir.api.serverPackage;
  const versionOp = operationByName(ir, ir.versionOperations.admin) ?? ir.operations[0]!;
  const withInput = exampleWithInput(ir, ir.docExamples.surface);
  /** A method of the examples answering a sample of its output. */
  const answering = (op: IrOperation, which: "required" | "all", params: string) =>
    `\n  async ${op.camelName}(${params}) {\n    return {\n${Object.entries(sampleMessage(ir, op.output, which))
      .map(([field, value]) => `      ${field}: ${jsLiteral(value)},`)
      .join("\n")}\n    };\n  },`;
  const metaMethod = answering(versionOp, "all", "input, context");
  // Messages never repeat a caller's value (it may be a secret), so the example names none.
  const notFound = withInput ? `\n  async ${withInput.camelName}(input) {\n    throw new ServiceError("NOT_FOUND", "nothing matches");\n  },` : "";
  // A write of the first secret scheme (the plain admin secret, where rules extend it).
  const adminScheme = ir.api.authSchemes.find((s) => s.kind === "secret");
  const write = ir.operations.find(
    (op) => op.kind === "write" && op.auth === adminScheme?.name && !op.destructive && op.protocols.length === 3 && op.input.fields.some((f) => f.required) && op.output.fields.length <= 2,
  );
  const writeMethod = write ? answering(write, "required", "input") : "";
  const implemented = [versionOp, withInput, write].filter((op) => op !== undefined);
  const used = authSchemesOf(ir);
  /** Schemes of one kind, as the hooks table names them: `user` or `member`. */
  const named = (schemes: readonly IrAuthScheme[]) =>
    schemes
      .map((s) => `\`${s.name}\``)
      .join(", ")
      .replace(/, (?=[^,]*$)/, " or ");
  const userTokens = used.filter((s) => s.token === "access");
  const orgRules = used.filter((s) => s.orgRole !== undefined);
  const apiKeys = used.filter((s) => s.kind === "api_key");
  const otherTokens = used.filter((s) => s.kind === "bearer" && s.token !== "access");
  const { adminSecret, adminSession } = ir.api.features;
  // Scopes a bearer token must grant, and operations any of several schemes lets in: said where the API has them.
  const scopedTokens: string[] = [
    ...new Set(
      ir.operations.flatMap((op) =>
        schemesOf(ir, op)
          .filter((r) => r.scopes.length > 0)
          .map((r) => r.scheme.token ?? "access"),
      ),
    ),
  ];
  const scopesNote = (kind: string) =>
    scopedTokens.includes(kind) ? "; `scopes`, what the token grants, where an operation asks for scopes (without one it asks for, a call is PERMISSION_DENIED naming it)" : "";
  const anyOfNote = ir.operations.some((op) => op.authAnyOf.length > 1)
    ? " An operation that takes several schemes lets in a caller of any one of them. Every credential a call carries of those schemes is checked, and one that is wrong refuses the call (UNAUTHENTICATED) even beside one that is right: it is never passed over. Credentials of schemes an operation does not take are not looked at."
    : "";
  // The secret and its session as the API names them (admin_secret: adminSecret, "admin secret").
  const secret = ir.api.secretNames;
  const secretOption = secret ? `${secret.option}: process.env.${secret.variable}!` : "";
  const secretSchemes = named(used.filter((s) => s.kind === "secret"));
  const calls: string[] = [];
  if (versionOp.graphql) {
    const variables = graphqlVariables(ir, versionOp);
    calls.push(`### ${PROTOCOL_LABEL.graphql}`, "`POST <httpUrl>/graphql` with the document" + (variables ? " and its variables" : "") + ":", fence("graphql", graphqlDocument(ir, versionOp)));
    if (variables) calls.push(fence("json", JSON.stringify(variables, null, 2)));
  }
  if (versionOp.rest) calls.push(`### ${PROTOCOL_LABEL.rest}`, fence("sh", restCommand(ir, versionOp)));
  if (versionOp.grpc) calls.push(`### ${PROTOCOL_LABEL.grpc}`, fence("sh", grpcCommand(ir, versionOp)));
  const sections = [
    `# ${name}`,
    `Server stubs of ${ir.api.title} ${ir.api.version}: implement the \`Implementation\` interface, one method per operation, and \`createServer\` serves it over GraphQL, REST, Connect and gRPC-Web on one port and over gRPC on another, with auth, input validation, one error model and the answer shape every client expects. The server runtime is included.`,
    "## Install",
    fence("sh", `npm install ${name}\nnpm install --save-dev typescript @types/node`),
    `From a tarball made by \`apigen pack\` (\`npm run pack\` in the toolchain repository): \`npm install ./${ir.api.serverTarball}\`. Node ${PUBLISHED_NODE_MINIMUM} or later.`,
    'The types are ES modules for Node\'s own resolution; a consumer\'s `tsconfig.json` needs `"module": "NodeNext"` (or `"Node16"`) with the matching `moduleResolution`, and `"types": ["node"]`, which TypeScript 7 no longer assumes (tested with the toolchain\'s TypeScript and with 7):',
    fence("json", JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: ["node"] } }, null, 2)),
    "## A service of a few operations",
    fence(
      "ts",
      `import { createServer, ServiceError, type Implementation } from "${name}";

const implementation: Partial<Implementation> = {${metaMethod}${notFound}${writeMethod}
};

// partial: every operation not implemented answers UNIMPLEMENTED.
const server = createServer(implementation, { ${secret ? `${secretOption}, ` : ""}partial: true });
await server.listen();`,
    ),
    `This serves ${implemented.map((op) => "`" + op.name + "`").join(", ")} over every protocol. With \`partial: true\` each of the other ${ir.operations.length - implemented.length} operations answers UNIMPLEMENTED alike on every protocol (GraphQL \`extensions.code\`, REST 501, gRPC 12), and start-up lists them once as a warning (\`onWarning\`, default: stderr). Without it, \`createServer\` takes only a full \`Implementation\` (tsc names what is missing), and start-up refuses one that lacks methods with an \`ImplementationError\` listing every one of them. In the toolchain repository, \`npx apigen scaffold <file>\` adds a typed stub, throwing UNIMPLEMENTED, for each method your implementation lacks, without touching your code.`,
    "## Implement",
    "A full implementation is a value of `Implementation`, one method per operation:",
    fence(
      "ts",
      `import { createServer, ServiceError, type Implementation } from "${name}";

export const implementation: Implementation = {${metaMethod}${notFound}
  // ... and every other operation
};`,
    ),
    "Each method receives the validated input (snake_case names, as on the wire) and a `CallContext` (`principal`, `protocol`, `headers`, `cookies`, `setCookie`" +
      (adminSession ? ", `sessions`" : "") +
      "), and returns the answer: fields that may be null may be left out. Throw `ServiceError(code, message)` to fail a call with one of the error codes; any other exception is answered as INTERNAL without its details. Types of every input and answer: `" +
      `${name}/types` +
      "`.",
    "## Serve",
    fence(
      "ts",
      `const server = createServer(implementation, {${
        secret
          ? `
  ${secretOption}, // the calls of auth ${secretSchemes.replaceAll("`", "")} carry it in header ${ir.api.adminSecretHeader}`
          : ""
      }
  port: ${ir.api.httpPort}, // GraphQL (POST /graphql), REST (${ir.api.restPrefix}/...), Connect and gRPC-Web
  grpcPort: ${ir.api.grpcPort}, // gRPC, with server reflection and grpc.health.v1${
    userTokens.length > 0 || orgRules.length > 0
      ? `
  verifyUserToken: async (token) => null, // a bearer token -> { userId, roles${scopedTokens.includes("access") ? ", scopes" : ""} }, or null`
      : ""
  }${
    apiKeys.length > 0
      ? `
  verifyApiKey: async (key) => null, // an API key -> { keyId, roles }, or null`
      : ""
  }
});
const { httpUrl, grpcEndpoint } = await server.listen();
// ... later: await server.close();`,
    ),
    [
      "| option | meaning |",
      "|---|---|",
      ...(secret ? [`| \`${secret.option}\` | the ${secret.words} every call of auth ${secretSchemes} must carry |`] : []),
      `| \`port\`, \`grpcPort\`, \`host\` | listening addresses (defaults ${ir.api.httpPort}, ${ir.api.grpcPort}, 127.0.0.1; 0 picks a free port) |`,
      ...(userTokens.length > 0 || orgRules.length > 0 ? ["| `verifyUserToken` | resolves a user's bearer token |"] : []),
      ...orgRules.map((rule) => `| \`hasRole\` | whether a signed-in user holds the role \`${rule.orgRole}\` for what a call concerns (auth \`${rule.name}\`: ${rule.description}) |`),
      secret
        ? `| \`lockout\`, \`bodyLimitBytes\` | failed ${secret.words} attempts before a lockout; largest request body or message, on every protocol (default: the manifest's, ${ir.api.limits.requestBytes} bytes) |`
        : `| \`bodyLimitBytes\` | largest request body or message, on every protocol (default: the manifest's, ${ir.api.limits.requestBytes} bytes) |`,
      "| `logger`, `onInternalError` | one entry per call (never inputs, answers or secrets); failures that are not a `ServiceError` |",
      "| `explorer` | `true` serves the explorer pages (below); default `false` |",
      `| \`store\` | where ${[adminSecret ? "lockout counts" : "", adminSession && secret ? `${secret.sessionWords}s` : "", "rate-limit counters"]
        .filter(Boolean)
        .join(", ")
        .replace(/, (?=[^,]*$)/, " and ")} live: \`memoryStore()\` (default, this process) or \`redisStore(url)\` (shared by replicas; needs \`ioredis\`) |`,
      "| `trustProxy` | proxies allowed to name the caller in `X-Forwarded-For` (or `Forwarded`) on the HTTP port (REST, GraphQL, Connect, gRPC-Web, MCP): a hop count or a list of addresses and CIDR ranges; default none |",
      "| `grpcTrustProxy` | the same for the gRPC port, whose callers' own forwarding metadata is otherwise ignored; default none |",
      ...(secret
        ? [`| \`globalLockout\` | wrong ${secret.words}s from all addresses together before every ${secret.words} check answers TOO_MANY_REQUESTS until the window passes; default 100 a minute |`]
        : []),
      "| `rateLimit` | off by default; `true` or `{ read, write, token, burstWindowSeconds, whenStoreDown }`: per caller address and operation class, 30 calls a second with a burst of 20 unless told otherwise; refused calls answer TOO_MANY_REQUESTS with Retry-After |",
      "| `metrics` | off by default; `true` serves Prometheus metrics on `/metrics` (`{ port }`: a port of their own); needs `prom-client` |",
      "| `tracing` | off by default; `true` makes one OpenTelemetry span per traced call, continuing the caller's trace: a call follows its caller's sampling decision, and `{ sampleRatio }` (default 0.1) of the calls that start a trace are traced; calls not traced cost no span work; needs `@opentelemetry/api` and the service's SDK |",
      "| `health` | `GET /healthz` (alive) and `GET /readyz` (store reachable, not shutting down); default on |",
    ].join("\n"),
    "## Hooks",
    `The pipeline authenticates every call before your method runs, by the operation's auth scheme.${anyOfNote} ${secret ? `The ${secret.words}${adminSession ? ` and ${secret.sessionWords}s` : ""} it checks itself. ` : ""}${
      [
        userTokens.length > 0 || orgRules.length > 0 ? "who a user is" : "",
        orgRules.length > 0 ? "which roles a user holds" : "",
        apiKeys.length > 0 ? "who holds an API key" : "",
        otherTokens.length > 0 ? "who holds a bearer token" : "",
      ]
        .filter(Boolean)
        .join(", ")
        .replace(/, (?=[^,]*$)/, " and ")
        .replace(/^w/, "W") || "What happens beside the calls"
    } only your service knows, so it asks these options:`,
    [
      "| hook | asked for | without it |",
      "|---|---|---|",
      ...(userTokens.length > 0 || orgRules.length > 0
        ? [
            `| \`verifyUserToken(token)\` | the bearer token of a call whose auth is ${[named(userTokens), orgRules.length > 0 ? `(or ${named(orgRules)} without the ${secret?.words ?? "secret"})` : ""].filter(Boolean).join(" ")}: \`{ userId, roles${scopedTokens.includes("access") ? ", scopes" : ""} }\` of the signed-in user${scopesNote("access")}, or \`null\` when the token is not valid | every user call is UNAUTHENTICATED |`,
          ]
        : []),
      ...orgRules.map(
        (rule) =>
          `| \`hasRole(user, operation, input)\` | auth \`${rule.name}\` (${rule.description}): whether this user holds the role \`${rule.orgRole}\` for what the validated input names | only the holders of the ${secret?.words ?? "secret"} may call them |`,
      ),
      ...(apiKeys.length > 0
        ? [
            `| \`verifyApiKey(key)\` | auth ${named(apiKeys)}: the holder of the API key in header \`${ir.api.apiKeyHeader}\`, \`{ keyId, roles }\`, or \`null\` when the key is not valid | every such call is UNAUTHENTICATED |`,
          ]
        : []),
      ...(otherTokens.length > 0
        ? [
            `| \`verifyToken(token, kind)\` | auth ${named(otherTokens)}: the holder of a bearer token of kind ${otherTokens.map((s) => `\`${s.token}\``).join(" or ")}, \`{ holder${otherTokens.some((s) => scopedTokens.includes(s.token!)) ? ", scopes" : ""} }\`${otherTokens.map((s) => scopesNote(s.token!)).find(Boolean) ?? ""}, or \`null\` when the token is not valid | every such call is UNAUTHENTICATED |`,
          ]
        : []),
      "| `logger(entry)` | every call: operation, protocol, outcome code, duration (never inputs, answers or secrets) | nothing is logged |",
      "| `onInternalError(operation, error)` | a method that threw something other than a `ServiceError` (answered INTERNAL, without its details) | nothing is reported |",
      "| `onWarning(message)` | start-up warnings (operations left UNIMPLEMENTED) and store outages | a line on stderr |",
    ].join("\n"),
    "## gRPC, Connect and gRPC-Web",
    [
      "| port | serves |",
      "|---|---|",
      `| \`grpcPort\` | gRPC (\`@grpc/grpc-js\`), server reflection (v1 and v1alpha), \`grpc.health.v1\` |`,
      "| `port` | Connect and gRPC-Web at `/<package>.<Service>/<Method>`, over HTTP/1.1 and HTTP/2 cleartext, beside GraphQL and REST (no CORS) |",
    ].join("\n"),
    fence("sh", `grpcurl -plaintext localhost:${ir.api.grpcPort} list\ngrpcurl -plaintext -d '{"service": ""}' localhost:${ir.api.grpcPort} grpc.health.v1.Health/Check`),
    'Every RPC runs the same pipeline as GraphQL and REST. A message over `bodyLimitBytes` is RESOURCE_EXHAUSTED, one that does not decode INVALID_ARGUMENT, an unknown service or method UNIMPLEMENTED; errors the server raises carry their code in the `x-error-code` trailer (Connect: error metadata), so a RESOURCE_EXHAUSTED without it is a message too large (PAYLOAD_TOO_LARGE), with it a rate limit (TOO_MANY_REQUESTS). Health answers SERVING for `""` and each service while the server listens. Request messages declare their scalar fields `optional`, so a required one left out is INVALID_ARGUMENT as on REST.',
    "## Production",
    [
      `- **Metrics**: \`api_operations_total{protocol,operation,code}\`, \`api_operation_duration_seconds{protocol,operation}\`, ${adminSecret ? "`api_admin_lockouts_total`, " : ""}\`api_rate_limited_total{class}\`; label values are only protocols, operation names, error codes and classes.`,
      "- **Traces**: one SERVER span per call named after the operation, with `api.operation`, `api.protocol`, `api.code`; the caller's context comes from `traceparent` (HTTP headers or gRPC metadata) through the registered propagator; no inputs or secrets.",
      "- **Health**: `server.health.status()` is `SERVING` or `NOT_SERVING`, `server.health.onChange(listener)` reports changes; `/readyz` and gRPC health follow it.",
      "- **Shutdown**: `await server.close({ graceMs: 10_000 })` stops accepting, lets calls in flight finish (HTTP/1.1 connections closed after their answer, HTTP/2 sessions sent GOAWAY), cuts the rest after `graceMs`, then closes the store. Call it on SIGTERM.",
      `- Optional packages, installed only by a service that turns their option on: ${Object.keys(OPTIONAL_PACKAGES)
        .map((name) => "`" + name + "`")
        .join(", ")}. Without them \`listen()\` rejects with a \`MissingPackageError\` naming the command that installs them.`,
    ].join("\n"),
    "## Replicas behind a load balancer",
    fence(
      "ts",
      `import { createServer, redisStore } from "${name}";

const server = createServer(implementation, {${
        secret
          ? `
  ${secretOption},`
          : ""
      }
  store: redisStore(process.env.REDIS_URL!), // npm install ${"ioredis@" + OPTIONAL_PACKAGES.ioredis.range}
  trustProxy: ["10.0.0.0/8"], // the load balancer's addresses, or a hop count
});`,
    ),
    `Replicas on one Redis share ${secret ? `the ${secret.words} lockout (10 wrong secrets from one address in 15 minutes, counted atomically across replicas), ` : ""}${adminSession && secret ? `${secret.sessionWords}s (stored under the SHA-256 of their id, expiring by Redis TTL) and ` : secret ? "and " : ""}rate-limit counters, under the key prefix \`stubs:\` (\`keyPrefix\` changes it). ` +
      (secret
        ? `While Redis cannot be reached, the calls of auth ${secretSchemes} fail closed with UNAVAILABLE (HTTP 503 with \`Retry-After\`, gRPC 14) and succeed again once it is back; nothing is cached. `
        : "") +
      "Without `trustProxy` (on the gRPC port, `grpcTrustProxy`) the caller is the TCP peer and forwarding headers are ignored, so a spoofed header can neither dodge " +
      (adminSecret ? "the lockout nor lock out someone else." : "a rate limit nor shut someone else out."),
    "## Explorer",
    `With \`explorer: true\` the HTTP port also serves pages for people trying the API in a browser: \`GET /graphql\` with \`Accept: text/html\` opens GraphiQL, ${secret ? `with the ${secret.words} header (\`${ir.api.adminSecretHeader}\`) ready to fill in and ` : "with "}every operation as an example; \`/docs\` renders the OpenAPI document with Swagger UI; \`/openapi.yaml\` and \`/schema.graphql\` serve the contracts. \`POST /graphql\` and every API route answer as before, and with the option off (the default) these paths do not exist.`,
    "The pages' browser files come from `node_modules` and are served under `/_explorer/` (no CDN), with a content-security policy that allows no inline script and no request to another origin. GraphiQL and Swagger UI are optional peer dependencies; GraphiQL's standalone build needs React 18. Install them in the service that turns the explorer on; without them `createServer` throws an `ExplorerSetupError` that names what is missing.",
    fence("sh", EXPLORER_INSTALL_COMMAND),
    `## Call it`,
    `The same call, \`${versionOp.name}\`, over each protocol (\`$SERVICE_URL\` is \`httpUrl\`):`,
    ...calls,
    "## Operations",
    "Minimum server version per protocol (— : not carried), destructive flag and auth of every method of `Implementation`.",
    operationTable(ir.operations, { method: (op) => op.camelName }),
  ];
  return `${sections.join("\n\n")}\n`;
}

/** `protoFiles`: the .proto files the proto plan emits (relative to proto/), whose messages ./grpc exports. */
export function emitPackages(ir: Ir, protoFiles: readonly string[]): GeneratedFile[] {
  const sdkDir = SDK_PACKAGE_DIR;
  const serverDir = SERVER_PACKAGE_DIR;
  return [
    {
      path: `${sdkDir}/package.json`,
      content: packageJson(
        ir,
        ir.api.sdkPackage,
        `Typed clients of ${ir.api.title} over GraphQL, REST and gRPC.`,
        { ".": `${CLIENT_DIR}/index.ts`, "./grpc": GRPC_ENTRY },
        SDK_DEPENDENCIES,
        CLIENT_OPTIONAL_PEERS,
        undefined,
        CLIENT_PLATFORM_IMPORTS,
      ),
      header: false,
    },
    { path: `${sdkDir}/README.md`, content: sdkReadme(ir) },
    grpcEntry(ir, protoFiles),
    {
      path: `${serverDir}/package.json`,
      content: packageJson(
        ir,
        ir.api.serverPackage,
        `Server stubs of ${ir.api.title}: implement one interface, serve it over GraphQL, REST and gRPC.`,
        { ".": `${SERVER_DIR}/index.ts`, "./types": TYPES_MODULE },
        SERVER_DEPENDENCIES,
        OPTIONAL_PEERS,
      ),
      header: false,
    },
    { path: `${serverDir}/README.md`, content: serverReadme(ir) },
    {
      path: `${MCP_PACKAGE_DIR}/package.json`,
      content: packageJson(
        ir,
        ir.api.mcpPackage,
        `An MCP server of ${ir.api.title}: every operation a tool, called through the typed client.`,
        {},
        MCP_DEPENDENCIES,
        CLIENT_OPTIONAL_PEERS,
        { [mcpCommand(ir)]: MCP_MAIN },
        CLIENT_PLATFORM_IMPORTS,
      ),
      header: false,
    },
    { path: `${MCP_PACKAGE_DIR}/README.md`, content: mcpReadme(ir) },
  ];
}
