// The imports of a TypeScript module, tracked as the code that uses each name asks for it (as
// protobuf-es's GeneratedFile does with f.import): `file.value(module, name)` and
// `file.type(module, name)` answer the name to write and record its import, and `imports()`
// prints the block. No import is found by reading the code back.

interface ModuleImports {
  readonly names: Map<string, "value" | "type">;
  /** One name a line, sorted (a long list, as the types a client names); otherwise one line in the order first used. */
  readonly layout: "line" | "sorted-block";
}

export class TypeScriptFile {
  private readonly modules = new Map<string, ModuleImports>();

  /** How the import of `module` is laid out; by default on one line. Set before its first name. */
  layout(module: string, layout: ModuleImports["layout"]): void {
    this.modules.set(module, { names: this.modules.get(module)?.names ?? new Map(), layout });
  }

  /** A value (class, function, constant) of `module`, as the code writes it. */
  value(module: string, name: string): string {
    this.entry(module).names.set(name, "value");
    return name;
  }

  /** A type of `module`: imported with `type` unless a value import of the same name is recorded. */
  type(module: string, name: string): string {
    const names = this.entry(module).names;
    if (!names.has(name)) names.set(name, "type");
    return name;
  }

  /** The import statements, modules in the order first used: `import type` where every name is a type. */
  imports(): string {
    return [...this.modules]
      .filter(([, { names }]) => names.size > 0)
      .map(([module, { names, layout }]) => {
        const typesOnly = [...names.values()].every((kind) => kind === "type");
        const specifiers = [...names].map(([name, kind]) => (kind === "type" && !typesOnly ? `type ${name}` : name));
        const keyword = typesOnly ? "import type" : "import";
        return layout === "sorted-block"
          ? `${keyword} {\n${specifiers
              .sort()
              .map((s) => `  ${s},`)
              .join("\n")}\n} from "${module}";\n`
          : `${keyword} { ${specifiers.join(", ")} } from "${module}";\n`;
      })
      .join("");
  }

  private entry(module: string): ModuleImports {
    if (!this.modules.has(module)) this.layout(module, "line");
    return this.modules.get(module)!;
  }
}
