import { defineConfig } from "vitest/config";

// The longer proofs of .ci/run that are vitest files (npm run proofs), after npm test and kept out
// of its time: schemathesis's random corpora against the OpenAPI document and the GraphQL schema.
export default defineConfig({
  test: {
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/node-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ["test/schemathesis/**/*.test.ts"],
  },
});
