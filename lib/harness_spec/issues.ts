/**
 * Spec issues: zod issues turned into messages that name the dotted path, the YAML line and column,
 * what was expected and, for an unknown key or name, the closest known one ("did you mean").
 *
 * @module
 */

import type * as z from "zod";
import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";
import type { Document } from "yaml";

/** One problem found in a spec. */
export interface SpecIssue {
  /** Dotted path of the offending field (`tools.0.pattern`); empty for the whole file. */
  path: string;
  severity: "error" | "warning";
  message: string;
  /** 1-based line in `harness.yaml`, when known. */
  line?: number;
  /** 1-based column in `harness.yaml`, when known. */
  column?: number;
}

type PathKey = string | number;

/**
 * The edit distance between two strings (Levenshtein), for "did you mean" hints.
 *
 * @param a First string.
 * @param b Second string.
 * @returns The number of single-character edits.
 */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest candidate to `word`, if it is close enough to be a likely typo.
 *
 * @example
 * ```ts
 * closest("max_turnz", ["max_turns", "timeout_s"]); // "max_turns"
 * ```
 * @param word What the user wrote.
 * @param candidates Known names.
 * @returns The suggestion, or undefined.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestDistance <= limit ? best : undefined;
}

/** Formats a did-you-mean suffix, or an empty string. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const hint = closest(word, candidates);
  return hint ? ` (did you mean ${JSON.stringify(hint)}?)` : "";
}

/** Joins path keys into a dotted path. */
export function dotted(path: readonly PathKey[]): string {
  return path.map(String).join(".");
}

// deno-lint-ignore no-explicit-any
type AnySchema = any;

/** Peels wrappers (optional, default, nullable, pipe) off a zod schema. */
function unwrap(schema: AnySchema): AnySchema {
  let s = schema;
  for (let i = 0; i < 10 && s?._zod?.def; i++) {
    const def = s._zod.def;
    if (def.type === "optional" || def.type === "nullable" || def.type === "default") {
      s = def.innerType;
    } else if (def.type === "pipe") s = def.in;
    else break;
  }
  return s;
}

/** Picks the option of a discriminated union that matches `value`. */
function pickOption(schema: AnySchema, value: unknown): AnySchema | undefined {
  const def = schema._zod.def;
  const key = def.discriminator as string | undefined;
  if (!key) return undefined;
  const wanted = value && typeof value === "object"
    ? (value as Record<string, unknown>)[key]
    : undefined;
  for (const option of def.options as AnySchema[]) {
    const values: Set<unknown> | undefined = option._zod.propValues?.[key];
    if (values?.has(wanted)) return option;
  }
  return undefined;
}

/** Walks the schema along `path` (with the value alongside, to pick union options). */
function schemaAt(
  root: AnySchema,
  path: readonly PathKey[],
  value: unknown,
): AnySchema | undefined {
  let s = unwrap(root);
  let v = value;
  for (const key of path) {
    if (!s?._zod) return undefined;
    let def = s._zod.def;
    if (def.type === "union") {
      s = unwrap(pickOption(s, v));
      if (!s) return undefined;
      def = s._zod.def;
    }
    if (def.type === "object") {
      s = Object.hasOwn(def.shape, key) ? unwrap(def.shape[key]) : undefined;
    } else if (def.type === "array") s = unwrap(def.element);
    else if (def.type === "record") s = unwrap(def.valueType);
    else return undefined;
    v = v && typeof v === "object" && Object.hasOwn(v, key)
      ? (v as Record<PathKey, unknown>)[key]
      : undefined;
  }
  if (s?._zod?.def?.type === "union") return unwrap(pickOption(s, v)) ?? s;
  return s;
}

/**
 * The keys an object may hold at `path` according to the schema.
 *
 * @param schema The root schema.
 * @param path Where the object sits.
 * @param value The whole parsed value (to choose union options).
 * @returns The known keys, or an empty list.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PathKey[], value: unknown): string[] {
  const s = schemaAt(schema, path, value);
  return s?._zod?.def?.type === "object" ? Object.keys(s._zod.def.shape) : [];
}

function valueAt(value: unknown, path: readonly PathKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (!v || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PathKey, unknown>)[key];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  return String(v);
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  int: "an integer",
  string: "a string",
  boolean: "true or false",
  object: "a map",
  array: "a list",
  record: "a map",
};

/** Turns one zod issue into spec issues (an unknown-keys issue becomes one per key). */
function fromZodIssue(
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
  value: unknown,
): { path: PathKey[]; message: string; atKey?: boolean }[] {
  const path = issue.path as PathKey[];
  const actual = valueAt(value, path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeysAt(schema, path, value);
      return issue.keys.map((key) => ({
        path: [...path, key],
        atKey: true,
        message: `Unknown key ${JSON.stringify(key)}${didYouMean(key, known)}` +
          (known.length ? `; allowed here: ${known.join(", ")}` : ""),
      }));
    }
    case "invalid_type": {
      const last = path[path.length - 1];
      const parent = valueAt(value, path.slice(0, -1)) as Record<string, unknown> | undefined;
      if (
        last === "code" && actual === undefined && parent && typeof parent === "object" &&
        !("builtin" in parent)
      ) {
        return [{
          path: path.slice(0, -1),
          message: 'An entry needs `builtin: NAME` or `code: "path/module.ts#export"`',
        }];
      }
      if (actual === undefined) {
        return [{ path, message: `Missing required field ${JSON.stringify(last)}` }];
      }
      // A field that may never be written here says why in its own message.
      if (issue.expected === "never") return [{ path, message: issue.message }];
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      return [{ path, message: `Expected ${expected}, got ${describeValue(actual)}` }];
    }
    case "invalid_union": {
      if ("discriminator" in issue && issue.discriminator) {
        const options = (issue as unknown as { options: unknown[] }).options
          .filter((o): o is string => typeof o === "string");
        const got = String(actual);
        return [{
          path,
          message: options.length
            ? `Unknown builtin ${JSON.stringify(got)}${didYouMean(got, options)}; known builtins: ${
              options.join(", ")
            }`
            : `Unknown builtin ${
              JSON.stringify(got)
            }: there are no builtins of this kind; use \`code:\``,
        }];
      }
      return [{ path, message: issue.message }];
    }
    case "invalid_value": {
      const options = issue.values.map(String);
      return [{
        path,
        message: `Expected one of ${options.map((o) => JSON.stringify(o)).join(", ")}, got ${
          describeValue(actual)
        }${didYouMean(String(actual), options)}`,
      }];
    }
    case "too_small":
    case "too_big":
      return [{ path, message: `${issue.message} (got ${describeValue(actual)})` }];
    default:
      return [{ path, message: issue.message }];
  }
}

/** Finds the YAML node range that best locates a path (the key itself when `atKey`). */
function locate(doc: Document, path: readonly PathKey[], atKey: boolean): number | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined = (node as Node | null)?.range?.[0];
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p: Pair) =>
        isScalar(p.key) && String(p.key.value) === String(key)
      );
      if (!pair) return offset;
      const keyNode = pair.key as Node | null;
      if (atKey && i === path.length - 1) return keyNode?.range?.[0] ?? offset;
      const valueNode = pair.value as Node | null;
      offset = valueNode?.range?.[0] ?? keyNode?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === "number") {
      const item = node.items[key];
      if (!item) return offset;
      node = isPair(item) ? item.value : item;
      offset = (node as Node | null)?.range?.[0] ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

/**
 * The 1-based line and column of a path in the document (of the key itself when `atKey`), or of its
 * deepest existing ancestor.
 *
 * @param doc The YAML document.
 * @param lineCounter The line counter used when it was parsed.
 * @param path The path.
 * @param atKey Point at the key rather than the value.
 * @returns The position, when known.
 */
export function positionOf(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PathKey[],
  atKey = false,
): { line: number; column: number } | undefined {
  const offset = locate(doc, path, atKey);
  if (offset === undefined) return undefined;
  const pos = lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/**
 * Converts zod issues into spec issues with messages, dotted paths and YAML positions.
 *
 * @param issues The zod issues.
 * @param schema The schema that produced them.
 * @param value The parsed value that was checked.
 * @param doc The YAML document (for positions).
 * @param lineCounter The line counter used when the document was parsed.
 * @returns One spec issue per problem, in document order.
 */
export function toSpecIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  value: unknown,
  doc: Document,
  lineCounter: LineCounter,
): SpecIssue[] {
  const out: SpecIssue[] = [];
  for (const issue of issues) {
    for (const one of fromZodIssue(issue, schema, value)) {
      const pos = positionOf(doc, lineCounter, one.path, one.atKey ?? false);
      out.push({ path: dotted(one.path), severity: "error", message: one.message, ...pos });
    }
  }
  return sortIssues(out);
}

/**
 * Sorts issues by line, then column, then path, so output is stable.
 *
 * @param issues The issues.
 * @returns A new sorted array.
 */
export function sortIssues(issues: SpecIssue[]): SpecIssue[] {
  return [...issues].sort((a, b) =>
    (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) ||
    a.path.localeCompare(b.path)
  );
}

/**
 * Formats an issue for people: `harness.yaml:4:3 limits.max_turns: Expected a number, got "12"`.
 *
 * @param issue The issue.
 * @returns One line.
 */
export function formatIssue(issue: SpecIssue): string {
  const where = issue.line ? `harness.yaml:${issue.line}:${issue.column ?? 1}` : "harness.yaml";
  const path = issue.path ? ` ${issue.path}:` : "";
  return `${where}${path} ${issue.severity === "warning" ? "warning: " : ""}${issue.message}`;
}
