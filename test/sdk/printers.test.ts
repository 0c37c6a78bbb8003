// The two printers with import tracking: the code that writes a name asks for it, and the import
// block holds exactly what was asked, laid out as each language's tools want (ruff's isort for
// Python, checked by ruff itself; `import type` for TypeScript, checked by tsc in the suite).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TypeScriptFile } from "../../generators/emit/typescript-printer.js";
import { PythonFile } from "../../generators/sdk/python-printer.js";
import { REPO_ROOT } from "../helpers/project.js";

describe("PythonFile", () => {
  it("imports what the code used, in ruff's order, and nothing else", () => {
    const file = new PythonFile(100);
    const code = [
      `def f(x: ${file.use("collections.abc", "Mapping")}[str, str], c: ${file.use("httpx")}.Client) -> ${file.use("._model", "JsonObject")}:`,
      `    return ${file.use("..types", "User")}.from_json(${file.use("._schema", "DEFAULT_TIMEOUT")}, ${file.use("typing", "cast")}, ${file.use("dataclasses", "dataclass")}, ${file.use("._model", "Model")})`,
    ];
    file.use("collections.abc", "Mapping"); // asked twice, imported once
    const block = file.imports();
    expect(block).toBe(
      [
        "from collections.abc import Mapping",
        "from dataclasses import dataclass",
        "from typing import cast",
        "",
        "import httpx",
        "",
        "from ..types import User",
        "from ._model import JsonObject, Model",
        "from ._schema import DEFAULT_TIMEOUT",
      ].join("\n"),
    );
    expect(new PythonFile(100).imports()).toBe("");
    // ruff, the generated SDK's own linter, finds nothing to sort in it.
    const ruff = join(REPO_ROOT, "node_modules/.cache/python-sdk/venv/bin/ruff");
    const dir = mkdtempSync(join(tmpdir(), "apigen-printer-"));
    writeFileSync(join(dir, "module.py"), `${block}\n\n\n${code.join("\n")}\n`);
    const checked = spawnSync(ruff, ["check", "--isolated", "--select", "I", "--line-length", "100", join(dir, "module.py")], { encoding: "utf8" });
    if (checked.error) return; // the Python toolchain is installed by the Python SDK tests; the order above is what it answers
    expect(checked.stdout + checked.stderr).toContain("All checks passed");
  });

  it("lists the names one a line when the import would pass the line length", () => {
    const file = new PythonFile(40);
    for (const name of ["AdminClient", "AsyncAdminClient", "UserClient"]) file.use("._clients", name);
    expect(file.imports()).toBe("from ._clients import (\n    AdminClient,\n    AsyncAdminClient,\n    UserClient,\n)");
  });
});

describe("TypeScriptFile", () => {
  it("imports values and types per module in the order first used, `import type` where all are types", () => {
    const file = new TypeScriptFile();
    file.value("@apigen/runtime/client/clients.js", "AdminClientBase");
    file.layout("../types.js", "sorted-block");
    const code = `${file.type("../types.js", "User")} ${file.type("@apigen/runtime/client/core.js", "CallOptions")} ${file.type("@apigen/runtime/client/clients.js", "AdminClientConfig")} ${file.type("../types.js", "Org")}`;
    expect(code).toBe("User CallOptions AdminClientConfig Org");
    expect(file.imports()).toBe(
      [
        'import { AdminClientBase, type AdminClientConfig } from "@apigen/runtime/client/clients.js";',
        'import type {\n  Org,\n  User,\n} from "../types.js";',
        'import type { CallOptions } from "@apigen/runtime/client/core.js";',
        "",
      ].join("\n"),
    );
  });

  it("imports a name used as a value and as a type once, as a value; a module laid out but unused not at all", () => {
    const file = new TypeScriptFile();
    file.layout("./unused.js", "line");
    file.type("./a.js", "Thing");
    file.value("./a.js", "Thing");
    expect(file.imports()).toBe('import { Thing } from "./a.js";\n');
  });
});
