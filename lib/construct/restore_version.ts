/**
 * Restoring a recorded version of a harness: its exact `harness.yaml` bytes written back as one
 * construction (logged as `restore`, recorded as a new version whose source is `restore`), under the
 * writer's edit policy like any whole-text edit.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { findSpecVersion } from "../hive/spec_versions.ts";
import type { MutationResult } from "./mutate.ts";
import { frozenRootsChangedByText, replaceSpecText } from "./replace_spec.ts";
import type { EditPolicy } from "../harness_spec/frozen.ts";
import type { ChangeOptions } from "./set_field.ts";

/**
 * Writes a recorded version back.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const ref = { id: "hello", dir: await Deno.realPath("./harnesses/hello") };
 * await restoreVersion(openHive(), ref, "3f2a9c", { actor: "cli", policy: "local" });
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param version A version hash, or a unique prefix of one (at least 6 hex digits).
 * @param options Actor and edit policy.
 * @returns The change.
 * @throws `not_found` for an unknown version; `forbidden` when it changes a frozen field the
 *   policy does not allow.
 */
export async function restoreVersion(
  db: Hive,
  harness: HarnessRef,
  version: string,
  options: ChangeOptions,
): Promise<MutationResult> {
  return await replaceSpecText(harness.dir, versionText(db, harness, version), {
    ...options,
    op: "restore",
    source: "restore",
  });
}

/**
 * The frozen roots that restoring a version would change under an edit policy: asked before the
 * restore, so a page has the person confirm first instead of being refused.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version A version hash, or a unique prefix of one.
 * @param policy The writer's edit policy.
 * @returns The frozen roots it would change.
 * @throws `not_found` for an unknown version.
 */
export async function frozenRootsChangedByRestore(
  db: Hive,
  harness: HarnessRef,
  version: string,
  policy: EditPolicy,
): Promise<string[]> {
  return await frozenRootsChangedByText(harness.dir, versionText(db, harness, version), policy);
}

/** A recorded version's `harness.yaml`, or `not_found`. */
function versionText(db: Hive, harness: HarnessRef, version: string): string {
  const row = findSpecVersion(db, harness, version);
  if (!row) {
    throw notFound(
      `No version ${
        JSON.stringify(version)
      } of ${harness.id}; framework versions ${harness.dir} lists them`,
      { version },
    );
  }
  return row.yaml;
}
