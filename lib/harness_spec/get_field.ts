/**
 * `getField`: read the whole spec or one dotted field of a harness.
 *
 * @module
 */

import { resolvePath } from "./dotted_path.ts";
import { checkHarness, invalidSpecError } from "./load.ts";

/** The result of {@link getField}. */
export interface GetResult {
  /** The dotted path asked for ("" for the whole spec). */
  path: string;
  /** The value (null when a known field is not set). */
  value: unknown;
  /** Whether the field is set. */
  exists: boolean;
}

/**
 * Reads a field. Works on a spec with schema errors (so they can be inspected and fixed), but not on
 * YAML that does not parse. An unknown path is bad input.
 *
 * @example
 * ```ts
 * (await getField("./harnesses/hello", "limits.max_turns")).value; // 4
 * ```
 * @param harnessDir The harness folder.
 * @param path The dotted path, or empty for the whole spec.
 * @returns The value.
 */
export async function getField(harnessDir: string, path = ""): Promise<GetResult> {
  const { parsed } = await checkHarness(harnessDir);
  if (parsed.value === undefined) throw invalidSpecError(parsed.issues);
  if (!path) return { path: "", value: parsed.value, exists: true };
  const resolved = resolvePath(parsed.value, path);
  return { path, value: resolved.exists ? resolved.value : null, exists: resolved.exists };
}
