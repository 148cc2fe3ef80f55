/**
 * What the workbench API's routes share: the databases, the copilot, the run service, the harness
 * rescan and the body reader, and the edit policies of the shell (declared here once): a person's
 * edit in the Spec tab is `workbench` (safety fields frozen), or `local` once the person confirms a
 * frozen field in the page.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { EditPolicy } from "../../lib/harness_spec/frozen.ts";
import type { ChatEnvironment } from "../../lib/workbench/chat.ts";
import type { Rescan } from "../../lib/workbench/rescan.ts";

/** A Hono app of the workbench API. */
export type WorkbenchApp = Hono;

/** What routes can use: what a chat turn needs, and the shell's own parts. */
export interface WorkbenchContext extends ChatEnvironment {
  /** Finds harness folders added or removed on disk. */
  rescan: Rescan;
  /** Reads the JSON object body within the size limit (`allowEmpty`: an empty body is `{}`). */
  body(c: Context, allowEmpty?: boolean): Promise<Record<string, unknown>>;
}

/** The construction-log actor of the person at the workbench. */
export const PERSON = "workbench";

/** A person's edit: frozen fields only after the person confirmed them in the page. */
export function personPolicy(confirmed: boolean | undefined): EditPolicy {
  return confirmed === true ? "local" : "workbench";
}
