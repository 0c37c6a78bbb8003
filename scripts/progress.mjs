// Progress of a step that may take more than a few seconds (a virtualenv, a Go build, a pack, the
// type checker of scaffold): one line when it starts and one every 15 s while it runs, so a wait is
// never silent. Under CI (CI set and not "false" or "0") only the caller's summary line is printed.

/** Whether this process runs under CI, which wants the summaries alone. */
export function underCi(env = process.env) {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/**
 * Announces `what` through `log` ("python-env: creating the virtualenv (pip install)"), then says
 * every `everyMs` how long it has run, and how far when `detail` knows ("pair 3, round 7 of 15");
 * answers the function that ends the reports. Silent under CI.
 */
export function reportProgress(log, what, { everyMs = 15_000, env = process.env, detail = () => "" } = {}) {
  if (underCi(env)) return () => {};
  log(`${what}...`);
  const started = performance.now();
  const timer = setInterval(() => {
    const far = detail();
    log(`${what}: still running after ${Math.round((performance.now() - started) / 1000)} s${far ? ` (${far})` : ""}`);
  }, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
