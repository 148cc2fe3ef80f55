/**
 * Frozen roots: the one function that decides which spec paths a caller may not write. The local CLI
 * may write anything; HTTP callers and proposals may not touch the safety roots.
 *
 * @module
 */

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
 * Roots frozen for every remote caller (HTTP, proposals, the workbench copilot) besides the safety
 * roots (CONTRACT.md "Frozen over HTTP, added"): `evolution.model` carries a `base_url` and an
 * `api_key_env`, so writing it would send the server's credentials to a chosen host;
 * `logging.trace_dir` chooses where journals are written; `evolution.auto_propose_after` decides how
 * often the evolver (a paid model) is called.
 */
export const REMOTE_ROOTS: readonly string[] = [
  "evolution.model",
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

/** Who is writing: decides which roots are frozen. */
export type Caller = "cli" | "http" | "proposal" | "proposal_http";

/**
 * The frozen roots for a caller: none for the local CLI; the safety and remote roots for a proposal;
 * all of them over HTTP (and for a proposal applied over HTTP).
 *
 * @param caller Who is writing.
 * @returns The frozen dotted roots.
 */
export function frozenRoots(caller: Caller): readonly string[] {
  switch (caller) {
    case "cli":
      return [];
    case "proposal":
      return PROPOSAL_ROOTS;
    case "http":
    case "proposal_http":
      return ALL_ROOTS;
  }
}

/**
 * The frozen root that a path touches, by containment: the path equals a frozen root, lies under one,
 * or is a parent of one (writing `evolution` would overwrite `evolution.objectives`). Comparison is
 * case-insensitive; the empty path (the whole spec) is a parent of every root.
 *
 * @example
 * ```ts
 * frozenRootOf("logging", "http"); // "logging.redact"
 * frozenRootOf("limits.max_turns", "http"); // undefined
 * ```
 * @param path A dotted path (or its segments).
 * @param caller Who is writing.
 * @returns The frozen root it touches, or undefined when the write is allowed.
 */
export function frozenRootOf(
  path: string | readonly (string | number)[],
  caller: Caller,
): string | undefined {
  return frozenRootIn(path, frozenRoots(caller));
}

/**
 * The root of a list that a path touches by containment (see {@link frozenRootOf}); the pages use it
 * with the frozen roots the API reports. A `*` segment of a root matches any one segment.
 *
 * @example
 * ```ts
 * frozenRootIn("model.name", ["model"]); // "model"
 * frozenRootIn("playbooks.research.on_enter", ["playbooks.*.on_enter"]); // "playbooks.*.on_enter"
 * ```
 * @param path A dotted path (or its segments).
 * @param roots Frozen dotted roots.
 * @returns The root it touches, or undefined.
 */
export function frozenRootIn(
  path: string | readonly (string | number)[],
  roots: readonly string[],
): string | undefined {
  const segments =
    (typeof path === "string" ? (path === "" ? [] : path.split(".")) : path.map(String))
      .map((s) => s.toLowerCase());
  for (const root of roots) {
    const rootSegments = root.split(".");
    const n = Math.min(rootSegments.length, segments.length);
    let same = true;
    for (let i = 0; i < n; i++) {
      if (rootSegments[i] !== "*" && rootSegments[i] !== segments[i]) {
        same = false;
        break;
      }
    }
    if (same) return root;
  }
  return undefined;
}
