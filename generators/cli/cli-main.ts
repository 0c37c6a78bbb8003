// Process entry of apigen: runs the CLI and sets the exit code. Anything unexpected is reported in
// one line (the stack only with APIGEN_DEBUG=1), never as a raw stack trace.
import { main } from "./cli.js";

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const detail = process.env.APIGEN_DEBUG ? (error as Error).stack : (error as Error).message;
  process.stderr.write(`apigen: internal error: ${detail}\nSet APIGEN_DEBUG=1 for details and report it.\n`);
  process.exitCode = 70;
}
