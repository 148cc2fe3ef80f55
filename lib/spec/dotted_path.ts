/**
 * Dotted paths into a spec (`limits.max_turns`, `skills.refunds`, `tools.0`): parsing, and resolving
 * list entries addressed by name (or builtin or code-ref name) to concrete indexes.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import { entryName } from "./entries.ts";
import { closest, didYouMean, knownKeysAt } from "./issues.ts";
import { harnessSchema } from "./schema.ts";

/** A concrete path: map keys as strings, list indexes as numbers. */
export type ConcretePath = (string | number)[];

/**
 * Splits a dotted path into segments, refusing empty ones.
 *
 * @example
 * ```ts
 * parseDottedPath("limits.max_turns"); // ["limits", "max_turns"]
 * ```
 * @param path The dotted path.
 * @returns Its segments.
 */
export function parseDottedPath(path: string): string[] {
  if (typeof path !== "string" || path.trim() === "") {
    throw badInput('Missing path: give a dotted path such as "limits.max_turns"');
  }
  const segments = path.split(".");
  if (segments.some((s) => s === "" || s.trim() !== s)) {
    throw badInput(
      `Invalid path ${JSON.stringify(path)}: segments must be non-empty and have no spaces`,
      { path },
    );
  }
  return segments;
}

/** Finds a list entry by index or name; throws a clear error when none or several match. */
function findEntry(list: unknown[], segment: string, where: string): number {
  if (/^\d+$/.test(segment)) {
    const index = Number(segment);
    if (index >= list.length) {
      throw badInput(
        `No entry ${index} in ${JSON.stringify(where)}: it has ${list.length} entries`,
        { path: where },
      );
    }
    return index;
  }
  const byName = list.flatMap((
    e,
    i,
  ) => ((e as Record<string, unknown>)?.name === segment ? [i] : []));
  const matches = byName.length ? byName : list.flatMap((e, i) => {
    const entry = e as Record<string, unknown> | null;
    if (!entry || typeof entry !== "object") return [];
    return entry.builtin === segment || entryName(entry) === segment ? [i] : [];
  });
  if (matches.length === 1) return matches[0]!;
  const names = list.map(entryName).filter((n): n is string => !!n);
  if (matches.length > 1) {
    throw badInput(
      `Ambiguous path ${
        JSON.stringify(`${where}.${segment}`)
      }: ${matches.length} entries are named ${JSON.stringify(segment)}; address one by index (${
        matches.map((i) => `${where}.${i}`).join(", ")
      }) or give it a \`name\``,
      { path: `${where}.${segment}` },
    );
  }
  throw badInput(
    `No entry named ${JSON.stringify(segment)} in ${JSON.stringify(where)}${
      didYouMean(segment, names)
    }` +
      (names.length ? `; entries: ${names.join(", ")}` : "; the list is empty"),
    { path: `${where}.${segment}` },
  );
}

/** Result of {@link resolvePath}. */
export interface ResolvedPath {
  /** Concrete path (indexes for list entries). */
  path: ConcretePath;
  /** Whether a value exists there now. */
  exists: boolean;
  /** The current value (undefined when it does not exist). */
  value: unknown;
}

/**
 * Resolves a dotted path against a spec value. List entries are found by index or name; map keys
 * missing from the value are allowed (a `set` creates them) but must be known to the schema.
 *
 * @example
 * ```ts
 * resolvePath({ skills: [{ name: "refunds" }] }, "skills.refunds.name").path; // ["skills", 0, "name"]
 * ```
 * @param spec The parsed spec value.
 * @param dottedPath The dotted path.
 * @returns The concrete path, whether it exists, and its value.
 */
export function resolvePath(spec: unknown, dottedPath: string): ResolvedPath {
  const segments = parseDottedPath(dottedPath);
  const path: ConcretePath = [];
  let value: unknown = spec;
  let exists = true;
  for (const segment of segments) {
    const where = path.join(".");
    if (exists && Array.isArray(value)) {
      const index = findEntry(value, segment, where);
      path.push(index);
      value = value[index];
      continue;
    }
    if (exists && value !== null && value !== undefined && typeof value !== "object") {
      throw badInput(
        `Invalid path ${JSON.stringify(dottedPath)}: ${
          JSON.stringify(where)
        } is ${typeof value}, not a map or list`,
        { path: dottedPath },
      );
    }
    const known = knownKeysAt(harnessSchema, path, spec);
    if (known.length && !known.includes(segment)) {
      const hint = closest(segment, known);
      throw badInput(
        `Unknown path ${JSON.stringify(dottedPath)}: ${JSON.stringify(segment)} is not a field of ${
          where ? JSON.stringify(where) : "the spec"
        }${hint ? ` (did you mean ${JSON.stringify([...path, hint].join("."))}?)` : ""}; fields: ${
          known.join(", ")
        }`,
        { path: dottedPath },
      );
    }
    path.push(segment);
    if (
      exists && value && typeof value === "object" && segment in (value as Record<string, unknown>)
    ) {
      value = (value as Record<string, unknown>)[segment];
    } else {
      exists = false;
      value = undefined;
    }
  }
  return { path, exists, value };
}
