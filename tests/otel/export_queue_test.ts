/**
 * The after-run export queue: off unless an endpoint is set; bounded (a run queued beyond
 * {@link MAX_QUEUED_TRACES} is dropped at once and counted); a trace that cannot be exported (a dead
 * collector, a run whose journal cannot be read) is dropped and counted after the exporter's bounded
 * retries, and the run it belongs to is untouched; a flush at exit never hangs.
 *
 * @module
 */

import assert from "node:assert/strict";
import { settleBackground } from "../../lib/background.ts";
import {
  flushTraces,
  MAX_BATCH_RUNS,
  MAX_QUEUED_TRACES,
  otelDropped,
  queueRunTrace,
} from "../../lib/otel/export_queue.ts";
import { startRun } from "../../lib/runs/service.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { deadEndpoint } from "../helpers/otlp_receiver.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const VARIABLES = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TIMEOUT"];

/** Runs `fn` with the export pointed at a dead collector. */
async function withDeadCollector(fn: () => Promise<void>): Promise<void> {
  Deno.env.set("OTEL_EXPORTER_OTLP_ENDPOINT", deadEndpoint());
  Deno.env.set("OTEL_EXPORTER_OTLP_TIMEOUT", "500");
  try {
    await fn();
  } finally {
    for (const name of VARIABLES) Deno.env.delete(name);
    await settleBackground();
  }
}

Deno.test("queueRunTrace(): nothing is queued without an endpoint", async () => {
  for (const name of VARIABLES) Deno.env.delete(name);
  const before = otelDropped();
  queueRunTrace("run_01NOTCONFIGURED000000000000");
  await flushTraces(1000);
  await settleBackground();
  assert.equal(otelDropped(), before);
});

Deno.test("queueRunTrace(): the queue is bounded; what cannot be exported is dropped and counted", async () => {
  await using _home = await tempHome();
  await withDeadCollector(async () => {
    const before = otelDropped();
    // The first batch leaves at once (it is full); the queue holds the next ones, up to its bound.
    const queued = MAX_BATCH_RUNS + MAX_QUEUED_TRACES;
    for (let i = 0; i < queued + 10; i++) queueRunTrace(`run_unknown_${i}`);
    assert.equal(otelDropped() - before, 10, "beyond the bound: dropped at once");
    await flushTraces(60_000);
    // Runs the hive does not know have no journal to export: each is dropped too.
    assert.equal(otelDropped() - before, queued + 10);
  });
});

Deno.test("queueRunTrace(): a dead collector leaves the run as it was and counts its trace", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "plain", { model: scripted([{ text: "fine" }]) });
  await withDeadCollector(async () => {
    const before = otelDropped();
    const run = await startRun(dir, { input: "hi" });
    const result = await run.result;
    assert.equal(result.status, "success");
    assert.equal(result.output, "fine");
    // The service queued its export after the result; the exporter's retries end within its timeout.
    await flushTraces(60_000);
    assert.equal(otelDropped() - before, 1);
  });
});
