/**
 * Hand-offs to remote (A2A) peers, as this hive recorded them (migration 15): one row per hand-off,
 * named by the peer's URL, with the remote task id, the status it read as here and the cost counted.
 * A remote peer's fitness — its success rate and count of hand-offs — is read from them.
 *
 * @module
 */

import { newId } from "../ids.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** One hand-off to a remote peer. */
export interface RemoteHandoff {
  url: string;
  parent_run_id: string;
  /** The remote task id; null when no task was made (the peer could not be reached). */
  task_id: string | null;
  status: string;
  cost_usd: number;
}

/**
 * Records a finished hand-off to a remote peer.
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * recordRemoteHandoff(openHive(), {
 *   url: "https://agents.example.com/billing",
 *   parent_run_id: "run_01…",
 *   task_id: "run_01…",
 *   status: "success",
 *   cost_usd: 0.012,
 * });
 * ```
 * @param db The hive.
 * @param h The hand-off.
 */
export function recordRemoteHandoff(db: Hive, h: RemoteHandoff): void {
  statement(
    db,
    `INSERT INTO remote_handoffs (handoff_id, url, parent_run_id, task_id, status, cost_usd, ended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    newId("hof"),
    h.url,
    h.parent_run_id,
    h.task_id,
    h.status,
    h.cost_usd,
    new Date().toISOString(),
  );
}

/**
 * A remote peer's record: its hand-offs from this hive and how many succeeded.
 *
 * @param db The hive.
 * @param url The peer's URL.
 * @returns The success rate (null without hand-offs) and the count.
 */
export function remoteFitness(
  db: Hive,
  url: string,
): { success_rate: number | null; runs: number } {
  const row = statement(
    db,
    `SELECT COUNT(*) AS n, COALESCE(SUM(status = 'success'), 0) AS ok
     FROM remote_handoffs WHERE url = ?`,
  ).get(url) as { n: number; ok: number };
  return { success_rate: row.n ? row.ok / row.n : null, runs: row.n };
}
