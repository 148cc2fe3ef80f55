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

/** Roots frozen over HTTP in addition to the safety roots. */
export const HTTP_ONLY_ROOTS: readonly string[] = ["tools", "verify.validators", "name"];

/** Who is writing: decides which roots are frozen. */
export type Caller = "cli" | "http" | "proposal" | "proposal_http";

/**
 * The frozen roots for a caller: none for the local CLI, the ten safety roots for a proposal, all
 * thirteen over HTTP (and for a proposal applied over HTTP).
 *
 * @param caller Who is writing.
 * @returns The frozen dotted roots.
 */
export function frozenRoots(caller: Caller): readonly string[] {
  switch (caller) {
    case "cli":
      return [];
    case "proposal":
      return SAFETY_ROOTS;
    case "http":
    case "proposal_http":
      return [...SAFETY_ROOTS, ...HTTP_ONLY_ROOTS];
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
 * with the frozen roots the API reports.
 *
 * @example
 * ```ts
 * frozenRootIn("model.name", ["model"]); // "model"
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
      if (rootSegments[i] !== segments[i]) {
        same = false;
        break;
      }
    }
    if (same) return root;
  }
  return undefined;
}
