// Imported first by every benchmark: its first line names the Node that runs it (and so the
// servers it starts, unless a row names another Node), the machine's cores and the time.
import { availableParallelism } from "node:os";
import { basename } from "node:path";

const script = basename(process.argv[1] ?? "bench");
console.log(`${script}: Node ${process.version} (${process.execPath}), ${process.platform} ${process.arch}, ${availableParallelism()} cores, ${new Date().toISOString()}`);
