// Process entry of apigen: runs the CLI and sets the exit code.
import { main } from "./cli.js";

process.exitCode = main(process.argv.slice(2));
