// Every Go name of the Go SDK, computed once: the exported names of the structs, their fields, the
// enum types and constants, the error codes and their sentinels, the client methods and iterators,
// and the operation table entries of the transport package. The Go emitter (go.ts), its README and
// package doc, and the contract diff's SDK surface (diff/sdk-surface.ts, diff/api-rules.ts) read
// them from here, so that no Go name is derived twice.
//
// The names the hand-written runtime takes are not listed by hand: they are read from the Go
// templates themselves (every exported func, method, type, const and var whose name is written out
// rather than rendered from the view), so a runtime change cannot leave a stale list behind. A
// manifest name that would take one stops generation with a message naming both.
import { goOptions } from "./client-options.js";
import { UsageError } from "../load/diagnostics.js";
import type { Ir } from "../ir/ir.js";
import type { SdkFacts } from "./sdk-facts.js";
import { loadTemplates, type TemplateFile } from "./templates.js";
import type { GoViews } from "./go-views.js";

/** Go's common initialisms (written in capitals in exported names) besides the manifest's acronyms. */
export const GO_INITIALISMS = ["ID", "URL", "URI", "HTTP", "HTTPS", "API", "JSON", "IP", "UUID"];

/** The internal package of the runtime's machinery, relative to the module root. */
export const GO_TRANSPORT_DIR = "internal/transport";

/**
 * An exported Go name of a snake_case (or other) word list: each word capitalized, initialisms in
 * capitals, and the plural of one with its s in lower case, as Go writes it (ticket_ids ->
 * TicketIDs beside TicketID, redirect_uris -> RedirectURIs).
 */
export function goName(words: string, initialisms: ReadonlySet<string>): string {
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => {
      const upper = word.toUpperCase();
      if (initialisms.has(upper)) return upper;
      if (word.length > 2 && word.endsWith("s") && initialisms.has(upper.slice(0, -1))) return `${upper.slice(0, -1)}s`;
      return word.charAt(0).toUpperCase() + word.slice(1);
    })
    .join("");
}

/** The words an API writes in capitals in Go: its acronyms and Go's initialisms. */
export function goInitialisms(ir: Ir): ReadonlySet<string> {
  return new Set([...ir.api.acronyms, ...GO_INITIALISMS].map((word) => word.toUpperCase()));
}

/** The Go name of a struct field: packages.go.field_names where the manifest sets one, else derived. */
export function goFieldName(ir: Ir, field: string, initialisms: ReadonlySet<string> = goInitialisms(ir)): string {
  return ir.api.go.fieldNames[field] ?? goName(field, initialisms);
}

/** SCREAMING_SNAKE (an error code) -> PascalCase. */
const pascalOfCode = (code: string) => code.toLowerCase().replace(/(^|_)(.)/g, (_, __: string, c: string) => c.toUpperCase());

// ---------------------------------------------------------------- the runtime's declarations

/** The exported names a Go source declares at top level, and its methods by receiver type. */
export interface GoDeclarations {
  names: string[];
  methods: { receiver: string; name: string }[];
}

const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const exported = (name: string) => /^[A-Z]/.test(name);

/**
 * The exported declarations of a Go source laid out as gofmt lays it out (top-level declarations
 * start a line, the specs of a group are indented by one tab), read line by line; a line that
 * starts inside a raw string or a block comment declares nothing. A handlebars template reads as
 * its Go: block tags stand on lines of their own, and a name rendered from the view
 * (`type {{name}} struct`) is not an identifier, so only the names written out count, under every
 * condition of the template; a method's receiver is kept as written (`*{{adminClient}}`, see
 * goClientPlaceholder).
 */
export function goExportedDeclarations(source: string): GoDeclarations {
  const names: string[] = [];
  const methods: { receiver: string; name: string }[] = [];
  let group = false;
  // What the end of the previous line was still inside: a raw string, a block comment, or neither.
  let open: "`" | "*/" | undefined;
  const identifiers = (list: string) => list.split(",").map((name) => name.trim());
  for (const line of source.split("\n")) {
    const continued = open !== undefined;
    for (let i = 0; i < line.length;) {
      if (open) {
        const end = line.indexOf(open, i);
        if (end < 0) break;
        i = end + open.length;
        open = undefined;
      } else if (line.startsWith("//", i)) break;
      else if (line.startsWith("/*", i)) [open, i] = ["*/", i + 2];
      else if (line[i] === "`") [open, i] = ["`", i + 1];
      else if (line[i] === '"' || line[i] === "'") {
        const quote = line[i];
        for (i++; i < line.length && line[i] !== quote; i++) if (line[i] === "\\") i++;
        i++;
      } else i++;
    }
    if (continued) continue;
    if (group) {
      if (/^\)/.test(line)) group = false;
      const spec = new RegExp(`^\\t(${IDENT}(?:\\s*,\\s*${IDENT})*)(?=[\\s=]|$)`).exec(line);
      if (spec) names.push(...identifiers(spec[1]!));
    } else if (/^(const|var|type) \($/.test(line)) {
      group = true;
    } else {
      const func = new RegExp(`^func (${IDENT})[[(]`).exec(line);
      const method = new RegExp(`^func \\(\\w+ \\*?(${IDENT}|\\{\\{\\w+\\}\\})(?:\\[[^\\]]*\\])?\\) (${IDENT})[[(]`).exec(line);
      const single = new RegExp(`^(?:const|var) (${IDENT}(?:\\s*,\\s*${IDENT})*)(?=[\\s=]|$)`).exec(line);
      const type = new RegExp(`^type (${IDENT})(?=[\\s[=])`).exec(line);
      if (func) names.push(func[1]!);
      if (method) methods.push({ receiver: method[1]!, name: method[2]! });
      if (single) names.push(...identifiers(single[1]!));
      if (type) names.push(type[1]!);
    }
  }
  return { names: names.filter(exported), methods: methods.filter((m) => exported(m.name)) };
}

/** What the hand-written runtime declares in one Go package: exported name -> template, receiver -> method -> template. */
export interface GoRuntimePackage {
  names: Map<string, string>;
  methods: Map<string, Map<string, string>>;
}

let templates: TemplateFile<GoViews>[] | undefined;

/** The templates of templates/go/, loaded once, each typed by its view (go-views.ts). */
export function goTemplates(): TemplateFile<GoViews>[] {
  return (templates ??= loadTemplates<GoViews>("go", {}));
}

/** The Go package directory of a template (relative to the module root; "" for the public package). */
export const goPackageDir = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

/** The template file a generated path comes from, as the contributor edits it. */
const templateSource = (template: TemplateFile) => `templates/go/${template.path}${template.verbatim ? "" : ".hbs"}`;

/** Per Go package directory, the exported names its hand-written runtime declares, read from the templates. */
export function goRuntimeDeclarations(list: readonly TemplateFile[] = goTemplates()): Map<string, GoRuntimePackage> {
  const packages = new Map<string, GoRuntimePackage>();
  for (const template of list) {
    if (!template.path.endsWith(".go")) continue;
    const dir = goPackageDir(template.path);
    if (!packages.has(dir)) packages.set(dir, { names: new Map(), methods: new Map() });
    const runtime = packages.get(dir)!;
    const declared = goExportedDeclarations(template.source);
    for (const name of declared.names) if (!runtime.names.has(name)) runtime.names.set(name, templateSource(template));
    for (const { receiver, name } of declared.methods) {
      if (!runtime.methods.has(receiver)) runtime.methods.set(receiver, new Map());
      const methods = runtime.methods.get(receiver)!;
      if (!methods.has(name)) methods.set(name, templateSource(template));
    }
  }
  return packages;
}

let runtimeDeclarations: Map<string, GoRuntimePackage> | undefined;

/** What the Go templates of this toolchain declare, read once (goRuntimeDeclarations of goTemplates()). */
export function goTemplateDeclarations(): Map<string, GoRuntimePackage> {
  return (runtimeDeclarations ??= goRuntimeDeclarations());
}

// ---------------------------------------------------------------- the SDK's names

export interface GoMethodNames {
  /** The operation's name in the manifest. */
  operation: string;
  /** The client method: the operation's PascalName. */
  name: string;
  /** The operation's entry of the transport package's table (transport.Op<Method>). */
  opVar: string;
  /** The method that walks every item, page after page, for a paginated operation. */
  iterator?: string;
  /** The method that walks every page (each answer), for a paginated operation: <Method>Pages. */
  pages?: string;
}

/** What every answer struct has besides its fields (types.go.hbs): a field of the manifest takes neither name. */
export const GO_ANSWER_MEMBERS = ["ExtraFields", "RawJSON"];

export interface GoNames {
  /** Message name -> its struct (an operation's inline input is <Method>Input). */
  struct: ReadonlyMap<string, string>;
  /** Message name -> the Go names of its fields, in the message's order. */
  fields: ReadonlyMap<string, readonly string[]>;
  /** Tagged union -> the method of its struct that names the variant given (Kind for `discriminator: kind`). */
  unionTagMethod: ReadonlyMap<string, string>;
  /** Enum name -> its type. */
  enumType: ReadonlyMap<string, string>;
  /** Enum name -> the constants of its values, in the enum's order. */
  enumValues: ReadonlyMap<string, readonly string[]>;
  /** Every error code: its constant and sentinel in the public package, its constant in the transport package. */
  codes: readonly { code: string; constant: string; sentinel: string; internal: string }[];
  /**
   * The clients the API has (one where all its operations are on one): the struct api.surfaces
   * names, its constructor (the admin client's New<name>; the user client's is NewClient, the
   * package's main client), and its methods in manifest order.
   */
  clients: readonly { role: string; name: string; constructor: string; methods: readonly GoMethodNames[] }[];
  /** The option functions of the clients: WithTimeout, WithAdminTimeout, ... */
  options: readonly string[];
}

/**
 * How the templates write a client's struct, whose name the manifest declares: client.go.hbs
 * declares `type {{adminClient}} struct` and its methods on `*{{adminClient}}`, which the
 * declarations read from the templates keep under this receiver.
 */
export const goClientPlaceholder = (role: string) => `{{${role}Client}}`;
/** The constructor of a client: NewAdminClient, and the user client's NewClient (written out in client.go.hbs). */
const goConstructor = (role: string, name: string) => (role === "admin" ? `New${name}` : "NewClient");

const computed = new WeakMap<Ir, GoNames>();

/**
 * The Go names of an API, each exported name checked once: a manifest name that the runtime or
 * another declaration already takes (a type named APIError or DefaultTimeout, an operation whose
 * method would be Close, two fields both ClientID) is a UsageError naming both.
 */
export function goNames(ir: Ir, facts: SdkFacts): GoNames {
  const known = computed.get(ir);
  if (known) return known;
  const runtimeDeclarations = goTemplateDeclarations();
  const publicRuntime = runtimeDeclarations.get("") ?? { names: new Map(), methods: new Map() };
  const transportRuntime = runtimeDeclarations.get(GO_TRANSPORT_DIR) ?? { names: new Map(), methods: new Map() };
  const initialisms = goInitialisms(ir);

  // Every exported name of the public package once.
  const declared = new Map<string, string>([...publicRuntime.names].map(([name, file]) => [name, `the runtime (${file})`]));
  const declare = (name: string, what: string) => {
    const owner = declared.get(name);
    if (owner) {
      const runtime = /^the runtime \((.*)\)$/.exec(owner);
      throw new UsageError(
        runtime
          ? `the Go name ${name} of ${what} is taken by the runtime; rename one in the manifest (the runtime declares it in ${runtime[1]})`
          : `the Go name ${name} of ${what} is taken by ${owner}; rename one in the manifest`,
      );
    }
    declared.set(name, what);
  };
  // The clients' option functions (generators/sdk/client-options.ts), before any manifest name.
  const options = facts.clients.flatMap((client) => goOptions({ facts, role: client.role, sync: true }).map((option) => option.function));
  for (const option of options) declare(option, "a client option");

  const inputOf = new Map(facts.operations.map((op) => [op.input, op]));
  const struct = new Map(facts.messages.map((m) => [m.name, !m.shared && inputOf.has(m.name) ? `${inputOf.get(m.name)!.pascalName}Input` : m.name]));
  const enumType = new Map(facts.enums.map((e) => [e.name, e.name]));
  const enumValues = new Map(facts.enums.map((e) => [e.name, e.values.map((v) => `${e.name}${goName(v.name, initialisms)}`)]));
  for (const e of facts.enums) {
    declare(enumType.get(e.name)!, `enum ${e.name}`);
    for (const value of enumValues.get(e.name)!) declare(value, `a value of enum ${e.name}`);
  }
  const fields = new Map(
    facts.messages.map((message) => {
      const names = message.fields.map((field) => goFieldName(ir, field.name, initialisms));
      names.forEach((name, i) => {
        const twin = names.indexOf(name);
        if (twin < i) throw new UsageError(`fields '${message.fields[twin]!.name}' and '${message.fields[i]!.name}' of ${message.name} would both be ${name} in Go; rename one in the manifest`);
        if (message.usedAsOutput && GO_ANSWER_MEMBERS.includes(name)) {
          throw new UsageError(
            `field '${message.fields[i]!.name}' of ${message.name} would be ${name} in Go, which every answer struct has already (templates/go/types.go.hbs); rename it in the manifest`,
          );
        }
      });
      return [message.name, names];
    }),
  );
  const unionTagMethod = new Map(
    facts.messages.flatMap((message) => {
      if (message.discriminator === null) return [];
      const method = goName(message.discriminator, initialisms);
      if (fields.get(message.name)!.includes(method) || GO_ANSWER_MEMBERS.includes(method))
        throw new UsageError(`discriminator '${message.discriminator}' of ${message.name} would be ${method} in Go, a name its struct has already; rename one in the manifest`);
      return [[message.name, method] as const];
    }),
  );
  for (const message of facts.messages) declare(struct.get(message.name)!, `type ${struct.get(message.name)!}`);
  const codes = [...facts.errors.server.map((e) => e.code), ...facts.errors.clientOnly].map((code) => {
    const pascal = pascalOfCode(code);
    const names = { code, constant: `Code${pascal}`, sentinel: `Err${pascal}`, internal: `code${pascal}` };
    declare(names.constant, `error code ${code}`);
    declare(names.sentinel, `error code ${code}`);
    return names;
  });

  // The methods of each client, beside the ones its runtime declares; the operation table of the transport package.
  const operations = new Map(facts.operations.map((op) => [op.name, op]));
  const methodNames = new Set(facts.operations.map((op) => op.pascalName));
  const transportNames = new Map(transportRuntime.names);
  const clients = facts.clients.map((client) => {
    const type = client.name;
    const newFunc = goConstructor(client.role, type);
    declare(type, `the ${client.role} client`);
    if (newFunc !== "NewClient") declare(newFunc, `the constructor of the ${client.role} client`);
    const runtimeMethods = publicRuntime.methods.get(goClientPlaceholder(client.role)) ?? new Map<string, string>();
    const taken = new Set([...runtimeMethods.keys(), ...methodNames]);
    const methods = client.operations.map((name): GoMethodNames => {
      const op = operations.get(name)!;
      const file = runtimeMethods.get(op.pascalName);
      if (file) {
        throw new UsageError(
          `the Go method of operation '${op.name}' would be ${type}.${op.pascalName}, which the client has already; rename the operation in the manifest (the runtime declares it in ${file})`,
        );
      }
      const opVar = `Op${op.pascalName}`;
      const owner = transportNames.get(opVar);
      if (owner) throw new UsageError(`the Go name transport.${opVar} of operation '${op.name}' is taken by the runtime; rename the operation in the manifest (the runtime declares it in ${owner})`);
      transportNames.set(opVar, `operation '${op.name}'`);
      if (!op.pagination) return { operation: op.name, name: op.pascalName, opVar };
      // AllUsers, AllOrgMembers; a list named List... reads without it (AllSAMLServiceProviders).
      const preferred = `All${op.pascalName.replace(/^List(?=[A-Z])/, "")}`;
      const iterator = taken.has(preferred) ? `All${op.pascalName}` : preferred;
      if (taken.has(iterator)) {
        const file = runtimeMethods.get(iterator);
        throw new UsageError(
          `the Go iterator of operation '${op.name}' would be named ${iterator}, which ${type} already has; rename the operation in the manifest${file ? ` (the runtime declares it in ${file})` : ""}`,
        );
      }
      taken.add(iterator);
      const pages = `${op.pascalName}Pages`;
      if (taken.has(pages)) {
        const file = runtimeMethods.get(pages);
        throw new UsageError(
          `the Go page iterator of operation '${op.name}' would be named ${pages}, which ${type} already has; rename the operation in the manifest${file ? ` (the runtime declares it in ${file})` : ""}`,
        );
      }
      taken.add(pages);
      return { operation: op.name, name: op.pascalName, opVar, iterator, pages };
    });
    return { role: client.role, name: type, constructor: newFunc, methods };
  });

  const names: GoNames = { struct, fields, unionTagMethod, enumType, enumValues, codes, clients, options };
  computed.set(ir, names);
  return names;
}
