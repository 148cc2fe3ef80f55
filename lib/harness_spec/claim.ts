/**
 * Which folder owns a harness id. The catalog keeps one folder per id: the first that registered it,
 * for as long as that folder still holds that id (a folder that moved, or changed its id, gives the id
 * up). A second folder with a taken id — a copy that kept the id — is recorded as a duplicate and
 * never takes the catalog row over; its runs, proposals and versions are bound to its own folder, so
 * nothing of the two is ever merged.
 *
 * @module
 */

import { specPath } from "../paths.ts";
import { parse } from "yaml";
import {
  clearDuplicate,
  getHarness,
  type HarnessRegistration,
  type HarnessRow,
  recordDuplicate,
  upsertHarness,
} from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";

/** What {@link claimHarness} found. */
export interface Claim {
  /** The catalog row of the id (the owner's, when this folder is a duplicate). */
  row: HarnessRow;
  /** The owner's folder when another folder holds the id, else null. */
  duplicateOf: string | null;
}

/**
 * Whether a folder's `harness.yaml` still has the given id (read directly, no cache).
 *
 * @param dir A harness folder.
 * @param id The id.
 * @returns True when it does.
 */
export function folderHoldsId(dir: string, id: string): boolean {
  try {
    const value = parse(Deno.readTextFileSync(specPath(dir))) as { id?: unknown };
    return value?.id === id;
  } catch {
    return false;
  }
}

/**
 * Registers a harness folder under its id, unless another folder that still holds that id owns it:
 * then the folder is recorded as a duplicate and the catalog row is left as it is.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const { duplicateOf } = claimHarness(openHive(), { id: "bot", root_path: "/copy/bot", name: "Bot" });
 * ```
 * @param db The hive.
 * @param h The folder, its id and name (and fork fields).
 * @returns The catalog row and the owner's folder for a duplicate.
 */
export function claimHarness(db: Hive, h: HarnessRegistration): Claim {
  const existing = getHarness(db, h.id);
  // The folder already owns its id under this name (every run of a harness claims it): nothing to
  // write. An owner is never listed as a duplicate (taking ownership clears that).
  if (
    existing && existing.root_path === h.root_path && existing.name === h.name &&
    h.is_fork === undefined
  ) {
    return { row: existing, duplicateOf: null };
  }
  if (existing && existing.root_path !== h.root_path && folderHoldsId(existing.root_path, h.id)) {
    recordDuplicate(db, { id: h.id, root_path: h.root_path, owner_path: existing.root_path });
    return { row: existing, duplicateOf: existing.root_path };
  }
  const row = upsertHarness(db, h);
  clearDuplicate(db, h.root_path);
  return { row, duplicateOf: null };
}

/**
 * The folder that owns an id, when it is not `dir` (for a validation warning), else null.
 *
 * @param db The hive.
 * @param id The harness id.
 * @param dir The folder asking.
 * @returns The owner's folder, or null.
 */
export function ownerOfId(db: Hive, id: string, dir: string): string | null {
  const existing = getHarness(db, id);
  if (!existing || existing.root_path === dir) return null;
  return folderHoldsId(existing.root_path, id) ? existing.root_path : null;
}
