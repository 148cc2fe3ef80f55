/**
 * Hive lookups for tests that know a harness by its id only.
 *
 * @module
 */

import { getHarness, type HarnessRef } from "../../lib/hive/harnesses.ts";
import { type Hive, openHive } from "../../lib/hive/open.ts";

/**
 * A harness as the hive binds it (id and the catalog's folder), from its id.
 *
 * @param id The harness id.
 * @param db The hive (default: this realm's).
 * @returns `{id, dir}` (dir empty when the id is not catalogued).
 */
export function byId(id: string, db: Hive = openHive()): HarnessRef {
  return { id, dir: getHarness(db, id)?.root_path ?? "" };
}
