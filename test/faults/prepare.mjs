// Prints, as JSON, the Python interpreter of the tests' virtualenv and the Go fault loader's binary,
// making them when missing (a minute or more on a fresh machine). Its own process, because both
// are made by synchronous calls, which would hold the test worker's event loop that long.
import { goBinary } from "../../scripts/go-env.mjs";
import { ensurePythonEnv } from "../../scripts/python-env.mjs";

const log = (line) => process.stderr.write(`${line}\n`);
const [{ python }, { binary }] = await Promise.all([ensurePythonEnv({ log }), goBinary("faultload", { log })]);
process.stdout.write(JSON.stringify({ python, binary }));
