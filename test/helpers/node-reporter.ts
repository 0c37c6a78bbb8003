// A reporter after vitest's own: the run's last line names the Node that ran it (the project's, the
// devDependency "node", when npm started the run).
import type { Reporter } from "vitest/reporters";

export default class NodeReporter implements Reporter {
  onFinished(): void {
    process.stdout.write(`tests ran on Node ${process.version} (${process.execPath})\n`);
  }
}
