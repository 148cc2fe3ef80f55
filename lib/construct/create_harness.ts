/**
 * `createHarness`: a new harness folder with content, all or nothing. It starts from the blank
 * template and applies the content through the construction API (each edit validated, logged and
 * versioned); any failure removes the folder it made. Under the remote edit policy (the workbench
 * copilot) the content may only use builtins: no code refs, and nothing but the template's offline
 * model, so a model can create a harness but never make one that runs code or reaches a host.
 *
 * @module
 */

import { resolve } from "node:path";
import { badInput } from "../errors.ts";
import { pathExists } from "../fs/exists.ts";
import type { EditPolicy } from "../harness_spec/frozen.ts";
import { isSlug, SLUG_RULE } from "../harness_spec/schema.ts";
import { addItem } from "./add_item.ts";
import { initHarness } from "./init_harness.ts";
import { setField } from "./set_field.ts";

/** What a new harness holds besides the blank template. */
export interface HarnessContent {
  id: string;
  name?: string;
  description?: string;
  instructions?: string;
  /** Builtin tool names. */
  tools?: string[];
  /** Validator entries (builtins only under the remote policy). */
  validators?: Record<string, unknown>[];
  skills?: { name: string; description: string; instructions: string }[];
}

/** Who creates it. */
export interface CreateOptions {
  /** The construction-log actor. */
  actor: string;
  /** The creator's edit policy: `remote` allows builtins only. */
  policy: EditPolicy;
}

/**
 * Creates `<parent>/<id>` with the content, or nothing at all.
 *
 * @example
 * ```ts
 * await createHarness("./harnesses", { id: "refunds", tools: ["file_read"] },
 *   { actor: "workbench:copilot", policy: "remote" });
 * ```
 * @param parent The folder the harness goes in.
 * @param content Its id and content.
 * @param options Actor and edit policy.
 * @returns The new folder.
 */
export async function createHarness(
  parent: string,
  content: HarnessContent,
  options: CreateOptions,
): Promise<{ dir: string; id: string }> {
  const { id } = content;
  if (!isSlug(id)) throw badInput(`Invalid id ${JSON.stringify(id)}: ${SLUG_RULE}`);
  const dir = resolve(parent, id);
  if (await pathExists(dir)) {
    throw badInput(`A folder ${id} already exists in ${parent}; choose another id`);
  }
  if (options.policy === "remote") {
    for (const v of content.validators ?? []) {
      if (typeof v?.builtin !== "string") {
        throw badInput("A harness created remotely may only use builtin validators (no code refs)");
      }
    }
  }
  // Creating is not changing: the new folder's content is written on the local policy, within the
  // limits above (builtins only, the template's offline model).
  const who = { actor: options.actor, policy: "local" as const };
  try {
    await Deno.mkdir(parent, { recursive: true });
    const made = await initHarness(dir, {
      template: "blank",
      id,
      ...(content.name ? { name: content.name } : {}),
      actor: options.actor,
    });
    if (content.description) await setField(made.dir, "description", content.description, who);
    if (content.instructions) await setField(made.dir, "instructions", content.instructions, who);
    for (const t of content.tools ?? []) await addItem(made.dir, "tool", { builtin: t }, who);
    for (const v of content.validators ?? []) await addItem(made.dir, "validator", v, who);
    for (const s of content.skills ?? []) await addItem(made.dir, "skill", s, who);
    return { dir: made.dir, id };
  } catch (err) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw err;
  }
}
