/**
 * Finding and reading a harness's eval sets: `<harness>/evals/<set>.yaml`.
 *
 * @module
 */

import { join } from "node:path";
import { badInput } from "../errors.ts";
import { EVAL_SET_NAME, EVALS_DIR, type EvalSet, parseEvalSetText } from "./eval_set.ts";
import type { SpecIssue } from "./issues.ts";
import { invalidSpecError } from "./load.ts";

/**
 * The names of a harness's eval sets, sorted.
 *
 * @param dir The harness folder.
 * @returns The set names (file names without `.yaml`).
 */
export async function listEvalSets(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(join(dir, EVALS_DIR))) {
      const m = e.isFile ? /^(.+)\.ya?ml$/.exec(e.name) : null;
      if (m && EVAL_SET_NAME.test(m[1]!)) names.push(m[1]!);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names.sort();
}

/**
 * The problems of every eval set of a harness, each with the set's file as its path prefix (for
 * `validate`).
 *
 * @param dir The harness folder.
 * @returns The issues.
 */
export async function evalSetIssues(dir: string): Promise<SpecIssue[]> {
  const out: SpecIssue[] = [];
  for (const name of await listEvalSets(dir)) {
    const file = `${EVALS_DIR}/${name}.yaml`;
    const { issues } = parseEvalSetText(await readSetText(dir, name));
    for (const i of issues) out.push({ ...i, path: i.path ? `${file}#${i.path}` : file });
  }
  return out;
}

/**
 * The file of a set, relative to the harness: `evals/<name>.yaml`, or `evals/<name>.yml` when only
 * that one exists.
 *
 * @param dir The harness folder.
 * @param name The set's name.
 * @returns The relative path and whether the file exists.
 */
export async function evalSetFile(
  dir: string,
  name: string,
): Promise<{ path: string; exists: boolean }> {
  for (const ext of ["yaml", "yml"]) {
    const path = `${EVALS_DIR}/${name}.${ext}`;
    try {
      if ((await Deno.stat(join(dir, path))).isFile) return { path, exists: true };
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return { path: `${EVALS_DIR}/${name}.yaml`, exists: false };
}

async function readSetText(dir: string, name: string): Promise<string> {
  const file = await evalSetFile(dir, name);
  if (!file.exists) {
    throw badInput(`No eval set ${JSON.stringify(name)}: write ${EVALS_DIR}/${name}.yaml`);
  }
  return await Deno.readTextFile(join(dir, file.path));
}

/**
 * Reads one eval set, or the only one when no name is given.
 *
 * @param dir The harness folder.
 * @param name The set's name; may be omitted when the harness has exactly one.
 * @returns The name and the set.
 * @throws `bad_input` when there is no such set, several to choose from, or the set is invalid.
 */
export async function loadEvalSet(
  dir: string,
  name?: string,
): Promise<{ name: string; set: EvalSet }> {
  const names = await listEvalSets(dir);
  if (name === undefined) {
    if (!names.length) {
      throw badInput(
        `${dir} has no eval set: write ${EVALS_DIR}/<name>.yaml with cases (framework schema --eval shows the format)`,
      );
    }
    if (names.length > 1) {
      throw badInput(`Choose a set with --set: ${names.join(", ")}`, { sets: names });
    }
    name = names[0]!;
  }
  if (!EVAL_SET_NAME.test(name) || !names.includes(name)) {
    throw badInput(
      `No eval set ${JSON.stringify(name)} in ${dir}${
        names.length ? `; sets: ${names.join(", ")}` : ""
      }`,
    );
  }
  const parsed = parseEvalSetText(await readSetText(dir, name));
  if (!parsed.set) {
    throw invalidSpecError(parsed.issues, `Invalid eval set ${EVALS_DIR}/${name}.yaml`);
  }
  return { name, set: parsed.set };
}
