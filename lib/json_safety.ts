/**
 * Limits on JSON from outside: nesting depth (deep values overflow the stack of recursive code), and
 * well-formed Unicode (a lone UTF-16 surrogate cannot be canonicalized for hashing).
 *
 * @module
 */

/** The deepest nesting accepted in request bodies and CLI values. */
export const MAX_JSON_DEPTH = 64;

/**
 * The first problem of a JSON value: too deep, or a string (or key) with a lone surrogate.
 *
 * @example
 * ```ts
 * jsonProblem({ a: "x\ud800" }); // "a string is not valid Unicode (a lone surrogate)"
 * ```
 * @param value A parsed JSON value.
 * @param maxDepth The deepest nesting allowed.
 * @returns A description, or undefined when the value is fine.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return "a string is not valid Unicode (a lone surrogate)";
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth) return `the value is nested more than ${maxDepth} levels deep`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (!k.isWellFormed()) return "a key is not valid Unicode (a lone surrogate)";
        stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}
