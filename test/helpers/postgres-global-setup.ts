// Global setup of the `postgres` project: one PostgreSQL server for every test file of the
// project (each test makes its own schema on it), stopped at the end.
import type { TestProject } from "vitest/node";
import { startPostgres } from "./postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url);
  return () => server.destroy();
}
