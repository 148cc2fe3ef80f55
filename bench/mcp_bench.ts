/**
 * MCP tools: the per-call overhead of a tool of a stdio MCP server (the reference "everything"
 * server, run by Deno from its npm cache) against a builtin tool in the same kind of run, and the
 * time to start the server and list its tools, paid once per run.
 *
 * @module
 */

import { stringify } from "yaml";
import { closeHives } from "../lib/hive/open.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { startRun } from "../lib/runs/service.ts";
import { loadSpec } from "../lib/harness_spec/load.ts";
import { connectMcpServers } from "../lib/tools/mcp.ts";
import { trustFolder } from "../lib/trust/store.ts";
import { cacheEverything, everythingServer } from "../tests/helpers/everything.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

const CALLS = 20;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  if (!(await cacheEverything()).ok) {
    console.log("mcp: skipped (the everything server could not be cached from npm)");
    return;
  }
  const home = await benchTempDir("fw-bench-mcp-");
  setFrameworkHome(home);
  const harness = async (name: string, tool: string, extra: Record<string, unknown>) => {
    const dir = `${home}/${name}`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/harness.yaml`,
      stringify({
        id: name,
        model: {
          provider: "scripted",
          replies: [
            ...Array.from({ length: CALLS }, (_, i) => ({
              tool_calls: [{
                id: `c${i}`,
                name: tool,
                arguments: tool.endsWith("echo") ? { message: "x" } : {},
              }],
            })),
            { text: "done" },
          ],
        },
        limits: { max_turns: CALLS + 2 },
        ...extra,
      }),
    );
    await trustFolder(dir);
    return dir;
  };
  try {
    const mcpDir = await harness("with-mcp", "everything__echo", {
      mcp_servers: [await everythingServer({ tools: ["echo"] })],
    });
    const builtinDir = await harness("with-builtin", "list_files", {
      tools: [{ builtin: "list_files" }],
    });
    const loaded = await loadSpec(mcpDir);
    const start = await measure(5, async () => {
      const pool = await connectMcpServers(loaded.spec, loaded.dir, {
        trusted: true,
        defaultTimeoutS: 30,
      });
      await pool.close();
    }, 1);
    const withMcp = await measure(5, async () => {
      const r = await (await startRun(mcpDir, { input: "go" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    }, 1);
    const withBuiltin = await measure(5, async () => {
      const r = await (await startRun(builtinDir, { input: "go" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    }, 1);
    const perCall = (withMcp.mean_ms - start.mean_ms - withBuiltin.mean_ms) / CALLS;
    report(`MCP tool call vs builtin (${CALLS} calls a run)`, {
      mcp_call: fmt(perCall + withBuiltin.mean_ms / CALLS, " ms"),
      builtin_call: fmt(withBuiltin.mean_ms / CALLS, " ms"),
      overhead: fmt(perCall, " ms/call"),
    });
    report("MCP server start and list, once per run", {
      start: fmt(start.mean_ms, " ms"),
      p99: fmt(start.p99_ms, " ms"),
    });
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}

if (import.meta.main) await runAlone(run);
