/**
 * The one read-modify-write of `harness.yaml` that every change goes through: under the spec lock
 * (in-process and across processes), validate the result before writing, write atomically, append the
 * construction log and record the new spec version in the hive. An edit that would add a problem is
 * refused and the file stays byte-identical; an edit of a spec that already has problems is allowed
 * when it adds none (so an invalid harness can be repaired one field at a time).
 *
 * @module
 */

import { EDIT_POLICIES, type EditPolicy } from "../harness_spec/frozen.ts";
import { claimHarness } from "../harness_spec/claim.ts";
import { FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { openHive } from "../hive/open.ts";
import { recordSpecVersion } from "../hive/spec_versions.ts";
import { specLockPath, specPath } from "../paths.ts";
import {
  invalidSpecError,
  type ParsedSpecText,
  parseSpecText,
  readSpecText,
  resolveHarnessDir,
  specIsValid,
} from "../harness_spec/load.ts";
import type { SpecIssue } from "../harness_spec/issues.ts";
import { specVersion } from "../harness_spec/version.ts";
import { noteSpecWritten } from "../harness_spec/watch.ts";
import { appendConstructionLog, type ConstructionEntry } from "./construction_log.ts";

/** What an edit function returns: the new text and what to log. */
export interface EditOutcome {
  text: string;
  path: string;
  old: unknown;
  new: unknown;
  /** One log line per change, when one write makes several (a proposal); default: one line. */
  entries?: { op: ConstructionEntry["op"]; path: string; old: unknown; new: unknown }[];
}

/** The result of a mutation. */
export interface MutationResult {
  /** The harness folder (absolute). */
  dir: string;
  path: string;
  old: unknown;
  new: unknown;
  /** The spec version after the change. */
  spec_version: string;
  /** False when the edit produced the same text (nothing was written). */
  changed: boolean;
  /** Whether the spec is valid after the change (a repair may leave other problems). */
  valid: boolean;
}

/** Who makes a change and which operation it is. */
export interface MutationContext {
  actor: string;
  /** What the recorded version says it came from (default: the actor), e.g. `restore`. */
  source?: string;
  op: ConstructionEntry["op"];
  /** Describes the action in error messages, e.g. `Cannot set "limits.max_turns"`. */
  describe: string;
  /** The edit replaces the whole text (allowed even when the current text does not parse). */
  wholeText?: boolean;
}

/**
 * Runs one locked, validated, atomic change of a harness's `harness.yaml`.
 *
 * @param harnessDir The harness folder.
 * @param ctx Actor, operation and description.
 * @param edit Computes the new text from the current parsed text; may throw `FrameworkError`s.
 * @returns The mutation result.
 */
export async function mutateSpec(
  harnessDir: string,
  ctx: MutationContext,
  edit: (current: ParsedSpecText, dir: string) => EditOutcome,
): Promise<MutationResult> {
  const dir = await resolveHarnessDir(harnessDir);
  return await withFileLock(specLockPath(dir), async () => {
    await removeStaleTemps(dir);
    const current = parseSpecText(await readSpecText(dir));
    if (current.value === undefined && !ctx.wholeText) {
      throw invalidSpecError(
        current.issues,
        `${ctx.describe}: harness.yaml does not parse; fix its text as a whole`,
      );
    }
    const outcome = edit(current, dir);
    const next = parseSpecText(outcome.text);
    const added = newErrors(current.issues, next.issues);
    if (added.length || next.value === undefined) {
      throw invalidSpecError(added.length ? added : next.issues, ctx.describe);
    }
    const version = specVersion(next.value);
    const result = {
      dir,
      path: outcome.path,
      old: outcome.old,
      new: outcome.new,
      spec_version: version,
    };
    const valid = specIsValid(next);
    if (outcome.text === current.text) return { ...result, changed: false, valid };
    await writeFileAtomic(specPath(dir), outcome.text);
    noteSpecWritten();
    const entries = outcome.entries ??
      [{ op: ctx.op, path: outcome.path, old: outcome.old, new: outcome.new }];
    for (const e of entries) await appendConstructionLog(dir, { actor: ctx.actor, ...e });
    // Only a valid spec is a version (a repair that leaves problems is written, not recorded).
    if (valid) recordVersion(dir, next, version, ctx.source ?? ctx.actor);
    return { ...result, changed: true, valid };
  });
}

/**
 * The errors of `next` that `current` did not have (compared by path and message): what an edit would
 * add. Warnings never count.
 *
 * @param current The issues before the edit.
 * @param next The issues after it.
 * @returns The added errors.
 */
export function newErrors(current: readonly SpecIssue[], next: readonly SpecIssue[]): SpecIssue[] {
  const key = (i: SpecIssue) => `${i.path}\u0000${i.message}`;
  const before = new Set(current.filter((i) => i.severity === "error").map(key));
  return next.filter((i) => i.severity === "error" && !before.has(key(i)));
}

/**
 * Removes temporary files left by a writer that was killed between writing and renaming. Called under
 * the spec lock, so no live writer owns them.
 */
async function removeStaleTemps(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.startsWith(".harness.yaml.tmp-")) {
      await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
    }
  }
}

/**
 * Records a spec version and the harness in the hive. The file is already written: a hive failure is
 * reported on stderr, not turned into a failed change.
 */
export function recordVersion(
  dir: string,
  parsed: ParsedSpecText,
  version: string,
  source: string,
): void {
  try {
    const db = openHive();
    const spec = parsed.spec!;
    claimHarness(db, { id: spec.id, root_path: dir, name: spec.name ?? spec.id });
    recordSpecVersion(db, {
      harness_id: spec.id,
      harness_dir: dir,
      version,
      yaml: parsed.text,
      source,
    });
  } catch (err) {
    console.error(
      `warning: could not record the spec version in the hive: ${(err as Error).message}`,
    );
  }
}

/**
 * Throws `forbidden` for a write to a frozen root.
 *
 * @param describe The action, e.g. `Cannot set "model.name"`.
 * @param root The frozen root touched.
 * @param policy Who is writing (for the message).
 */
export function frozenError(describe: string, root: string, policy: EditPolicy): FrameworkError {
  const where = EDIT_POLICIES[policy].refusedAs;
  return new FrameworkError(
    "forbidden",
    `${describe}: ${
      JSON.stringify(root)
    } is a frozen field and cannot be changed ${where}; change it locally with the framework CLI on the harness's machine`,
    { frozen_root: root },
  );
}
