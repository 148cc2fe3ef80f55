/**
 * The group commit's window (lib/fs/group_flush.ts): `POST /run` on one control plane at 1, 16 and 64
 * connections (`wrk`, medians of 5 two-second rounds), with what the server's flushes did meanwhile —
 * how many callers one flush of the hive's log or of a trace folder served, how long a caller
 * waited for its flush, and the largest batch. The journal's own `fdatasync` (one file per run) runs
 * beside these and is not counted.
 *
 * @module
 */

import type { FlushCounts } from "../lib/fs/group_flush.ts";
import { fmt, report } from "./measure.ts";
import { startRunPlane } from "./run_plane.ts";
import { runAlone } from "./temp_dirs.ts";
import { median, wrk } from "./wrk.ts";

const CONNECTIONS = [1, 16, 64];
const ROUNDS = 5;
const SECONDS = 2;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const plane = await startRunPlane("fw-bench-commit-", Math.max(...CONNECTIONS));
  const counts = async (): Promise<FlushCounts> =>
    await (await fetch(`${plane.base}/__bench/flushes`)).json();
  const { url, headers, post } = plane.target;
  try {
    await wrk(url, 4, 2, headers, post); // warm-up
    for (const c of CONNECTIONS) {
      const before = await counts();
      const rounds = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await wrk(url, c, SECONDS, headers, post));
      const after = await counts();
      const requests = after.requests - before.requests;
      const flushes = after.flushes - before.flushes;
      report(`POST /run, ${c} conn. (median of ${ROUNDS})`, {
        "runs/s": fmt(median(rounds.map((r) => r.rps))),
        p50: fmt(median(rounds.map((r) => r.p50_ms)), " ms"),
        p99: fmt(median(rounds.map((r) => r.p99_ms)), " ms"),
      });
      report(`  group commit, ${c} conn.`, {
        "callers per flush": fmt(requests / Math.max(1, flushes)),
        "wait per caller": fmt((after.waited_ms - before.waited_ms) / Math.max(1, requests), " ms"),
        "largest batch so far": String(after.largest),
      });
    }
  } finally {
    await plane.server.stop();
  }
}

if (import.meta.main) await runAlone(run);
