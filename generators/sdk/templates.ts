// The handlebars templates of the SDKs in other languages, templates/<language>/: each file ending
// in .hbs is a template, any other file is copied as it is. This module reads and compiles them;
// the bundled CLI holds them precompiled instead (scripts/build-cli.mjs replaces this module), so
// that a run neither reads nor parses them.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

/** A file of templates/<language>/ without .hbs: hand-written runtime code, copied as it is (its header names the template to edit). */
export interface VerbatimFile {
  /** Relative to templates/<language>/, with forward slashes. */
  path: string;
  verbatim: true;
  /** The file's text (what an emitter reads the hand-written declarations from). */
  source: string;
  render(): string;
}

/** A handlebars template (.hbs), laid out from a view of type View. */
export interface Template<Path extends string, View> {
  /** Relative to templates/<language>/, without .hbs, with forward slashes. */
  path: Path;
  verbatim: false;
  /** The template's text as written. */
  source: string;
  render(view: View): string;
}

/**
 * A file of templates/<language>/. `Views` maps the path of each template (without .hbs) to the
 * interface of the view it reads: a template is rendered only with its own view, so a view that
 * lacks a field its template reads fails to compile. Without `Views`, templates can be read, not rendered.
 */
export type TemplateFile<Views = Record<string, never>> = VerbatimFile | { [Path in keyof Views & string]: Template<Path, Views[Path]> }[keyof Views & string];

/** Layout helpers a language's templates call (such as indenting a docstring). */
export type TemplateHelpers = Record<string, (...args: never[]) => string>;

/** Options every template is compiled with: no HTML escaping (this is code), and a missing view field is an error. */
export const COMPILE_OPTIONS = { noEscape: true, strict: true } as const;

/** The toolchain's templates/ folder, found from this module whether it runs from source or bundled. */
export function templatesRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "templates")) && existsSync(join(dir, "generators"))) return join(dir, "templates");
    if (dirname(dir) === dir) throw new Error("templates/ not found next to the generators");
  }
}

/** Every file below `dir`, relative to it, sorted. */
export function templateFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix))
    .sort()
    .flatMap((name) => {
      const path = prefix ? `${prefix}/${name}` : name;
      return statSync(join(dir, path)).isDirectory() ? templateFiles(dir, path) : [path];
    });
}

/**
 * Every file of templates/<language>/, typed by `Views` (see TemplateFile): the emitter's word for
 * what its templates read, which it checks against the paths it finds (a template without a
 * declared view is an error of the emitter).
 */
export function loadTemplates<Views = Record<string, never>>(language: string, helpers: TemplateHelpers): TemplateFile<Views>[] {
  const dir = join(templatesRoot(), language);
  const handlebars = Handlebars.create();
  for (const [name, helper] of Object.entries(helpers)) handlebars.registerHelper(name, helper as Handlebars.HelperDelegate);
  return templateFiles(dir).map((path): VerbatimFile | Template<string, object> => {
    const source = readFileSync(join(dir, path), "utf8");
    if (!path.endsWith(".hbs")) return { path, verbatim: true, source, render: () => source };
    const compiled = handlebars.compile(source, COMPILE_OPTIONS);
    return { path: path.slice(0, -".hbs".length), verbatim: false, source, render: (view: object) => compiled(view) };
  }) as TemplateFile<Views>[];
}
