// The package generated TypeScript imports the runtime from. In this repository it is runtime/
// itself (an npm workspace); in another project, the runtime's packed tarball or registry package.
// By name rather than by relative path, so generated code compiles wherever it is generated.
export const RUNTIME_PACKAGE = "@apigen/runtime";
