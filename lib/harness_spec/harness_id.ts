/**
 * The id of the harness in a folder, read even from a spec with other errors (so its runs can still be
 * listed and inspected).
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import { isSlug } from "./schema.ts";
import { checkHarness } from "./load.ts";

/**
 * Reads a harness folder's id.
 *
 * @param harnessDir The harness folder.
 * @returns The folder (resolved) and the id: the hive's binding of the harness.
 */
export async function harnessIdOf(harnessDir: string): Promise<HarnessRef> {
  const { dir, parsed } = await checkHarness(harnessDir);
  const id = (parsed.value as { id?: unknown } | undefined)?.id;
  if (!isSlug(id)) {
    throw badInput(
      `The harness in ${
        JSON.stringify(harnessDir)
      } has no valid id; run \`framework validate ${harnessDir}\``,
    );
  }
  return { dir, id };
}
