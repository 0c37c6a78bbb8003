// Entry point of `npm run serve -- --admin-secret <secret>`.
import { main } from "./cli.js";

await main(process.argv.slice(2), process.env);
