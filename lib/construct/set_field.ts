/**
 * `setField`: set one dotted field of `harness.yaml` to a typed JSON value.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import { parseDottedPath, resolvePath } from "../harness_spec/dotted_path.ts";
import { type EditPolicy, frozenRootOf } from "../harness_spec/frozen.ts";
import { setInText } from "../harness_spec/yaml_edit.ts";
import { frozenError, mutateSpec, type MutationResult } from "./mutate.ts";

/** Who is changing the spec. */
export interface ChangeOptions {
  /** The construction-log actor: `cli`, `http:<key_id>`, `proposal:<id>`, `workbench`. */
  actor: string;
  /** Decides which roots are frozen. */
  policy: EditPolicy;
}

/**
 * Sets a field. The value is typed JSON: `12` stays a number and `"12"` stays a string. Frozen roots
 * are refused (403) before anything is read; an invalid result is refused (400) and nothing changes.
 *
 * @example
 * ```ts
 * await setField("./harnesses/hello", "limits.max_turns", 12, { actor: "cli", policy: "local" });
 * ```
 * @param harnessDir The harness folder.
 * @param path The dotted path.
 * @param value The new JSON value.
 * @param options Actor and policy.
 * @returns `{path, old, new, spec_version, ...}`.
 */
export async function setField(
  harnessDir: string,
  path: string,
  value: unknown,
  options: ChangeOptions,
): Promise<MutationResult> {
  const describe = `Cannot set ${JSON.stringify(path)}`;
  parseDottedPath(path);
  if (value === undefined) throw badInput(`${describe}: missing value`);
  const frozen = frozenRootOf(path, options.policy);
  if (frozen) throw frozenError(describe, frozen, options.policy);
  return await mutateSpec(harnessDir, { actor: options.actor, op: "set", describe }, (current) => {
    const resolved = resolvePath(current.value, path);
    return {
      text: setInText(current.text, resolved.path, value),
      path,
      old: resolved.exists ? resolved.value : null,
      new: value,
    };
  });
}
