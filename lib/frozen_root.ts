/**
 * Which frozen root a spec path touches, by containment: the pure rule behind the edit policies
 * (`lib/harness_spec/frozen.ts`), vocabulary so the workbench's pages apply it to the roots the API reports
 * without bundling the spec module.
 *
 * @module
 */

/**
 * The root of a list that a path touches, by containment: the path equals the root, lies under it,
 * or is a parent of it (writing `evolution` would overwrite `evolution.objectives`). Comparison is
 * case-insensitive, the empty path (the whole spec) is a parent of every root, and a `*` segment
 * of a root matches any one segment. `frozenRootOf` (`lib/harness_spec/frozen.ts`) applies it to an edit
 * policy's roots; the pages apply it to the frozen roots the API reports.
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
