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
import { flushTraces, otelDropped, queueRunTrace } from "../../lib/otel/export_queue.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { deadEndpoint } from "../helpers/otlp_receiver.ts";
import { tempDir } from "../helpers/temp.ts";

/**
 * Runs a scenario of tests/helpers/children/otel_dead_collector.ts with the export pointed at a dead
 * collector, in a process of its own (its variables would otherwise reach every test module running
 * in this process).
 */
async function withDeadCollector(
  home: string,
  ...args: string[]
): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../helpers/children/otel_dead_collector.ts", import.meta.url).pathname,
      ...args,
    ],
    env: {
      FRAMEWORK_HOME: home,
      OTEL_EXPORTER_OTLP_ENDPOINT: deadEndpoint(),
      OTEL_EXPORTER_OTLP_TIMEOUT: "500",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

Deno.test("queueRunTrace(): nothing is queued without an endpoint", async () => {
  // This process has no endpoint (its tests never set one: a child process does).
  assert.equal(Deno.env.get("OTEL_EXPORTER_OTLP_ENDPOINT"), undefined);
  const before = otelDropped();
  queueRunTrace("run_01NOTCONFIGURED000000000000");
  await flushTraces(1000);
  await settleBackground();
  assert.equal(otelDropped(), before);
});

Deno.test("queueRunTrace(): the queue is bounded; what cannot be exported is dropped and counted", async () => {
  await using home = await tempDir();
  const seen = await withDeadCollector(home.path, "bounded");
  assert.equal(seen.atOnce, 10, "beyond the bound: dropped at once");
  // Runs the hive does not know have no journal to export: each is dropped too.
  assert.equal(seen.dropped, (seen.queued as number) + 10);
});

Deno.test("queueRunTrace(): a dead collector leaves the run as it was and counts its trace", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "plain", { model: scripted([{ text: "fine" }]) });
  const seen = await withDeadCollector(home.path, "run", dir);
  assert.deepEqual(seen, { status: "success", output: "fine", dropped: 1 });
});
