/**
 * Writing a fork's `harness.yaml`: the parent's text with its `id`, the optional model override and
 * the `fork` block spliced in (comments and layout kept, as every construction edit), checked, then
 * written once, logged and recorded as the fork's first version. The parent's file is not touched.
 *
 * @module
 */

import { writeFileAtomic } from "../fs/atomic_write.ts";
import { specPath } from "../paths.ts";
import {
  invalidSpecError,
  type ParsedSpecText,
  parseSpecText,
  specIsValid,
} from "../harness_spec/load.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import { specVersion } from "../harness_spec/version.ts";
import { setInText } from "../harness_spec/yaml_edit.ts";
import { appendConstructionLog } from "./construction_log.ts";

/** The provenance a fork records (docs/runs.md, Forks). */
export interface ForkBlock {
  parent: string;
  run_id: string;
  at: number;
  head: string;
  /** A change applied at every resume. */
  edit?: { kind: "user_message" | "tool_result"; replacement: string; call_id?: string };
}

/**
 * Writes the spec of a new fork folder.
 *
 * @example
 * ```ts
 * const parentText = await Deno.readTextFile("/h/refunds/harness.yaml");
 * // head: the hash of the parent run's event at - 1 (what a resume checks the journal against)
 * const fork: ForkBlock = { parent: "refunds", run_id: "run_01…", at: 6, head: "9c1e…" };
 * await writeForkSpec("/h/refunds-fr", parentText, { id: "refunds-fr", fork }, "workbench");
 * ```
 * @param dir The fork's folder (already holding the copied files, not yet a harness.yaml), or the
 *   folder it is built in before it is put in place.
 * @param parentText The parent's `harness.yaml`.
 * @param fields The fork's id, its model when it differs, and its `fork` block.
 * @param actor Who forks (construction-log actor).
 * @returns The fork's spec version and its parsed text (to record).
 * @throws `invalid_spec` when the result would not be a valid harness.
 */
export async function writeForkSpec(
  dir: string,
  parentText: string,
  fields: { id: string; model?: ModelSpec; fork: ForkBlock },
  actor: string,
): Promise<{ spec_version: string; parsed: ParsedSpecText }> {
  const parent = parseSpecText(parentText);
  const edits: { path: string; old: unknown; new: unknown }[] = [];
  let text = parentText;
  const value = parent.value as Record<string, unknown> | undefined;
  for (
    const [path, next] of [
      ["id", fields.id],
      ...(fields.model ? [["model", fields.model] as const] : []),
      ["fork", fields.fork],
    ] as const
  ) {
    text = setInText(text, [path], next);
    edits.push({ path, old: value?.[path] ?? null, new: next });
  }
  const parsed = parseSpecText(text);
  if (!specIsValid(parsed)) {
    throw invalidSpecError(parsed.issues, "The fork's harness.yaml would not be valid");
  }
  await writeFileAtomic(specPath(dir), text);
  for (const e of edits) await appendConstructionLog(dir, { actor, op: "fork", ...e });
  return { spec_version: specVersion(parsed.value), parsed };
}
