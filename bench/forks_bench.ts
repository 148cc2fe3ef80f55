/**
 * Fork and resume of a run whose journal holds 1,000 events, beside the two costs they are made of:
 * copying the harness folder (a fork) and reading, verifying and folding the parent's journal (a
 * resume's replay).
 *
 * @module
 */

import { stringify } from "yaml";
import { copyTree } from "../lib/fs/copy_tree.ts";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { replayFrom } from "../lib/runner/replay.ts";
import { forkRun, resumeFork } from "../lib/runs/forks.ts";
import { createRunService, startRun } from "../lib/runs/service.ts";
import type { ModelProvider } from "../lib/models/types.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

/** Turns of the parent run: 4 events each, plus run_started, the last answer and run_finished. */
const TURNS = 249;
/** Files in the harness folder besides harness.yaml, and their size. */
const FILES = 40;
const FILE_BYTES = 16 * 1024;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-forks-");
  setFrameworkHome(home);
  const dir = `${home}/harnesses/parent`;
  await Deno.mkdir(`${dir}/docs`, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    await Deno.writeTextFile(`${dir}/docs/note-${i}.md`, "x".repeat(FILE_BYTES));
  }
  // A harness.yaml of ordinary size: the long run comes from a model made here, not from 250
  // scripted replies in the file (which would make every YAML edit of the fork the cost measured).
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "parent",
      instructions: "List the files until told to stop.",
      model: { provider: "scripted", replies: [{ text: "done" }] },
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: TURNS + 5 },
    }),
  );
  let calls = 0;
  const longModel = (): ModelProvider => ({
    provider: "scripted",
    model: "long",
    generate: () =>
      Promise.resolve({
        text: "",
        tool_calls: ++calls % (TURNS + 1) === 0
          ? []
          : [{ id: `c${calls}`, name: "list_files", arguments: {} }],
        usage: { input_tokens: 10, output_tokens: 5 },
        usage_reported: true,
      }),
  });
  try {
    const parent = await startRun(dir, { input: "go" }, { createProvider: longModel });
    const result = await parent.result;
    if (result.status !== "success") throw new Error(result.error?.message);
    const bytes = await Deno.readFile(parent.trace_path);
    const lines = new TextDecoder().decode(bytes).trim().split("\n");
    const events = lines.length;
    // The last model call: the whole journal but its answer is the prefix.
    const at = lines.map((l) => JSON.parse(l)).findLast((e) => e.type === "model_call").seq;
    const db = openHive();
    let n = 0;
    const fork = await measure(20, async () => {
      await forkRun(db, parent.run_id, {
        at,
        name: `fork-${++n}`,
        model: { provider: "scripted", name: "fork", replies: [{ text: "fork done" }] },
      }, "bench");
    }, 2);
    let c = 0;
    const copy = await measure(20, async () => {
      const to = `${home}/copy-${++c}`;
      await Deno.mkdir(to);
      await copyTree(dir, to, (e) => !e.relative.startsWith(".framework"));
    }, 2);
    const replay = await measure(50, () => replayFrom(bytes, { run_id: parent.run_id, at }), 5);
    const runs = createRunService();
    const resume = await measure(20, async () => {
      const r = await (await resumeFork(db, runs, `${home}/harnesses/fork-1`)).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    }, 2);
    report(`fork at seq ${at} of ${events} events`, {
      fork: fmt(fork.mean_ms, " ms"),
      copy_folder: fmt(copy.mean_ms, " ms"),
      copy_share: `${fmt((copy.mean_ms / fork.mean_ms) * 100)} %`,
      folder: `${FILES + 1} files, ${fmt((FILES * FILE_BYTES) / 1024)} KiB`,
    });
    report(`resume (replays ${at - 1} events)`, {
      resume: fmt(resume.mean_ms, " ms"),
      verify_and_fold: fmt(replay.mean_ms, " ms"),
      p99: fmt(resume.p99_ms, " ms"),
    });
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}

if (import.meta.main) await runAlone(run);
