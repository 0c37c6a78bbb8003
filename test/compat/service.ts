// A reference service of one tree (today's, or a release's checked out beside it) for the
// compatibility run: `node --import tsx test/compat/service.ts --tree <root> --admin-secret <s>
// [--plant <change>]`. It loads that tree's own service and stubs, serves them on free ports over
// in-memory SQLite, and prints its addresses as one JSON line. `--plant` changes one behaviour
// while every contract stays the same, for the tests that prove the run catches what the
// contract diff cannot.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { PLANTS, planted, type Plant } from "./plants.js";

const { values } = parseArgs({ options: { tree: { type: "string" }, "admin-secret": { type: "string" }, plant: { type: "string" } } });
const tree = values.tree!;
const plant = values.plant as Plant | undefined;
if (plant !== undefined && !(plant in PLANTS)) throw new Error(`--plant takes ${Object.keys(PLANTS).join(", ")}, not '${plant}'`);
const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
const { createReferenceService } = await load("reference/service.ts");
const { createServer } = await load("generated/server/index.ts");
const { ServiceError } = await load("runtime/errors.ts");
// The tests' scrypt cost: the run signs users up by the dozen.
const service = createReferenceService({ passwordHashCost: { N: 1024, r: 8, p: 1 } });
const implementation = plant ? planted(service.implementation, plant, ServiceError) : service.implementation;
const server = createServer(implementation, { ...service.serverOptions, adminSecret: values["admin-secret"], port: 0, grpcPort: 0, host: "127.0.0.1" });
const addresses = await server.listen();
process.stdout.write(`${JSON.stringify({ httpUrl: addresses.httpUrl, grpcEndpoint: addresses.grpcEndpoint })}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// The run holds stdin: when it ends (or dies), so does this service.
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
