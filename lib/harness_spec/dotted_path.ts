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
  if (segments.includes("__proto__")) {
    throw badInput(`Invalid path ${JSON.stringify(path)}: a key cannot be named "__proto__"`, {
      path,
    });
  }
  return segments;
}

/** The indexes of the entries a name addresses: by `name` first, else by builtin or code-ref name. */
function entriesNamed(list: unknown[], name: string): number[] {
  const byName = list.flatMap((e, i) => ((e as Record<string, unknown>)?.name === name ? [i] : []));
  if (byName.length) return byName;
  return list.flatMap((e, i) => {
    const entry = e as Record<string, unknown> | null;
    if (!entry || typeof entry !== "object") return [];
    return entry.builtin === name || entryName(entry) === name ? [i] : [];
  });
}

/**
 * Finds a list entry by name or index; throws a clear error when none or several match. A name always
 * wins: `skills.0` is the skill named "0" when there is one, and the first skill only otherwise, so a
 * name that looks like an index is never taken as one. With `byName`, indexes are not read at all.
 */
function findEntry(list: unknown[], segment: string, where: string, byName = false): number {
  const matches = entriesNamed(list, segment);
  if (matches.length === 0 && !byName && /^\d+$/.test(segment)) {
    const index = Number(segment);
    if (index >= list.length) {
      throw badInput(
        `No entry ${index} in ${JSON.stringify(where)}: it has ${list.length} entries`,
        { path: where },
      );
    }
    return index;
  }
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

/**
 * How many segments from `i` on form the name of an entry of `list` (a name may hold dots, like
 * `v1.2`): the longest run that names an entry, else 1.
 */
function nameLength(list: unknown[], segments: string[], i: number): number {
  for (let k = segments.length - i; k > 1; k--) {
    if (entriesNamed(list, segments.slice(i, i + k).join(".")).length) return k;
  }
  return 1;
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

/** Options of {@link resolvePath}. */
export interface ResolveOptions {
  /** The last segment names a list entry and is never read as an index (`remove {kind, name}`). */
  lastByName?: boolean;
  /**
   * A key the schema does not know is accepted where the value holds it (`remove` of a typo such as
   * `limits.max_turnz`, so an invalid spec can be repaired).
   */
  unknownIfPresent?: boolean;
}

/**
 * Resolves a dotted path against a spec value. List entries are found by name or index (a name always
 * wins, and a name may hold dots); map keys missing from the value are allowed (a `set` creates them)
 * but must be known to the schema.
 *
 * @example
 * ```ts
 * resolvePath({ skills: [{ name: "refunds" }] }, "skills.refunds.name").path; // ["skills", 0, "name"]
 * ```
 * @param spec The parsed spec value.
 * @param dottedPath The dotted path.
 * @param options Whether the last segment is a name only.
 * @returns The concrete path, whether it exists, and its value.
 */
export function resolvePath(
  spec: unknown,
  dottedPath: string,
  options: ResolveOptions = {},
): ResolvedPath {
  const segments = parseDottedPath(dottedPath);
  const path: ConcretePath = [];
  let value: unknown = spec;
  let exists = true;
  for (let i = 0; i < segments.length; i++) {
    const where = path.join(".");
    if (exists && Array.isArray(value)) {
      const k = nameLength(value, segments, i);
      const segment = segments.slice(i, i + k).join(".");
      i += k - 1;
      const last = i === segments.length - 1;
      const index = findEntry(value, segment, where, last && options.lastByName === true);
      path.push(index);
      value = value[index];
      continue;
    }
    const segment = segments[i]!;
    if (exists && value !== null && value !== undefined && typeof value !== "object") {
      throw badInput(
        `Invalid path ${JSON.stringify(dottedPath)}: ${
          JSON.stringify(where)
        } is ${typeof value}, not a map or list`,
        { path: dottedPath },
      );
    }
    const known = knownKeysAt(harnessSchema, path, spec);
    const present = options.unknownIfPresent === true && exists && !!value &&
      typeof value === "object" && Object.hasOwn(value, segment);
    if (known.length && !known.includes(segment) && !present) {
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
      exists && value && typeof value === "object" && Object.hasOwn(value, segment)
    ) {
      value = (value as Record<string, unknown>)[segment];
    } else {
      exists = false;
      value = undefined;
    }
  }
  return { path, exists, value };
}
