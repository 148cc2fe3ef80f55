/**
 * `replaceSpecText`: writes `harness.yaml` as a whole, for the Spec tab's text editor (comments kept:
 * the person writes them). It goes through the same lock, validation and atomic write as every other
 * change: refused when it adds a problem (so a broken file can be fixed as a whole), and refused when
 * it changes a field the policy may not write (compared by value at every frozen root).
 *
 * @module
 */

import { badInput, FrameworkError } from "../errors.ts";
import { openHive } from "../hive/open.ts";
import { latestSpecVersionIn } from "../hive/spec_versions.ts";
import { type EditPolicy, frozenRoots } from "../harness_spec/frozen.ts";
import { parseSpecText, readSpecText, resolveHarnessDir } from "../harness_spec/load.ts";
import { canonicalJson } from "../hash.ts";
import { specVersion } from "../harness_spec/version.ts";
import { frozenError, mutateSpec, type MutationResult } from "./mutate.ts";
import type { ChangeOptions } from "./set_field.ts";

/** The largest `harness.yaml` accepted as a whole (1 MiB). */
export const MAX_SPEC_BYTES = 1024 * 1024;

/**
 * The values a dotted root (with `*` segments) addresses in a parsed spec, as canonical JSON.
 *
 * @param value The parsed spec value.
 * @param root The root, e.g. `playbooks.*.on_enter`.
 * @returns Each found value with its concrete path, sorted.
 */
export function valuesAt(value: unknown, root: string): string[] {
  let found: [string, unknown][] = [["", value]];
  for (const segment of root.split(".")) {
    const next: [string, unknown][] = [];
    for (const [at, v] of found) {
      if (!v || typeof v !== "object") continue;
      const keys = segment === "*"
        ? Object.keys(v)
        : Object.keys(v).filter((k) => k.toLowerCase() === segment.toLowerCase());
      for (const k of keys) {
        const item = Array.isArray(v) ? v[Number(k)] : (v as Record<string, unknown>)[k];
        // A list entry is named by its name when it has one (order changes are not changes).
        const name = Array.isArray(v) && item && typeof item === "object" &&
            typeof (item as Record<string, unknown>).name === "string"
          ? (item as Record<string, unknown>).name as string
          : k;
        next.push([at ? `${at}.${name}` : name, item]);
      }
    }
    found = next;
  }
  return found.map(([at, v]) => `${at}=${canonicalJson(v ?? null)}`).sort();
}

/**
 * The frozen roots whose values differ between two parsed specs: what a whole-text write of `after`
 * over `before` would change that the writer may not (without confirming). When `before` is unknown
 * (the file does not parse and no version is recorded), nothing can be compared: the first root
 * stands for all of them.
 *
 * @param before The spec value written now (undefined when unknown).
 * @param after The spec value to write (undefined when it does not parse).
 * @param roots The frozen roots of the writer's policy.
 * @returns The roots it would change, in the order of `roots`.
 */
export function changedFrozenRoots(
  before: unknown,
  after: unknown,
  roots: readonly string[],
): string[] {
  if (before === undefined) return roots.slice(0, 1);
  return roots.filter((root) =>
    valuesAt(before, root).join("\n") !== valuesAt(after ?? {}, root).join("\n")
  );
}

/**
 * The frozen roots that writing a whole `harness.yaml` would change under an edit policy, asked
 * before writing it so a page can have the person confirm first (instead of being refused). The
 * write itself checks again, under the lock.
 *
 * @example
 * ```ts
 * const text = await Deno.readTextFile("./h/harness.yaml");
 * const edited = text.replace("name: gpt-4.1-mini", "name: gpt-4.1");
 * await frozenRootsChangedByText("./h", edited, "workbench"); // ["model"]
 * ```
 * @param harnessDir The harness folder.
 * @param text The whole new text.
 * @param policy The writer's edit policy.
 * @returns The frozen roots it would change (empty: it may be written without confirming).
 */
export async function frozenRootsChangedByText(
  harnessDir: string,
  text: string,
  policy: EditPolicy,
): Promise<string[]> {
  const roots = frozenRoots(policy);
  if (!roots.length) return [];
  const dir = await resolveHarnessDir(harnessDir);
  const current = parseSpecText(await readSpecText(dir)).value;
  return changedFrozenRoots(
    current ?? lastRecordedValue(dir),
    parseSpecText(text).value,
    roots,
  );
}

/** The value of the newest version recorded for a folder, or undefined. */
function lastRecordedValue(dir: string): unknown {
  try {
    const row = latestSpecVersionIn(openHive(), dir);
    return row ? parseSpecText(row.yaml).value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces `harness.yaml` with a new text.
 *
 * @example
 * ```ts
 * await replaceSpecText("./h", "id: h\nmodel: {provider: scripted, replies: [{text: hi}]}\n",
 *   { actor: "workbench", policy: "proposal" });
 * ```
 * @param harnessDir The harness folder.
 * @param text The whole new text.
 * @param options Actor and policy (which fields are frozen); `op` and `source` for a restore.
 * @returns The mutation result (`path` is empty: the whole file).
 */
export async function replaceSpecText(
  harnessDir: string,
  text: string,
  options: ChangeOptions & { op?: "replace" | "restore"; source?: string },
): Promise<MutationResult> {
  const describe = "Cannot save harness.yaml";
  if (typeof text !== "string") throw badInput(`${describe}: send the text as a string`);
  if (new TextEncoder().encode(text).length > MAX_SPEC_BYTES) {
    throw badInput(`${describe}: the text is larger than ${MAX_SPEC_BYTES} bytes`);
  }
  const normalized = text.endsWith("\n") ? text : `${text}\n`;
  const next = parseSpecText(normalized);
  return await mutateSpec(
    harnessDir,
    {
      actor: options.actor,
      op: options.op ?? "replace",
      describe,
      wholeText: true,
      ...(options.source ? { source: options.source } : {}),
    },
    (current, dir) => {
      const roots = frozenRoots(options.policy);
      // A file that does not parse is compared with the last version recorded for this folder.
      const baseline = current.value ?? lastRecordedValue(dir);
      if (baseline === undefined && roots.length) {
        throw new FrameworkError(
          "forbidden",
          `${describe}: harness.yaml does not parse and no earlier version is recorded, so its frozen fields cannot be compared; confirm the edit of frozen fields to save it`,
          { frozen_root: roots[0] },
        );
      }
      const [changed] = changedFrozenRoots(baseline, next.value, roots);
      if (changed) throw frozenError(describe, changed, options.policy);
      // The log names the versions: the texts themselves are in the hive's spec versions.
      return {
        text: normalized,
        path: "",
        old: current.value === undefined ? null : specVersion(current.value),
        new: next.value === undefined ? null : specVersion(next.value),
      };
    },
  );
}
