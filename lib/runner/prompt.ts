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

/**
 * The system prompt with a caller's instructions added after it, under their own heading, so the
 * model reads them as the caller's and the harness's own instructions stay whole and first.
 *
 * @example
 * ```ts
 * withCallerInstructions("Be brief.", "Answer in French.");
 * // "Be brief.\n\n## Instructions from the caller\nAnswer in French."
 * withCallerInstructions("Be brief.", undefined); // "Be brief."
 * ```
 * @param system The harness's system prompt.
 * @param caller The caller's instructions (none, or blank: the prompt as it is).
 * @returns The system prompt.
 */
export function withCallerInstructions(system: string, caller: string | undefined): string {
  if (!caller?.trim()) return system;
  const section = `## Instructions from the caller\n${caller.trim()}`;
  return system ? `${system}\n\n${section}` : section;
}
