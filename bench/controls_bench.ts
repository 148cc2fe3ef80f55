/**
 * Live controls: the latency from `POST /api/runs/{id}/messages` (the workbench API, in process) to
 * the message's delivery at the run's next turn boundary, and the cost of the control check every
 * turn makes when nothing is queued, beside the framework's own per-turn time and a model call.
 *
 * @module
 */

import { stringify } from "yaml";
import { closeHives } from "../lib/hive/open.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { createRunControls } from "../lib/runner/control_queue.ts";
import { startRun } from "../lib/runs/service.ts";
import type { HarnessSpec } from "../lib/harness_spec/schema.ts";
import { createWorkbenchApi } from "../routes/workbench_api.ts";
import { fmt, measure, report, summarize } from "./measure.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

/** Model calls of the steered run, and how long each takes. */
const TURNS = 60;
const CALL_MS = 20;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-controls-");
  setFrameworkHome(home);
  Deno.env.set("FRAMEWORK_UI_DB", `${home}/workbench.db`);
  const dir = `${home}/harnesses/steered`;
  await Deno.mkdir(dir, { recursive: true });
  const replies = [
    ...Array.from({ length: TURNS - 1 }, () => ({
      tool_calls: [{ name: "list_files", arguments: {} }],
      delay_ms: CALL_MS,
    })),
    { text: "done", delay_ms: CALL_MS },
  ];
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "steered",
      model: { provider: "scripted", replies },
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: TURNS * 2 },
    }),
  );
  const api = await createWorkbenchApi({
    harnessesDir: `${home}/harnesses`,
    copilotModel: undefined,
  });
  try {
    // One steering message per model call, posted at a random moment during the call.
    const handle = await startRun(dir, { input: "go" });
    const posted = new Map<string, number>();
    const toDelivery: number[] = [];
    const afterBoundary: number[] = [];
    const sends: Promise<void>[] = [];
    let boundaryAt = 0;
    for await (const e of handle.events) {
      const now = performance.now();
      if (e.type === "model_call" && Number(e.payload.turn) < TURNS - 1) {
        sends.push(
          new Promise<void>((r) => setTimeout(r, Math.random() * CALL_MS)).then(async () => {
            const t0 = performance.now();
            const res = await api.fetch(
              new Request(`http://127.0.0.1/api/runs/${handle.run_id}/messages`, {
                method: "POST",
                headers: { "content-type": "application/json", host: "127.0.0.1" },
                body: JSON.stringify({ text: `turn ${e.payload.turn}` }),
              }),
            );
            const body = await res.json();
            if (res.status !== 201) throw new Error(JSON.stringify(body));
            posted.set(body.data.message.id, t0);
          }),
        );
      } else if (e.type === "tool_result" || e.type === "model_response") {
        boundaryAt = now;
      } else if (e.type === "steering_delivered") {
        const t0 = posted.get(String(e.payload.message_id));
        if (t0 !== undefined) toDelivery.push(now - t0);
        afterBoundary.push(now - boundaryAt);
      }
    }
    await Promise.all(sends);
    const result = await handle.result;
    if (result.status !== "success") throw new Error(result.error?.message);
    const latency = summarize(toDelivery);
    const lag = summarize(afterBoundary);
    report(`POST /messages → delivered (${CALL_MS} ms calls)`, {
      n: String(latency.n),
      mean: fmt(latency.mean_ms, " ms"),
      p50: fmt(latency.p50_ms, " ms"),
      p99: fmt(latency.p99_ms, " ms"),
      expected_wait: `≤ ${CALL_MS} ms (the rest of the call in flight)`,
    });
    report("call ended → message delivered", {
      mean: fmt(lag.mean_ms, " ms"),
      p99: fmt(lag.p99_ms, " ms"),
    });

    // The check every turn makes: nothing queued.
    const spec = { id: "x", model: { provider: "scripted", replies: [] } } as HarnessSpec;
    const controls = createRunControls({ run_id: "run_x", spec, abort: () => {} });
    const checks = 1_000_000;
    const t0 = performance.now();
    let taken = 0;
    for (let i = 0; i < checks; i++) {
      if (controls.pending()) taken += controls.take(1).length;
      taken += controls.take(1).length;
    }
    const checkNs = ((performance.now() - t0) * 1e6) / checks;
    if (taken) throw new Error("the queue was not empty");

    // Beside it: a whole turn of the framework with an instant model, and a 20 ms model call.
    const quick = `${home}/harnesses/quick`;
    await Deno.mkdir(quick, { recursive: true });
    await Deno.writeTextFile(
      `${quick}/harness.yaml`,
      stringify({
        id: "quick",
        model: {
          provider: "scripted",
          replies: [
            { tool_calls: [{ name: "list_files", arguments: {} }] },
            { tool_calls: [{ name: "list_files", arguments: {} }] },
            { text: "done" },
          ],
        },
        tools: [{ builtin: "list_files" }],
      }),
    );
    const turn = await measure(100, async () => {
      const r = await (await startRun(quick, { input: "go" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    });
    const turnMs = turn.mean_ms / 3;
    report("empty control check per turn", {
      check: fmt(checkNs, " ns"),
      framework_turn: fmt(turnMs, " ms"),
      turn_vs_check: `${fmt((turnMs * 1e6) / checkNs)}×`,
      call_20ms_vs_check: `${fmt((CALL_MS * 1e6) / checkNs)}×`,
    });
  } finally {
    closeHives();
    setFrameworkHome(undefined);
    Deno.env.delete("FRAMEWORK_UI_DB");
  }
}

if (import.meta.main) await runAlone(run);
