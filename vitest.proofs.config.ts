import { defineConfig } from "vitest/config";

// The longer proofs of .ci/run that are vitest files (npm run proofs), after npm test and kept out
// of its time: schemathesis's random corpora against the OpenAPI document and the GraphQL schema,
// the newcomer's walk-throughs, each a minute or more of installs and builds: a starter project
// made, installed, tested and packed outside the repository (apigen init), an operation added as
// docs/manifest.md says, and every example of the README and docs/ run as printed (4 min cold);
// the FGA answers against OpenFGA's (its first build: 303 s here); bench:compare run against HEAD.
export const LONGER_PROOFS = [
  "test/schemathesis/**",
  "test/init.test.ts",
  "test/add-operation.test.ts",
  "test/fga/openfga.test.ts",
  "test/compat/**",
  "test/examples/bookstore-sdks.test.ts",
  "test/bench/compare.test.ts",
  "test/docs-run-as-printed.test.ts",
];

export default defineConfig({
  test: {
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/node-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: LONGER_PROOFS.map((pattern) => (pattern.endsWith("/**") ? `${pattern}/*.test.ts` : pattern)),
    setupFiles: ["test/helpers/loop-watch.ts"],
  },
});
