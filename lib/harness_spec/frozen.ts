/**
 * Frozen roots and edit policies: the one place that decides which spec paths a writer may not write.
 * The local CLI may write anything; remote callers, proposals and the workbench (unconfirmed) may not
 * touch the safety roots.
 *
 * @module
 */

import { frozenRootIn } from "../frozen_root.ts";

/** The safety roots, frozen for HTTP and for proposals. */
export const SAFETY_ROOTS: readonly string[] = [
  "id",
  "guardrails",
  "model",
  "logging.redact",
  "extensions",
  "hooks",
  "mcp_servers",
  "evolution.auto_propose",
  "evolution.trace_excerpts",
  "evolution.objectives",
];

/**
 * Roots frozen for every remote policy (HTTP, proposals, the workbench copilot) besides the safety
 * roots (docs/harness-yaml.md, Frozen fields): `evolution.model` (and a playbook's `model`) carries
 * a `base_url` and an `api_key_env`, so writing it would send the server's credentials to a chosen
 * host; `fork` is the provenance a resume trusts; `approvals` decides which calls wait for a person;
 * `logging.trace_dir` chooses where journals are written; `evolution.auto_propose_after` decides how
 * often the evolver (a paid model) is called.
 */
export const REMOTE_ROOTS: readonly string[] = [
  "approvals",
  "evolution.model",
  "playbooks.*.model",
  "fork",
  "evolution.auto_propose_after",
  "logging.trace_dir",
];

/**
 * Roots frozen over HTTP in addition to the safety and remote roots: the spec's three, and the fields
 * that name code or other harnesses (`delegation`, the playbook gates). A `*` segment matches any one
 * segment (a playbook's name or index).
 */
export const HTTP_ONLY_ROOTS: readonly string[] = [
  "tools",
  "verify.validators",
  "name",
  "delegation",
  "playbooks.*.on_enter",
  "playbooks.*.on_exit",
];

const PROPOSAL_ROOTS = [...SAFETY_ROOTS, ...REMOTE_ROOTS];
const ALL_ROOTS = [...PROPOSAL_ROOTS, ...HTTP_ONLY_ROOTS];

/**
 * The edit policies, one per kind of shell: which roots an edit may not write, and how a refusal
 * says who was refused. Each shell declares its own once:
 * - `local`: the CLI on the harness's machine; nothing is frozen.
 * - `workbench`: a person in the workbench's Spec tab; the safety and remote roots, unless the
 *   person confirms the edit in the page (which is then `local`).
 * - `proposal`: a proposal drafted by the evolver (a model) and applied locally.
 * - `remote`: the control plane, a proposal applied over HTTP, and the workbench copilot's tools;
 *   every frozen root.
 */
export const EDIT_POLICIES = {
  local: { frozen: [] as readonly string[], refusedAs: "locally" },
  workbench: { frozen: PROPOSAL_ROOTS, refusedAs: "from the workbench without a confirmation" },
  proposal: { frozen: PROPOSAL_ROOTS, refusedAs: "by a proposal" },
  remote: { frozen: ALL_ROOTS, refusedAs: "over HTTP or by the copilot" },
} as const;

/** Who is writing, as an edit policy: decides which roots are frozen. */
export type EditPolicy = keyof typeof EDIT_POLICIES;

/**
 * The frozen roots of an edit policy.
 *
 * @example
 * ```ts
 * frozenRoots("local"); // []
 * ```
 * @param policy The writer's edit policy.
 * @returns The frozen dotted roots.
 */
export function frozenRoots(policy: EditPolicy): readonly string[] {
  return EDIT_POLICIES[policy].frozen;
}

/**
 * The frozen root that a path touches, by containment: the path equals a frozen root, lies under one,
 * or is a parent of one (writing `evolution` would overwrite `evolution.objectives`). Comparison is
 * case-insensitive; the empty path (the whole spec) is a parent of every root.
 *
 * @example
 * ```ts
 * frozenRootOf("logging", "remote"); // "logging.redact"
 * frozenRootOf("limits.max_turns", "remote"); // undefined
 * ```
 * @param path A dotted path (or its segments).
 * @param policy The writer's edit policy.
 * @returns The frozen root it touches, or undefined when the write is allowed.
 */
export function frozenRootOf(
  path: string | readonly (string | number)[],
  policy: EditPolicy,
): string | undefined {
  return frozenRootIn(path, frozenRoots(policy));
}
