/**
 * `addItem`: append a skill, tool, validator, guardrail or hook to its list in `harness.yaml`.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import {
  entryName,
  isItemKind,
  ITEM_KINDS,
  type ItemKind,
  LIST_PATH,
} from "../harness_spec/entries.ts";
import { frozenRootOf } from "../harness_spec/frozen.ts";
import { appendInText } from "../harness_spec/yaml_edit.ts";
import { frozenError, mutateSpec, type MutationResult } from "./mutate.ts";
import type { ChangeOptions } from "./set_field.ts";

/** The result of {@link addItem}. */
export interface AddResult extends MutationResult {
  kind: ItemKind;
  name: string;
}

/**
 * Adds an item. Over HTTP only `skill` is allowed: the lists of the other kinds are frozen roots. A
 * duplicate name is refused.
 *
 * @example
 * ```ts
 * await addItem("./h", "skill", { name: "refunds", description: "Refunds", instructions: "Ask first." },
 *   { actor: "cli", policy: "local" });
 * ```
 * @param harnessDir The harness folder.
 * @param kind `skill`, `tool`, `validator`, `guardrail` or `hook`.
 * @param item The entry.
 * @param options Actor and policy.
 * @returns `{kind, name, spec_version, ...}`.
 */
export async function addItem(
  harnessDir: string,
  kind: string,
  item: unknown,
  options: ChangeOptions,
): Promise<AddResult> {
  if (!isItemKind(kind)) {
    throw badInput(
      `Unknown kind ${JSON.stringify(kind)}: expected one of ${ITEM_KINDS.join(", ")}`,
      { kind },
    );
  }
  const listPath = LIST_PATH[kind];
  const describe = `Cannot add ${kind}`;
  const frozen = frozenRootOf(listPath, options.policy);
  if (frozen) throw frozenError(describe, frozen, options.policy);
  if (!item || typeof item !== "object" || Array.isArray(item)) {
    throw badInput(
      `${describe}: expected a map (JSON object), got ${
        Array.isArray(item) ? "a list" : typeof item
      }`,
    );
  }
  const name = entryName(item);
  if (!name) {
    throw badInput(
      kind === "skill"
        ? `${describe}: a skill needs name, description and instructions`
        : `${describe}: the entry needs \`builtin: NAME\` or \`code: "path/module.ts#export"\``,
    );
  }
  const result = await mutateSpec(
    harnessDir,
    { actor: options.actor, op: "add", describe },
    (current) => {
      const segments = listPath.split(".");
      let list: unknown = current.value;
      for (const s of segments) list = (list as Record<string, unknown> | undefined)?.[s];
      if (Array.isArray(list) && list.some((e) => entryName(e) === name)) {
        throw badInput(
          `${describe}: a ${kind} named ${
            JSON.stringify(name)
          } already exists; remove it first or choose another name`,
          { name },
        );
      }
      return {
        text: appendInText(current.text, segments, item),
        path: `${listPath}.${name}`,
        old: null,
        new: item,
      };
    },
  );
  return { ...result, kind, name };
}
