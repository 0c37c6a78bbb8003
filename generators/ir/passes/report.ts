// How a pass reports a manifest error: its code, the place in the manifest, what it is about.
import type { DiagnosticCode } from "../../load/diagnostics.js";
import type { PathSegment } from "../../load/load.js";

export type Report = (code: DiagnosticCode, path: readonly PathSegment[], subject: string, message: string, which?: "key" | "value") => void;
