/**
 * Limits on JSON from outside: nesting depth (deep values overflow the stack of recursive code), and
 * well-formed Unicode (a lone UTF-16 surrogate cannot be canonicalized for hashing).
 *
 * @module
 */

import { setOwn } from "./own.ts";

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

/**
 * A copy of a JSON value whose strings and keys are well-formed (lone surrogates become U+FFFD), for
 * text from models and tools that must still be hashed. Iterative, so depth cannot overflow the stack.
 *
 * @param value A JSON value.
 * @returns The repaired copy.
 */
export function wellFormedJson<T>(value: T): T {
  const fix = (v: unknown): unknown => (typeof v === "string" ? v.toWellFormed() : v);
  const root: { v: unknown } = { v: undefined };
  const stack: [unknown, Record<string, unknown> | unknown[], string | number][] = [[
    value,
    root as Record<string, unknown>,
    "v",
  ]];
  while (stack.length) {
    const [src, parent, key] = stack.pop()!;
    let copy: unknown;
    if (src === null || typeof src !== "object") {
      copy = fix(src);
    } else if (Array.isArray(src)) {
      const arr: unknown[] = new Array(src.length);
      src.forEach((item, i) => stack.push([item, arr, i]));
      copy = arr;
    } else {
      const obj: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(src)) stack.push([item, obj, k.toWellFormed()]);
      copy = obj;
    }
    setOwn(parent as Record<string | number, unknown>, key, copy);
  }
  return root.v as T;
}
