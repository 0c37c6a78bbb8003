// schemathesis against the bookstore example on its own generated OpenAPI document, with every
// check in every phase: the second API's types (timestamp, date, duration, bytes, uint32, uint64,
// float32), its API-key scheme, its default, list query parameters, 201 and 204 answers and the
// fixed segment that wins over a {field} one must all hold as the document states them. The run
// fails on any finding. schemathesis is pinned in test/python/requirements-dev.txt.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../examples/bookstore/generated/schema.js";
import { StoreClient } from "../../examples/bookstore/generated/client/index.js";
import { startBookstore } from "../../examples/bookstore/src/service.js";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";
import { runProcess } from "../../scripts/run-process.mjs";
import { REPO_ROOT, tempDir } from "../helpers/project.js";

const HERE = join(REPO_ROOT, "test", "schemathesis", "bookstore");
const KEY = "bookstore-schemathesis-key";
const SEED = process.env.SCHEMATHESIS_SEED ?? "2030";
const MAX_EXAMPLES = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? "25";

interface Report {
  exit_code: number;
  operations: { selected: number; tested: number };
  phases: Record<string, { status: string }>;
  test_cases: { generated: number; unique_failures: number };
  failures: unknown[];
  errors: unknown[];
}

const server = startBookstore(KEY);
let httpUrl: string;
let schemathesis: string;

beforeAll(async () => {
  ({ httpUrl } = await server.listen());
  const env = await ensurePythonEnv();
  schemathesis = join(env.venv, "bin", "schemathesis");
  // A few books, so that reads and edits of a known id reach their success path too.
  const store = new StoreClient({ serviceUrl: httpUrl, protocol: "rest", apiKey: KEY });
  for (const genre of ["fiction", "poetry"] as const) {
    await store.addBook({ title: `Seeded ${genre}`, author: { name: "Seed" }, genre, published_on: "2001-02-03", isbn: "9780140449136", rating: 4.5, loan_period: "1209600s", cover: "iVBORw0KGgo=" });
  }
  await store.close();
}, 300_000);

afterAll(async () => {
  await server.close();
});

describe("schemathesis on the bookstore's OpenAPI document", () => {
  it("finds nothing", async () => {
    const reports = tempDir("apigen-schemathesis-bookstore-");
    const started = performance.now();
    const { output } = await runProcess(
      schemathesis,
      [
        "--config-file",
        join(HERE, "schemathesis.toml"),
        "run",
        join(REPO_ROOT, "examples", "bookstore", "generated", "openapi", "openapi.yaml"),
        "--url",
        httpUrl,
        "--checks",
        "all",
        "--seed",
        SEED,
        "--max-examples",
        MAX_EXAMPLES,
        "--report",
        "json",
        "--report-dir",
        reports,
        "--no-color",
      ],
      // hooks.py (found from the working folder) gives the operations that take it the staff's key.
      { cwd: HERE, env: { ...process.env, BOOKSTORE_API_KEY: KEY, PYTHONDONTWRITEBYTECODE: "1" } },
    );
    const file = readdirSync(reports).find((name) => name.endsWith(".json"));
    if (!file) throw new Error(`schemathesis wrote no report:\n${output}`);
    const report = JSON.parse(readFileSync(join(reports, file), "utf8")) as Report;
    console.log(
      `schemathesis bookstore: ${report.operations.tested}/${report.operations.selected} operations, ${report.test_cases.generated} test cases, ` +
        `${report.test_cases.unique_failures} unique findings, ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    if (report.failures.length > 0 || report.errors.length > 0) console.log(output.slice(Math.max(0, output.search(/=+ (FAILURES|ERRORS) =+/))));
    expect(report.errors).toEqual([]);
    expect(report.failures).toEqual([]);
    expect(report.operations.tested).toBe(Object.values(schema.operations).filter((op) => op.rest).length);
    expect(Object.values(report.phases).map((p) => p.status)).not.toContain("skip");
    expect(report.exit_code).toBe(0);
  }, 600_000);
});
