export declare const PYTHON_PROJECT: string;
export interface PythonArtifact {
  file: string;
  kind: "wheel" | "sdist";
  path: string;
  bytes: number;
}
export declare function packPython(options?: { root?: string; outDir?: string; python?: string }): Promise<PythonArtifact[]>;
