/**
 * Spec versions: every successful change of a `harness.yaml` (hash, full text, time, source), so two
 * versions can be shown side by side.
 *
 * @module
 */

import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** One recorded version. */
export interface SpecVersionRow {
  seq: number;
  harness_id: string;
  /** The harness folder. */
  harness_dir: string;
  version: string;
  yaml: string;
  /** Who made it: `cli`, `http:<key_id>`, `proposal:<id>`, `init`. */
  source: string;
  created_at: string;
}

/**
 * Records a version.
 *
 * @param db The hive.
 * @param v The version.
 * @returns The stored row.
 */
export function recordSpecVersion(
  db: Hive,
  v: { harness_id: string; harness_dir: string; version: string; yaml: string; source: string },
): SpecVersionRow {
  const created_at = new Date().toISOString();
  const res = statement(
    db,
    `INSERT INTO spec_versions (harness_id, harness_dir, version, yaml, source, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`,
  ).get(v.harness_id, v.harness_dir, v.version, v.yaml, v.source, created_at) as { seq: number };
  return { seq: Number(res.seq), ...v, created_at };
}

/**
 * The versions of one harness, newest first.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param limit At most this many.
 * @returns The rows.
 */
export function listSpecVersions(db: Hive, harness: HarnessRef, limit = 100): SpecVersionRow[] {
  return statement(
    db,
    "SELECT * FROM spec_versions WHERE harness_id = ? AND harness_dir = ? ORDER BY seq DESC LIMIT ?",
  ).all(harness.id, harness.dir, limit) as unknown as SpecVersionRow[];
}

/**
 * The newest version recorded for a harness folder, whatever its id was then (for a file that no
 * longer parses, whose id cannot be read).
 *
 * @param db The hive.
 * @param dir The harness folder.
 * @returns The row, or undefined.
 */
export function latestSpecVersionIn(db: Hive, dir: string): SpecVersionRow | undefined {
  return statement(
    db,
    "SELECT * FROM spec_versions WHERE harness_dir = ? ORDER BY seq DESC LIMIT 1",
  ).get(dir) as SpecVersionRow | undefined;
}

/**
 * A recorded version of a harness by its hash or a unique prefix of it (at least 6 hex digits): the
 * newest record of it.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version The hash or prefix.
 * @returns The row, or undefined when unknown or ambiguous.
 */
export function findSpecVersion(
  db: Hive,
  harness: HarnessRef,
  version: string,
): SpecVersionRow | undefined {
  if (!/^[0-9a-f]{6,64}$/.test(version)) return undefined;
  const rows = statement(
    db,
    `SELECT * FROM spec_versions WHERE harness_id = ? AND harness_dir = ? AND version >= ? AND version < ?
     ORDER BY seq DESC`,
  ).all(harness.id, harness.dir, version, `${version}g`) as unknown as SpecVersionRow[];
  return new Set(rows.map((r) => r.version)).size === 1 ? rows[0] : undefined;
}

/**
 * Whether a folder's spec is older than the newest version any process recorded for its harness id
 * (several hosts, one hive: a proposal applied on one host changes that host's folder only). It is
 * when the newest recorded version differs from the folder's and was recorded after the folder's
 * spec file last changed; a folder edited since (by hand, or updated to the new version) is not.
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * specDrift(openHive(), "bot", "3f2a…", "2026-01-01T00:00:00.000Z"); // { drift: false }
 * ```
 * @param db The hive.
 * @param harnessId The harness id.
 * @param version The folder's spec version.
 * @param changedAt When the folder's `harness.yaml` last changed (ISO time).
 * @returns The drift, with the newest version when there is one.
 */
export function specDrift(
  db: Hive,
  harnessId: string,
  version: string,
  changedAt: string,
): { drift: boolean; newest?: string } {
  const newest = statement(
    db,
    "SELECT version, created_at FROM spec_versions WHERE harness_id = ? ORDER BY seq DESC LIMIT 1",
  ).get(harnessId) as { version: string; created_at: string } | undefined;
  if (!newest || newest.version === version || newest.created_at <= changedAt) {
    return { drift: false };
  }
  return { drift: true, newest: newest.version };
}
