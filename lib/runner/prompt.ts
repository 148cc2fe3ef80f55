/**
 * The system prompt of a run: the harness instructions and the list of its skills (names and
 * descriptions only; the model loads a skill's instructions with `load_skill` when it needs them).
 *
 * @module
 */

import type { HarnessSpec } from "../harness_spec/schema.ts";

/**
 * Composes the system prompt.
 *
 * @example
 * ```ts
 * composeSystemPrompt({ id: "a", model: { provider: "scripted" }, instructions: "Be brief." });
 * ```
 * @param spec The spec snapshot.
 * @returns The system prompt.
 */
export function composeSystemPrompt(spec: HarnessSpec): string {
  const parts: string[] = [];
  if (spec.instructions?.trim()) parts.push(spec.instructions.trim());
  if (spec.skills?.length) {
    parts.push(
      [
        "## Skills",
        "Load the full instructions of a skill with the load_skill tool when it applies:",
        ...spec.skills.map((s) => `- ${s.name}: ${s.description}`),
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}
