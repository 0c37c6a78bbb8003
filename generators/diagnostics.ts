// Errors about the manifest, each naming its place in the source (graphql-js style: message + location).

export interface SourcePosition {
  line: number;
  col: number;
}

export interface Diagnostic {
  file: string;
  position: SourcePosition;
  /** "operation 'delete_user'", "type 'User'", ... or "" at top level. */
  subject: string;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.position.line}:${d.position.col}`;
  return d.subject ? `${where}: ${d.subject}: ${d.message}` : `${where}: ${d.message}`;
}

/** Thrown when the manifest cannot become an IR; carries every problem found, in source order. */
export class ManifestError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: Diagnostic[]) {
    const sorted = [...diagnostics].sort(
      (a, b) => a.position.line - b.position.line || a.position.col - b.position.col,
    );
    super(sorted.map(formatDiagnostic).join("\n"));
    this.name = "ManifestError";
    this.diagnostics = sorted;
  }
}

/** An error the user can act on (bad flag, unreadable file); printed without a stack trace. */
export class UsageError extends Error {
  override name = "UsageError";
}
