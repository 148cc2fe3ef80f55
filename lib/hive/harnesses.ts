/**
 * The harness catalog in the hive: every harness the machine has seen, with its folder and its place
 * in the fork tree (`is_fork`, `parent_id`).
 *
 * @module
 */

import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/**
 * Which harness a record belongs to: its id and its folder (absolute, symlinks resolved). A copied
 * folder that kept the id is another harness: its runs, proposals and versions are kept apart.
 */
export interface HarnessRef {
  id: string;
  dir: string;
}

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
  /** A fork made here, with its parent (only `forkRun` registers one). */
  is_fork?: boolean;
  parent_id?: string | null;
}

function toRow(r: Record<string, unknown>): HarnessRow {
  return {
    id: r.id as string,
    root_path: r.root_path as string,
    name: r.name as string,
    is_fork: Number(r.is_fork) === 1,
    parent_id: (r.parent_id as string | null) ?? null,
    evolved: Number(r.evolved),
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
  };
}

/**
 * Records a harness (or updates its folder and name). Only a fork made here marks a row as a fork
 * (`is_fork` given, by `forkRun`), and sets its parent; a plain registration — a scan, a run, a
 * `--dir` — keeps the fork fields of the row while the row keeps its folder, and clears them when
 * another folder takes the id (that folder was not forked here, whatever its `harness.yaml` says).
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
       updated_at = excluded.updated_at,
       is_fork = CASE WHEN excluded.is_fork = 1 THEN 1
         WHEN harnesses.root_path = excluded.root_path THEN harnesses.is_fork ELSE 0 END,
       parent_id = CASE WHEN excluded.is_fork = 1 THEN excluded.parent_id
         WHEN harnesses.root_path = excluded.root_path THEN harnesses.parent_id ELSE NULL END
     -- Every run claims its folder: a claim that changes nothing writes nothing.
     WHERE harnesses.root_path IS NOT excluded.root_path OR harnesses.name IS NOT excluded.name
       OR excluded.is_fork = 1`,
  ).run(
    h.id,
    h.root_path,
    h.name,
    h.is_fork ? 1 : 0,
    h.is_fork ? h.parent_id ?? null : null,
    now,
    now,
  );
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

/** A folder whose harness id is already the id of another folder (a copy that kept the id). */
export interface DuplicateRow {
  id: string;
  /** The folder with the taken id. */
  root_path: string;
  /** The folder that holds the id in the catalog. */
  owner_path: string;
  seen_at: string;
}

/**
 * Records that a folder's id is taken by another folder, so the workbench can say so.
 *
 * @param db The hive.
 * @param d The folder, its id and the owner's folder.
 */
export function recordDuplicate(db: Hive, d: Omit<DuplicateRow, "seen_at">): void {
  statement(
    db,
    `INSERT INTO harness_duplicates (root_path, id, owner_path, seen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(root_path) DO UPDATE SET id = excluded.id, owner_path = excluded.owner_path,
       seen_at = excluded.seen_at`,
  ).run(d.root_path, d.id, d.owner_path, new Date().toISOString());
}

/**
 * Forgets a duplicate record (the folder now has its own id, or owns it).
 *
 * @param db The hive.
 * @param rootPath The folder.
 */
export function clearDuplicate(db: Hive, rootPath: string): void {
  statement(db, "DELETE FROM harness_duplicates WHERE root_path = ?").run(rootPath);
}

/**
 * Every recorded duplicate, by folder.
 *
 * @param db The hive.
 * @returns The rows.
 */
export function listDuplicates(db: Hive): DuplicateRow[] {
  return statement(db, "SELECT * FROM harness_duplicates ORDER BY root_path")
    .all() as unknown as DuplicateRow[];
}
