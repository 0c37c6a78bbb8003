// `apigen scaffold <file>`: adds a stub for every operation a service's implementation lacks, in
// the user's own source file. It finds the implementation with the type checker (a class that
// implements Implementation, AdminHandlers, UserHandlers or OAuthHandlers, or an object literal
// typed as one of them, Partial<> included), inserts only the missing methods (formatted with
// prettier and the user's prettier config) before its closing brace, and leaves every other byte
// of the file as it was. Methods the interface no longer has are reported, never deleted.
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { ClassDeclaration, ObjectLiteralExpression, Project, Type } from "ts-morph";
import { UsageError } from "../load/diagnostics.js";

// ts-morph (and the TypeScript compiler under it) is loaded by scaffold() only: apigen generate,
// bundled in the same file, must not pay ~400 ms to load it.
let morph: typeof import("ts-morph");

/** The generated interfaces an implementation can be typed with. */
const HANDLER_INTERFACES = new Set(["Implementation", "AdminHandlers", "UserHandlers", "OAuthHandlers"]);
const ERROR_CLASS = "ServiceError";

export interface ScaffoldResult {
  file: string;
  /** What was found: `class Service` or `object literal (line 12)`. */
  target: string;
  /** The interface it implements: `Implementation`, `Partial<Implementation>`, ... */
  interfaceName: string;
  /** Methods the implementation lacks (added unless checking). */
  missing: string[];
  /** Methods of the implementation that the interface does not have (left in place). */
  unknown: string[];
  written: boolean;
}

interface Candidate {
  node: ClassDeclaration | ObjectLiteralExpression;
  label: string;
  /** The class, or the variable that holds the object literal. */
  name: string | undefined;
  handlers: Type;
  interfaceName: string;
}

/** The generated handlers interface a type is, or is Partial<> of. */
function handlersOf(type: Type): { handlers: Type; name: string } | undefined {
  const alias = type.getAliasSymbol();
  if (alias?.getName() === "Partial") {
    const inner = type.getAliasTypeArguments()[0];
    const found = inner && handlersOf(inner);
    return found ? { handlers: found.handlers, name: `Partial<${found.name}>` } : undefined;
  }
  const name = type.getSymbol()?.getName() ?? alias?.getName();
  return name && HANDLER_INTERFACES.has(name) && type.isInterface() ? { handlers: type, name } : undefined;
}

function findCandidates(project: Project, file: string): Candidate[] {
  const source = project.getSourceFileOrThrow(file);
  const candidates: Candidate[] = [];
  for (const declaration of source.getClasses()) {
    for (const clause of declaration.getImplements()) {
      const found = handlersOf(clause.getType());
      const name = declaration.getName() ?? "(anonymous)";
      if (found) candidates.push({ node: declaration, label: `class ${name}`, name, handlers: found.handlers, interfaceName: found.name });
    }
  }
  source.forEachDescendant((node, traversal) => {
    if (!morph.Node.isObjectLiteralExpression(node)) return;
    const contextual = node.getContextualType();
    const found = contextual && handlersOf(contextual);
    if (!found) return;
    const variable = node.getFirstAncestorByKind(morph.ts.SyntaxKind.VariableDeclaration)?.getName();
    candidates.push({ node, label: `object literal${variable ? ` ${variable}` : ""} (line ${node.getStartLineNumber()})`, name: variable, handlers: found.handlers, interfaceName: found.name });
    traversal.skip();
  });
  return candidates;
}

/** The first sentence of a method's doc comment in the interface, for the TODO. */
function summaryOf(handlers: Type, name: string): string {
  const declaration = handlers.getProperty(name)?.getDeclarations()[0];
  const docs =
    declaration && morph.Node.isJSDocable(declaration)
      ? declaration
          .getJsDocs()
          .map((d) => d.getDescription().trim())
          .join(" ")
      : "";
  const first = docs.split(/(?<=\.)\s/)[0] ?? "";
  return first.replace(/\s+/g, " ");
}

function membersOf(candidate: Candidate): { present: Set<string>; own: string[] } {
  const node = candidate.node;
  if (morph.Node.isClassDeclaration(node)) {
    const present = new Set(
      node
        .getType()
        .getProperties()
        .map((p) => p.getName()),
    );
    const own = node.getMembers().flatMap((m) => (morph.Node.isMethodDeclaration(m) || morph.Node.isPropertyDeclaration(m) ? [m.getName()] : []));
    return { present, own };
  }
  const present = new Set(
    node
      .getType()
      .getProperties()
      .map((p) => p.getName()),
  );
  const own = node.getProperties().flatMap((p) => (morph.Node.isMethodDeclaration(p) || morph.Node.isPropertyAssignment(p) || morph.Node.isShorthandPropertyAssignment(p) ? [p.getName()] : []));
  return { present, own };
}

/** The stubs, formatted by prettier as members of a class or an object literal, without the wrapper. */
async function stubText(names: string[], handlers: Type, interfaceName: string, kind: "class" | "object", file: string): Promise<string[]> {
  const prettier = await import("prettier");
  const config = (await prettier.resolveConfig(file)) ?? {};
  const members = names.map((name) => {
    const summary = summaryOf(handlers, name);
    const todo = `// TODO: implement ${name}${summary ? `: ${summary}` : "."}`;
    // Typed through the interface the file already imports: the input and answer need no import of their own.
    const method = `${interfaceName.replace(/^Partial<(.*)>$/, "$1")}["${name}"]`;
    return `async ${name}(_input: Parameters<${method}>[0]): Promise<Awaited<ReturnType<${method}>>> {\n${todo}\nthrow new ${ERROR_CLASS}("UNIMPLEMENTED", "${name} is not implemented yet");\n}${kind === "object" ? "," : ""}`;
  });
  const wrapped = kind === "class" ? `class Stubs {\n${members.join("\n\n")}\n}\n` : `const stubs = {\n${members.join("\n\n")}\n};\n`;
  const formatted = await prettier.format(wrapped, { ...config, parser: "typescript", filepath: file });
  const lines = formatted.split("\n");
  // Drop the wrapper's first and last lines; keep the members as prettier indented them.
  return lines.slice(1, lines.lastIndexOf(kind === "class" ? "}" : "};"));
}

function indentOf(text: string, position: number): string {
  const lineStart = text.lastIndexOf("\n", position - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Adds ServiceError to the import that brings the handlers interface, when the file does not import it yet. */
function ensureErrorImport(project: Project, file: string, interfaceName: string): void {
  const source = project.getSourceFileOrThrow(file);
  if (source.getImportDeclarations().some((d) => d.getNamedImports().some((n) => (n.getAliasNode()?.getText() ?? n.getName()) === ERROR_CLASS))) return;
  const bare = interfaceName.replace(/^Partial<|>$/g, "");
  const from = source.getImportDeclarations().find((d) => d.getNamedImports().some((n) => n.getName() === bare));
  if (!from) throw new UsageError(`${relative(process.cwd(), file)}: cannot tell where to import ${ERROR_CLASS} from; import it from your server package and run scaffold again`);
  if (from.isTypeOnly()) {
    source.insertImportDeclaration(from.getChildIndex() + 1, { namedImports: [ERROR_CLASS], moduleSpecifier: from.getModuleSpecifierValue() });
  } else {
    from.addNamedImport(ERROR_CLASS);
  }
}

function projectFor(file: string): Project {
  let dir = dirname(file);
  for (;;) {
    const config = join(dir, "tsconfig.json");
    if (existsSync(config)) return new morph.Project({ tsConfigFilePath: config, skipAddingFilesFromTsConfig: true });
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return new morph.Project({ compilerOptions: { target: morph.ts.ScriptTarget.ES2022, module: morph.ts.ModuleKind.NodeNext, moduleResolution: morph.ts.ModuleResolutionKind.NodeNext, strict: true } });
}

export async function scaffold(path: string, options: { check: boolean; name?: string }): Promise<ScaffoldResult> {
  morph ??= await import("ts-morph");
  const file = resolve(path);
  if (!existsSync(file)) throw new UsageError(`${path}: no such file`);
  const project = projectFor(file);
  project.addSourceFileAtPath(file);
  project.resolveSourceFileDependencies();

  let candidates = findCandidates(project, file);
  if (options.name) candidates = candidates.filter((c) => c.name === options.name);
  if (candidates.length === 0) {
    throw new UsageError(
      `${path}: found no implementation. scaffold fills a class that implements Implementation (or AdminHandlers, UserHandlers, OAuthHandlers, or Partial<> of one), ` +
        "or an object literal typed as one (const impl: Implementation = { ... }, or passed to createServer); import the interface from your server package",
    );
  }
  if (candidates.length > 1) {
    throw new UsageError(`${path}: found ${candidates.length} implementations (${candidates.map((c) => c.label).join(", ")}); keep one per file, or pass --name <class or variable>`);
  }
  const candidate = candidates[0]!;
  const { present, own } = membersOf(candidate);
  const expected = candidate.handlers.getProperties().map((p) => p.getName());
  const missing = expected.filter((name) => !present.has(name));
  const unknown = own.filter((name) => !expected.includes(name));
  const result: ScaffoldResult = { file, target: candidate.label, interfaceName: candidate.interfaceName, missing, unknown, written: false };
  if (options.check || missing.length === 0) return result;

  const kind = morph.Node.isClassDeclaration(candidate.node) ? "class" : "object";
  const stubs = await stubText(missing, candidate.handlers, candidate.interfaceName, kind, file);
  const source = project.getSourceFileOrThrow(file);
  const text = source.getFullText();
  const closing = candidate.node.getEnd() - 1;
  const lastMember = morph.Node.isClassDeclaration(candidate.node) ? candidate.node.getMembers().at(-1) : candidate.node.getProperties().at(-1);
  const memberIndent = lastMember ? indentOf(text, lastMember.getStart()) : `${indentOf(text, candidate.node.getStart())}  `;
  // An object literal's last member needs a comma before the new ones, unless it has one already.
  const afterLast = lastMember
    ? text
        .slice(lastMember.getEnd(), closing)
        .replace(/\/\/.*$/gm, "")
        .replace(/\/\*[\s\S]*?\*\//g, "")
    : "";
  const needsComma = kind === "object" && lastMember !== undefined && !afterLast.includes(",");
  const stubIndent = /^[ \t]*/.exec(stubs.find((l) => l.trim() !== "") ?? "")![0];
  const body = stubs.map((line) => (line.trim() === "" ? "" : memberIndent + line.slice(stubIndent.length))).join("\n");
  // Insert after the last member (its trailing comments stay with it), or right after the opening brace.
  const before = text.slice(0, closing).replace(/\s*$/, "");
  const insertion = `${needsComma ? "," : ""}${lastMember ? "\n\n" : "\n"}${body}\n${indentOf(text, closing)}`;
  source.replaceWithText(`${before}${insertion}${text.slice(closing)}`);
  ensureErrorImport(project, file, candidate.interfaceName);
  const output = source.getFullText();
  const temporary = `${file}.scaffold-${process.pid}`;
  writeFileSync(temporary, output);
  renameSync(temporary, file);
  result.written = true;
  return result;
}
