// `npm run pack` checks each npm package with `npm publish --dry-run` from its folder. npm fixes
// some package.json mistakes as it publishes and only warns; pack refuses them, naming each fix,
// so that what is published is what was generated.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { publishDryRun } from "../../scripts/pack.mjs";

const folders: string[] = [];
function packageFolder(manifest: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "apigen-publish-"));
  folders.push(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, "index.js"), "export {};\n");
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("npm publish --dry-run in pack", () => {
  it("passes a package.json npm publishes as written", async () => {
    const dir = packageFolder({
      name: "@example-scope/ok",
      version: "1.0.0",
      license: "MIT",
      repository: { type: "git", url: "git+https://github.com/example/ok.git" },
      publishConfig: { access: "public" },
    });
    await expect(publishDryRun(dir)).resolves.toBeUndefined();
  }, 60_000);

  it("refuses one npm would correct, naming each correction", async () => {
    const dir = packageFolder({ name: "@example-scope/fixed", version: "1.0.0", license: "MIT", repository: "https://github.com/example/fixed", bin: { fixed: "./index.js" } });
    const refused = await publishDryRun(dir).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toContain("npm would change the package.json");
    expect(refused).toContain('"repository" was changed from a string to an object');
  }, 60_000);

  it("refuses a version npm cannot publish, with npm's message", async () => {
    const dir = packageFolder({ name: "@example-scope/bad", version: "one", license: "MIT" });
    await expect(publishDryRun(dir)).rejects.toThrow(/npm publish --dry-run --json failed[\s\S]*version/i);
  }, 60_000);
});
