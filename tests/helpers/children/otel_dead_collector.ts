/**
 * The export queue against a dead collector, in a process of its own: the `OTEL_EXPORTER_OTLP_*`
 * variables it needs are the process's, and test modules share one process's environment, so a test
 * that set them in process would make every module running beside it export its runs.
 *
 * Arguments: `bounded` (queue far past its bound, unknown runs) or `run <harness dir>` (one run).
 * Prints one JSON line of what it saw.
 *
 * @module
 */

import { settleBackground } from "../../../lib/background.ts";
import {
  flushTraces,
  MAX_BATCH_RUNS,
  MAX_QUEUED_TRACES,
  otelDropped,
  queueRunTrace,
} from "../../../lib/otel/export_queue.ts";
import { startRun } from "../../../lib/runs/service.ts";

const [scenario, dir] = Deno.args;
if (scenario === "bounded") {
  const before = otelDropped();
  // The first batch leaves at once (it is full); the queue holds the next ones, up to its bound.
  const queued = MAX_BATCH_RUNS + MAX_QUEUED_TRACES;
  for (let i = 0; i < queued + 10; i++) queueRunTrace(`run_unknown_${i}`);
  const atOnce = otelDropped() - before;
  await flushTraces(60_000);
  console.log(JSON.stringify({ queued, atOnce, dropped: otelDropped() - before }));
} else {
  const before = otelDropped();
  const run = await startRun(dir!, { input: "hi" });
  const result = await run.result;
  // The service queued its export after the result; the exporter's retries end within its timeout.
  await flushTraces(60_000);
  console.log(JSON.stringify({
    status: result.status,
    output: result.output,
    dropped: otelDropped() - before,
  }));
}
await settleBackground();
