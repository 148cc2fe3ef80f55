/**
 * List entries of a spec: which list holds which kind, and the name an entry is addressed by.
 *
 * @module
 */

import type { EntryKind } from "./builtins.ts";

/** Kinds that `add` and `remove --kind` accept. */
export type ItemKind = EntryKind | "skill";

/** The dotted path of the list that holds each kind. */
export const LIST_PATH: Readonly<Record<ItemKind, string>> = {
  tool: "tools",
  guardrail: "guardrails",
  validator: "verify.validators",
  hook: "hooks",
  skill: "skills",
};

/** Every item kind, in the order the spec table lists them. */
export const ITEM_KINDS: readonly ItemKind[] = ["tool", "validator", "guardrail", "hook", "skill"];

/**
 * Checks and narrows a kind name.
 *
 * @param kind A kind name from a user.
 * @returns Whether it is an item kind.
 */
export function isItemKind(kind: string): kind is ItemKind {
  return (ITEM_KINDS as readonly string[]).includes(kind);
}

/**
 * The export name of a code ref: `tools/lookup.ts#lookup` gives `lookup`.
 *
 * @param ref The code ref.
 * @returns The export name, or undefined when the ref has none.
 */
export function codeRefExport(ref: string): string | undefined {
  const hash = ref.lastIndexOf("#");
  return hash >= 0 && hash < ref.length - 1 ? ref.slice(hash + 1) : undefined;
}

/**
 * The name an entry is addressed by: its `name`, else its builtin name, else its code ref's export.
 *
 * @example
 * ```ts
 * entryName({ code: "tools/lookup.ts#lookup" }); // "lookup"
 * ```
 * @param entry A list entry.
 * @returns The name, or undefined when the entry has none.
 */
export function entryName(entry: unknown): string | undefined {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return undefined;
  const e = entry as Record<string, unknown>;
  if (typeof e.name === "string") return e.name;
  if (typeof e.builtin === "string") return e.builtin;
  if (typeof e.code === "string") return codeRefExport(e.code);
  return undefined;
}
