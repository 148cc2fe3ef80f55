/**
 * The workbench shuts down as the control plane does: on SIGTERM its running runs get a grace period
 * to finish, then the rest are stopped, each ending `error` with reason `stopped`; every journal is
 * closed (its last event `run_finished`) and verifies, and no hive row is left `running` to be found
 * interrupted later. A real `framework workbench` process, two runs started and their streams let go
 * (nothing holds a request open), then SIGTERM: the slow run finishes within the grace, the endless
 * one is stopped after it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { type RunningWorkbenchProcess, startWorkbenchProcess } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Starts a run through the workbench's stream, waits for its first model call, lets the stream go. */
async function startLiveRun(wb: RunningWorkbenchProcess, harness: string): Promise<string> {
  const res = await fetch(`${wb.url}/api/harnesses/${harness}/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "take your time" }),
  });
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  try {
    const [accepted] = await sse.until(() => true, "run_accepted");
    await sse.until((f) => f.data?.type === "model_call", "the first model call");
    return accepted!.data.run_id;
  } finally {
    await sse.close();
  }
}

Deno.test("workbench SIGTERM: running runs finish within the grace or end stopped, journals closed", async () => {
  await using home = await tempDir("fw-wbsd-home-");
  await using cwd = await tempDir("fw-wbsd-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "slow", {
    model: scripted([{ text: "slow but done", delay_ms: 1500 }]),
  });
  await writeHarness(harnesses, "endless", {
    model: scripted([{ text: "never said", delay_ms: 600_000 }]),
    limits: { timeout_s: 900 },
  });
  const wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  let slow: string, endless: string;
  try {
    endless = await startLiveRun(wb, "endless");
    slow = await startLiveRun(wb, "slow");
  } finally {
    await wb.stop(); // SIGTERM, and wait for the process to exit
  }
  assert.match(wb.stderr(), /Shutting down: 2 running runs get up to 10 s to finish/);

  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  for (
    const [runId, status, reason] of [
      [slow, "success", undefined],
      [endless, "error", "stopped"],
    ] as const
  ) {
    const trace = jsonOk(await cli(["trace", runId, "--json"]));
    assert.equal(trace.status, status, JSON.stringify(trace.events.at(-1)));
    assert.equal(trace.integrity.ok, true);
    const last = trace.events.at(-1) as Json;
    assert.equal(last.type, "run_finished", "the journal was closed");
    assert.equal(last.payload.status, status);
    assert.equal(last.payload.error?.reason, reason);
    const verified = jsonOk(await cli(["trace", runId, "--verify", "--json"]));
    assert.equal(verified.integrity.ok, true);
  }
});
