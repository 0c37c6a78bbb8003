import { defineConfig } from "vitest/config";
import { LONGER_PROOFS } from "./vitest.proofs.config.js";

export default defineConfig({
  test: {
    // Two files at a time, whatever the core count (vitest's default is one fewer than the cores,
    // which runs a 2-core machine's suite file after file): most files wait on servers, child
    // processes and the network more than they compute.
    maxWorkers: 2,
    // The default reporter, then the line naming the Node that ran the tests.
    reporters: ["default", "./test/helpers/node-reporter.ts"],
    // A test that blocks its worker's event loop for over 20 s fails, naming itself (why: in the file).
    setupFiles: ["test/helpers/loop-watch.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // Everything; the reference service on SQLite (in memory, a fresh database per service).
      // Everything but the longer proofs, which run after the suite (npm run proofs, vitest.proofs.config.ts).
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: [...LONGER_PROOFS] } },
      // The reference service's operations and the §3 transitions again, on PostgreSQL.
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["test/reference/{account,admin,clients,org-domains,organizations,saml-idp,trusted-issuers-scim,scim}.test.ts", "test/server/transitions.test.ts"],
          env: { REFERENCE_TEST_STORE: "postgres" },
          globalSetup: ["test/helpers/postgres-global-setup.ts"],
        },
      },
    ],
  },
});
