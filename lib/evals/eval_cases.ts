/**
 * Adding a case to an eval set (`<harness>/evals/<set>.yaml`), typically from a run the person just
 * looked at: "this one must keep working". One function writes it for every face (the workbench's
 * Trace and Runs, `framework eval add`): under the harness lock, the set's text is edited by splicing
 * bytes (its comments and layout stay), the whole set is validated before anything is written, the
 * case id must be new to the set (409 otherwise), and the file is replaced atomically.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { stringify } from "yaml";
import { badInput, FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import type { Hive } from "../hive/open.ts";
import { harnessOfRun, type RunRow } from "../hive/runs.ts";
import { getTrace } from "../journal/trace.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { specLockPath } from "../paths.ts";
import type { RunStatus } from "../run_types.ts";
import {
  EVAL_SET_NAME,
  type EvalCase,
  evalCaseSchema,
  parseEvalSetText,
} from "../harness_spec/eval_set.ts";
import { evalSetFile, listEvalSets } from "../harness_spec/eval_sets.ts";
import { invalidSpecError, loadSpec } from "../harness_spec/load.ts";
import { appendInText } from "../harness_spec/yaml_edit.ts";

/** A case as it was written. */
export interface AddedEvalCase {
  harness_id: string;
  set: string;
  /** The set's file, relative to the harness folder. */
  path: string;
  case: EvalCase;
  /** Whether the set's file was created by this call. */
  created_set: boolean;
}

/** The rule a set's name follows, for messages. */
const SET_NAME_RULE =
  "expected lowercase letters, digits, '-' and '_', starting with a letter or a digit";

/** The case's fields in the order a person reads them; `status: success` is the default, left out. */
function orderedCase(c: EvalCase): Record<string, unknown> {
  const out: Record<string, unknown> = { id: c.id };
  if (c.description !== undefined) out.description = c.description;
  if (c.input !== undefined) out.input = c.input;
  if (c.input_file !== undefined) out.input_file = c.input_file;
  if (c.status !== undefined && c.status !== "success") out.status = c.status;
  if (c.expect?.length) out.expect = c.expect;
  return out;
}

/** Reads a case from a body: bad input names the field. */
function readCase(value: unknown): EvalCase {
  const parsed = evalCaseSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join(".");
    throw badInput(
      `Invalid eval case: ${path ? `${JSON.stringify(path)}: ` : ""}${issue.message}`,
      {
        field: path ? `case.${path}` : "case",
      },
    );
  }
  return parsed.data;
}

/** The text of a new set holding one case. */
function newSetText(set: string, harnessId: string, item: Record<string, unknown>): string {
  return `# Eval set "${set}" of ${harnessId}: run it with framework eval <dir> --set ${set}\n` +
    stringify({ cases: [item] }, { lineWidth: 0 });
}

/**
 * Adds one case to a harness's eval set, creating the set when it does not exist yet.
 *
 * @example
 * ```ts
 * await addEvalCase("./harnesses/hello", "smoke", {
 *   id: "greets",
 *   input: "Hello",
 *   expect: [{ builtin: "contains", text: "Hi" }],
 * });
 * ```
 * @param harnessDir The harness folder.
 * @param set The set's name (its file is `evals/<set>.yaml`).
 * @param value The case: `{id, input?, input_file?, status?, expect?, description?}`.
 * @returns What was written.
 * @throws `bad_input` for a bad name, case, `input_file` (checked like a run's) or a set that would
 *   not be valid; `conflict` when the set already has a case with that id.
 */
export async function addEvalCase(
  harnessDir: string,
  set: string,
  value: unknown,
): Promise<AddedEvalCase> {
  if (typeof set !== "string" || !EVAL_SET_NAME.test(set)) {
    throw badInput(`The eval set's name ${JSON.stringify(set)}: ${SET_NAME_RULE}`, {
      field: "set",
    });
  }
  const item = readCase(value);
  if (item.input === undefined && item.input_file === undefined) {
    throw badInput("An eval case needs `input` (text) or `input_file` (a path in the harness)", {
      field: "case.input",
    });
  }
  const loaded = await loadSpec(harnessDir);
  const dir = loaded.dir;
  const traces = protectedTraceDirs(dir, loaded.spec.logging?.trace_dir);
  if (item.input_file !== undefined) {
    item.input_file = (await resolveSafePath(dir, item.input_file, { traceDirs: traces })).relative;
  }
  const written = orderedCase(item);
  return await withFileLock(specLockPath(dir), async () => {
    const file = await evalSetFile(dir, set);
    // The evals folder itself may be a link: the file must still be inside the harness.
    const target = (await resolveSafePath(dir, file.path, { traceDirs: traces })).absolute;
    let text: string;
    if (file.exists) {
      const current = await Deno.readTextFile(target);
      const parsed = parseEvalSetText(current);
      if (!parsed.set) {
        throw invalidSpecError(
          parsed.issues,
          `${file.path} has problems; fix them before adding a case`,
        );
      }
      if (parsed.set.cases.some((c) => c.id === item.id)) {
        throw new FrameworkError(
          "conflict",
          `${file.path} already has a case ${JSON.stringify(item.id)}; choose another id`,
          { field: "case.id", set, case_id: item.id },
        );
      }
      text = appendInText(current, ["cases"], written);
    } else {
      text = newSetText(set, loaded.spec.id, written);
    }
    const check = parseEvalSetText(text);
    if (!check.set) {
      throw invalidSpecError(
        check.issues,
        `Cannot add case ${JSON.stringify(item.id)} to ${file.path}`,
      );
    }
    await Deno.mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, text);
    return {
      harness_id: loaded.spec.id,
      set,
      path: file.path,
      case: check.set.cases.find((c) => c.id === item.id)!,
      created_set: !file.exists,
    };
  });
}

/** A case drafted from a run, for a person to check before it is added. */
export interface EvalCaseDraft {
  harness_id: string;
  run_id: string;
  /** The harness's sets, to choose from (a new name makes a new set). */
  sets: string[];
  /** The run's input (or input file), its status as the expected one, and a check of its output. */
  case: EvalCase & { status: RunStatus; expect: NonNullable<EvalCase["expect"]> };
}

/** The first line of an output, cut at a word near 100 characters: a check that is not brittle. */
function outputCheck(output: string): string | undefined {
  const line = output.split("\n").map((l) => l.trim()).find((l) => l.length > 0);
  if (!line) return undefined;
  if (line.length <= 100) return line;
  const cut = line.slice(0, 100);
  const space = cut.lastIndexOf(" ");
  return space > 40 ? cut.slice(0, space) : cut;
}

/** A case id from the input's first words, new to every set of the harness. */
function suggestId(words: string, taken: Set<string>): string {
  const base = words.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim().split(" ").filter(Boolean)
    .slice(0, 5).join("-").slice(0, 40).replace(/-+$/, "") || "case";
  for (let n = 1;; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(id)) return id;
  }
}

/**
 * Drafts an eval case from a finished run: its input (or `input_file`), its status as the expected
 * one, a `contains` check of the first line of its output, and an id new to the harness's sets.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { findRun } from "../journal/trace.ts";
 *
 * const db = openHive();
 * const row = findRun(db, null, "run_01J9Z3K8Q4N6V2W7X5Y0A1B2C3");
 * const draft = await evalCaseFromRun(db, row);
 * await addEvalCase(row.harness_dir, "smoke", draft.case);
 * ```
 * @param db The hive.
 * @param row The run.
 * @returns The draft.
 * @throws `conflict` while the run is still going.
 */
export async function evalCaseFromRun(db: Hive, row: RunRow): Promise<EvalCaseDraft> {
  if (row.status === "running") {
    throw new FrameworkError(
      "conflict",
      `Run ${row.run_id} is still going; add it to an eval set once it has ended`,
      { run_id: row.run_id },
    );
  }
  const { events } = await getTrace(db, harnessOfRun(row), row.run_id);
  const started = events.find((e) => e.type === "run_started")?.payload ?? {};
  const finished = events.findLast((e) => e.type === "run_finished")?.payload ?? {};
  const text = typeof started.input === "string" ? started.input : row.input_excerpt;
  const file = typeof started.input_file === "string" ? started.input_file : undefined;
  // A run of `input` with `input_file` was given both, joined as `<input>\n\n[file: <path>]\n<content>`.
  const joined = file ? text.indexOf(`\n\n[file: ${file}]\n`) : -1;
  const input = file ? (joined > 0 ? text.slice(0, joined) : undefined) : text;
  const output = typeof finished.output === "string" ? finished.output : row.output_excerpt;
  const check = outputCheck(output);
  const sets = await listEvalSets(row.harness_dir);
  const taken = new Set<string>();
  for (const name of sets) {
    const f = await evalSetFile(row.harness_dir, name);
    const parsed = parseEvalSetText(await Deno.readTextFile(join(row.harness_dir, f.path)));
    for (const c of parsed.set?.cases ?? []) taken.add(c.id);
  }
  return {
    harness_id: row.harness_id,
    run_id: row.run_id,
    sets,
    case: {
      id: suggestId(input ?? basename(file ?? ""), taken),
      ...(input !== undefined ? { input } : {}),
      ...(file !== undefined ? { input_file: file } : {}),
      status: row.status,
      expect: check ? [{ builtin: "contains", text: check }] : [],
    },
  };
}
