/**
 * Whether a harness folder is behind its hive: several hosts keep a folder each, and a proposal
 * applied through one changes that host's folder and records the new version in the hive. One
 * answer for `/health` (lib/runs/health.ts) and the workbench's Overview (lib/workbench/catalog.ts).
 *
 * @module
 */

import type { Hive } from "../hive/open.ts";
import { specDrift } from "../hive/spec_versions.ts";
import { specPath } from "../paths.ts";

/** A folder's drift: whether a newer spec version is recorded for its id, and which. */
export interface FolderDrift {
  spec_drift: boolean;
  /** The newest recorded version, when the folder is behind it. */
  newest_spec_version?: string;
}

/**
 * Whether the folder's spec is older than the newest version recorded for its harness id (its
 * `harness.yaml` unchanged since that version was recorded).
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * await folderSpecDrift(openHive(), "/srv/harnesses/support", "support", "3f2a…");
 * // { spec_drift: true, newest_spec_version: "9c01…" }
 * ```
 * @param db The hive.
 * @param dir The harness folder.
 * @param harnessId Its id.
 * @param version Its spec version (null when the spec does not parse: never drift).
 * @returns The drift.
 */
export async function folderSpecDrift(
  db: Hive,
  dir: string,
  harnessId: string,
  version: string | null,
): Promise<FolderDrift> {
  if (version === null) return { spec_drift: false };
  const changedAt = (await Deno.stat(specPath(dir))).mtime?.toISOString() ?? "";
  const drift = specDrift(db, harnessId, version, changedAt);
  return drift.drift
    ? { spec_drift: true, newest_spec_version: drift.newest! }
    : { spec_drift: false };
}
