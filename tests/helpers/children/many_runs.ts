/**
 * Child process for hive concurrency tests: runs a harness n times, 5 at a time.
 * Usage: many_runs.ts <harness-dir> <n>
 */
import { startRun } from "../../../lib/runs/service.ts";

const [dir, n] = Deno.args;
const total = Number(n);
let next = 0;
async function worker() {
  while (next < total) {
    next++;
    const run = await startRun(dir!, { input: `run ${next}` });
    const result = await run.result;
    if (result.status !== "success") {
      throw new Error(`run ended ${result.status}: ${result.error?.message}`);
    }
  }
}
await Promise.all(Array.from({ length: 5 }, worker));
