// Packages the server loads only when an option asks for them: the server package declares them as
// optional peer dependencies, and a service that turns the option on installs them. Each is
// imported with a literal dynamic import where it is used, so nobody else ever loads it.

/** Each optional package, the range the server works with, and what needs it. */
export const OPTIONAL_PACKAGES = {
  ioredis: { range: "^6.0.0", feature: "the Redis store (option store: redisStore(...))" },
  "prom-client": { range: "^15.1.3", feature: "metrics (option metrics)" },
  "@opentelemetry/api": { range: "^1.9.0", feature: "tracing (option tracing)" },
  "@modelcontextprotocol/sdk": { range: "^1.32.2", feature: "MCP on /mcp (option mcp)" },
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** An option is on whose package is not installed; the message names the command that installs it. */
export class MissingPackageError extends Error {
  override name = "MissingPackageError";
}

export const installCommand = (name: OptionalPackage) => `npm install ${name}@${OPTIONAL_PACKAGES[name].range}`;

/** Runs `load` (a literal `import(name)`), turning "not installed" into a MissingPackageError. */
export async function loadOptionalPackage<T>(name: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new MissingPackageError(`${OPTIONAL_PACKAGES[name].feature} needs the package ${name}, which is not installed. Install it with: ${installCommand(name)}`);
  }
}
