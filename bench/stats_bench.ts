/**
 * Statistics at a million runs: `harnessStats` (what `/stats` and `framework stats` answer) reads the
 * aggregates the hive keeps as runs change, so its cost does not grow with the runs table. Printed
 * beside the full scan it replaced, on the same hive. The same for the trace folders inside a harness,
 * which every run reads when it is prepared (a range on the `trace_folders` key, beside the scan of
 * every run's `trace_path` it replaced).
 *
 * @module
 */

import type { HarnessRef } from "../lib/hive/harnesses.ts";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { traceFoldersWithin } from "../lib/hive/runs.ts";
import { harnessStats } from "../lib/hive/stats.ts";
import { fmt, measure, report } from "./measure.ts";
import { seedRuns } from "./seed_runs.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await benchTempDir("fw-bench-stats-");
  const path = `${dir}/hive.db`;
  await Deno.mkdir(`${dir}/busy`);
  await Deno.writeTextFile(
    `${dir}/busy/harness.yaml`,
    "id: busy\nmodel:\n  provider: scripted\n  replies: [{text: ok}]\n",
  );
  const BUSY = { id: "busy", dir: await Deno.realPath(`${dir}/busy`) };
  try {
    let seeded = 0;
    for (const n of [1_000, 100_000, 1_000_000]) {
      const t0 = performance.now();
      seedRuns(path, BUSY, n, seeded);
      seeded = n;
      const db = openHive(path);
      const seconds = (performance.now() - t0) / 1000;
      const timing = await measure(200, () => harnessStats(db, BUSY), 20);
      const s = harnessStats(db, BUSY);
      const scan = await measure(3, () => scanStats(db, BUSY), 1);
      report(`harnessStats at ${n.toLocaleString()} runs in the hive`, {
        mean: fmt(timing.mean_ms, " ms"),
        p99: fmt(timing.p99_ms, " ms"),
        "full scan": `${fmt(scan.mean_ms, " ms")} (${fmt(scan.mean_ms / timing.mean_ms, "x")})`,
        runs: s.runs.total.toLocaleString(),
        seeded: fmt(seconds, " s"),
      });
      const folders = await measure(2000, () => traceFoldersWithin(db, BUSY.dir), 100);
      const folderScan = await measure(3, () => scanTraceFolders(db, BUSY.dir), 1);
      report(`trace folders of a harness at ${n.toLocaleString()} runs`, {
        mean: fmt(folders.mean_ms, " ms"),
        p99: fmt(folders.p99_ms, " ms"),
        "runs scan": `${fmt(folderScan.mean_ms, " ms")} (${
          fmt(folderScan.mean_ms / folders.mean_ms, "x")
        })`,
      });
      closeHives();
    }
    const cli = await measure(3, async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../cli.ts", import.meta.url).pathname,
          "stats",
          BUSY.dir,
          "--json",
        ],
        env: { FRAMEWORK_HOME: dir },
        stdout: "null",
        stderr: "null",
      }).output();
      if (!out.success) throw new Error("framework stats failed");
    }, 1);
    report("framework stats (whole process) at 1,000,000 runs", {
      mean: fmt(cli.mean_ms, " ms"),
    });
  } finally {
    closeHives();
  }
}

/** The scan of every run's journal path the trace folders were found by before migration 11. */
function scanTraceFolders(db: ReturnType<typeof openHive>, dir: string): unknown {
  return db.prepare(
    `SELECT DISTINCT substr(trace_path, 1, length(trace_path) - length(run_id) - 7) AS folder
     FROM runs
     WHERE substr(trace_path, 1, length(?1)) = ?1 AND substr(trace_path, -length(run_id) - 7) = '/' || run_id || '.jsonl'`,
  ).all(`${dir}/`);
}

/** The aggregate scan `/stats` did before the hive kept its statistics (for the ratio). */
function scanStats(db: ReturnType<typeof openHive>, harness: HarnessRef): unknown {
  return db.prepare(
    "SELECT status, count(*), total(cost_usd), total(turns) FROM runs WHERE harness_id = ? AND harness_dir = ? AND live = 1 GROUP BY status",
  ).all(harness.id, harness.dir);
}
