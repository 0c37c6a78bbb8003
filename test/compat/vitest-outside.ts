// What a tree's conformance scenarios import from "vitest", for the compatibility run's matrix host
// (matrix-host.ts), which runs them outside a vitest worker: vitest's own `expect` needs the
// worker's state, so this one is built the way vitest builds it, from chai and @vitest/expect.
// `inject` answers nothing: the host's stores are SQLite, never the postgres project's server.
import { ASYMMETRIC_MATCHERS_OBJECT, JestAsymmetricMatchers, JestChaiExpect, JestExtend } from "@vitest/expect";
import * as chai from "chai";

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

export const expect = Object.assign((value: unknown, message?: string) => chai.expect(value, message), chai.expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);

export const inject = (_key: string): undefined => undefined;
