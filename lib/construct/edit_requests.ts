/**
 * Reading the JSON bodies of spec edits sent over HTTP (the control plane's `/set` and `/remove`, the
 * workbench's), with one error per mistake that says what to send.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { RemoveTarget } from "./remove_item.ts";

/**
 * The field and value of a `/set` body.
 *
 * @example
 * ```ts
 * setRequest({ path: "limits.max_turns", value: 12 }); // { path: "limits.max_turns", value: 12 }
 * ```
 * @param body The parsed body.
 * @returns The dotted path and the value.
 * @throws `bad_input` when `path` is not a string or `value` is missing.
 */
export function setRequest(body: Record<string, unknown>): { path: string; value: unknown } {
  if (typeof body.path !== "string") {
    throw badInput('Missing "path": send {"path": "limits.max_turns", "value": 12}');
  }
  if (!("value" in body)) {
    throw badInput('Missing "value": send {"path": "limits.max_turns", "value": 12}');
  }
  return { path: body.path, value: body.value };
}

/**
 * What a `/remove` body removes: a dotted path, or an entry by kind and name.
 *
 * @example
 * ```ts
 * removeRequest({ kind: "skill", name: "refunds" }); // { kind: "skill", name: "refunds" }
 * ```
 * @param body The parsed body.
 * @returns The target.
 * @throws `bad_input` for anything else.
 */
export function removeRequest(body: Record<string, unknown>): RemoveTarget {
  if (typeof body.path === "string") return { path: body.path };
  if (typeof body.kind === "string" && typeof body.name === "string") {
    return { kind: body.kind, name: body.name };
  }
  throw badInput('Send {"path": "skills.refunds"} or {"kind": "skill", "name": "refunds"}');
}
