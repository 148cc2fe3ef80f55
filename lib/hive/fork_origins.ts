/**
 * Where forks came from: recorded in the hive when a fork is made here, and the only thing a resume
 * trusts. A fork's `harness.yaml` carries the same facts in its `fork` block, but a file can be
 * copied or edited; this record cannot be made by anything but forking a run.
 *
 * @module
 */

import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** A fork's origin, as recorded when it was made. */
export interface ForkOrigin {
  /** The fork's folder (absolute, symlinks resolved). */
  root_path: string;
  /** The fork's id. */
  harness_id: string;
  /** The parent's id. */
  parent_id: string;
  /**
   * The run it was forked from, and the model call it re-enters at. Null only for a fork made before
   * origins were recorded (hive migration 12) and never resumed since: the first resume binds them.
   */
  run_id: string | null;
  at: number | null;
  created_at: string;
}

/**
 * Records where a fork came from (a fork made again in the same folder replaces the record).
 *
 * @param db The hive.
 * @param o The fork's folder, id, parent, run and seq.
 */
export function recordForkOrigin(
  db: Hive,
  o: { root_path: string; harness_id: string; parent_id: string; run_id: string; at: number },
): void {
  statement(
    db,
    `INSERT INTO fork_origins (root_path, harness_id, parent_id, run_id, at, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (root_path) DO UPDATE SET harness_id = excluded.harness_id,
       parent_id = excluded.parent_id, run_id = excluded.run_id, at = excluded.at,
       created_at = excluded.created_at`,
  ).run(o.root_path, o.harness_id, o.parent_id, o.run_id, o.at, new Date().toISOString());
}

/**
 * The recorded origin of the fork in a folder.
 *
 * @param db The hive.
 * @param rootPath The folder (absolute, symlinks resolved).
 * @returns The origin, or undefined when no fork was made there.
 */
export function getForkOrigin(db: Hive, rootPath: string): ForkOrigin | undefined {
  const r = statement(db, "SELECT * FROM fork_origins WHERE root_path = ?").get(rootPath) as
    | Record<string, unknown>
    | undefined;
  if (!r) return undefined;
  return {
    root_path: r.root_path as string,
    harness_id: r.harness_id as string,
    parent_id: r.parent_id as string,
    run_id: (r.run_id as string | null) ?? null,
    at: r.at === null || r.at === undefined ? null : Number(r.at),
    created_at: r.created_at as string,
  };
}

/**
 * Binds the run and seq of an origin recorded without them (a fork made before origins were
 * recorded), once; a bound origin is left as it is.
 *
 * @param db The hive.
 * @param rootPath The fork's folder.
 * @param runId The run its first resume replays.
 * @param at The seq it re-enters at.
 */
export function bindForkOrigin(db: Hive, rootPath: string, runId: string, at: number): void {
  statement(
    db,
    "UPDATE fork_origins SET run_id = ?, at = ? WHERE root_path = ? AND run_id IS NULL",
  ).run(runId, at, rootPath);
}
