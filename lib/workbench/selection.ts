/**
 * What a conversation may select: only a harness of the catalog, and only a run of that harness (the
 * copilot's own runs are never selectable). A bad address in the browser must not become what the
 * copilot is told with every message.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import type { Hive } from "../hive/open.ts";
import { getRun } from "../hive/runs.ts";
import { findRun } from "../journal/trace.ts";
import { COPILOT_ID, harnessRefOf } from "./catalog.ts";
import { type Conversation, getConversation, updateConversation } from "./conversations.ts";
import type { WorkbenchDb } from "./db.ts";

/** A selection: a harness and a run, each possibly none. */
export interface Selection {
  harness_id?: string | null;
  run_id?: string | null;
}

/**
 * Checks a selection against the catalog and the hive.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * checkSelection(openHive(), { harness_id: "hello", run_id: "run_01…" });
 * ```
 * @param db The hive.
 * @param selection The harness and run to select.
 * @throws `not_found` for an unknown harness, or a run that is unknown or not that harness's.
 */
export function checkSelection(db: Hive, selection: Selection): void {
  const harness = selection.harness_id ? harnessRefOf(db, selection.harness_id) : null;
  if (!selection.run_id) return;
  const row = harness ? getRun(db, harness, selection.run_id) : findRun(db, null, selection.run_id);
  if (!row || row.harness_id === COPILOT_ID) {
    throw notFound(
      `Unknown run ${JSON.stringify(selection.run_id)}${
        harness ? ` for harness ${JSON.stringify(harness.id)}` : ""
      }`,
      { run_id: selection.run_id },
    );
  }
}

/** A change of a conversation: its title and its selection. */
export interface ConversationChange {
  title?: string | undefined;
  selected_harness_id?: string | null | undefined;
  selected_run_id?: string | null | undefined;
}

/**
 * Changes a conversation's title or selection; a selection is checked first (an unknown harness or
 * run is `not_found` and nothing changes).
 *
 * @param db The workbench database.
 * @param hive The hive.
 * @param id The conversation.
 * @param change What to change.
 * @returns The conversation after the change.
 */
export function changeConversation(
  db: WorkbenchDb,
  hive: Hive,
  id: string,
  change: ConversationChange,
): Conversation {
  const current = getConversation(db, id);
  checkSelection(hive, {
    harness_id: change.selected_harness_id !== undefined
      ? change.selected_harness_id
      : current.selected_harness_id,
    run_id: change.selected_run_id ?? null,
  });
  const patch: Parameters<typeof updateConversation>[2] = {};
  if (change.title !== undefined) patch.title = change.title;
  if (change.selected_harness_id !== undefined) {
    patch.selected_harness_id = change.selected_harness_id;
  }
  if (change.selected_run_id !== undefined) patch.selected_run_id = change.selected_run_id;
  return updateConversation(db, current.id, patch);
}
