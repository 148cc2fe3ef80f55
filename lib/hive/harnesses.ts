/**
 * The harness catalog in the hive: every harness the machine has seen, with its folder and its place
 * in the fork tree (`is_fork`, `parent_id`).
 *
 * @module
 */

import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** One catalog row. */
export interface HarnessRow {
  id: string;
  root_path: string;
  name: string;
  is_fork: boolean;
  parent_id: string | null;
  evolved: number;
  created_at: string;
  updated_at: string;
}

/** What {@link upsertHarness} records. */
export interface HarnessRegistration {
  id: string;
  root_path: string;
  name: string;
  is_fork?: boolean;
  parent_id?: string | null;
}

function toRow(r: Record<string, unknown>): HarnessRow {
  return {
    id: r.id as string,
    root_path: r.root_path as string,
    name: r.name as string,
    is_fork: r.is_fork === 1,
    parent_id: (r.parent_id as string | null) ?? null,
    evolved: Number(r.evolved),
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
  };
}

/**
 * Records a harness (or updates its folder and name). Fork fields are only written when given, so a
 * plain registration never unmarks a fork.
 *
 * @param db The hive.
 * @param h The harness.
 * @returns The row after the write.
 */
export function upsertHarness(db: Hive, h: HarnessRegistration): HarnessRow {
  const now = new Date().toISOString();
  statement(
    db,
    `INSERT INTO harnesses (id, root_path, name, is_fork, parent_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET root_path = excluded.root_path, name = excluded.name,
       updated_at = excluded.updated_at
       ${
      h.is_fork === undefined ? "" : ", is_fork = excluded.is_fork, parent_id = excluded.parent_id"
    }`,
  ).run(h.id, h.root_path, h.name, h.is_fork ? 1 : 0, h.parent_id ?? null, now, now);
  return getHarness(db, h.id)!;
}

/**
 * One harness by id.
 *
 * @param db The hive.
 * @param id The harness id.
 * @returns The row, or undefined.
 */
export function getHarness(db: Hive, id: string): HarnessRow | undefined {
  const r = statement(db, "SELECT * FROM harnesses WHERE id = ?").get(id) as
    | Record<string, unknown>
    | undefined;
  return r ? toRow(r) : undefined;
}

/**
 * Every harness, ordered by folder so a tree can be built from it.
 *
 * @param db The hive.
 * @returns The rows.
 */
export function listHarnesses(db: Hive): HarnessRow[] {
  return (statement(db, "SELECT * FROM harnesses ORDER BY root_path").all() as Record<
    string,
    unknown
  >[])
    .map(toRow);
}
