/**
 * A model chosen at run time (a live model change, a fork's model), as a person or a model writes it:
 * `"provider:name"` or a model block. Read once, by the request schemas of the behaviours that take
 * one (`lib/runs/controls.ts`, `lib/runs/forks.ts`); whether the harness may use it is theirs to
 * decide. A scripted model named without a script of its own goes on with the run's: the schema's
 * "needs replies" rule does not apply to it here.
 *
 * @module
 */

import * as z from "zod";
import { modelSchema, type ModelSpec } from "./schema.ts";

const HOW = `send "provider:name" (e.g. "openai:gpt-4.1-mini") or {"provider": …, "name": …}`;

/**
 * The schema of a model choice: a `provider:name` text or a model block, read into a model block.
 *
 * @example
 * ```ts
 * MODEL_CHOICE.parse("openai:gpt-4.1-mini"); // { provider: "openai", name: "gpt-4.1-mini" }
 * MODEL_CHOICE.parse("scripted:other"); // { provider: "scripted", name: "other" } (no replies)
 * ```
 */
export const MODEL_CHOICE: z.ZodType<ModelSpec, unknown> = z.union([
  z.string(),
  z.record(z.string(), z.unknown()),
]).transform((value, ctx): ModelSpec => {
  let raw: Record<string, unknown>;
  if (typeof value === "string") {
    const at = value.indexOf(":");
    const name = at < 0 ? "" : value.slice(at + 1);
    raw = { provider: at < 0 ? value : value.slice(0, at), ...(name ? { name } : {}) };
  } else raw = value;
  const scriptedWithoutScript = raw.provider === "scripted" && !raw.replies && !raw.scenarios;
  const parsed = modelSchema.safeParse(scriptedWithoutScript ? { ...raw, replies: [] } : raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `model.${issue.path.join(".")}: ` : "";
    ctx.addIssue({ code: "custom", message: `${where}${issue.message}; ${HOW}` });
    return z.NEVER;
  }
  const model = parsed.data;
  if (scriptedWithoutScript) delete model.replies;
  return model;
});

/**
 * Whether a chosen model is a scripted one named without a script (it goes on with the run's).
 *
 * @example
 * ```ts
 * namesScriptOnly({ provider: "scripted", name: "other" }); // true
 * ```
 * @param model The chosen model.
 * @returns Whether it carries no replies or scenarios of its own.
 */
export function namesScriptOnly(model: ModelSpec): boolean {
  return model.provider === "scripted" && !model.replies && !model.scenarios;
}
