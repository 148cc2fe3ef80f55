/**
 * Runs per second and per-turn framework overhead for a 3-turn scripted harness with two tool calls,
 * journal and hive on. The scripted model answers at once, so the time is the framework's own.
 *
 * @module
 */

import { stringify } from "yaml";
import { closeHives } from "../lib/hive/open.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { startRun } from "../lib/runs/service.ts";
import { trustFolder } from "../lib/trust/store.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-");
  setFrameworkHome(home);
  const dir = `${home}/bench-harness`;
  await Deno.mkdir(`${dir}/workspace`, { recursive: true });
  await Deno.writeTextFile(`${dir}/workspace/note.txt`, "a note\n".repeat(20));
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "bench-harness",
      model: {
        provider: "scripted",
        pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
        replies: [
          {
            tool_calls: [{ name: "file_read", arguments: { path: "workspace/note.txt" } }],
            usage: { input_tokens: 300, output_tokens: 20 },
          },
          {
            tool_calls: [{ name: "list_files", arguments: { path: "workspace" } }],
            usage: { input_tokens: 400, output_tokens: 20 },
          },
          {
            text: "Done: the note is read and the folder listed.",
            usage: { input_tokens: 500, output_tokens: 30 },
          },
        ],
      },
      instructions: "Read the note, list the folder, answer.",
      tools: [{ builtin: "file_read" }, { builtin: "list_files" }],
    }),
  );
  try {
    const timing = await measure(300, async () => {
      const r = await (await startRun(dir, { input: "go" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    });
    report("3-turn run, 2 tool calls, journal + hive", {
      runs_per_s: fmt(timing.per_second),
      mean: fmt(timing.mean_ms, " ms"),
      p99: fmt(timing.p99_ms, " ms"),
      per_turn_overhead: fmt(timing.mean_ms / 3, " ms"),
    });
    // A run with one code tool: the sandbox process starts once per run.
    const codeDir = `${home}/code-harness`;
    await Deno.mkdir(`${codeDir}/tools`, { recursive: true });
    await Deno.writeTextFile(
      `${codeDir}/tools/echo.ts`,
      "export function echo(args: unknown) { return args; }\n",
    );
    await Deno.writeTextFile(
      `${codeDir}/harness.yaml`,
      stringify({
        id: "code-harness",
        model: {
          provider: "scripted",
          replies: [
            {
              tool_calls: [{ name: "echo", arguments: { n: 1 } }, {
                name: "echo",
                arguments: { n: 2 },
              }],
            },
            { text: "done" },
          ],
        },
        tools: [{ code: "tools/echo.ts#echo" }],
      }),
    );
    await trustFolder(codeDir);
    const code = await measure(30, async () => {
      const r = await (await startRun(codeDir, { input: "go" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    }, 3);
    report("2-turn run with 2 sandboxed code-tool calls", {
      mean: fmt(code.mean_ms, " ms"),
      p99: fmt(code.p99_ms, " ms"),
      vs_builtin_run: fmt(code.mean_ms / timing.mean_ms, "x"),
    });
    const parallel = 10;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: parallel }, async () => {
      for (let i = 0; i < 30; i++) await (await startRun(dir, { input: "go" })).result;
    }));
    const seconds = (performance.now() - t0) / 1000;
    report(`same, ${parallel} runs at a time in one process`, {
      runs_per_s: fmt((parallel * 30) / seconds),
    });
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}
