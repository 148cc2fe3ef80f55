/**
 * `removeItem`: remove a field or list entry from `harness.yaml`, by dotted path or by kind and name.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import { isItemKind, ITEM_KINDS, LIST_PATH } from "../harness_spec/entries.ts";
import { parseDottedPath, resolvePath } from "../harness_spec/dotted_path.ts";
import { frozenRootOf } from "../harness_spec/frozen.ts";
import { deleteInText } from "../harness_spec/yaml_edit.ts";
import { frozenError, mutateSpec, type MutationResult } from "./mutate.ts";
import type { ChangeOptions } from "./set_field.ts";

/** What to remove: a dotted path, or an entry of a kind by name. */
export type RemoveTarget = { path: string } | { kind: string; name: string };

/** The result of {@link removeItem}. */
export interface RemoveResult extends MutationResult {
  /** The dotted path that was removed. */
  removed: string;
}

/**
 * Removes a field or entry. Frozen roots are refused; removing a required field is refused as bad
 * input; an unknown path is bad input.
 *
 * @example
 * ```ts
 * await removeItem("./h", { path: "skills.refunds" }, { actor: "cli", policy: "local" });
 * await removeItem("./h", { kind: "tool", name: "file_read" }, { actor: "cli", policy: "local" });
 * ```
 * @param harnessDir The harness folder.
 * @param target What to remove.
 * @param options Actor and policy.
 * @returns `{removed, spec_version, ...}`.
 */
export async function removeItem(
  harnessDir: string,
  target: RemoveTarget,
  options: ChangeOptions,
): Promise<RemoveResult> {
  let path: string;
  const byName = !("path" in target);
  if ("path" in target) {
    path = target.path;
  } else {
    if (!isItemKind(target.kind)) {
      throw badInput(
        `Unknown kind ${JSON.stringify(target.kind)}: expected one of ${ITEM_KINDS.join(", ")}`,
      );
    }
    if (typeof target.name !== "string" || !target.name) {
      throw badInput("Cannot remove: missing name");
    }
    path = `${LIST_PATH[target.kind]}.${target.name}`;
  }
  const describe = `Cannot remove ${JSON.stringify(path)}`;
  parseDottedPath(path);
  const frozen = frozenRootOf(path, options.policy);
  if (frozen) throw frozenError(describe, frozen, options.policy);
  const result = await mutateSpec(
    harnessDir,
    { actor: options.actor, op: "remove", describe },
    (current) => {
      const resolved = resolvePath(current.value, path, {
        lastByName: byName,
        unknownIfPresent: true,
      });
      if (!resolved.exists) throw badInput(`${describe}: nothing is set there`, { path });
      return {
        text: deleteInText(current.text, resolved.path),
        path,
        old: resolved.value,
        new: null,
      };
    },
  );
  return { ...result, removed: path };
}
