// The docs stay true after a version bump: no command or file name in README.md or docs/ spells the
// API's current version (a wheel, a tarball, the Go zip, a tag), which the next `api.version` would
// turn into a file that does not exist; they write `<version>` or a glob instead.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schema } from "../generated/schema.js";
import { REPO_ROOT } from "./helpers/project.js";

const pages = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The places a version number goes stale: a file name (-2.6.0.tgz, _sdk-2.6.0-py3), a module version (@v2.6.0), a tag or require (v2.6.0). */
function staleVersionSpots(text: string, version: string): string[] {
  const escaped = version.replaceAll(".", "\\.");
  return [...text.matchAll(new RegExp(`\\S*(?:[-_@]v?|\\bv)${escaped}\\S*`, "g"))].map((m) => m[0]);
}

describe("the docs after a version bump", () => {
  it("name no file, module or tag by the current version", () => {
    const found = pages.flatMap((page) => staleVersionSpots(readFileSync(join(REPO_ROOT, page), "utf8"), schema.version).map((spot) => `${page}: ${spot}`));
    expect(found).toEqual([]);
  });

  it("would find one", () => {
    expect(staleVersionSpots("pip install ./dist/identity_sdk-2.6.0-py3-none-any.whl and tag v2.6.0, module@v2.6.0/", "2.6.0")).toEqual([
      "./dist/identity_sdk-2.6.0-py3-none-any.whl",
      "v2.6.0,",
      "module@v2.6.0/",
    ]);
    expect(staleVersionSpots("the API is at version 2.6.0", "2.6.0")).toEqual([]);
  });
});
