// One generated Python module's imports, recorded by the code that writes the names it imports:
// `file.use("collections.abc", "Mapping")` answers the name to write and records its import, and
// `file.imports()` lays the import statements out as ruff's isort wants them. No import is ever
// inferred from the text written.

/** The standard library's top-level modules that generated code may import (isort's first section). */
const STANDARD_LIBRARY = new Set([
  "__future__",
  "abc",
  "asyncio",
  "base64",
  "collections",
  "contextlib",
  "dataclasses",
  "datetime",
  "email",
  "enum",
  "functools",
  "importlib",
  "ipaddress",
  "itertools",
  "json",
  "math",
  "os",
  "pathlib",
  "random",
  "re",
  "ssl",
  "sys",
  "threading",
  "time",
  "types",
  "typing",
  "urllib",
  "uuid",
  "warnings",
]);

/** isort's sections, in order: the standard library, third-party packages, the package's own modules (relative imports). */
type Section = 0 | 1 | 2;

function sectionOf(module: string): Section {
  if (module.startsWith(".")) return 2;
  return STANDARD_LIBRARY.has(module.split(".")[0]!) ? 0 : 1;
}

/** isort's order-by-type: CONSTANTS, then Classes, then the rest. */
const nameKind = (name: string) => (/^[A-Z][A-Z0-9_]+$/.test(name) ? 0 : /^[A-Z]/.test(name) ? 1 : 2);
const ascii = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** How many dots a relative module starts with. */
const level = (module: string) => /^\.*/.exec(module)![0].length;

/** Names in the order ruff's isort wants them in an import: by kind, then case-insensitively. */
export function importOrder(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => nameKind(a) - nameKind(b) || ascii(a.toLowerCase(), b.toLowerCase()) || ascii(a, b));
}

/** Names in the order ruff wants them in `__all__` (RUF022): by kind, then case-sensitively. */
export function allOrder(names: Iterable<string>): string[] {
  return [...names].sort((a, b) => nameKind(a) - nameKind(b) || ascii(a, b));
}

/** Modules in isort's order within a section: relative ones furthest first, then by name, case-insensitively. */
const moduleOrder = (a: string, b: string) => level(b) - level(a) || ascii(a.toLowerCase(), b.toLowerCase()) || ascii(a, b);

export class PythonFile {
  /** `import <module>`, by module. */
  private readonly modules = new Set<string>();
  /** `from <module> import <names>`, by module. */
  private readonly names = new Map<string, Set<string>>();

  /** @param lineLength ruff's line length: a longer `from` import lists one name a line. */
  constructor(private readonly lineLength: number) {}

  /**
   * `from <module> import <name>`: the name to write. Without a name, `import <module>`: the
   * module's name, to write its attributes after (`httpx` of `httpx.Client`).
   */
  use(module: string, name?: string): string {
    if (name === undefined) {
      this.modules.add(module);
      return module;
    }
    let names = this.names.get(module);
    if (!names) this.names.set(module, (names = new Set()));
    names.add(name);
    return name;
  }

  /** The import statements of what was used: a section per group of isort's, one blank line between them; "" when nothing was. */
  imports(): string {
    const sections: string[][] = [[], [], []];
    // Within a section, isort puts `import x` before `from x import y`.
    for (const module of [...this.modules].sort(moduleOrder)) sections[sectionOf(module)]!.push(`import ${module}`);
    for (const module of [...this.names.keys()].sort(moduleOrder)) sections[sectionOf(module)]!.push(this.fromLine(module, importOrder(this.names.get(module)!)));
    return sections
      .filter((lines) => lines.length > 0)
      .map((lines) => lines.join("\n"))
      .join("\n\n");
  }

  private fromLine(module: string, names: readonly string[]): string {
    const line = `from ${module} import ${names.join(", ")}`;
    // Longer than the line length: one name a line, as isort writes it.
    return line.length <= this.lineLength ? line : `from ${module} import (\n${names.map((name) => `    ${name},`).join("\n")}\n)`;
  }
}
