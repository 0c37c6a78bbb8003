// The configuration of openapi-python-client for the OpenAPI document. That tool writes one class per
// schema into a package whose own modules define and import names of their own (`types.Response`,
// `client.Client`, `typing.Any`, ...); a schema named like one of them shadows it, and the client
// it generates breaks on the success path (its `Response` no longer takes the status and body).
// Such schemas get another class name here, computed from the document, so a manifest type named
// like any of them still yields a working client.
import { upperSnakeCase } from "../ir/naming.js";
import type { GeneratedFile } from "../write/writer.js";
import { toYaml } from "./yaml-text.js";

export const OPENAPI_PYTHON_CLIENT_CONFIG_PATH = "generated/openapi/openapi-python-client.yaml";

/**
 * The class names openapi-python-client's templates (0.29) define or import in the modules that
 * also import the model classes: `types.py` and `client.py` of the package, and the names taken from
 * `typing`, `http`, `collections.abc` and `enum` by the endpoint and model modules.
 */
export const OPENAPI_PYTHON_CLIENT_NAMES: readonly string[] = [
  "AuthenticatedClient",
  "Client",
  "Response",
  "Unset",
  "File",
  "FileContent",
  "FileTypes",
  "RequestFiles",
  "HTTPStatus",
  "Any",
  "BinaryIO",
  "TextIO",
  "IO",
  "Generator",
  "Generic",
  "Literal",
  "Self",
  "TypeVar",
  "Mapping",
  "MutableMapping",
  "IntEnum",
  "StrEnum",
];

const snakeCase = (name: string) => upperSnakeCase(name).toLowerCase();

/** Schema name -> the class (and module) openapi-python-client should give it, for each name that collides. */
export function pythonClientClassOverrides(schemaNames: readonly string[]): Record<string, { class_name: string; module_name: string }> {
  const taken = new Set([...schemaNames, ...OPENAPI_PYTHON_CLIENT_NAMES]);
  const overrides: Record<string, { class_name: string; module_name: string }> = {};
  for (const name of schemaNames.filter((n) => OPENAPI_PYTHON_CLIENT_NAMES.includes(n)).sort()) {
    let className = `${name}Model`;
    while (taken.has(className)) className += "Model";
    taken.add(className);
    overrides[name] = { class_name: className, module_name: snakeCase(className) };
  }
  return overrides;
}

/** openapi-python-client's --config file for the OpenAPI document `openapi`. */
export function emitOpenapiPythonClientConfig(openapi: { components: { schemas: Record<string, unknown> } }): GeneratedFile {
  const usage = [
    "# openapi-python-client's configuration for openapi.yaml: schemas named like the generated client's own",
    "# classes get other class names. Use: openapi-python-client generate --path generated/openapi/openapi.yaml \\",
    "#   --config generated/openapi/openapi-python-client.yaml",
  ].join("\n");
  return { path: OPENAPI_PYTHON_CLIENT_CONFIG_PATH, content: `${usage}\n${toYaml({ class_overrides: pythonClientClassOverrides(Object.keys(openapi.components.schemas)) })}` };
}
