/**
 * Child process for crash tests: starts a run whose model waits a minute, prints its run id, waits.
 * Usage: long_run.ts <harness-dir>
 */
import { startRun } from "../../../lib/runs/service.ts";

const run = await startRun(Deno.args[0]!, { input: "wait" });
console.log(run.run_id);
await run.result;
