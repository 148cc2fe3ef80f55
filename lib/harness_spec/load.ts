/**
 * Reading and checking `harness.yaml`: the YAML Document (kept for in-place edits), the parsed value,
 * every issue with its dotted path and YAML position, and the version hash.
 *
 * @module
 */

import type { HarnessRef } from "../hive/harnesses.ts";
import { type Document, LineCounter, parseDocument } from "yaml";
import { badInput, type FrameworkError } from "../errors.ts";
import { specPath } from "../paths.ts";
import { dotted, positionOf, sortIssues, type SpecIssue, toSpecIssues } from "./issues.ts";
import { harnessSchema, type HarnessSpec } from "./schema.ts";
import { specVersion } from "./version.ts";
import { specWarnings } from "./warnings.ts";

/** A parsed `harness.yaml` text, valid or not. */
export interface ParsedSpecText {
  text: string;
  doc: Document;
  lineCounter: LineCounter;
  /** The plain JS value of the document (undefined when the YAML itself is broken). */
  value: unknown;
  /** Errors and warnings, in document order. */
  issues: SpecIssue[];
  /** The typed spec when there are no errors. */
  spec?: HarnessSpec;
}

/** A valid spec loaded from a harness folder. */
export interface LoadedSpec {
  /** The harness folder (absolute, symlinks resolved). */
  dir: string;
  /** `<dir>/harness.yaml`. */
  path: string;
  text: string;
  spec: HarnessSpec;
  /** Hex SHA-256 of the canonical JSON of the spec. */
  version: string;
  /** Warnings (a valid spec has no errors). */
  warnings: SpecIssue[];
}

/**
 * The hive's binding of a loaded harness: its id and its folder.
 *
 * @param loaded The loaded spec.
 * @returns `{id, dir}`.
 */
export function harnessRef(loaded: { dir: string; spec: { id: string } }): HarnessRef {
  return { id: loaded.spec.id, dir: loaded.dir };
}

/**
 * Parses and checks spec text, collecting every issue rather than stopping at the first.
 *
 * @example
 * ```ts
 * parseSpecText("id: Bad\n").issues.map((i) => i.path); // ["model", "id"]
 * ```
 * @param text The YAML text.
 * @returns The document, value, issues and (when valid) the typed spec.
 */
export function parseSpecText(text: string): ParsedSpecText {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e): SpecIssue => {
      const pos = lineCounter.linePos(e.pos[0]);
      return {
        path: "",
        severity: "error",
        message: `Invalid YAML: ${e.message.split("\n")[0]}`,
        line: pos.line,
        column: pos.col,
      };
    });
    return { text, doc, lineCounter, value: undefined, issues };
  }
  const value = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value)) {
    return {
      text,
      doc,
      lineCounter,
      value,
      issues: [{
        path: "",
        severity: "error",
        message: "harness.yaml must be a map with at least `id` and `model`",
        line: 1,
        column: 1,
      }],
    };
  }
  const result = harnessSchema.safeParse(value);
  if (!result.success) {
    const issues = toSpecIssues(result.error.issues, harnessSchema, value, doc, lineCounter);
    return { text, doc, lineCounter, value, issues };
  }
  const warnings = specWarnings(result.data).map((w): SpecIssue => ({
    path: dotted(w.path),
    severity: "warning",
    message: w.message,
    ...positionOf(doc, lineCounter, w.path),
  }));
  return { text, doc, lineCounter, value, issues: sortIssues(warnings), spec: result.data };
}

/** Whether a list of issues holds an error (warnings do not count). */
export function hasErrors(issues: readonly SpecIssue[]): boolean {
  return issues.some((i) => i.severity === "error");
}

/**
 * Whether a parsed spec is valid: it was typed and none of its issues is an error. The one
 * definition of "valid" that listings, edits, versions and runs share; `issues` may hold more than
 * the parse found (validate adds code and trace-folder problems).
 *
 * @param parsed The typed spec, if any, and its issues.
 * @returns True when the spec can run.
 */
export function specIsValid<T extends { spec?: HarnessSpec; issues: readonly SpecIssue[] }>(
  parsed: T,
): parsed is T & { spec: HarnessSpec } {
  return !!parsed.spec && !hasErrors(parsed.issues);
}

/**
 * Resolves a harness folder: it must exist and be a folder. Symlinks are resolved.
 *
 * @param dir The folder as given by the user.
 * @returns The absolute real path.
 */
export async function resolveHarnessDir(dir: string): Promise<string> {
  let real: string;
  try {
    real = await Deno.realPath(dir);
  } catch {
    throw badInput(
      `Harness folder not found: ${JSON.stringify(dir)}; create one with \`framework init ${dir}\``,
      {
        dir,
      },
    );
  }
  const info = await Deno.stat(real);
  if (!info.isDirectory) {
    throw badInput(`Not a folder: ${JSON.stringify(dir)}; pass the harness folder`, { dir });
  }
  return real;
}

/**
 * Reads `harness.yaml` of a folder.
 *
 * @param dir The harness folder (already resolved).
 * @returns The text.
 */
export async function readSpecText(dir: string): Promise<string> {
  try {
    return await Deno.readTextFile(specPath(dir));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw badInput(
        `No harness.yaml in ${JSON.stringify(dir)}; create one with \`framework init ${dir}\``,
        {
          dir,
        },
      );
    }
    throw err;
  }
}

/**
 * Checks a harness folder's spec and reports every issue; never throws for an invalid spec.
 *
 * @param dir The harness folder.
 * @returns The folder, the parsed text and the issues.
 */
export async function checkHarness(dir: string): Promise<{ dir: string; parsed: ParsedSpecText }> {
  const real = await resolveHarnessDir(dir);
  return { dir: real, parsed: parseSpecText(await readSpecText(real)) };
}

/**
 * Builds the error thrown for an invalid spec: the first issue in the message, all of them in details.
 *
 * @param issues The issues (at least one error).
 * @param context What was being done, e.g. `Invalid harness.yaml`.
 * @returns A `bad_input` error.
 */
export function invalidSpecError(
  issues: SpecIssue[],
  context = "Invalid harness.yaml",
): FrameworkError {
  const errors = issues.filter((i) => i.severity === "error");
  const first = errors[0];
  const where = first?.line ? ` (line ${first.line}, column ${first.column})` : "";
  const more = errors.length > 1
    ? ` and ${errors.length - 1} more; run \`framework validate\``
    : "";
  return badInput(
    `${context}: ${first?.path ? `${first.path}: ` : ""}${
      first?.message ?? "unknown problem"
    }${where}${more}`,
    { issues },
  );
}

/**
 * Loads a harness's spec, refusing an invalid one with every issue in the error's details.
 *
 * @example
 * ```ts
 * const { spec, version } = await loadSpec("./harnesses/hello");
 * ```
 * @param dir The harness folder.
 * @returns The loaded spec.
 */
export async function loadSpec(dir: string): Promise<LoadedSpec> {
  const { dir: real, parsed } = await checkHarness(dir);
  if (!specIsValid(parsed)) throw invalidSpecError(parsed.issues);
  return {
    dir: real,
    path: specPath(real),
    text: parsed.text,
    spec: parsed.spec,
    version: specVersion(parsed.value),
    warnings: parsed.issues,
  };
}
