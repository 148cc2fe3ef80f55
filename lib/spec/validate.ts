/**
 * `validateHarness`: the full check of a harness folder, reporting every issue without throwing for
 * an invalid spec.
 *
 * @module
 */

import { checkHarness, hasErrors } from "./load.ts";
import type { SpecIssue } from "./issues.ts";
import { specVersion } from "./version.ts";

/** The result of {@link validateHarness}. */
export interface ValidationResult {
  valid: boolean;
  issues: SpecIssue[];
  /** The harness id, when the spec has one. */
  id?: string;
  /** The spec version, when the spec is valid. */
  spec_version?: string;
}

/**
 * Validates a harness folder: YAML, schema, cross-field rules and warnings.
 *
 * @example
 * ```ts
 * const { valid, issues } = await validateHarness("./harnesses/hello");
 * ```
 * @param harnessDir The harness folder.
 * @returns `{valid, issues}`.
 */
export async function validateHarness(harnessDir: string): Promise<ValidationResult> {
  const { parsed } = await checkHarness(harnessDir);
  const valid = !!parsed.spec && !hasErrors(parsed.issues);
  const id = (parsed.value as { id?: unknown } | undefined)?.id;
  return {
    valid,
    issues: parsed.issues,
    ...(typeof id === "string" ? { id } : {}),
    ...(valid ? { spec_version: specVersion(parsed.value) } : {}),
  };
}
